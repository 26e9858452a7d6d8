"""The numbers the mechanism presets' captions quote (issue 41: bodies joined by joints),
computed from their scenarios: numbers.caption_values reaches them through `BY_NAME`.

Two figures come from a run rather than a closed form, for none exists: when the double
pendulum's ghost is first 1 cm from it, and how far the crane's swinging load rolls the barge
(`MEASURED`; tests/unit/test_presets_mechanisms.py runs both presets and checks them).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ..elements import DamperElement, LoadElement
from ..kinds.joint import JointElement
from ..model import BodySpec, Scenario

Values = dict[str, float | str]

#: Run figures: the double pendulum's ghost first 1 cm from it (s), the barge's largest roll
#: over the first 20 s (degrees).
MEASURED = {"ghost_apart": 8.56, "barge_roll": 4.51}


def _turned(b: BodySpec) -> float:
    """The angle of a body turned about one body axis (its Quater), rad."""
    w, x, y, z = b.Quater
    return 2.0 * math.atan2(math.sqrt(x * x + y * y + z * z), w)


def _body(s: Scenario, name: str) -> BodySpec:
    return next(b for b in s.bodies if b.Name == name)


def _double_pendulum(s: Scenario) -> Values:
    upper, lower, ghost = _body(s, "Upper"), _body(s, "Lower"), _body(s, "GhostLower")
    return {"bar": upper.Size[2], "mass": upper.Mass, "angle": math.degrees(_turned(upper)),
            "nudge": (_turned(ghost) - _turned(lower)) * 1e6,
            "apart": MEASURED["ghost_apart"]}  # fmt: skip


def _chain(s: Scenario) -> Values:
    links = [b for b in s.bodies if b.Name.startswith("Link")]
    return {
        "links": float(len(links)),
        "link": links[0].Size[2],
        "length": sum(b.Size[2] for b in links),
        "angle": math.degrees(_turned(links[0])),
    }


def _gimbal(s: Scenario) -> Values:
    rotor = _body(s, "Rotor")
    load = next(e for e in s.elements if isinstance(e, LoadElement))
    spin, moment = rotor.AngVel[2], math.hypot(*load.moment) * load.amplitude
    h = rotor.Mass * rotor.InertiaRadi[2] ** 2 * spin  # the rotor's spin momentum I₃ ω₃
    return {"spin": spin, "moment": moment, "start": load.start, "rate": moment / h,
            "period": 2 * math.pi * h / moment, "f_rate": "Ω = M / (I₃ ω₃)"}  # fmt: skip


def _four_bar(s: Scenario) -> Values:
    crank, coupler, rocker = (_body(s, n).Size[0] for n in ("Crank", "Coupler", "Rocker"))
    ends = [e.to for e in s.elements if isinstance(e, JointElement) and isinstance(e.to, tuple)]
    ground = math.dist(ends[0], ends[1])
    load = next(e for e in s.elements if isinstance(e, LoadElement))
    c = next(e for e in s.elements if isinstance(e, DamperElement)).linear[5]
    moment = load.moment[2] * load.amplitude

    def rocker_angle(reach: float) -> float:
        """The rocker's angle from the ground line when its tip is `reach` from the crank's
        hinge (crank and coupler in line: the rocker's ends of travel)."""
        cos = (ground**2 + rocker**2 - reach**2) / (2 * ground * rocker)
        return math.degrees(math.acos(cos))

    swing = rocker_angle(coupler + crank) - rocker_angle(coupler - crank)
    return {"crank": crank, "coupler": coupler, "rocker": rocker, "ground": ground,
            "moment": moment, "c": c, "speed": moment / c, "swing": swing}  # fmt: skip


def _crane_barge(s: Scenario) -> Values:
    load = _body(s, "Load")
    total = sum(b.Mass for b in s.bodies)
    return {"total": total, "load": load.Mass, "boom": _body(s, "Boom").Size[0],
            "swing": math.degrees(_turned(load)), "roll": MEASURED["barge_roll"]}  # fmt: skip


BY_NAME: dict[str, Callable[[Scenario], Values]] = {
    "double_pendulum": _double_pendulum,
    "chain": _chain,
    "gimbal_gyroscope": _gimbal,
    "four_bar": _four_bar,
    "crane_barge": _crane_barge,
}
