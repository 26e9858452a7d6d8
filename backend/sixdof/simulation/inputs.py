"""Inputs that change while the simulation runs: per body a constant and a push channel.

Each channel of each body holds one record (frame, F, M, lever):

- frame "global": F and M are in the global (NED) frame;
  frame "body": F and M are in body axes and turn with the body;
- lever ℓ (body axes, m) is the point of application relative to the CG,
  ℓ = point − CGOffset with `point` given relative to the reference point.
  Kept relative to the CG so a later CGOffset change, which moves the
  reference point in the body (not the CG), leaves the material point where
  the force acts where it was. No point means the force acts at the CG (ℓ = 0).

The model's input u = (F_n, M_n) is global and about the CG (DESIGN.md
section 1). With R = R(q) the body's current rotation matrix, a record gives

    F_n = F                         (global)   or  R F        (body)
    M_n = M + (R ℓ) × F_n           (global)   or  R M + (R ℓ) × F_n   (body)

with R the rotation of q/|q| (for body frame, (R ℓ) × (R F) = R (ℓ × F): the
moment of a body-fixed force at a body-fixed point is fixed in the body). u is
the sum over both channels.
Inputs are held constant over a physics step (zero-order hold): `total` is
evaluated once per step at the state the step starts from. When no record is
in the body frame or has a lever, u does not depend on the state and is
cached.
"""

from __future__ import annotations

from types import ModuleType
from typing import Literal

import numpy as np

from ..dynamics import quaternion as quat
from ..dynamics.quaternion import Array

_KERNEL: ModuleType | bool | None = False  # False: not looked up yet


def _kernel() -> ModuleType | None:
    """input_kernel when numba is available, else None (imported on first use)."""
    global _KERNEL
    if _KERNEL is False:
        from . import input_kernel

        _KERNEL = input_kernel if input_kernel.AVAILABLE else None
    return _KERNEL  # type: ignore[return-value]


Channel = Literal["constant", "push"]
Frame = Literal["global", "body"]
CHANNELS: tuple[Channel, ...] = ("constant", "push")
FRAMES: tuple[Frame, ...] = ("global", "body")


class InputChannels:
    """The input records of N bodies, as arrays with a leading channel axis of 2."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.force = np.zeros((2, n, 3))  # N, in the record's frame
        self.moment = np.zeros((2, n, 3))  # N·m, in the record's frame
        self.lever_body = np.zeros((2, n, 3))  # m, point of application − CG, body axes
        self.is_body = np.zeros((2, n), dtype=bool)
        self.has_point = np.zeros((2, n), dtype=bool)
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
        for name in ("force", "moment", "lever_body", "is_body", "has_point"):
            setattr(other, name, getattr(self, name).copy())
        other._refresh()
        return other

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
        self._refresh()

    def record(self, channel: Channel, index: int) -> dict[str, object]:
        """One record as plain values: frame, Force, Moment, lever (None without a point)."""
        c = CHANNELS.index(channel)
        return {
            "frame": "body" if self.is_body[c, index] else "global",
            "Force": self.force[c, index].tolist(),
            "Moment": self.moment[c, index].tolist(),
            "lever": self.lever_body[c, index].tolist() if self.has_point[c, index] else None,
        }

    def is_plain_global(self, channel: Channel, index: int) -> bool:
        """True when the record is global and at the CG, so a scenario's Force/Moment holds it."""
        c = CHANNELS.index(channel)
        return not (self.is_body[c, index] or self.has_point[c, index])

    @property
    def rotating(self) -> bool:
        """True when u depends on the orientation and must be evaluated every step."""
        return self._rotating

    def _refresh(self) -> None:
        self._rotating = bool(self.is_body.any() or self.has_point.any())
        # Global records without a point simply add up; cache the sum (N, 6).
        self._static = np.ascontiguousarray(
            np.concatenate([self.force.sum(axis=0), self.moment.sum(axis=0)], axis=-1)
        )

    def total(self, x: Array) -> Array:
        """u = (F_n, M_n), shape (N, 6), global and about the CG, at the states x (N, 13).

        Returns the cached array itself when u does not depend on x: do not modify it.
        Orientation-dependent inputs are evaluated by the compiled twin of
        `total_numpy` (input_kernel.py) when numba is available.
        """
        if not self._rotating:
            return self._static
        kern = _kernel()
        if kern is None:
            return self.total_numpy(x)
        out = np.empty((self.n, 6))
        kern.total_inputs(self.force, self.moment, self.lever_body, self.is_body,
                          np.ascontiguousarray(x, dtype=np.float64), out)  # fmt: skip
        return out

    def total_numpy(self, x: Array) -> Array:
        """`total` in numpy (the reference for the compiled kernel)."""
        if not self._rotating:
            return self._static
        # A true rotation of q/|q|: |q| drifts from one by up to ~1e-6 between the
        # norm term's corrections, and R of a non-unit q would scale the input.
        q = x[:, 3:7]
        rotmat = quat.to_rotmat(q / np.sqrt(np.einsum("ni,ni->n", q, q))[:, None])  # (N, 3, 3)
        body = self.is_body[..., None]
        force_n = np.where(body, np.einsum("nij,cnj->cni", rotmat, self.force), self.force)
        moment_n = np.where(body, np.einsum("nij,cnj->cni", rotmat, self.moment), self.moment)
        lever_n = np.einsum("nij,cnj->cni", rotmat, self.lever_body)
        moment_n = moment_n + np.cross(lever_n, force_n)
        return np.concatenate([force_n.sum(axis=0), moment_n.sum(axis=0)], axis=-1)
