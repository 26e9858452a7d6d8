"""Quaternion algebra, scalar first: q = (η, ε1, ε2, ε3).

Every function takes arrays with any number of leading (batch) axes; the last
axis holds the components. A quaternion rotates body coordinates into global
ones: a_global = R(q) a_body, with

    R(q) = E + 2 η S(ε) + 2 S(ε)²        (Fossen 2011, eq. 2.72)

where S(a) is the skew matrix with S(a) b = a × b. For a unit quaternion R is
orthonormal; for a slightly non-unit one (the kinematics let |q| drift and
pull it back, DESIGN.md section 2) the same formula is used, so the model and
its Jacobian agree exactly.

Euler angles are z-y-x (yaw ψ about z, then pitch θ about the new y, then roll
φ about the newest x): R = Rz(ψ) Ry(θ) Rx(φ), returned as (φ, θ, ψ).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

Array = NDArray[np.float64]
#: Whole numbers and masks (step counts, method codes, flags).
IntArray = NDArray[np.int64]
BoolArray = NDArray[np.bool_]


def skew(a: ArrayLike) -> Array:
    """S(a), shape (..., 3, 3), such that S(a) @ b = a × b."""
    a = np.asarray(a, dtype=float)
    s = np.zeros((*a.shape[:-1], 3, 3))
    s[..., 0, 1] = -a[..., 2]
    s[..., 0, 2] = a[..., 1]
    s[..., 1, 0] = a[..., 2]
    s[..., 1, 2] = -a[..., 0]
    s[..., 2, 0] = -a[..., 1]
    s[..., 2, 1] = a[..., 0]
    return s


def multiply(p: ArrayLike, q: ArrayLike) -> Array:
    """Hamilton product p ⊗ q, shape (..., 4)."""
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    pw, pv = p[..., :1], p[..., 1:]
    qw, qv = q[..., :1], q[..., 1:]
    w = pw * qw - np.sum(pv * qv, axis=-1, keepdims=True)
    v = pw * qv + qw * pv + np.cross(pv, qv)
    return np.concatenate([w, v], axis=-1)


def conjugate(q: ArrayLike) -> Array:
    """(η, −ε): the inverse of a unit quaternion."""
    q = np.asarray(q, dtype=float)
    return q * np.array([1.0, -1.0, -1.0, -1.0])


def normalize(q: ArrayLike) -> Array:
    """q / |q|. A zero quaternion raises ValueError instead of returning NaN."""
    q = np.asarray(q, dtype=float)
    norm = np.linalg.norm(q, axis=-1, keepdims=True)
    if np.any(norm == 0.0):
        raise ValueError("Quater must not be zero: no orientation has a zero quaternion")
    return q / norm


def to_rotmat(q: ArrayLike) -> Array:
    """R(q) = E + 2ηS(ε) + 2S(ε)², shape (..., 3, 3); body → global."""
    q = np.asarray(q, dtype=float)
    eta = q[..., 0, None, None]
    s = skew(q[..., 1:])
    return np.eye(3) + 2.0 * eta * s + 2.0 * s @ s


def from_rotmat(rotmat: ArrayLike) -> Array:
    """Unit quaternion with η ≥ 0 for an orthonormal R, shape (..., 4)."""
    r = np.asarray(rotmat, dtype=float)
    # Shepperd's method: pick the largest of the four squared components
    # to divide by, so the result keeps full precision for every rotation.
    tr = np.trace(r, axis1=-2, axis2=-1)
    diag = np.stack([tr, r[..., 0, 0], r[..., 1, 1], r[..., 2, 2]], axis=-1)
    k = np.argmax(diag, axis=-1)
    big = np.sqrt(np.maximum(1.0 + 2.0 * diag - tr[..., None], 0.0))  # 2|q_k|
    sq = big**2  # 4 q_k²
    r10, r01 = r[..., 1, 0], r[..., 0, 1]
    r20, r02 = r[..., 2, 0], r[..., 0, 2]
    r21, r12 = r[..., 2, 1], r[..., 1, 2]
    # Row k holds 4 q_k q_j for j = 0..3; dividing by 4 q_k = 2 big_k gives q.
    rows = np.stack(
        [
            np.stack([sq[..., 0], r21 - r12, r02 - r20, r10 - r01], axis=-1),
            np.stack([r21 - r12, sq[..., 1], r01 + r10, r02 + r20], axis=-1),
            np.stack([r02 - r20, r01 + r10, sq[..., 2], r12 + r21], axis=-1),
            np.stack([r10 - r01, r02 + r20, r12 + r21, sq[..., 3]], axis=-1),
        ],
        axis=-2,
    )
    chosen = np.take_along_axis(rows, k[..., None, None], axis=-2)[..., 0, :]
    out = chosen / (2.0 * np.take_along_axis(big, k[..., None], axis=-1))
    out = out / np.linalg.norm(out, axis=-1, keepdims=True)
    return np.where(out[..., :1] < 0.0, -out, out)


def rotate(q: ArrayLike, a: ArrayLike) -> Array:
    """R(q) a: body coordinates → global."""
    return np.einsum("...ij,...j->...i", to_rotmat(q), np.asarray(a, dtype=float))


def rotate_inverse(q: ArrayLike, a: ArrayLike) -> Array:
    """R(q)ᵀ a: global coordinates → body."""
    return np.einsum("...ji,...j->...i", to_rotmat(q), np.asarray(a, dtype=float))


def from_euler(roll: ArrayLike, pitch: ArrayLike, yaw: ArrayLike) -> Array:
    """Quaternion of z-y-x Euler angles (φ, θ, ψ) in radians, shape (..., 4)."""
    hr = 0.5 * np.asarray(roll, dtype=float)
    hp = 0.5 * np.asarray(pitch, dtype=float)
    hy = 0.5 * np.asarray(yaw, dtype=float)
    cr, sr = np.cos(hr), np.sin(hr)
    cp, sp = np.cos(hp), np.sin(hp)
    cy, sy = np.cos(hy), np.sin(hy)
    return np.stack(
        [
            cr * cp * cy + sr * sp * sy,
            sr * cp * cy - cr * sp * sy,
            cr * sp * cy + sr * cp * sy,
            cr * cp * sy - sr * sp * cy,
        ],
        axis=-1,
    )


def to_euler(q: ArrayLike) -> Array:
    """z-y-x Euler angles (φ, θ, ψ) of q, shape (..., 3), θ in [−π/2, π/2].

    Computed from R(q/|q|); at θ = ±π/2 (gimbal lock) φ and ψ are not unique and
    the returned split puts all of the rotation about the vertical into ψ.
    """
    r = to_rotmat(normalize(q))
    pitch = -np.arcsin(np.clip(r[..., 2, 0], -1.0, 1.0))
    roll = np.arctan2(r[..., 2, 1], r[..., 2, 2])
    yaw = np.arctan2(r[..., 1, 0], r[..., 0, 0])
    locked = np.abs(r[..., 2, 0]) > 1.0 - 1e-12
    if np.any(locked):
        roll = np.where(locked, 0.0, roll)
        yaw = np.where(locked, np.arctan2(-r[..., 0, 1], r[..., 1, 1]), yaw)
    return np.stack([roll, pitch, yaw], axis=-1)


def left_matrix(q: ArrayLike) -> Array:
    """L(q), shape (..., 4, 4), with q ⊗ p = L(q) p."""
    q = np.asarray(q, dtype=float)
    out = np.empty((*q.shape[:-1], 4, 4))
    out[..., 0, 0] = q[..., 0]
    out[..., 0, 1:] = -q[..., 1:]
    out[..., 1:, 0] = q[..., 1:]
    out[..., 1:, 1:] = q[..., 0, None, None] * np.eye(3) + skew(q[..., 1:])
    return out


def right_matrix(p: ArrayLike) -> Array:
    """Q(p), shape (..., 4, 4), with q ⊗ p = Q(p) q."""
    p = np.asarray(p, dtype=float)
    out = np.empty((*p.shape[:-1], 4, 4))
    out[..., 0, 0] = p[..., 0]
    out[..., 0, 1:] = -p[..., 1:]
    out[..., 1:, 0] = p[..., 1:]
    out[..., 1:, 1:] = p[..., 0, None, None] * np.eye(3) - skew(p[..., 1:])
    return out
