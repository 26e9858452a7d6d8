"""A damper: Fossen's D(ν) = D_l + D_q |ν| on the body's velocity relative to the water's
current (docs/physics.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from ..bounded import Vec6, Within
from ..kind import Building, ElementModel, Kind, Panel

if TYPE_CHECKING:
    from ...dynamics.elements import Damper


class DamperElement(ElementModel):
    """Fossen's D(ν) = D_l + D_q |ν|, diagonal, body axes: surge, sway, heave, roll, pitch, yaw."""

    kind: Literal["damper"]
    linear: Annotated[Vec6, Within("linear")] = (0.0,) * 6
    quadratic: Annotated[Vec6, Within("quadratic")] = (0.0,) * 6


def _build(e: DamperElement, ctx: Building) -> Damper:
    from ...dynamics.elements import Damper

    return Damper(ctx.index[e.body], e.linear, e.quadratic, ctx.sea.current)


KIND = Kind(
    name="damper",
    model=DamperElement,
    xml_object="Element/Damper",
    xml_attributes={"Linear": ("linear", 6), "Quadratic": ("quadratic", 6)},
    water="it acts relative to its current",
    build=_build,
    drawing="tag",
    docs="physics.md#damper-fossens-dν",
    example={"linear": (1.0, 2.0, 3.0, 4.0, 5.0, 6.0), "quadratic": (0.5,) * 6},
    panel=Panel(
        vectors=(("linear", 6), ("quadratic", 6)),
        add=(),
        defaults={"linear": (1.0,) * 6, "quadratic": (0.0,) * 6},
    ),
)
