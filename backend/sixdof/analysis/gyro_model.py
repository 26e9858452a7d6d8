"""The torque-free Euler equations of a body's rotation, integrated on a recording's times.

In free flight no moment acts about the CG, so with principal moments Ix, Iy, Iz and the
ratios a = Ix/Iz, b = Iy/Iz (section 2 of DESIGN.md, model `full`, M = 0):

    a ω̇x = (b − 1) ωy ωz,    b ω̇y = (1 − a) ωz ωx,    ω̇z = (a − b) ωx ωy

`simulate` integrates them by RK4 in compiled code (numba), each step at most MAX_STEP and
TURN_FRACTION of a turn: the work of one evaluation is its steps, counted by `step_counts`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

#: Internal RK4 steps are at most this long, s, and at most this fraction of a turn.
MAX_STEP = 2e-3
TURN_FRACTION = 0.01


def euler_rates(omega: np.ndarray, a: float, b: float) -> np.ndarray:
    """dω/dt of the torque-free Euler equations with Ix/Iz = a, Iy/Iz = b; ω (..., 3)."""
    wx, wy, wz = omega[..., 0], omega[..., 1], omega[..., 2]
    return np.stack([(b - 1.0) / a * wy * wz, (1.0 - a) / b * wz * wx, (a - b) * wx * wy], axis=-1)


def step_for(rate: float) -> float:
    """The RK4 step for rates up to `rate` rad/s: at most MAX_STEP and TURN_FRACTION of a
    turn."""
    return min(MAX_STEP, TURN_FRACTION * 2.0 * math.pi / max(rate, 1e-9))


def step_counts(t: np.ndarray, step: float) -> np.ndarray:
    """RK4 steps between consecutive times t (n,) with steps of at most `step`: what one
    `simulate` over t takes (n − 1,)."""
    return np.maximum(1, np.ceil(np.diff(t) / step)).astype(np.int64)


def simulate(
    t: np.ndarray, omega0: np.ndarray, a: float, b: float, step: float | None = None
) -> np.ndarray:
    """ω at the times t (n,), from ω(t[0]) = omega0, by RK4 with steps of at most `step`
    (None: `step_for` |omega0|); (n, 3). A fit gives the step of its record's fastest rate,
    so what each evaluation costs is known before it runs (gyro_cost)."""
    t = np.asarray(t, dtype=float)
    out = np.empty((t.size, 3))
    w = np.array(omega0, dtype=float)
    out[0] = w
    h = step_for(float(np.linalg.norm(w))) if step is None else step
    return _compiled()(w, np.diff(t), step_counts(t, h), float(a), float(b), out)


_COMPILED: list[Any] = []


def _compiled() -> Any:
    """`_rk4_grid` compiled by numba (cached on disk as the kernels are), or as it is where
    numba cannot compile: a fit evaluates it a few hundred times."""
    if not _COMPILED:
        try:
            import numba

            _COMPILED.append(numba.njit(cache=True)(_rk4_grid))
        except Exception:  # pragma: no cover - numba is a dependency
            _COMPILED.append(_rk4_grid)
    return _COMPILED[0]


def _rk4_grid(
    w: np.ndarray, spans: np.ndarray, counts: np.ndarray, a: float, b: float, out: np.ndarray
) -> np.ndarray:
    cx, cy, cz = (b - 1.0) / a, (1.0 - a) / b, a - b
    x, y, z = w[0], w[1], w[2]
    for i in range(spans.size):
        n = counts[i]
        h = spans[i] / n
        for _ in range(n):
            k1x, k1y, k1z = cx * y * z, cy * z * x, cz * x * y
            x2, y2, z2 = x + 0.5 * h * k1x, y + 0.5 * h * k1y, z + 0.5 * h * k1z
            k2x, k2y, k2z = cx * y2 * z2, cy * z2 * x2, cz * x2 * y2
            x3, y3, z3 = x + 0.5 * h * k2x, y + 0.5 * h * k2y, z + 0.5 * h * k2z
            k3x, k3y, k3z = cx * y3 * z3, cy * z3 * x3, cz * x3 * y3
            x4, y4, z4 = x + h * k3x, y + h * k3y, z + h * k3z
            k4x, k4y, k4z = cx * y4 * z4, cy * z4 * x4, cz * x4 * y4
            x += h / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x)
            y += h / 6.0 * (k1y + 2.0 * k2y + 2.0 * k3y + k4y)
            z += h / 6.0 * (k1z + 2.0 * k2z + 2.0 * k3z + k4z)
        out[i + 1, 0] = x
        out[i + 1, 1] = y
        out[i + 1, 2] = z
    return out
