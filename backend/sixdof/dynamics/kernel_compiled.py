"""The compiled core of `kernel`: the 6DBody derivative and Euler/RK4 steps for one body or
many, in scalar arithmetic (numba `njit`, cached on disk).

The equations and the reasons for writing them out by hand are in `kernel`'s docstring;
this module holds only what numba compiles; the row layouts it reads are `layout`'s. It
imports numba (~90 MiB, ~0.3 s): call it through `kernel`, which imports it on first use.
"""

from __future__ import annotations

import math
import os

from .layout import (
    L_F_BODY,
    L_F_GLOBAL,
    L_M_BODY,
    L_M_GLOBAL,
    L_POINTS,
    L_SPRING,
    L_STATE_DEPENDENT,
    P_BLOCK,
    P_CORIOLIS,
    P_GRAVITY,
    P_INERTIA_O,
    P_MASS,
    P_MASS_INV,
    P_R_CG,
    POINT_SLOTS,
)
from .names import NORM_TIME_CONSTANT

# OpenMP worker threads that spin while they wait steal a core from everything
# else; on a shared 2-core machine that made a one-step prange call over 10,000
# bodies take ~16 ms instead of ~1.5 ms. Passive waiting costs ~50 µs per
# parallel call instead, which PARALLEL_MIN_WORK keeps small calls clear of.
# libgomp reads this when numba first loads it; a value the user set wins.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

import numpy as np
from numba import get_num_threads, njit, prange  # after the OpenMP setting above

from .borrow import borrowed
from .stepper_compiled import load as _load
from .stepper_compiled import rk_step_apart
from .stepper_compiled import store as _store

#: Hash of the modules compiled in here (kernel_cache.STAMP_NAME: numba keys its cache on this
#: file's text alone); `python scripts/stamp_kernels.py` keeps it current.
COMPILED_FROM = "70678c12a758962f"


def threads() -> int:
    """numba's worker threads (prange's parallelism)."""
    return int(get_num_threads())


_TAU_GAIN = 0.5 / NORM_TIME_CONSTANT  # 1/(2τ)


# --------------------------------------------------------------------------- compiled core


@njit(cache=True, nogil=True, fastmath=False)
def _turning(u, i, y):
    """The state-dependent part of load row u[i] at state y (13-tuple), global (F_n, M_n)."""
    qw = y[3]
    qx = y[4]
    qy = y[5]
    qz = y[6]
    # A true rotation R(q/|q|): |q| drifts from one between the norm term's corrections, and
    # R of a non-unit q would scale the load.
    s = 2.0 / (qw * qw + qx * qx + qy * qy + qz * qz)
    e00 = 1.0 - s * (qy * qy + qz * qz)
    e01 = s * (qx * qy - qw * qz)
    e02 = s * (qx * qz + qw * qy)
    e10 = s * (qx * qy + qw * qz)
    e11 = 1.0 - s * (qx * qx + qz * qz)
    e12 = s * (qy * qz - qw * qx)
    e20 = s * (qx * qz - qw * qy)
    e21 = s * (qy * qz + qw * qx)
    e22 = 1.0 - s * (qx * qx + qy * qy)
    a0 = u[i, L_F_BODY]
    a1 = u[i, L_F_BODY + 1]
    a2 = u[i, L_F_BODY + 2]
    fx = e00 * a0 + e01 * a1 + e02 * a2
    fy = e10 * a0 + e11 * a1 + e12 * a2
    fz = e20 * a0 + e21 * a1 + e22 * a2
    a0 = u[i, L_M_BODY]
    a1 = u[i, L_M_BODY + 1]
    a2 = u[i, L_M_BODY + 2]
    mx = e00 * a0 + e01 * a1 + e02 * a2
    my = e10 * a0 + e11 * a1 + e12 * a2
    mz = e20 * a0 + e21 * a1 + e22 * a2
    for j in range(POINT_SLOTS):  # global forces at body points: F, and (R ℓ) × F
        o = L_POINTS + 6 * j
        l0 = u[i, o]
        l1 = u[i, o + 1]
        l2 = u[i, o + 2]
        f0 = u[i, o + 3]
        f1 = u[i, o + 4]
        f2 = u[i, o + 5]
        g0 = e00 * l0 + e01 * l1 + e02 * l2
        g1 = e10 * l0 + e11 * l1 + e12 * l2
        g2 = e20 * l0 + e21 * l1 + e22 * l2
        fx += f0
        fy += f1
        fz += f2
        mx += g1 * f2 - g2 * f1
        my += g2 * f0 - g0 * f2
        mz += g0 * f1 - g1 * f0
    o = L_SPRING
    k = u[i, o + 9]
    c = u[i, o + 10]
    if k != 0.0 or c != 0.0:
        r0 = u[i, o + 3]
        r1 = u[i, o + 4]
        r2 = u[i, o + 5]
        # the point's velocity in body axes, v + ω × r, then both into NED
        b0 = y[7] + (y[11] * r2 - y[12] * r1)
        b1 = y[8] + (y[12] * r0 - y[10] * r2)
        b2 = y[9] + (y[10] * r1 - y[11] * r0)
        s0 = k * (u[i, o] - (y[0] + e00 * r0 + e01 * r1 + e02 * r2)) - c * (
            e00 * b0 + e01 * b1 + e02 * b2
        )
        s1 = k * (u[i, o + 1] - (y[1] + e10 * r0 + e11 * r1 + e12 * r2)) - c * (
            e10 * b0 + e11 * b1 + e12 * b2
        )
        s2 = k * (u[i, o + 2] - (y[2] + e20 * r0 + e21 * r1 + e22 * r2)) - c * (
            e20 * b0 + e21 * b1 + e22 * b2
        )
        size = math.sqrt(s0 * s0 + s1 * s1 + s2 * s2)
        cap = u[i, o + 11]
        if size > cap:  # a hand, not a hammer
            scale = cap / size
            s0 *= scale
            s1 *= scale
            s2 *= scale
        l0 = u[i, o + 6]
        l1 = u[i, o + 7]
        l2 = u[i, o + 8]
        g0 = e00 * l0 + e01 * l1 + e02 * l2
        g1 = e10 * l0 + e11 * l1 + e12 * l2
        g2 = e20 * l0 + e21 * l1 + e22 * l2
        fx += s0
        fy += s1
        fz += s2
        mx += g1 * s2 - g2 * s1
        my += g2 * s0 - g0 * s2
        mz += g0 * s1 - g1 * s0
    return fx, fy, fz, mx, my, mz


@njit(cache=True, nogil=True, fastmath=False)
def _applied(u, i, y):
    """(F_n, M_n) of load row u[i] at state y (13-tuple): global, about the CG (inputs.py)."""
    fx = u[i, L_F_GLOBAL]
    fy = u[i, L_F_GLOBAL + 1]
    fz = u[i, L_F_GLOBAL + 2]
    mx = u[i, L_M_GLOBAL]
    my = u[i, L_M_GLOBAL + 1]
    mz = u[i, L_M_GLOBAL + 2]
    if u[i, L_STATE_DEPENDENT] != 0.0:
        tfx, tfy, tfz, tmx, tmy, tmz = _turning(u, i, y)
        fx += tfx
        fy += tfy
        fz += tfz
        mx += tmx
        my += tmy
        mz += tmz
    return fx, fy, fz, mx, my, mz


@njit(cache=True, nogil=True, fastmath=False)
def _applied_batch(u, x, out):
    """out (N, 6) ← the global (F_n, M_n) of load rows u (N, LOAD_SIZE) at states x (N, 13)."""
    for i in range(x.shape[0]):
        fx, fy, fz, mx, my, mz = _applied(u, i, _load(x[i]))
        out[i, 0] = fx
        out[i, 1] = fy
        out[i, 2] = fz
        out[i, 3] = mx
        out[i, 4] = my
        out[i, 5] = mz


@njit(cache=True, nogil=True, fastmath=False, inline="always")
def _rigid_body(p, i, y, fnx, fny, fnz, mnx, mny, mnz):
    """ẋ of body i at state y (13-tuple), parameter row p[i], under the global load (F_n, M_n)
    at the CG; a 13-tuple. Inlined into its two callers, so each compiles to straight code."""
    qw = y[3]
    qx = y[4]
    qy = y[5]
    qz = y[6]
    vx = y[7]
    vy = y[8]
    vz = y[9]
    wx = y[10]
    wy = y[11]
    wz = y[12]
    # R(q) = E + 2ηS(ε) + 2S(ε)², the same formula as quaternion.to_rotmat (valid for |q| ≠ 1).
    r00 = 1.0 - 2.0 * (qy * qy + qz * qz)
    r01 = 2.0 * (qx * qy - qw * qz)
    r02 = 2.0 * (qx * qz + qw * qy)
    r10 = 2.0 * (qx * qy + qw * qz)
    r11 = 1.0 - 2.0 * (qx * qx + qz * qz)
    r12 = 2.0 * (qy * qz - qw * qx)
    r20 = 2.0 * (qx * qz - qw * qy)
    r21 = 2.0 * (qy * qz + qw * qx)
    r22 = 1.0 - 2.0 * (qx * qx + qy * qy)
    # ṗ = R v
    pdx = r00 * vx + r01 * vy + r02 * vz
    pdy = r10 * vx + r11 * vy + r12 * vz
    pdz = r20 * vx + r21 * vy + r22 * vz
    # q̇ = ½ q ⊗ (0, ω) + (1/(2τ)) (1 − qᵀq) q
    kn = _TAU_GAIN * (1.0 - (qw * qw + qx * qx + qy * qy + qz * qz))
    qdw = 0.5 * (-(qx * wx + qy * wy + qz * wz)) + kn * qw
    qdx = 0.5 * (qw * wx + (qy * wz - qz * wy)) + kn * qx
    qdy = 0.5 * (qw * wy + (qz * wx - qx * wz)) + kn * qy
    qdz = 0.5 * (qw * wz + (qx * wy - qy * wx)) + kn * qz
    # F_b = Rᵀ (F_n + m g_n), M_b = Rᵀ M_n + r_g × F_b
    m = p[i, P_MASS]
    fnz += m * p[i, P_GRAVITY]
    t0 = r00 * fnx + r10 * fny + r20 * fnz
    t1 = r01 * fnx + r11 * fny + r21 * fnz
    t2 = r02 * fnx + r12 * fny + r22 * fnz
    t3 = r00 * mnx + r10 * mny + r20 * mnz
    t4 = r01 * mnx + r11 * mny + r21 * mnz
    t5 = r02 * mnx + r12 * mny + r22 * mnz
    # Without a CG offset (P_BLOCK) every r_g term is an exact zero: skipping them
    # changes no bit of the result, and M_RB⁻¹ is block diagonal.
    offset = p[i, P_BLOCK] == 0.0
    rx = p[i, P_R_CG]
    ry = p[i, P_R_CG + 1]
    rz = p[i, P_R_CG + 2]
    if offset:
        t3 += ry * t2 - rz * t1
        t4 += rz * t0 - rx * t2
        t5 += rx * t1 - ry * t0
    c = p[i, P_CORIOLIS]
    if c != 0.0:
        # C ν = (m ω × (v + ω × r_g), m r_g × (ω × v) + ω × (I_o ω)); `fhsim` (c = 0) drops it.
        o = P_INERTIA_O
        iwx = p[i, o] * wx + p[i, o + 1] * wy + p[i, o + 2] * wz
        iwy = p[i, o + 3] * wx + p[i, o + 4] * wy + p[i, o + 5] * wz
        iwz = p[i, o + 6] * wx + p[i, o + 7] * wy + p[i, o + 8] * wz
        ax = vx
        ay = vy
        az = vz
        if offset:
            ax += wy * rz - wz * ry
            ay += wz * rx - wx * rz
            az += wx * ry - wy * rx
            bx = wy * vz - wz * vy
            by = wz * vx - wx * vz
            bz = wx * vy - wy * vx
            t3 -= c * (m * (ry * bz - rz * by) + (wy * iwz - wz * iwy))
            t4 -= c * (m * (rz * bx - rx * bz) + (wz * iwx - wx * iwz))
            t5 -= c * (m * (rx * by - ry * bx) + (wx * iwy - wy * iwx))
        else:
            t3 -= c * (wy * iwz - wz * iwy)
            t4 -= c * (wz * iwx - wx * iwz)
            t5 -= c * (wx * iwy - wy * iwx)
        t0 -= c * (m * (wy * az - wz * ay))
        t1 -= c * (m * (wz * ax - wx * az))
        t2 -= c * (m * (wx * ay - wy * ax))
    # ν̇ = M_RB⁻¹ τ (row-major 6×6, written out: no loop, no temporaries). Without a CG
    # offset M_RB⁻¹ is block diagonal (its off-diagonal blocks are exact zeros), so the
    # two 3×3 blocks give the same numbers for less than half the work.
    o = P_MASS_INV
    if not offset:
        n0 = p[i, o] * t0 + p[i, o + 1] * t1 + p[i, o + 2] * t2
        n1 = p[i, o + 6] * t0 + p[i, o + 7] * t1 + p[i, o + 8] * t2
        n2 = p[i, o + 12] * t0 + p[i, o + 13] * t1 + p[i, o + 14] * t2
        n3 = p[i, o + 21] * t3 + p[i, o + 22] * t4 + p[i, o + 23] * t5
        n4 = p[i, o + 27] * t3 + p[i, o + 28] * t4 + p[i, o + 29] * t5
        n5 = p[i, o + 33] * t3 + p[i, o + 34] * t4 + p[i, o + 35] * t5
    else:
        n0 = (
            p[i, o] * t0
            + p[i, o + 1] * t1
            + p[i, o + 2] * t2
            + p[i, o + 3] * t3
            + p[i, o + 4] * t4
            + p[i, o + 5] * t5
        )
        n1 = (
            p[i, o + 6] * t0
            + p[i, o + 7] * t1
            + p[i, o + 8] * t2
            + p[i, o + 9] * t3
            + p[i, o + 10] * t4
            + p[i, o + 11] * t5
        )
        n2 = (
            p[i, o + 12] * t0
            + p[i, o + 13] * t1
            + p[i, o + 14] * t2
            + p[i, o + 15] * t3
            + p[i, o + 16] * t4
            + p[i, o + 17] * t5
        )
        n3 = (
            p[i, o + 18] * t0
            + p[i, o + 19] * t1
            + p[i, o + 20] * t2
            + p[i, o + 21] * t3
            + p[i, o + 22] * t4
            + p[i, o + 23] * t5
        )
        n4 = (
            p[i, o + 24] * t0
            + p[i, o + 25] * t1
            + p[i, o + 26] * t2
            + p[i, o + 27] * t3
            + p[i, o + 28] * t4
            + p[i, o + 29] * t5
        )
        n5 = (
            p[i, o + 30] * t0
            + p[i, o + 31] * t1
            + p[i, o + 32] * t2
            + p[i, o + 33] * t3
            + p[i, o + 34] * t4
            + p[i, o + 35] * t5
        )
    return (pdx, pdy, pdz, qdw, qdx, qdy, qdz, n0, n1, n2, n3, n4, n5)


@njit(cache=True, nogil=True, fastmath=False)
def _derivative(p, u, i, y):
    """ẋ of body i under the global part of load row u[i] only (a row with nothing turning)."""
    return _rigid_body(p, i, y, u[i, 0], u[i, 1], u[i, 2], u[i, 3], u[i, 4], u[i, 5])


@njit(cache=True, nogil=True, fastmath=False)
def _derivative_turning(p, u, i, y):
    """ẋ of body i under its whole load row u[i], evaluated at this stage's orientation."""
    fnx, fny, fnz, mnx, mny, mnz = _applied(u, i, y)
    return _rigid_body(p, i, y, fnx, fny, fnz, mnx, mny, mnz)


@njit(cache=True, nogil=True, fastmath=False, inline="always")
def _free_stage(p, u, el, aux, i, y, t, h, left, ws, s):
    """`_derivative` as `stepper_compiled.rk_step` calls a derivative."""
    return _derivative(p, u, i, y)


@njit(cache=True, nogil=True, fastmath=False, inline="always")
def _turning_stage(p, u, el, aux, i, y, t, h, left, ws, s):
    """`_derivative_turning` as `stepper_compiled.rk_step` calls a derivative."""
    return _derivative_turning(p, u, i, y)


@njit(cache=True, nogil=True, fastmath=False)
def _step(p, u, i, y, h, method):
    """One step of body i, global load only: explicit Euler (method 0) or classic RK4 (1)."""
    return rk_step_apart(_free_stage, p, u, p, p, i, y, 0.0, h, method, None)


@njit(cache=True, nogil=True, fastmath=False)
def _step_turning(p, u, i, y, h, method):
    """`_step` with the whole load row evaluated at every stage (body frame, at a point)."""
    return rk_step_apart(_turning_stage, p, u, p, p, i, y, 0.0, h, method, None)


@njit(cache=True, nogil=True, fastmath=False)
def _derivative_batch(p, x, u, out):
    for i in range(x.shape[0]):
        _store(out[i], _derivative_turning(p, u, i, _load(x[i])))


@njit(cache=True, nogil=True, fastmath=False)
def _spans_body(p, x, u, i, h_spans, n_spans, method, out):
    p, u = borrowed(p), borrowed(u)  # alive for the call: no reference counts in the loop
    y = _load(x[i])
    turning = u[i, L_STATE_DEPENDENT] != 0.0  # decided once: each loop stays straight code
    for s in range(h_spans.shape[0]):
        h = h_spans[s]
        if turning:
            for _ in range(n_spans[s]):
                y = _step_turning(p, u, i, y, h, method)
        else:
            for _ in range(n_spans[s]):
                y = _step(p, u, i, y, h, method)
        _store(out[s, i], y)
    _store(x[i], y)


@njit(cache=True, nogil=True, fastmath=False)
def _spans_serial(p, x, u, h_spans, n_spans, method, out):
    for i in range(x.shape[0]):
        _spans_body(p, x, u, i, h_spans, n_spans, method, out)


# The parallel kernels pass prange's index as np.int64: it is unsigned in the loop's body, and
# every body kernel beneath was compiled a second time for it (bench_compile.py).
@njit(cache=True, nogil=True, fastmath=False, parallel=True)
def _spans_parallel(p, x, u, h_spans, n_spans, method, out):
    for i in prange(x.shape[0]):
        _spans_body(p, x, u, np.int64(i), h_spans, n_spans, method, out)


@njit(cache=True, nogil=True, fastmath=False)
def _advance_body(p, x, u, i, h, n, method):
    p, u = borrowed(p), borrowed(u)  # alive for the call: no reference counts in the loop
    y = _load(x[i])
    if u[i, L_STATE_DEPENDENT] != 0.0:  # decided once: each loop stays straight code
        for _ in range(n):
            y = _step_turning(p, u, i, y, h, method)
    else:
        for _ in range(n):
            y = _step(p, u, i, y, h, method)
    _store(x[i], y)


@njit(cache=True, nogil=True, fastmath=False)
def _uniform_serial(p, x, u, h, n, method):
    for i in range(x.shape[0]):
        _advance_body(p, x, u, i, h, n, method)


@njit(cache=True, nogil=True, fastmath=False, parallel=True)
def _uniform_parallel(p, x, u, h, n, method):
    for i in prange(x.shape[0]):
        _advance_body(p, x, u, np.int64(i), h, n, method)


@njit(cache=True, nogil=True, fastmath=False)
def _each_serial(p, x, u, h, n, method):
    for i in range(x.shape[0]):
        _advance_body(p, x, u, i, h[i], n[i], method[i])


@njit(cache=True, nogil=True, fastmath=False, parallel=True)
def _each_parallel(p, x, u, h, n, method):
    for i in prange(x.shape[0]):
        _advance_body(p, x, u, np.int64(i), h[i], n[i], method[i])
