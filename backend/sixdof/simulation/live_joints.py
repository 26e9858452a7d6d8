"""The elements of a live world packed again after a change, with its joints kept where they
hold now.

A joint is built where its bodies are (kinds/joint `_build`: its omitted ends, the relative
turn it keeps, the zero of its coordinate). In a running room that is the live state, not
the scenario's start: a joint already in the list keeps the dynamics element it was built
as (its bodies have moved since the start, and its spring's zero must not move with them);
a joint new to the list is built at the live state, refused when its ends are apart now
(naming the gap and where the body would have to be now), and its omitted ends are written
into the scenario as where they are (as a new pivot's `at` is). A joint that differs from
one in the list only in what the panel tunes along its coordinate (TUNED) is that joint
retuned: its ends, its relative turn and its coordinate's zero stay as built. Every other
kind is built from the scenario, as at the start.
"""

from __future__ import annotations

import dataclasses

from ..dynamics import Bodies
from ..dynamics.elements import Element, Joint, System, pack_system
from ..dynamics.quaternion import Array
from ..fields import FieldError
from ..scenario import Scenario
from ..scenario.elements import dynamics_elements
from ..scenario.kind import BodyEnd
from ..scenario.kinds.joint import JointElement
from . import elements_gate

#: A joint's fields the panel tunes live (scenario/kinds/joint.py's Panel).
TUNED = ("damping", "stiffness", "rest", "limits", "restitution")


def _shape(spec: JointElement) -> dict[str, object]:
    """What makes it the joint it is: everything but TUNED."""
    return spec.model_dump(exclude=set(TUNED))


def _retuned(spec: JointElement, built: Element) -> Element:
    """The joint `built` with `spec`'s TUNED values."""
    assert isinstance(built, Joint)
    limits = None if spec.limits is None else (float(spec.limits[0]), float(spec.limits[1]))
    return dataclasses.replace(
        built, damping=spec.damping, stiffness=spec.stiffness, rest=spec.rest, limits=limits,
        restitution=spec.restitution,
    )  # fmt: skip


def _explicit(spec: JointElement, built: Joint, names: list[str]) -> JointElement:
    """The spec with both ends written out as the joint was built."""
    point = built.point
    if built.other is None:
        return spec.model_copy(update={"point": point, "to": built.to})
    return spec.model_copy(
        update={"point": point, "to": BodyEnd(body=names[built.other], point=built.to)}
    )


def live_system(
    scenario: Scenario, bodies: Bodies, before: Scenario, system: System | None, x: Array
) -> tuple[Scenario, System | None]:
    """`scenario` (the next one) with its new joints' ends written out, and its elements
    packed for `bodies`; `before` and `system` the current ones, x the live state."""
    if not scenario.elements:
        return scenario, None
    elements_gate.check(scenario.elements)
    kept: list[tuple[JointElement, Element]] = []
    if system is not None:
        kept = [
            (spec, built)
            for spec, built in zip(before.elements, system.elements, strict=True)
            if isinstance(spec, JointElement)
        ]
    names = [b.Name for b in scenario.bodies]
    specs = list(scenario.elements)
    joints: dict[int, Element] = {}
    for k, spec in enumerate(specs):
        if not isinstance(spec, JointElement):
            continue
        same = next((j for j, (s, _) in enumerate(kept) if s == spec), None)
        if same is not None:
            joints[k] = kept.pop(same)[1]
            continue
        shape = _shape(spec)
        same = next((j for j, (s, _) in enumerate(kept) if _shape(s) == shape), None)
        if same is not None:
            joints[k] = _retuned(spec, kept.pop(same)[1])
            continue
        try:
            (built,) = dynamics_elements([spec], scenario.bodies, x, None)
        except FieldError as exc:
            message = str(exc).replace("starts with its ends", "has its ends now")
            raise FieldError(exc.field, exc.code, message) from None
        assert isinstance(built, Joint)
        joints[k] = built
        specs[k] = _explicit(spec, built, names)
    scenario = scenario.model_copy(update={"elements": specs})
    others = [s for k, s in enumerate(specs) if k not in joints]
    initial = scenario.initial_states()
    found = iter(dynamics_elements(others, scenario.bodies, initial, scenario.water))
    elements = [joints[k] if k in joints else next(found) for k in range(len(specs))]
    return scenario, pack_system(bodies, elements)


__all__ = ["live_system"]
