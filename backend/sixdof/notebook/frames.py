"""NED → three.js: the one place where the notebook meets the renderer's y-up frame.

Our global frame is North-East-Down (x north, y east, z down, DESIGN.md section 1);
three.js' world is right-handed with y up. The map is the proper rotation C (det +1),
the same one the page uses (frontend/src/core/frames.js), so a body sits the same way in
both views:

    three = C · ned,     C = [[1, 0,  0],      x_three =  x_ned  (north)
                              [0, 0, −1],      y_three = −z_ned  (up: down on screen is +z)
                              [0, 1,  0]]      z_three =  y_ned  (east)

C is a rotation of +90° about x. As on the page (and in meshcat), everything physical
— bodies, grid, N/E/D axes — lives in NED coordinates inside one root group turned by C
(`NED_ROOT_QUATERNION`); only the camera and the lights live in three.js' own frame.
Inside that root a body group takes `Pos` as its position and `Quater` as its rotation
unchanged: only the storage order differs, three.js keeping (x, y, z, w) where we keep
(w, x, y, z) — `quat_to_three` does that, in one place. Mesh files are authored in the
body frame (x forward, y starboard, z down), so they need no change of axes either.

`world_pose` gives the resulting pose in three.js' world frame, C p and C R(q), for
camera placement and for tests that check what the renderer will draw.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

Array = NDArray[np.float64]

#: C: NED coordinates → three.js world coordinates. Rotation of +90° about x, det(C) = +1.
NED_TO_THREE: Array = np.array(
    [
        [1.0, 0.0, 0.0],
        [0.0, 0.0, -1.0],
        [0.0, 1.0, 0.0],
    ]
)
NED_TO_THREE.setflags(write=False)

#: The root group's rotation C as a three.js quaternion (x, y, z, w): +90° about x.
NED_ROOT_QUATERNION: tuple[float, float, float, float] = (
    math.sin(math.pi / 4),
    0.0,
    0.0,
    math.cos(math.pi / 4),
)


def vec_to_three(vec_ned: ArrayLike) -> Array:
    """C · a: a NED vector or position (m) in three.js world coordinates, shape (..., 3)."""
    return np.asarray(vec_ned, dtype=float) @ NED_TO_THREE.T


def quat_to_three(quat_wxyz: ArrayLike) -> Array:
    """Our Quater (η, ε1, ε2, ε3), body → NED, as three.js' (x, y, z, w), shape (..., 4).

    For use inside the NED root, where no change of axes is needed. The result is
    normalised (the kinematics let |q| drift by ~1e-12 and three.js expects unit
    quaternions); a zero quaternion raises ValueError.
    """
    q = np.asarray(quat_wxyz, dtype=float)
    norm = np.linalg.norm(q, axis=-1, keepdims=True)
    if np.any(norm == 0.0):
        raise ValueError("Quater must not be zero: no orientation has a zero quaternion")
    q = q / norm
    return np.concatenate([q[..., 1:], q[..., :1]], axis=-1)


def quat_from_three(quat_xyzw: ArrayLike) -> Array:
    """Inverse of `quat_to_three`: three.js (x, y, z, w) → our (η, ε), shape (..., 4)."""
    q = np.asarray(quat_xyzw, dtype=float)
    return np.concatenate([q[..., 3:], q[..., :3]], axis=-1)


def rotmat_of_three_quat(quat_xyzw: ArrayLike) -> Array:
    """The 3×3 rotation three.js builds from (x, y, z, w) (Matrix4.makeRotationFromQuaternion).

    Written out independently of `sixdof.dynamics.quaternion`, so tests can compare the
    conversion with what the renderer will actually do. Shape (..., 3, 3).
    """
    x, y, z, w = np.moveaxis(np.asarray(quat_xyzw, dtype=float), -1, 0)
    return np.stack(
        [
            np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
            np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
            np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1),
        ],
        -2,
    )


def world_pose(pos_ned: ArrayLike, quat_wxyz: ArrayLike) -> tuple[Array, Array]:
    """Where the renderer draws a body group: (C p, C R(q)) in three.js world coordinates.

    Composes the root's rotation with the group's local pose exactly as three.js does
    (matrixWorld = root.matrix · group.matrix), using only `NED_ROOT_QUATERNION` and
    `quat_to_three`. Shapes (3,) and (3, 3).
    """
    root = rotmat_of_three_quat(NED_ROOT_QUATERNION)
    local = rotmat_of_three_quat(quat_to_three(quat_wxyz))
    return root @ np.asarray(pos_ned, dtype=float), root @ local
