"""The numbers a preset's caption quotes, computed from its scenario: `caption_values`.

Every number in a caption, title or question is a placeholder of its ICU message in the
locale catalogues (`preset.NAME.caption`, …); this module gives them their values, from the
scenario the preset's file describes, so a changed file changes the caption in every
language. The formulas a caption shows are notation, the same in every language: they are
values too (strings), written once here instead of once per catalogue.

Two figures come from the shipped meshes rather than a closed form, since solving the hull
is costly: `HULL` (tests/unit/test_presets.py checks both against analysis/hydrostatics.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TypeVar

from ..elements import AddedMassElement, DamperElement, GroundElement, PivotElement, SpringElement
from ..kinds.controller import ControllerElement
from ..model import BodySpec, Scenario
from .hydrodynamics import BY_NAME as HYDRODYNAMICS
from .lines import BY_NAME as LINES
from .mechanisms import BY_NAME as MECHANISMS

Values = dict[str, float | str]
E = TypeVar("E", PivotElement, SpringElement, DamperElement, GroundElement, AddedMassElement)

#: Mesh figures: the faceted cylinder's waterplane at Size 1 (meshes/cylinder.glb, 32 sides,
#: m²), and the ship hull's upright GM (m) and heel under its Moment (degrees) as preset
#: heeled_ship sizes, loads and heels it (GZ from the clipped mesh, draft and trim re-solved
#: at each heel: about a second of work).
HULL = {"cylinder_waterplane": 0.78217, "ship_gm": 0.2960, "ship_heel": 11.03}


def elliptic_k(m: float) -> float:
    """The complete elliptic integral of the first kind K(m) = ∫₀^{π/2} dφ / √(1 − m sin²φ)
    (parameter m = k², 0 ≤ m < 1), from the arithmetic-geometric mean: π / (2 AGM(1, √(1 − m)))."""
    a, b = 1.0, math.sqrt(1.0 - m)
    while abs(a - b) > 1e-15 * a:
        a, b = 0.5 * (a + b), math.sqrt(a * b)
    return math.pi / (2.0 * a)


def _turned(b: BodySpec) -> float:
    """The angle of a body turned about one body axis (its Quater), rad."""
    w, x, y, z = b.Quater
    return 2.0 * math.atan2(math.sqrt(x * x + y * y + z * z), w)


def _density(s: Scenario) -> float:
    assert s.water is not None, f"preset {s.name} floats, it needs water"
    return s.water.density


def _first(s: Scenario, kind: type[E]) -> E:
    """The scenario's first element of `kind`."""
    return next(e for e in s.elements if isinstance(e, kind))


def _hover(s: Scenario) -> Values:
    b = s.bodies[0]
    return {"weight": b.Mass * b.Gravity, "force": b.Force[2]}


def _free_fall(s: Scenario) -> Values:
    g, t1, t2 = s.bodies[0].Gravity, 1.0, 2.0
    return {"t1": t1, "t2": t2, "z1": 0.5 * g * t1**2, "z2": 0.5 * g * t2**2, "g": g}


def _projectile(s: Scenario) -> Values:
    b = s.bodies[0]
    g, v, up = b.Gravity, b.LocalVel[0], -b.LocalVel[2]
    return {"v": v, "up": up, "top": up**2 / (2 * g), "t_top": up / g, "z0": b.Pos[2],
            "t_back": 2 * up / g, "range": 2 * v * up / g}  # fmt: skip


def _tennis_racket(s: Scenario) -> Values:
    return {"spin": s.bodies[0].AngVel[0]}


def _symmetric_top(s: Scenario) -> Values:
    b = s.bodies[0]
    rx, _, rz = b.InertiaRadi
    lx, lz = rx**2 * b.AngVel[0], rz**2 * b.AngVel[2]  # L / m in body axes (x, z)
    rate = math.hypot(lx, lz) / rx**2  # torque-free precession |L| / I⊥
    return {"cone": math.degrees(math.atan2(lx, lz)), "period": 2 * math.pi / rate, "rate": rate}


def _spin_up(s: Scenario) -> Values:
    b = s.bodies[0]
    moment = b.Moment[2]
    return {"moment": moment, "rate": moment / (b.Mass * b.InertiaRadi[2] ** 2)}


def _coriolis_full(s: Scenario) -> Values:
    b = s.bodies[0]
    return {"v": b.LocalVel[0], "w": b.AngVel[2]}


def _coriolis_fhsim(s: Scenario) -> Values:
    b = s.bodies[0]
    v, w = b.LocalVel[0], b.AngVel[2]
    return {"radius": v / w, "period": 2 * math.pi / w}  # the velocity fixed in the body


def _offset_cg(s: Scenario) -> Values:
    b = s.bodies[0]
    offset, w = math.hypot(*b.CGOffset), b.AngVel[2]
    return {"offset": offset, "w": w, "speed": w * offset}


def _stretch_it(s: Scenario) -> Values:
    """The bar's flip interval (2K(m)/λ, dynamics.exact) with the inertia its shape gives
    (InertiaFrom solid), as it comes and stretched to twice its length along y."""
    import numpy as np

    from ...dynamics.exact import flip_interval
    from ..body_mesh import shape_fields

    b = s.bodies[0]
    w0 = np.array(b.AngVel)
    longer = b.model_copy(update={"Size": (b.Size[0], 2 * b.Size[1], b.Size[2])})
    longer = longer.model_copy(update=shape_fields(longer))
    return {"x": b.Size[0], "y": b.Size[1], "z": b.Size[2], "spin": b.AngVel[0],
            "flip": flip_interval(b.params().inertia_cg, w0), "long_y": longer.Size[1],
            "long_flip": flip_interval(longer.params().inertia_cg, w0)}  # fmt: skip


def _compound_pendulum(s: Scenario) -> Values:
    b, pivot = s.bodies[0], _first(s, PivotElement)
    d = math.dist(pivot.point, b.CGOffset)  # pivot to CG
    i_o = b.Mass * (b.InertiaRadi[0] ** 2 + d**2)  # about the pivot's x axis
    scale = math.sqrt(i_o / (b.Mass * b.Gravity * d))
    angle = _turned(b)
    # the ball on a string beside it (issue 45: the question compares the two), same release
    ball = s.body("Ball")
    held = next(e for e in s.elements if isinstance(e, PivotElement) and e.body == "Ball")
    string = math.dist(held.point, ball.CGOffset)
    ball_scale = math.sqrt((ball.InertiaRadi[0] ** 2 + string**2) / (ball.Gravity * string))
    return {"bar": b.Size[2], "length": i_o / (b.Mass * d), "small": 2 * math.pi * scale,
            "period": 4 * elliptic_k(math.sin(angle / 2) ** 2) * scale,
            "string": string, "ball": 4 * elliptic_k(math.sin(_turned(ball) / 2) ** 2) * ball_scale,
            "angle": math.degrees(angle), "f_small": "2π √(I_o/(m g d))",
            "f_period": "4 K(sin²(θ₀/2)) √(I_o/(m g d))"}  # fmt: skip


def _heavy_top(s: Scenario) -> Values:
    b, pivot = s.bodies[0], _first(s, PivotElement)
    spin, tilt = b.AngVel[2], _turned(b)
    d = math.dist(pivot.point, b.CGOffset)  # the tip, below the CG
    i3 = b.Mass * b.InertiaRadi[2] ** 2
    i1 = b.Mass * (b.InertiaRadi[0] ** 2 + d**2)  # about the tip
    mgd = b.Mass * b.Gravity * d  # the gravity moment's size at 90° tilt
    precession = mgd / (i3 * spin)  # Ω ≈ m g d / (I₃ ω₃)
    dip = 2 * i1 * mgd * math.sin(tilt) / (i3 * spin) ** 2  # fast-top estimate, rad
    return {"spin": spin, "tilt": math.degrees(tilt), "precession": precession,
            "period": 2 * math.pi / precession, "dip": math.degrees(dip),
            "nods": i3 * spin / i1 / (2 * math.pi)}  # fmt: skip


def _gyroscope(s: Scenario) -> Values:
    b, pivot = s.bodies[0], _first(s, PivotElement)
    spin, axle = b.AngVel[2], math.dist(pivot.point, b.CGOffset)
    precession = b.Mass * b.Gravity * axle / (b.Mass * b.InertiaRadi[2] ** 2 * spin)
    return {"spin": spin, "axle": axle, "precession": precession,
            "period": 2 * math.pi / precession, "f_law": "Ω ∝ 1/ω₃"}  # fmt: skip


def _two_masses(s: Scenario) -> Values:
    m1, m2 = (s.body(n).Mass for n in ("Light", "Heavy"))  # "Lone" is the light one alone
    k = _first(s, SpringElement).stiffness
    omega = math.sqrt(k * (m1 + m2) / (m1 * m2))
    return {"m1": m1, "m2": m2, "k": k, "omega": omega, "period": 2 * math.pi / omega,
            "ratio": m2 / m1, "rigid": 0.0, "alone": 2 * math.pi * math.sqrt(m1 / k)}  # fmt: skip


def _bouncing_ball(s: Scenario) -> Values:
    b, ground = s.bodies[0], _first(s, GroundElement)
    e, v = ground.restitution, b.LocalVel[0]
    drop = ground.height - b.Pos[2] - b.Size[2] / 2  # of its lowest point
    return {"drop": drop, "v": v, "e2": e * e, "e": e, "mu": ground.friction,
            "f_roll": "5/7", "roll": 5 * v / 7}  # fmt: skip


def _spring_mount(s: Scenario) -> Values:
    b = s.bodies[0]
    springs = [e for e in s.elements if isinstance(e, SpringElement)]
    k, c = springs[0].stiffness, springs[0].damping
    arm = abs(springs[0].point[0])  # each spring's distance from the CG
    iy = b.Mass * b.InertiaRadi[1] ** 2
    wh, zh = math.sqrt(2 * k / b.Mass), 2 * c / (2 * math.sqrt(2 * k * b.Mass))
    wp = math.sqrt(2 * k * arm**2 / iy)
    zp = 2 * c * arm**2 / (2 * iy * wp)
    return {"k": k, "c": c, "apart": 2 * arm, "mass": b.Mass,
            "heave": 2 * math.pi / (wh * math.sqrt(1 - zh**2)),
            "pitch": 2 * math.pi / (wp * math.sqrt(1 - zp**2)),
            "f_heave": "2π/(√(2k/m) √(1−ζ²))", "f_pitch": "2π/(√(2kℓ²/I_y) √(1−ζ²))",
            "f_root": "√2"}  # fmt: skip


def _barge(b: BodySpec, rho: float, g: float) -> Values:
    """A wall-sided box barge: draft, heave period, KG, GM = KB + BM − KG and roll period."""
    length, beam, height = b.Size
    draft = b.Mass / (rho * length * beam)
    kg = b.MeshOrigin[2] + height / 2  # MeshOrigin: the box's centre seen from the CG
    gm = draft / 2 + beam**2 / (12 * draft) - kg
    return {"draft": draft, "heave": 2 * math.pi * math.sqrt(draft / g), "kg": kg, "gm": gm,
            "roll": 2 * math.pi * b.InertiaRadi[0] / math.sqrt(g * gm)}  # fmt: skip


def _floating_box(s: Scenario) -> Values:
    b = s.bodies[0]
    length, beam, height = b.Size
    return {"mass": b.Mass, "length": length, "beam": beam, "height": height, "mid": 0.0,
            "f_draft": "m/(ρ L B)", "f_heave": "2π√(m/(ρ g A_wp))", "f_roll": "2π r₄₄/√(g GM)",
            **_barge(b, _density(s), b.Gravity)}  # fmt: skip


def _stiff_and_tender(s: Scenario) -> Values:
    stiff, tender = (_barge(b, _density(s), b.Gravity) for b in s.bodies)
    return {"kg": stiff["kg"], "gm": stiff["gm"], "roll": stiff["roll"], "kg2": tender["kg"],
            "gm2": tender["gm"], "roll2": tender["roll"], "f_law": "T ∝ 1/√GM"}  # fmt: skip


def _buoy_in_waves(s: Scenario) -> Values:
    b, rho = s.bodies[0], _density(s)
    assert s.water is not None
    wave = s.water.waves[0]
    area = HULL["cylinder_waterplane"] * b.Size[0] * b.Size[1]
    draft = b.Mass / (rho * area)
    natural = 2 * math.pi * math.sqrt(b.Mass / (rho * b.Gravity * area))
    wavelength = b.Gravity * wave.period**2 / (2 * math.pi)  # deep water
    # Froude–Krylov heave force ρ g A a e^(−k T) on a wall-sided body, undamped response
    rao = math.exp(-2 * math.pi / wavelength * draft) / (1 - (natural / wave.period) ** 2)
    return {"natural": natural, "draft": draft, "amplitude": wave.amplitude,
            "period": wave.period, "wavelength": wavelength, "rao": rao,
            "f_rao": "e^(−k T)/(1 − (T_n/T)²)"}  # fmt: skip


def _heeled_ship(s: Scenario) -> Values:
    b = s.bodies[0]
    gm = HULL["ship_gm"]
    return {"moment": b.Moment[0], "tonnes": b.Mass / 1000, "size": b.Size[0], "gm": gm,
            "heel": HULL["ship_heel"],
            "linear": math.degrees(b.Moment[0] / (b.Mass * b.Gravity * gm))}  # fmt: skip


def _drift_in_current(s: Scenario) -> Values:
    b = s.bodies[0]
    assert s.water is not None
    current = s.water.current
    c = _first(s, DamperElement).linear[0]
    added = _first(s, AddedMassElement)
    assert added.diagonal is not None
    return {"north": current[0], "east": current[1], "c": c, "speed": math.hypot(*current),
            "tau": (b.Mass + added.diagonal[0]) / c}  # fmt: skip


def _station_keeping(s: Scenario) -> Values:
    """Surge under the PID, its integral left out: (m + A₁₁) ẍ + (kd + c) ẋ + kp x = 0."""
    b = s.bodies[0]
    assert s.water is not None
    pid = next(e for e in s.elements if isinstance(e, ControllerElement))
    c = _first(s, DamperElement).linear[0]
    added = _first(s, AddedMassElement)
    assert added.diagonal is not None
    kp, kd = pid.kp[0], pid.kd[0]

    def loop(mass: float) -> tuple[float, float]:
        inertia = mass + added.diagonal[0]  # type: ignore[index]  # checked just above
        return 2 * math.pi * math.sqrt(inertia / kp), (kd + c) / (2 * math.sqrt(kp * inertia))

    period, zeta = loop(b.Mass)
    period2, zeta2 = loop(2 * b.Mass)
    return {"current": s.water.current[0], "kp": kp, "kd": kd, "ki": pid.ki[0],
            "period": period, "zeta": zeta, "mass2": 2 * b.Mass, "period2": period2,
            "zeta2": zeta2, "f_period": "2π√((m + A₁₁)/kp)",
            "f_zeta": "(kd + c)/(2√(kp (m + A₁₁)))"}  # fmt: skip


_BY_NAME: dict[str, Callable[[Scenario], Values]] = {
    "hover": _hover,
    "free_fall": _free_fall,
    "projectile": _projectile,
    "tennis_racket": _tennis_racket,
    "symmetric_top": _symmetric_top,
    "spin_up": _spin_up,
    "coriolis_full": _coriolis_full,
    "coriolis_fhsim": _coriolis_fhsim,
    "offset_cg": _offset_cg,
    "stretch_it": _stretch_it,
    "compound_pendulum": _compound_pendulum,
    "heavy_top": _heavy_top,
    "gyroscope": _gyroscope,
    "two_masses_spring": _two_masses,
    "bouncing_ball": _bouncing_ball,
    "spring_mount": _spring_mount,
    "floating_box": _floating_box,
    "stiff_and_tender": _stiff_and_tender,
    "buoy_in_waves": _buoy_in_waves,
    "heeled_ship": _heeled_ship,
    "drift_in_current": _drift_in_current,
    **HYDRODYNAMICS,
    **MECHANISMS,
    "station_keeping": _station_keeping,
    **LINES,
}


def caption_values(name: str, scenario: Scenario) -> Values:
    """The placeholders' values of preset `name`'s title, caption and question, from its
    scenario (a preset without numbers gives none)."""
    numbers = _BY_NAME.get(name)
    return numbers(scenario) if numbers is not None else {}
