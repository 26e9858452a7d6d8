"""The bodies' poses, as each kind's stored energy reads them (plain numpy, no numba)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ..params import Bodies
from ..quaternion import Array, to_rotmat


@dataclass(frozen=True)
class Poses:
    """States x (N, 13) of `bodies`, with each body's true rotation R(q/|q|) (N, 3, 3)."""

    bodies: Bodies
    x: Array
    rot: Array

    @classmethod
    def of(cls, bodies: Bodies, x: Array) -> Poses:
        xs = np.atleast_2d(np.asarray(x, dtype=float))
        q = xs[:, 3:7] / np.linalg.norm(xs[:, 3:7], axis=1, keepdims=True)
        return cls(bodies, xs, to_rotmat(q).reshape(len(xs), 3, 3))

    def pos(self, i: int) -> Array:
        """Body i's reference point, world (NED)."""
        return self.x[i, 0:3]

    def world(self, i: int, point: ArrayLike) -> Array:
        """Body i's point (body axes, from its reference point) in the world."""
        return self.x[i, 0:3] + self.rot[i] @ np.asarray(point, dtype=float)
