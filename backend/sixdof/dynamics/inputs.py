"""Live inputs: per body a constant and a push channel, packed into load rows for the kernel.

Each channel of each body holds one record (frame, F, M, lever):

- frame "global": F and M are in the global (NED) frame;
  frame "body": F and M are in body axes and turn with the body;
- lever ℓ (body axes, m) is the point of application relative to the CG,
  ℓ = point − CGOffset with `point` given relative to the reference point.
  Kept relative to the CG so a later CGOffset change, which moves the
  reference point in the body (not the CG), leaves the material point where
  the force acts where it was. No point means the force acts at the CG (ℓ = 0).

The model's input u = (F_n, M_n) is global and about the CG (DESIGN.md
section 1). With R = R(q/|q|) the body's rotation at the state where it is evaluated,
a record gives

    F_n = F                         (global)   or  R F        (body)
    M_n = M + (R ℓ) × F_n           (global)   or  R M + (R ℓ) × F_n   (body)

(for body frame, (R ℓ) × (R F) = R (ℓ × F): the moment of a body-fixed force at a
body-fixed point is fixed in the body), summed over both channels.

The records do not change between steps, but u depends on the state: `loads()` packs them
into load rows (layout's L_* offsets) which the compiled derivative evaluates at
every stage of every step from that stage's own orientation, so a body-frame force or a
force at a point keeps the integrator's order (RK4: fourth). `total(x)` is the same sum at
given states (the outputs' Force and Moment).
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from . import kernel
from . import quaternion as quat
from .layout import (
    L_F_BODY,
    L_F_GLOBAL,
    L_M_BODY,
    L_M_GLOBAL,
    L_POINTS,
    L_SPRING,
    L_STATE_DEPENDENT,
    LOAD_SIZE,
)
from .quaternion import Array

Channel = Literal["constant", "push"]
Frame = Literal["global", "body"]
CHANNELS: tuple[Channel, ...] = ("constant", "push")
SPRING_WIDTH = 12  # the spring's part of a load row (layout.L_SPRING)
FRAMES: tuple[Frame, ...] = ("global", "body")


class InputChannels:
    """The input records of N bodies, as arrays with a leading channel axis of 2."""

    _ARRAYS = ("force", "moment", "lever_body", "is_body", "has_point", "spring")

    def __init__(self, n: int) -> None:
        self.n = n
        self.force = np.zeros((2, n, 3))  # N, in the record's frame
        self.moment = np.zeros((2, n, 3))  # N·m, in the record's frame
        self.lever_body = np.zeros((2, n, 3))  # m, point of application − CG, body axes
        self.is_body = np.zeros((2, n), dtype=bool)
        self.has_point = np.zeros((2, n), dtype=bool)
        # the push channel's spring toward a world target: target (3, NED), point r from
        # the reference point (3), lever ℓ = r − CGOffset (3), stiffness, damping, max force
        self.spring = np.zeros((n, SPRING_WIDTH))
        self._refresh()

    @classmethod
    def from_global(cls, force_moment: Array) -> InputChannels:
        """Constant global inputs (N, 6) at the CG, as the scenario's Force/Moment give them."""
        fm = np.asarray(force_moment, dtype=float)
        inputs = cls(fm.shape[0])
        inputs.force[0] = fm[:, 0:3]
        inputs.moment[0] = fm[:, 3:6]
        inputs._refresh()
        return inputs

    def copy(self) -> InputChannels:
        other = InputChannels(self.n)
        for name in self._ARRAYS:
            setattr(other, name, getattr(self, name).copy())
        other._refresh()
        return other

    def to_json(self) -> dict[str, object]:
        """Every record as plain lists (exact: JSON keeps every double)."""
        return {name: getattr(self, name).tolist() for name in self._ARRAYS}

    @classmethod
    def from_json(cls, data: dict[str, object]) -> InputChannels:
        """The records of `to_json()`."""
        spring = np.asarray(data["spring"], dtype=float)
        inputs = cls(spring.shape[0])
        for name in cls._ARRAYS:
            kind = bool if name in ("is_body", "has_point") else float
            value = np.asarray(data[name], dtype=kind)
            if value.shape != getattr(inputs, name).shape:
                raise ValueError(f"inputs.{name}: shape {value.shape}, expected "
                                 f"{getattr(inputs, name).shape}")  # fmt: skip
            setattr(inputs, name, value)
        inputs._refresh()
        return inputs

    def set(
        self,
        index: int,
        channel: Channel,
        frame: Frame,
        force: Array,
        moment: Array,
        lever_body: Array | None,
    ) -> None:
        """Replace one record (values already validated)."""
        c = CHANNELS.index(channel)
        self.force[c, index] = force
        self.moment[c, index] = moment
        self.is_body[c, index] = frame == "body"
        self.has_point[c, index] = lever_body is not None
        self.lever_body[c, index] = 0.0 if lever_body is None else lever_body
        if channel == "push":
            self.spring[index] = 0.0  # a new push replaces the spring too
        self._refresh()

    def set_spring(
        self,
        index: int,
        target: Array,
        point: Array,
        lever_body: Array,
        stiffness: float,
        damping: float,
        max_force: float,
    ) -> None:
        """Make body `index`'s push a spring from its point (body axes: `point` from the
        reference point, `lever_body` from the CG) toward the world `target` (NED, m)."""
        c = CHANNELS.index("push")
        self.force[c, index] = self.moment[c, index] = self.lever_body[c, index] = 0.0
        self.is_body[c, index] = self.has_point[c, index] = False
        self.spring[index] = [*target, *point, *lever_body, stiffness, damping, max_force]
        self._refresh()

    def clear(self, channel: Channel, index: int | None = None) -> None:
        """Zero one channel, of one body or of all."""
        c = CHANNELS.index(channel)
        rows = slice(None) if index is None else index
        self.force[c, rows] = 0.0
        self.moment[c, rows] = 0.0
        self.lever_body[c, rows] = 0.0
        self.is_body[c, rows] = False
        self.has_point[c, rows] = False
        if channel == "push":
            self.spring[rows] = 0.0
        self._refresh()

    def record(self, channel: Channel, index: int) -> dict[str, object]:
        """One record as plain values: frame, Force, Moment, lever (None without a point),
        and for the push channel the spring (None without one)."""
        c = CHANNELS.index(channel)
        out: dict[str, object] = {
            "frame": "body" if self.is_body[c, index] else "global",
            "Force": self.force[c, index].tolist(),
            "Moment": self.moment[c, index].tolist(),
            "lever": self.lever_body[c, index].tolist() if self.has_point[c, index] else None,
        }
        if channel == "push":
            row = self.spring[index]
            out["spring"] = None if not row[9] and not row[10] else {
                "target": row[0:3].tolist(), "point": row[3:6].tolist(),
                "stiffness": float(row[9]), "damping": float(row[10]),
                "max_force": float(row[11]),
            }  # fmt: skip
        return out

    @property
    def state_dependent(self) -> bool:
        """True when u depends on the orientation (a body-frame record or a lever)."""
        return bool(self._loads[:, L_STATE_DEPENDENT].any())

    def _refresh(self) -> None:
        self._loads = self._pack()

    def _pack(self) -> Array:
        """The load rows (N, LOAD_SIZE) of the records (layout's L_* offsets)."""
        rows = np.zeros((self.n, LOAD_SIZE))
        body = self.is_body[..., None]
        point = self.has_point[..., None]
        glob_at_cg = ~body & ~point
        rows[:, L_F_GLOBAL : L_F_GLOBAL + 3] = np.where(glob_at_cg, self.force, 0.0).sum(axis=0)
        rows[:, L_M_GLOBAL : L_M_GLOBAL + 3] = np.where(body, 0.0, self.moment).sum(axis=0)
        rows[:, L_F_BODY : L_F_BODY + 3] = np.where(body, self.force, 0.0).sum(axis=0)
        # A body force at a body point: its moment R (ℓ × F) turns with the body.
        lever_moment = np.cross(self.lever_body, self.force)
        rows[:, L_M_BODY : L_M_BODY + 3] = np.where(body, self.moment + lever_moment, 0.0).sum(
            axis=0
        )
        for c in range(len(CHANNELS)):  # one slot per channel: a global force at a point
            o = L_POINTS + 6 * c
            at_point = (~self.is_body[c] & self.has_point[c])[:, None]
            rows[:, o : o + 3] = np.where(at_point, self.lever_body[c], 0.0)
            rows[:, o + 3 : o + 6] = np.where(at_point, self.force[c], 0.0)
        rows[:, L_SPRING : L_SPRING + SPRING_WIDTH] = self.spring
        has_spring = (self.spring[:, 9] != 0.0) | (self.spring[:, 10] != 0.0)
        rows[:, L_STATE_DEPENDENT] = (self.is_body | self.has_point).any(axis=0) | has_spring
        return rows

    def loads(self) -> Array:
        """The load rows (N, LOAD_SIZE) for the kernel: the cached array itself, read-only."""
        return self._loads

    def total(self, x: Array) -> Array:
        """u = (F_n, M_n), shape (N, 6), global and about the CG, at the states x (N, 13)."""
        return kernel.applied(self._loads, x)


def applied_parts(inputs: InputChannels, x: Array, cg_pos: Array) -> list[list[dict[str, object]]]:
    """Per body, each load that acts now, as the page's free-body diagram draws it.

    Each part is {"source": "constant" | "push" | "spring", "Force": F_n (global, N),
    "Moment": the pure couple (global, N·m, without the moment of F about the CG), "At": the
    point of application (NED, m; the CG for a force without a point)}, evaluated at the
    states x (N, 13) exactly as the kernel does (rotation of q/|q|); channels that are
    zero are left out. Σ Force and Σ (Moment + (At − CG) × Force) equal the outputs' Force
    and Moment.
    """
    x = np.asarray(x, dtype=float)
    parts: list[list[dict[str, object]]] = [[] for _ in range(inputs.n)]
    spring_on = (inputs.spring[:, 9] != 0.0) | (inputs.spring[:, 10] != 0.0)
    active = (inputs.force != 0.0).any(axis=2) | (inputs.moment != 0.0).any(axis=2)
    for i in np.flatnonzero(active.any(axis=0) | spring_on).tolist():
        rot = quat.to_rotmat(quat.normalize(x[i, 3:7]))
        for c, channel in enumerate(CHANNELS):
            if not active[c, i]:
                continue
            turn = rot if inputs.is_body[c, i] else np.eye(3)
            at = cg_pos[i] + rot @ inputs.lever_body[c, i] if inputs.has_point[c, i] else cg_pos[i]
            parts[i].append(
                {
                    "source": channel,
                    "Force": (turn @ inputs.force[c, i]).tolist(),
                    "Moment": (turn @ inputs.moment[c, i]).tolist(),
                    "At": np.asarray(at).tolist(),
                }
            )
        if spring_on[i]:
            # the spring's force from the kernel itself, at this state: one spring law
            only_spring = np.zeros((1, LOAD_SIZE))
            only_spring[0, L_SPRING : L_SPRING + SPRING_WIDTH] = inputs.spring[i]
            only_spring[0, L_STATE_DEPENDENT] = 1.0
            force = kernel.applied(only_spring, x[i : i + 1])[0, 0:3]
            point = x[i, 0:3] + rot @ inputs.spring[i, 3:6]
            parts[i].append(
                {
                    "source": "spring",
                    "Force": force.tolist(),
                    "Moment": [0.0, 0.0, 0.0],
                    "At": point.tolist(),
                }
            )
    return parts
