"""Adaptive Dormand–Prince 5(4) for N bodies in one compiled loop, with dense output.

The method of Dormand & Prince (1980) as Hairer, Nørsett and Wanner's `dopri5` runs it
(Solving ODEs I, section II.4 and II.6): seven stages with FSAL, local extrapolation (the
fifth-order solution is kept), the error estimate h Σ eⱼ kⱼ measured as

    ‖err‖ = sqrt( mean_i (err_i / (AbsTol + RelTol · max(|y_i|, |y_new,i|)))² )

over all components of all bodies, a step accepted when ‖err‖ ≤ 1, and the next step
h · clamp(0.9 ‖err‖^(−α) ‖err_prev‖^β, 0.2, 10) with α = 0.2 − 0.75 β, β = 0.04 (the PI
controller of Gustafsson, as in dopri5), capped at HMax. Output times never shorten a
step: each is read off the step that passes it by the fourth-order continuous extension
(dense output, Hairer's `contd5`), so the grid of output times changes nothing in the
solution's steps. Only the very last step is shortened to end on the last output time.

The derivative is the compiled kernel's (`kernel_compiled._derivative`), with constant
global loads, so a step costs 6 derivative evaluations of ~60 ns per body.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .kernel_compiled import _derivative, _load, _store

# The Dormand–Prince 5(4) tableau (methods.DOPRI5) and its dense-output weights.
A21 = 1.0 / 5.0
A31, A32 = 3.0 / 40.0, 9.0 / 40.0
A41, A42, A43 = 44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0
A51, A52, A53, A54 = 19372.0 / 6561.0, -25360.0 / 2187.0, 64448.0 / 6561.0, -212.0 / 729.0
A61, A62, A63, A64, A65 = (9017.0 / 3168.0, -355.0 / 33.0, 46732.0 / 5247.0, 49.0 / 176.0,
                           -5103.0 / 18656.0)  # fmt: skip
B1, B3, B4, B5, B6 = 35.0 / 384.0, 500.0 / 1113.0, 125.0 / 192.0, -2187.0 / 6784.0, 11.0 / 84.0
E1, E3, E4, E5, E6, E7 = (71.0 / 57600.0, -71.0 / 16695.0, 71.0 / 1920.0, -17253.0 / 339200.0,
                          22.0 / 525.0, -1.0 / 40.0)  # fmt: skip
D1, D3, D4 = (
    -12715105075.0 / 11282082432.0,
    87487479700.0 / 32700410799.0,
    (-10690763975.0 / 1880347072.0),
)
D5, D6, D7 = 701980252875.0 / 199316789632.0, -1453857185.0 / 822651844.0, (69997945.0 / 29380423.0)

SAFETY = 0.9
BETA = 0.04
ALPHA = 0.2 - 0.75 * BETA
FAC_MIN, FAC_MAX = 0.2, 10.0  # the next step is at least 0.2 h, at most 10 h

#: Status codes of `dopri5_run`.
DONE, HMIN_REACHED, NOT_FINITE = 0, 1, 2


@njit(cache=True, fastmath=False)
def _f(p, u, y, k):
    """k ← f(y) for every body (y, k: (N, 13))."""
    for i in range(y.shape[0]):
        _store(k[i], _derivative(p, u, i, _load(y[i])))


@njit(cache=True, fastmath=False)
def _norm(y, scale_base, rtol, atol):
    """sqrt(mean((y / (atol + rtol |base|))²)) over all components."""
    total = 0.0
    n = y.shape[0] * y.shape[1]
    for i in range(y.shape[0]):
        for c in range(13):
            s = atol + rtol * abs(scale_base[i, c])
            total += (y[i, c] / s) ** 2
    return math.sqrt(total / n)


@njit(cache=True, fastmath=False)
def _initial_step(p, u, y, f0, rtol, atol, hmax, work, f1):
    """Hairer's starting step: h with ‖h f‖ ≈ 0.01 ‖y‖, refined by a second derivative."""
    d0 = _norm(y, y, rtol, atol)
    d1 = _norm(f0, y, rtol, atol)
    h0 = 1e-6 if d0 < 1e-5 or d1 < 1e-5 else 0.01 * d0 / d1
    h0 = min(h0, hmax)
    for i in range(y.shape[0]):
        for c in range(13):
            work[i, c] = y[i, c] + h0 * f0[i, c]
    _f(p, u, work, f1)
    for i in range(y.shape[0]):
        for c in range(13):
            work[i, c] = f1[i, c] - f0[i, c]
    d2 = _norm(work, y, rtol, atol) / h0
    big = max(d1, d2)
    h1 = max(1e-6, h0 * 1e-3) if big <= 1e-15 else (0.01 / big) ** 0.2
    return min(100.0 * h0, h1, hmax)


@njit(cache=True, fastmath=False)
def dopri5_run(p, x, u, t_out, rtol, atol, hmin, hmax, h_first, out, stats):
    """Integrate x (N, 13) from t_out[0] through every t_out; out (T, N, 13) gets the states.

    stats (int64, 3): accepted steps, rejected steps, derivative evaluations (added to).
    h_first > 0 is the first step to try, else Hairer's starting step is used.
    Returns (status, t reached, the step size to continue with).
    """
    n = x.shape[0]
    y = x.copy()
    k1 = np.empty((n, 13))
    k2 = np.empty((n, 13))
    k3 = np.empty((n, 13))
    k4 = np.empty((n, 13))
    k5 = np.empty((n, 13))
    k6 = np.empty((n, 13))
    k7 = np.empty((n, 13))
    ys = np.empty((n, 13))
    y_new = np.empty((n, 13))
    t = t_out[0]
    t_end = t_out[-1]
    for i in range(n):
        for c in range(13):
            out[0, i, c] = y[i, c]
    j = 1
    while j < t_out.shape[0] and t_out[j] <= t:  # output times at the start
        for i in range(n):
            for c in range(13):
                out[j, i, c] = y[i, c]
        j += 1
    if j >= t_out.shape[0]:
        return DONE, t, h_first
    _f(p, u, y, k1)
    stats[2] += 1
    if h_first > 0.0:
        h = min(h_first, hmax)
    else:
        h = max(hmin, _initial_step(p, u, y, k1, rtol, atol, hmax, ys, k2))
        stats[2] += 1
    err_prev = 1e-4
    rejected_last = False
    while j < t_out.shape[0]:
        last = t + h >= t_end - 1e-14 * max(1.0, abs(t_end))
        if last:
            h = t_end - t
        for i in range(n):
            for c in range(13):
                ys[i, c] = y[i, c] + h * A21 * k1[i, c]
        _f(p, u, ys, k2)
        for i in range(n):
            for c in range(13):
                ys[i, c] = y[i, c] + h * (A31 * k1[i, c] + A32 * k2[i, c])
        _f(p, u, ys, k3)
        for i in range(n):
            for c in range(13):
                ys[i, c] = y[i, c] + h * (A41 * k1[i, c] + A42 * k2[i, c] + A43 * k3[i, c])
        _f(p, u, ys, k4)
        for i in range(n):
            for c in range(13):
                ys[i, c] = y[i, c] + h * (A51 * k1[i, c] + A52 * k2[i, c] + A53 * k3[i, c]
                                          + A54 * k4[i, c])  # fmt: skip
        _f(p, u, ys, k5)
        for i in range(n):
            for c in range(13):
                ys[i, c] = y[i, c] + h * (A61 * k1[i, c] + A62 * k2[i, c] + A63 * k3[i, c]
                                          + A64 * k4[i, c] + A65 * k5[i, c])  # fmt: skip
        _f(p, u, ys, k6)
        finite = True
        for i in range(n):
            for c in range(13):
                v = y[i, c] + h * (B1 * k1[i, c] + B3 * k3[i, c] + B4 * k4[i, c]
                                   + B5 * k5[i, c] + B6 * k6[i, c])  # fmt: skip
                y_new[i, c] = v
                if not math.isfinite(v):
                    finite = False
        _f(p, u, y_new, k7)
        stats[2] += 6
        norm = math.inf
        if finite:
            total = 0.0
            for i in range(n):
                for c in range(13):
                    e = h * (E1 * k1[i, c] + E3 * k3[i, c] + E4 * k4[i, c] + E5 * k5[i, c]
                             + E6 * k6[i, c] + E7 * k7[i, c])  # fmt: skip
                    s = atol + rtol * max(abs(y[i, c]), abs(y_new[i, c]))
                    total += (e / s) ** 2
            norm = math.sqrt(total / (n * 13))
        if norm <= 1.0:
            stats[0] += 1
            t_new = t_end if last else t + h
            # dense output for every output time this step passed
            while j < t_out.shape[0] and t_out[j] <= t_new:
                theta = (t_out[j] - t) / h
                theta1 = 1.0 - theta
                for i in range(n):
                    for c in range(13):
                        diff = y_new[i, c] - y[i, c]
                        bspl = h * k1[i, c] - diff
                        r4 = diff - h * k7[i, c] - bspl
                        r5 = h * (D1 * k1[i, c] + D3 * k3[i, c] + D4 * k4[i, c] + D5 * k5[i, c]
                                  + D6 * k6[i, c] + D7 * k7[i, c])  # fmt: skip
                        out[j, i, c] = y[i, c] + theta * (
                            diff + theta1 * (bspl + theta * (r4 + theta1 * r5))
                        )
                j += 1
            for i in range(n):
                for c in range(13):
                    y[i, c] = y_new[i, c]
                    k1[i, c] = k7[i, c]  # FSAL
            t = t_new
            fac = SAFETY * max(norm, 1e-10) ** (-ALPHA) * err_prev**BETA
            fac = min(FAC_MAX, max(FAC_MIN, fac))
            if rejected_last:
                fac = min(1.0, fac)
            err_prev = max(norm, 1e-4)
            if not last:
                h = min(hmax, h * fac)
            rejected_last = False
        else:
            stats[1] += 1
            fac = FAC_MIN if not finite else max(FAC_MIN, SAFETY * norm ** (-ALPHA))
            h = h * fac
            rejected_last = True
            if h < hmin:
                return (HMIN_REACHED if finite else NOT_FINITE), t, h
    return DONE, t, h
