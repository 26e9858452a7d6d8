"""The ground: a compliant plane z = height (NED) with restitution and Coulomb friction,
touched by the body's drawn shape (docs/physics.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import Field

from ...fields import FieldError
from ..bounded import Within
from ..kind import Building, Checking, ElementModel, Kind, Panel
from ..shapes import contact_shape

if TYPE_CHECKING:
    from ...dynamics.elements import Ground

#: The largest fixed step a scenario with a ground may take, s: a contact rings at about
#: 141 rad/s (more for a box rocking on its corners), which RK4 follows well up to here.
GROUND_MAX_STEP = 0.002


class GroundElement(ElementModel):
    """The plane z = height (NED), touched by the body's drawn shape."""

    kind: Literal["ground"]
    height: Annotated[float, Within("height")] = 0.0
    restitution: Annotated[float, Within("restitution")] = 0.5
    friction: Annotated[float, Within("friction")] = 0.5
    stiffness: Annotated[float, Within("ground_stiffness")] | None = Field(
        None, description="N/m per touching point; default 2e4 N/m per kg of the body"
    )


def _check(e: GroundElement, k: int, scene: Checking) -> None:
    """A fixed step small enough for the contact's ringing."""
    if scene.method in ("euler", "rk4") and scene.step > GROUND_MAX_STEP:
        raise FieldError(
            "stepsize",
            "out_of_range",
            f"stepsize: with a ground the step must be at most "
            f"{GROUND_MAX_STEP:g} s (contacts ring at ~141 rad/s), got {scene.step:g}",
        )


def _build(e: GroundElement, ctx: Building) -> Ground:
    from ...dynamics.elements import Ground

    i = ctx.index[e.body]
    shape = contact_shape(ctx.bodies[i])
    return Ground(i, shape, e.height, e.restitution, e.friction, e.stiffness)


KIND = Kind(
    name="ground",
    model=GroundElement,
    xml_object="Element/Ground",
    xml_attributes={
        "Height": ("height", 1),
        "Restitution": ("restitution", 1),
        "Friction": ("friction", 1),
        "Stiffness": ("stiffness", 1),
    },
    build=_build,
    check=_check,
    drawing="floor",
    docs="physics.md#ground-a-compliant-plane-with-restitution-and-coulomb-friction",
    example={"height": 2.0, "restitution": 0.8, "friction": 0.3, "stiffness": 5e4},
    panel=Panel(numbers=("height", "restitution", "friction"), add=("height",)),
)
