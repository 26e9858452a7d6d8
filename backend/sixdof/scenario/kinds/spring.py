"""A spring: a linear spring-damper from a body point to a world point or to another
body's point (docs/physics.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field

from ...fields import FieldError
from ..bounded import Vec3, Within
from ..kind import BodyPoint, Building, Checking, ElementModel, Kind, Panel, XmlLib, XmlReader

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
    where = f"elements[{k}]"
    if e.to.body not in scene.names:
        raise FieldError(
            "body",
            "unknown_body",
            f"{where}.to.body: no body named {e.to.body!r}; bodies are {list(scene.names)}",
        )
    if e.to.body == e.body:
        raise FieldError(
            "to",
            "invalid",
            f"{where}.to: a spring joins two bodies, or a "
            "body and a world point, not a body to itself",
        )


def _build(e: SpringElement, ctx: Building) -> Spring:
    from ...dynamics.elements import Spring

    i = ctx.index[e.body]
    if isinstance(e.to, BodyPoint):
        other = ctx.index[e.to.body]
        return Spring(i, e.point, e.to.point, e.stiffness, e.damping, e.rest_length, other)
    return Spring(i, e.point, e.to, e.stiffness, e.damping, e.rest_length)


def _xml_read(reader: XmlReader, name: str, e: XmlLib, spec: dict[str, Any]) -> None:
    """Its other end: a world point (To), or the body wired to ForceB and MomentB, at ToPoint."""
    other = reader.end(name, e, "ForceB", "MomentB")
    point = spec.pop("to_point", None)
    if other is not None:
        if "to" in spec:
            raise reader.fail(
                e.node,
                "To",
                f"a spring ends at a world point (To) or on the body wired to "
                f"{name}.ForceB and {name}.MomentB ({other!r}), not both",
            )
        spec["to"] = {"body": other} if point is None else {"body": other, "point": point}
        e.origin["to"] = e.origin.get("to_point", "ToPoint")
    elif point is not None:
        raise reader.fail(
            e.node,
            "ToPoint",
            f"a point on the spring's other body, but no Connection wires "
            f'{name}.ForceB and {name}.MomentB to one (C.Force="{name}.ForceB" '
            f'C.Moment="{name}.MomentB")',
        )


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
    xml_read=_xml_read,
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
