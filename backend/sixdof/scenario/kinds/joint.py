"""A joint: a ball, hinge, slider or weld between a body and another body or the world,
held by constraint forces (docs/physics.md, "Joint")."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import Field

from ...fields import FieldError
from ..bounded import Vec3, Within
from ..kind import (
    BodyEnd,
    Building,
    Checking,
    ElementModel,
    Kind,
    Panel,
    check_other_body,
    other_end_reader,
)

if TYPE_CHECKING:
    import numpy as np

    from ...dynamics.elements import Joint

#: How far apart (m) a joint's two ends may start: farther is refused, naming the gap.
MAX_START_GAP = 1e-9


class JointElement(ElementModel):
    """Body point `point` joined to `to` (a world point or another body's point)."""

    kind: Literal["joint"]
    type: Literal["ball", "hinge", "slider", "fixed"] = Field(
        "ball", description="ball: the points coincide; hinge: and `axis` keeps its line; "
        "slider: no relative turn, `point` moves along `axis`; fixed: welded",
    )  # fmt: skip
    point: Annotated[Vec3, Within("point")] | None = Field(
        None, description="body axes from Pos, m; default: the one at `to` at the start"
    )
    to: Annotated[Vec3, Within("target")] | BodyEnd | None = Field(
        None, description="world point [x, y, z] (NED, m) or {body, point}; default: the "
        "world point where `point` starts",
    )  # fmt: skip
    axis: Annotated[Vec3, Within("point")] = Field(
        (0.0, 1.0, 0.0), description="a hinge's or slider's axis, body axes"
    )
    damping: Annotated[float, Within("joint_damping")] = Field(
        0.0, description="N·m·s/rad (hinge, ball) or N·s/m (slider)"
    )
    stiffness: Annotated[float, Within("joint_stiffness")] = Field(
        0.0, description="a torsion (hinge, N·m/rad) or axial (slider, N/m) spring about `rest`"
    )
    rest: Annotated[float, Within("joint_position")] = Field(
        0.0, description="the spring's rest angle (rad) or travel (m), from the start"
    )
    limits: tuple[
        Annotated[float, Within("joint_position")], Annotated[float, Within("joint_position")]
    ] | None = Field(
        None, description="[lo, hi]: stops on the angle (rad) or travel (m) from the start"
    )  # fmt: skip
    restitution: Annotated[float, Within("restitution")] = Field(
        0.5, description="of a knock on a stop"
    )


def _check(e: JointElement, k: int, scene: Checking) -> None:
    """Its other body is known and not its own, its axis is a direction, neither body is
    held by a pivot or carries added mass, and the method is euler or rk4."""
    where = f"elements[{k}]"
    bodies = [e.body]
    if isinstance(e.to, BodyEnd):
        check_other_body(where, e.body, e.to.body, scene,
                         "a joint joins two bodies, or a body and the world")  # fmt: skip
        bodies.append(e.to.body)
    if math.hypot(*e.axis) < 1e-9:
        raise FieldError("axis", "invalid", f"{where}.axis: a direction, not [0, 0, 0]")
    for o in scene.elements:
        if o.body in bodies and o.kind in ("pivot", "added_mass"):
            raise FieldError(
                "kind",
                "invalid",
                f"{where}: {o.body!r} has a {o.kind.replace('_', ' ')}; a joint joins bodies "
                "without one (hold a body at a world point with a ball joint to it)",
            )
    moving = e.type in ("hinge", "slider")
    if not moving and (e.stiffness > 0.0 or e.limits is not None):
        raise FieldError(
            "stiffness" if e.stiffness > 0.0 else "limits",
            "invalid",
            f"{where}: a {e.type} joint has no coordinate for a spring or stops (a hinge's "
            "angle, a slider's travel)",
        )
    if e.type == "fixed" and e.damping > 0.0:
        raise FieldError("damping", "invalid", f"{where}: a fixed joint has nothing to damp")
    if e.limits is not None and not e.limits[0] < e.limits[1]:
        raise FieldError(
            "limits", "invalid", f"{where}.limits: [lo, hi] with lo < hi, got {list(e.limits)}"
        )
    if scene.method not in ("euler", "rk4"):
        raise FieldError(
            "method", "invalid", f"method: scenarios with joints run with euler or rk4 ({where})"
        )


def _at(states: np.ndarray, i: int, point: Vec3) -> np.ndarray:
    """Body i's point in the world at states (N, 13)."""
    from ...dynamics import quaternion as quat

    x = states[i]
    return x[0:3] + quat.to_rotmat(x[3:7] / math.sqrt(float(x[3:7] @ x[3:7]))) @ point


def _body_point(states: np.ndarray, i: int, world: np.ndarray) -> Vec3:
    """Body i's point (its axes) that is at the world point `world` at states."""
    from ...dynamics import quaternion as quat

    x = states[i]
    r = quat.to_rotmat(x[3:7] / math.sqrt(float(x[3:7] @ x[3:7])))
    b = r.T @ (world - x[0:3])
    return (float(b[0]), float(b[1]), float(b[2]))


def _vec(v: np.ndarray) -> str:
    return "[" + ", ".join(f"{float(c):.9g}" for c in v) + "]"


def _build(e: JointElement, ctx: Building) -> Joint:
    """Joined where its ends are at the start; omitted ends are the points that coincide
    there. Ends more than MAX_START_GAP apart are refused, naming the gap and where the body
    would have to be."""
    import numpy as np

    from ...dynamics import quaternion as quat
    from ...dynamics.elements import Joint

    i = ctx.index[e.body]
    s = ctx.states
    other = ctx.index[e.to.body] if isinstance(e.to, BodyEnd) else None
    if isinstance(e.to, BodyEnd):
        end = None if e.to.point is None else _at(s, other, e.to.point)  # type: ignore[arg-type]
    else:
        end = None if e.to is None else np.asarray(e.to, dtype=float)
    point = e.point
    if point is None:
        point = (0.0, 0.0, 0.0) if end is None else _body_point(s, i, end)
    here = _at(s, i, point)
    if end is None:
        end = here
    gap = float(np.linalg.norm(end - here))
    if gap > MAX_START_GAP:
        moved = s[i, 0:3] + (end - here)
        raise FieldError(
            "to",
            "invalid",
            f"elements: the joint of {e.body!r} starts with its ends {gap:.6g} m apart "
            f"(its point at {_vec(here)}, the other end at {_vec(end)}, NED); "
            f"{e.body!r} would have to be at Pos {_vec(moved)}, or leave out `point` to "
            "join it where it is",
        )
    if other is None:
        to = (float(end[0]), float(end[1]), float(end[2]))
        turn = s[i, 3:7]
    else:
        to = _body_point(s, other, end)
        turn = quat.multiply(quat.conjugate(s[other, 3:7]), s[i, 3:7])
    turn = turn / np.linalg.norm(turn)
    q0 = (float(turn[0]), float(turn[1]), float(turn[2]), float(turn[3]))
    return Joint(i, e.type, point, to, e.axis, other, q0, e.damping, e.stiffness, e.rest,
                 e.limits, e.restitution)  # fmt: skip


KIND = Kind(
    name="joint",
    model=JointElement,
    xml_object="Element/Joint",
    xml_attributes={
        "Type": ("type", "text"),
        "Point": ("point", 3),
        "To": ("to", 3),
        "ToPoint": ("to_point", 3),
        "Axis": ("axis", 3),
        "Damping": ("damping", 1),
        "Stiffness": ("stiffness", 1),
        "Rest": ("rest", 1),
        "Limits": ("limits", 2),
        "Restitution": ("restitution", 1),
    },
    xml_ports=("Force", "Moment", "ForceB", "MomentB"),
    xml_read=other_end_reader("joint"),
    build=_build,
    check=_check,
    drawing="joint",
    docs="physics.md#joint-ball-hinge-slider-fixed",
    example={
        "type": "hinge",
        "point": (0.0, 0.0, -0.5),
        "to": (0.0, 0.0, 1.0),
        "axis": (0.0, 1.0, 0.0),
    },
    # added from the page between the selected body and another (or the world), joined where
    # the point is: the other end left out is the point that coincides
    panel=Panel(
        numbers=("damping", "stiffness", "rest", "restitution"),
        vectors=(("limits", 2),),
        summary="type",
        add=("point", "end", "type", "axis"),
    ),
)
