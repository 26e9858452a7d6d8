"""A pivot: a spherical joint holding a body point at a world point (docs/physics.md)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import Field

from ...fields import FieldError
from ..bounded import Vec3, Within
from ..kind import Building, Checking, ElementModel, Kind, Panel

if TYPE_CHECKING:
    from ...dynamics.elements import Pivot


class PivotElement(ElementModel):
    """A spherical joint: the body point `point` stays at the world point `at`."""

    kind: Literal["pivot"]
    point: Annotated[Vec3, Within("point")] = Field(
        (0.0, 0.0, 0.0), description="held body point, body axes from Pos, m"
    )
    at: Annotated[Vec3, Within("Pos")] | None = Field(
        None, description="world point it is held at, NED, m; default: where the point starts"
    )


def _check(e: PivotElement, k: int, scene: Checking) -> None:
    """One pivot per body, and none on a body with added mass (the pivot's kernel holds a
    rigid body's own inertia about the point)."""
    where, body = f"elements[{k}]", e.body
    if any(o.kind == "pivot" and o.body == body for o in scene.elements[:k]):
        raise FieldError("kind", "invalid", f"{where}: {body!r} has a pivot already (one per body)")
    if any(o.kind == "added_mass" and o.body == body for o in scene.elements):
        raise FieldError(
            "kind", "invalid", f"{where}: {body!r} has added mass; a pivot holds bodies without it"
        )


def _build(e: PivotElement, ctx: Building) -> Pivot:
    """Held at `at`, or where its point is in the states (the initial state, or the live
    state when one is added)."""
    from ...dynamics import quaternion as quat
    from ...dynamics.elements import Pivot

    i = ctx.index[e.body]
    at = e.at
    if at is None:
        x = ctx.states[i]
        q = x[3:7] / math.sqrt(float(x[3:7] @ x[3:7]))
        w = x[0:3] + quat.to_rotmat(q) @ e.point
        at = (float(w[0]), float(w[1]), float(w[2]))
    return Pivot(i, e.point, at)


KIND = Kind(
    name="pivot",
    model=PivotElement,
    xml_object="Element/Pivot",
    xml_attributes={"Point": ("point", 3), "At": ("at", 3)},
    build=_build,
    check=_check,
    drawing="ball",
    docs="physics.md#pivot-a-spherical-joint-exact",
    example={"point": (0.0, 0.0, -0.5), "at": (0.0, 0.0, 1.0)},
    panel=Panel(vectors=(("point", 3),), add=("point",), releases={"point": "at"}),
)
