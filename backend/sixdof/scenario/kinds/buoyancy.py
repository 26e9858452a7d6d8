"""Buoyancy: the water's pressure on the body's drawn hull, clipped at the instantaneous
surface (docs/physics.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from ..kind import Building, ElementModel, Kind
from ..shapes import hull_triangles

if TYPE_CHECKING:
    from ...dynamics.elements import Buoyancy


class BuoyancyElement(ElementModel):
    """The water's pressure on the body's drawn shape (Mesh × Size × MeshScale at CGOffset +
    MeshOrigin, as the page draws it), clipped at the instantaneous surface."""

    kind: Literal["buoyancy"]


def _build(e: BuoyancyElement, ctx: Building) -> Buoyancy:
    from ...dynamics.elements import Buoyancy

    i = ctx.index[e.body]
    return Buoyancy(i, hull_triangles(ctx.bodies[i]), ctx.sea)


KIND = Kind(
    name="buoyancy",
    model=BuoyancyElement,
    xml_object="Element/Buoyancy",
    xml_attributes={},
    xml_none="none: its hull is the body's drawn Mesh, Size, MeshScale and MeshOrigin",
    water="it floats in it",
    build=_build,
    drawing="none",
    docs="physics.md#buoyancy-the-pressure-integrated-over-the-drawn-hull",
    example={},
)
