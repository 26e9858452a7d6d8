"""What both of `sixdof.lqr`'s designs share (analysis/lqr.py, one body alone, and
analysis/lqr_mechanism.py, bodies held by joints): a body's 12 coordinates in its 13 states,
and the weights Q and R checked."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..dynamics.quaternion import Array
from ..fields import FieldError


def reduction(q0: Array) -> tuple[Array, Array]:
    """T (13 × 12) and P (12 × 13): the 12 coordinates into the 13 states and back."""
    w, x, y, z = q0
    # ½ q₀ ⊗ (0, δθ): the columns of L(q₀) for the vector part
    half = 0.5 * np.array([[-x, -y, -z], [w, -z, y], [z, w, -x], [-y, x, w]])
    t = np.zeros((13, 12))
    t[0:3, 0:3] = np.eye(3)
    t[3:7, 3:6] = half
    t[7:13, 6:12] = np.eye(6)
    return t, np.asarray(np.linalg.pinv(t), dtype=float)


def weights(w: ArrayLike, n: int, name: str) -> Array:
    """w (n × n, or its n diagonal entries) as a matrix: finite, symmetric, Q positive
    semi-definite, R positive definite (else refused, naming it)."""
    m = np.asarray(w, dtype=float)
    if m.shape == (n,):
        m = np.diag(m)
    if m.shape != (n, n) or not np.all(np.isfinite(m)):
        raise FieldError(name, "invalid", f"{name}: expected {n} × {n} finite numbers (or {n})")
    if not np.allclose(m, m.T) or np.min(np.linalg.eigvalsh(m)) < (0.0 if name == "Q" else 1e-300):
        want = "positive semi-definite" if name == "Q" else "positive definite"
        raise FieldError(name, "invalid", f"{name}: must be symmetric and {want}")
    return m
