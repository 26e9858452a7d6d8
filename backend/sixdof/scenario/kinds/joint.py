"""A joint: a ball, hinge, slider or weld between a body and another body or the world,
held by constraint forces (docs/physics.md, "Joint")."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import Field

from ...fields import FieldError
from ..bounded import Vec3, Within
from ..kind import BodyEnd, Building, Checking, ElementModel, Kind, Panel, other_end_reader

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


def _check(e: JointElement, k: int, scene: Checking) -> None:
    """Its other body is known and not its own, its axis is a direction, neither body is
    held by a pivot or carries added mass, and the method is euler or rk4."""
    where = f"elements[{k}]"
    bodies = [e.body]
    if isinstance(e.to, BodyEnd):
        if e.to.body not in scene.names:
            raise FieldError(
                "body",
                "unknown_body",
                f"{where}.to.body: no body named {e.to.body!r}; bodies are {list(scene.names)}",
            )
        if e.to.body == e.body:
            raise FieldError(
                "to", "invalid", f"{where}.to: a joint joins two bodies, or a body and the world"
            )
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
    return Joint(i, e.type, point, to, e.axis, other, q0)


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
    },
    xml_ports=("Force", "Moment", "ForceB", "MomentB"),
    xml_read=other_end_reader("joint"),
    build=_build,
    check=_check,
    drawing="ball",
    docs="physics.md#joint-ball-hinge-slider-fixed",
    example={
        "type": "hinge",
        "point": (0.0, 0.0, -0.5),
        "to": (0.0, 0.0, 1.0),
        "axis": (0.0, 1.0, 0.0),
    },
    panel=Panel(),
)
