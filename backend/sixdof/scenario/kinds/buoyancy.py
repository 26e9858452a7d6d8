"""Buoyancy: the water's pressure on the body's drawn hull, clipped at the instantaneous
surface (docs/physics.md)."""

from __future__ import annotations

import dataclasses
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
    sea = ctx.sea
    if any(
        o.kind == "radiation" and o.body == e.body and getattr(o, "excitation", "") == "bem"
        for o in ctx.elements
    ):  # the waves' force is the radiation element's, from its file: still water here
        sea = dataclasses.replace(sea, waves=())
    return Buoyancy(i, hull_triangles(ctx.bodies[i]), sea)


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
