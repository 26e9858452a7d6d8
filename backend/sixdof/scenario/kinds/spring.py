"""A spring: a linear spring-damper from a body point to a world point or to another
body's point (docs/physics.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import Field

from ..bounded import Vec3, Within
from ..kind import (
    BodyPoint,
    Building,
    Checking,
    ElementModel,
    Kind,
    Panel,
    check_other_body,
    other_end_reader,
)

if TYPE_CHECKING:
    from ...dynamics.elements import Spring


class SpringElement(ElementModel):
    """A linear spring-damper from a body point to a world point or another body's point."""

    kind: Literal["spring"]
    point: Annotated[Vec3, Within("point")] = (0.0, 0.0, 0.0)
    to: Annotated[Vec3, Within("target")] | BodyPoint = Field(
        (0.0, 0.0, 0.0), description="world point [x, y, z] (NED, m) or {body, point}"
    )
    stiffness: Annotated[float, Within("stiffness")] = 100.0
    damping: Annotated[float, Within("damping")] = 0.0
    rest_length: Annotated[float, Within("rest_length")] = 0.0


def _check(e: SpringElement, k: int, scene: Checking) -> None:
    """Its other body is known, and is not its own."""
    if not isinstance(e.to, BodyPoint):
        return
    check_other_body(f"elements[{k}]", e.body, e.to.body, scene,
                     "a spring joins two bodies, or a body and a world point, not a body to "
                     "itself")  # fmt: skip


def _build(e: SpringElement, ctx: Building) -> Spring:
    from ...dynamics.elements import Spring

    i = ctx.index[e.body]
    if isinstance(e.to, BodyPoint):
        other = ctx.index[e.to.body]
        return Spring(i, e.point, e.to.point, e.stiffness, e.damping, e.rest_length, other)
    return Spring(i, e.point, e.to, e.stiffness, e.damping, e.rest_length)


KIND = Kind(
    name="spring",
    model=SpringElement,
    xml_object="Element/Spring",
    xml_attributes={
        "Point": ("point", 3),
        "To": ("to", 3),
        "ToPoint": ("to_point", 3),
        "Stiffness": ("stiffness", 1),
        "Damping": ("damping", 1),
        "RestLength": ("rest_length", 1),
    },
    xml_ports=("Force", "Moment", "ForceB", "MomentB"),
    xml_read=other_end_reader("spring"),
    build=_build,
    check=_check,
    drawing="coil",
    docs="physics.md#spring-body-point-to-a-world-point-or-to-another-bodys-point",
    example={
        "point": (0.0, 0.0, 0.5),
        "to": (0.0, 0.0, 2.0),
        "stiffness": 50.0,
        "damping": 0.5,
        "rest_length": 1.0,
    },
    panel=Panel(
        numbers=("stiffness", "damping", "rest_length"),
        vectors=(("point", 3), ("to", 3)),
        add=("point", "to"),
    ),
)
