"""The integration methods: Butcher tableaus, their stability limits and the step check.

Both the compiled kernel (fixed steps) and the adaptive integrators import this module;
neither imports the other's internals.

The quaternion-norm term of the kinematics has the real eigenvalue −1/τ (τ = 0.01 s), so
an explicit method is stable only while h/τ stays inside its stability interval on the
negative real axis. That interval is a property of the tableau: with the stability
function R(z) = 1 + Σ_k z^k bᵀA^(k−1)𝟙 (a polynomial for an explicit method), the limit
is the first z < 0 where |R(z)| = 1 (2 for Euler, 2.785 for RK4, 3.307 for Dormand–Prince
5). `real_stability` computes it from the coefficients; nothing is typed in by hand.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..fields import FieldError
from .names import (
    METHODS,
    NORM_TIME_CONSTANT,
    UNLIMITED_METHODS,
    Method,
)
from .quaternion import Array


def real_stability(a: Array, b: Array) -> float:
    """h|λ| at the left end of an explicit method's stability interval on the real axis.

    R(z) = Σ_k c_k z^k with c_0 = 1, c_k = bᵀ A^(k−1) 𝟙; the interval ends at the first
    z < 0 where |R(z)| exceeds 1. Found by bisection in Python's own float arithmetic (exact
    sums, Horner), not by a companion matrix's eigenvalues: LAPACK's last bits differ from one
    CPU to the next, and this number is quoted in generated files that `make lint` compares
    byte for byte (docs/protocol.md's hello).
    """
    rows = [[float(x) for x in row] for row in np.asarray(a)]
    weights = [float(x) for x in np.asarray(b)]
    coeffs = [1.0]
    v = [1.0] * len(weights)
    for _ in weights:
        coeffs.append(math.fsum(w * x for w, x in zip(weights, v, strict=True)))
        v = [math.fsum(r * x for r, x in zip(row, v, strict=True)) for row in rows]

    def unstable(z: float) -> bool:
        r = 0.0
        for c in reversed(coeffs):
            r = r * z + c
        return abs(r) > 1.0

    step = 1.0 / 64.0  # exact in binary: every z of the scan is too
    hi = 0.0  # the last z known stable
    while not unstable(hi - step):
        hi -= step
        if hi < -64.0:
            raise ValueError("no stability limit within |z| < 64: not an explicit method?")
    lo = hi - step
    while True:
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            return -hi
        if unstable(mid):
            lo = mid
        else:
            hi = mid


@dataclass(frozen=True)
class Tableau:
    """An explicit Runge–Kutta method: c, A (strictly lower), b, and b − b̂ for an embedded
    pair's error estimate."""

    c: Array
    a: Array
    b: Array
    b_err: Array | None
    order: int
    real_stability: float = field(init=False)  # h|λ| limit on the negative real axis

    def __post_init__(self) -> None:
        object.__setattr__(self, "real_stability", real_stability(self.a, self.b))


EULER = Tableau(np.array([0.0]), np.zeros((1, 1)), np.array([1.0]), None, 1)

RK4 = Tableau(
    c=np.array([0.0, 0.5, 0.5, 1.0]),
    a=np.array([[0, 0, 0, 0], [0.5, 0, 0, 0], [0, 0.5, 0, 0], [0, 0, 1.0, 0]], dtype=float),
    b=np.array([1 / 6, 1 / 3, 1 / 3, 1 / 6]),
    b_err=None,
    order=4,
)

# Dormand & Prince (1980), the 5(4) pair with the FSAL property; b is the 5th-order solution.
_DP_B = np.array([35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0])
_DP_BHAT = np.array([5179 / 57600, 0, 7571 / 16695, 393 / 640, -92097 / 339200, 187 / 2100, 1 / 40])
DOPRI5 = Tableau(
    c=np.array([0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1, 1]),
    a=np.array(
        [
            [0, 0, 0, 0, 0, 0, 0],
            [1 / 5, 0, 0, 0, 0, 0, 0],
            [3 / 40, 9 / 40, 0, 0, 0, 0, 0],
            [44 / 45, -56 / 15, 32 / 9, 0, 0, 0, 0],
            [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729, 0, 0, 0],
            [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656, 0, 0],
            [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0],
        ]
    ),
    b=_DP_B,
    b_err=_DP_B - _DP_BHAT,
    order=5,
)

TABLEAUS: dict[Method, Tableau] = {"euler": EULER, "rk4": RK4, "dopri5": DOPRI5}


def stability_limit(method: Method) -> float:
    """The largest stable fixed step h (s) of an explicit method; inf for Radau, geometric
    and exact (no τ term to be unstable on)."""
    if method in UNLIMITED_METHODS:
        return math.inf
    return TABLEAUS[method].real_stability * NORM_TIME_CONSTANT


def check_step(method: Method, step: float, field: str = "step") -> float:
    """Return `step` if the method can take it, else raise FieldError saying the limit."""
    if method not in METHODS:
        raise FieldError(
            "integrator", "invalid", f"integrator: must be one of {list(METHODS)}, got {method!r}"
        )
    h = float(step)
    if not math.isfinite(h) or h <= 0.0:
        raise FieldError(field, "invalid", f"{field}: must be a finite number > 0 s, got {step!r}")
    limit = stability_limit(method)
    if h >= limit:
        raise FieldError(
            field,
            "unstable_step",
            f"{field}: {h:g} s is beyond the stability limit of {method} for this model: "
            f"h must be below {limit:.4g} s (the quaternion-norm term has time "
            f"constant τ = {NORM_TIME_CONSTANT} s; {method} is stable for h < "
            f"{limit / NORM_TIME_CONSTANT:.4g}τ)",
        )
    return h
