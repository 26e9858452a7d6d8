"""The equations of a tree of hinges hung from the world in its hinge angles (docs/physics.md,
"Joint", "Trees of hinges in their angles"; stepped by tree_run_compiled): the mechanism the
general solve holds (constraints_compiled), written in its n hinge angles θ instead of 6n
body coordinates and 5n constraint rows.

A group is such a tree (`order`) when every element on it is a hinge without a spring,
damper or stop, each body is the `body` of exactly one of them, the hinges' other ends lead
back to the world without a loop, every body is of the `full` model (Newton-Euler: `fhsim`
drops the velocity products) and no load on it turns with it. Anything else (a loop, a
redundant row, a ball, a slider, a weld, a drive, any other element) stays on the general
solve.

At a stage the poses follow from the root out (`pose`: q_c = q_P ⊗ q_K₀ ⊗ (cos θ/2,
sin θ/2 û), K₀ the hinge's relative turn where its θ is 0, the joint's point P from the
parent's, the body's reference point P − R_c a), and the accelerations (`accelerations`)
from the joint-space equations M(θ) θ̈ = −τ_bias: spatial vectors about a world point O,
each body's inertia compact (m, h = m c, I_O), the velocity products and the loads by the
recursive Newton-Euler pass with θ̈ = 0 (`bias`), M by the composite bodies (Featherstone's
RNEA and CRBA), then M's L D Lᵀ factor. With the θ̈ found, the same pass gives the spatial
force each joint passes to its child's subtree: its reaction.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .kernel_compiled import njit
from .kinds import joint
from .layout import E_BODY, E_KIND, E_OTHER, L_STATE_DEPENDENT, P_CORIOLIS

#: Hash of the modules compiled in here (kernel_cache.STAMP_NAME: numba keys its cache on this
#: file's text alone); `python scripts/stamp_kernels.py` keeps it current.
COMPILED_FROM = "7f0269c7c2c607a6"

_JIT: Any = {"cache": True, "nogil": True, "fastmath": False, "error_model": "numpy"}

# T (cnt, T_W): a run's constants, one row per body in order (parents first)
T_BODY, T_PARENT, T_E, T_A, T_B, T_U, T_Q0, T_M, T_RG, T_J, T_F, T_MN, T_DIAG, T_QU, T_W = (
    0, 1, 2, 3, 6, 9, 12, 16, 17, 20, 29, 32, 35, 36, 40,
)  # fmt: skip
# W (cnt, W_W): a stage's quantities per body, world, about O: its turn as a quaternion and
# a matrix, its reference point and CG, its joint's point, S = (â, P × â), the spatial
# velocity V, acceleration A and force F, its inertia (m, h, I_O: xx yy zz xy xz yz) and the
# composite inertia of its subtree
W_Q, W_R, W_POS, W_C, W_P, W_S, W_V, W_A, W_F, W_I, W_IC, W_W = (
    0, 4, 13, 16, 19, 22, 28, 34, 40, 46, 56, 66,
)  # fmt: skip
# Z: the reduced state in the stepper's rows (13 wide), four hinges a row, three columns each:
# cos θ/2, sin θ/2, θ̇ (`at`)
Z_C, Z_S, Z_QD = 0, 1, 2


@njit(inline="always", **_JIT)
def at(k):
    """Hinge k's row and first column in Z."""
    return k >> 2, 3 * (k & 3)


@njit(**_JIT)
def order(p, u, el, e0, e1, first, cnt):
    """T's first columns (body, parent's position in the order, joint row), parents first,
    when the group is a tree this path takes (module docstring); else an empty array."""
    none = np.empty((0, T_W))
    if e1 - e0 != cnt:
        return none
    of = np.full(cnt, -1, dtype=np.int64)
    for e in range(e0, e1):
        b = int(el[e, E_BODY])
        if el[e, E_KIND] != joint.CODE or el[e, joint.EJ_TYPE] != joint.HINGE:
            return none
        if el[e, joint.EJ_DRIVEN] != 0.0 or of[b] >= 0:
            return none
        of[b] = e
    for b in range(cnt):
        if p[first + b, P_CORIOLIS] != 1.0 or u[first + b, L_STATE_DEPENDENT] != 0.0:
            return none
    T = np.zeros((cnt, T_W))
    at = np.full(cnt, -1, dtype=np.int64)  # each body's position in the order
    n = 0
    while n < cnt:
        placed = n
        for b in range(cnt):
            o = int(el[of[b], E_OTHER])
            if at[b] < 0 and (o < 0 or at[o] >= 0):
                at[b] = n
                T[n, T_BODY] = b
                T[n, T_PARENT] = at[o] if o >= 0 else -1
                T[n, T_E] = of[b]
                n += 1
        if n == placed:  # a loop
            return none
    return T


@njit(inline="always", **_JIT)
def cross(a0, a1, a2, b0, b1, b2):
    return a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0


@njit(inline="always", **_JIT)
def qmul(a0, a1, a2, a3, b0, b1, b2, b3):
    return (
        a0 * b0 - a1 * b1 - a2 * b2 - a3 * b3,
        a0 * b1 + a1 * b0 + a2 * b3 - a3 * b2,
        a0 * b2 - a1 * b3 + a2 * b0 + a3 * b1,
        a0 * b3 + a1 * b2 - a2 * b1 + a3 * b0,
    )


@njit(inline="always", **_JIT)
def _inertia(T, W, k, r):
    """W[k]'s own inertia about O from its body's (T_M, T_J about the CG, body axes) and its
    CG W_C: I_O = R J Rᵀ + m (|c|² E − c cᵀ); the composite's starts as it."""
    m = T[k, T_M]
    c0, c1, c2 = W[k, W_C], W[k, W_C + 1], W[k, W_C + 2]
    j = T_J
    if T[k, T_DIAG] != 0.0:  # principal axes: R J is R's columns scaled
        t0, t1, t2 = r[0] * T[k, j], r[1] * T[k, j + 4], r[2] * T[k, j + 8]
        t3, t4, t5 = r[3] * T[k, j], r[4] * T[k, j + 4], r[5] * T[k, j + 8]
        t6, t7, t8 = r[6] * T[k, j], r[7] * T[k, j + 4], r[8] * T[k, j + 8]
    else:  # R J, row by row
        t0 = r[0] * T[k, j] + r[1] * T[k, j + 3] + r[2] * T[k, j + 6]
        t1 = r[0] * T[k, j + 1] + r[1] * T[k, j + 4] + r[2] * T[k, j + 7]
        t2 = r[0] * T[k, j + 2] + r[1] * T[k, j + 5] + r[2] * T[k, j + 8]
        t3 = r[3] * T[k, j] + r[4] * T[k, j + 3] + r[5] * T[k, j + 6]
        t4 = r[3] * T[k, j + 1] + r[4] * T[k, j + 4] + r[5] * T[k, j + 7]
        t5 = r[3] * T[k, j + 2] + r[4] * T[k, j + 5] + r[5] * T[k, j + 8]
        t6 = r[6] * T[k, j] + r[7] * T[k, j + 3] + r[8] * T[k, j + 6]
        t7 = r[6] * T[k, j + 1] + r[7] * T[k, j + 4] + r[8] * T[k, j + 7]
        t8 = r[6] * T[k, j + 2] + r[7] * T[k, j + 5] + r[8] * T[k, j + 8]
    cc = c0 * c0 + c1 * c1 + c2 * c2
    o = W_I
    W[k, o] = m
    W[k, o + 1], W[k, o + 2], W[k, o + 3] = m * c0, m * c1, m * c2
    W[k, o + 4] = t0 * r[0] + t1 * r[1] + t2 * r[2] + m * (cc - c0 * c0)
    W[k, o + 5] = t3 * r[3] + t4 * r[4] + t5 * r[5] + m * (cc - c1 * c1)
    W[k, o + 6] = t6 * r[6] + t7 * r[7] + t8 * r[8] + m * (cc - c2 * c2)
    W[k, o + 7] = t0 * r[3] + t1 * r[4] + t2 * r[5] - m * c0 * c1
    W[k, o + 8] = t0 * r[6] + t1 * r[7] + t2 * r[8] - m * c0 * c2
    W[k, o + 9] = t3 * r[6] + t4 * r[7] + t5 * r[8] - m * c1 * c2
    for j in range(10):
        W[k, W_IC + j] = W[k, o + j]


@njit(inline="always", **_JIT)
def _times(W, k, o, w0, w1, w2, v0, v1, v2):
    """The compact inertia W[k, o:o + 10] times the motion (w, v): (I_O w + h × v, m v − h × w)."""
    m, h0, h1, h2 = W[k, o], W[k, o + 1], W[k, o + 2], W[k, o + 3]
    xx, yy, zz, xy, xz, yz = W[k, o + 4], W[k, o + 5], W[k, o + 6], W[k, o + 7], W[k, o + 8], W[
        k, o + 9]  # fmt: skip
    a = cross(h0, h1, h2, v0, v1, v2)
    b = cross(h0, h1, h2, w0, w1, w2)
    return (
        xx * w0 + xy * w1 + xz * w2 + a[0],
        xy * w0 + yy * w1 + yz * w2 + a[1],
        xz * w0 + yz * w1 + zz * w2 + a[2],
        m * v0 - b[0],
        m * v1 - b[1],
        m * v2 - b[2],
    )


@njit(inline="always", **_JIT)
def pose(T, W, k, ch, sh):
    """W[k]'s turn, rotation, joint point, reference point, CG, S and inertia from its
    parent's row and its hinge's (cos θ/2, sin θ/2)."""
    q = (
        ch * T[k, T_Q0] + sh * T[k, T_QU],
        ch * T[k, T_Q0 + 1] + sh * T[k, T_QU + 1],
        ch * T[k, T_Q0 + 2] + sh * T[k, T_QU + 2],
        ch * T[k, T_Q0 + 3] + sh * T[k, T_QU + 3],
    )
    pk = int(T[k, T_PARENT])
    b0, b1, b2 = T[k, T_B], T[k, T_B + 1], T[k, T_B + 2]
    if pk >= 0:
        q = qmul(W[pk, W_Q], W[pk, W_Q + 1], W[pk, W_Q + 2], W[pk, W_Q + 3], q[0], q[1], q[2],
                  q[3])  # fmt: skip
        o = W_R
        x0 = W[pk, W_POS] + W[pk, o] * b0 + W[pk, o + 1] * b1 + W[pk, o + 2] * b2
        x1 = W[pk, W_POS + 1] + W[pk, o + 3] * b0 + W[pk, o + 4] * b1 + W[pk, o + 5] * b2
        x2 = W[pk, W_POS + 2] + W[pk, o + 6] * b0 + W[pk, o + 7] * b1 + W[pk, o + 8] * b2
        b0, b1, b2 = x0, x1, x2
    q0, q1, q2, q3 = q
    # R(q) = E + 2ηS(ε) + 2S(ε)², q as it is: a stage's (cos θ/2, sin θ/2) is off the unit
    # circle by O(h²) (the step's end is put back on it), as a body's quaternion is in
    # `_rigid_body`; the exact solution stays on it, so RK4 keeps its order (no division)
    s = 2.0
    r = (
        1.0 - s * (q2 * q2 + q3 * q3),
        s * (q1 * q2 - q0 * q3),
        s * (q1 * q3 + q0 * q2),
        s * (q1 * q2 + q0 * q3),
        1.0 - s * (q1 * q1 + q3 * q3),
        s * (q2 * q3 - q0 * q1),
        s * (q1 * q3 - q0 * q2),
        s * (q2 * q3 + q0 * q1),
        1.0 - s * (q1 * q1 + q2 * q2),
    )
    for j in range(9):
        W[k, W_R + j] = r[j]
    W[k, W_Q], W[k, W_Q + 1], W[k, W_Q + 2], W[k, W_Q + 3] = q0, q1, q2, q3
    place(T, W, k, r, b0, b1, b2)


@njit(inline="always", **_JIT)
def place(T, W, k, r, p0, p1, p2):
    """W[k]'s joint point (p), reference point, CG, S and inertia, given its rotation r."""
    a0, a1, a2 = T[k, T_A], T[k, T_A + 1], T[k, T_A + 2]
    W[k, W_P], W[k, W_P + 1], W[k, W_P + 2] = p0, p1, p2
    x0 = p0 - (r[0] * a0 + r[1] * a1 + r[2] * a2)
    x1 = p1 - (r[3] * a0 + r[4] * a1 + r[5] * a2)
    x2 = p2 - (r[6] * a0 + r[7] * a1 + r[8] * a2)
    W[k, W_POS], W[k, W_POS + 1], W[k, W_POS + 2] = x0, x1, x2
    g0, g1, g2 = T[k, T_RG], T[k, T_RG + 1], T[k, T_RG + 2]
    W[k, W_C] = x0 + r[0] * g0 + r[1] * g1 + r[2] * g2
    W[k, W_C + 1] = x1 + r[3] * g0 + r[4] * g1 + r[5] * g2
    W[k, W_C + 2] = x2 + r[6] * g0 + r[7] * g1 + r[8] * g2
    u0, u1, u2 = T[k, T_U], T[k, T_U + 1], T[k, T_U + 2]
    s0 = r[0] * u0 + r[1] * u1 + r[2] * u2
    s1 = r[3] * u0 + r[4] * u1 + r[5] * u2
    s2 = r[6] * u0 + r[7] * u1 + r[8] * u2
    m = cross(p0, p1, p2, s0, s1, s2)
    W[k, W_S], W[k, W_S + 1], W[k, W_S + 2] = s0, s1, s2
    W[k, W_S + 3], W[k, W_S + 4], W[k, W_S + 5] = m[0], m[1], m[2]
    _inertia(T, W, k, r)


@njit(inline="always", **_JIT)
def bias(T, W, n, Z, qdd, moving):
    """W's V, A and F = I A + V ×* I V − loads of every body, root out (θ̈ = qdd when
    `moving`, else 0: the velocity products alone); then each F summed into its parent's,
    leaves in: what crosses each joint."""
    for k in range(n):
        pk = int(T[k, T_PARENT])
        i, j = at(k)
        d = Z[i, j + Z_QD]
        sw0, sw1, sw2 = W[k, W_S] * d, W[k, W_S + 1] * d, W[k, W_S + 2] * d
        sv0, sv1, sv2 = W[k, W_S + 3] * d, W[k, W_S + 4] * d, W[k, W_S + 5] * d
        w0 = w1 = w2 = v0 = v1 = v2 = 0.0
        a0 = a1 = a2 = a3 = a4 = a5 = 0.0
        if pk >= 0:  # V × S θ̇ (the parent's V: S × S = 0)
            w0, w1, w2 = W[pk, W_V], W[pk, W_V + 1], W[pk, W_V + 2]
            v0, v1, v2 = W[pk, W_V + 3], W[pk, W_V + 4], W[pk, W_V + 5]
            zw = cross(w0, w1, w2, sw0, sw1, sw2)
            z1 = cross(w0, w1, w2, sv0, sv1, sv2)
            z2 = cross(v0, v1, v2, sw0, sw1, sw2)
            a0, a1, a2 = W[pk, W_A] + zw[0], W[pk, W_A + 1] + zw[1], W[pk, W_A + 2] + zw[2]
            a3 = W[pk, W_A + 3] + z1[0] + z2[0]
            a4 = W[pk, W_A + 4] + z1[1] + z2[1]
            a5 = W[pk, W_A + 5] + z1[2] + z2[2]
        if moving:
            dd = qdd[k]
            a0, a1, a2 = a0 + W[k, W_S] * dd, a1 + W[k, W_S + 1] * dd, a2 + W[k, W_S + 2] * dd
            a3, a4, a5 = a3 + W[k, W_S + 3] * dd, a4 + W[k, W_S + 4] * dd, a5 + W[k, W_S + 5] * dd
        w0, w1, w2, v0, v1, v2 = w0 + sw0, w1 + sw1, w2 + sw2, v0 + sv0, v1 + sv1, v2 + sv2
        W[k, W_V], W[k, W_V + 1], W[k, W_V + 2] = w0, w1, w2
        W[k, W_V + 3], W[k, W_V + 4], W[k, W_V + 5] = v0, v1, v2
        W[k, W_A], W[k, W_A + 1], W[k, W_A + 2] = a0, a1, a2
        W[k, W_A + 3], W[k, W_A + 4], W[k, W_A + 5] = a3, a4, a5
        iv = _times(W, k, W_I, w0, w1, w2, v0, v1, v2)
        ia = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)  # a root's A is its θ̈'s alone
        if pk >= 0 or moving:
            ia = _times(W, k, W_I, a0, a1, a2, a3, a4, a5)
        n1 = cross(w0, w1, w2, iv[0], iv[1], iv[2])  # V ×* (I V)
        n2 = cross(v0, v1, v2, iv[3], iv[4], iv[5])
        f1 = cross(w0, w1, w2, iv[3], iv[4], iv[5])
        fx, fy, fz = T[k, T_F], T[k, T_F + 1], T[k, T_F + 2]
        mo = cross(W[k, W_C], W[k, W_C + 1], W[k, W_C + 2], fx, fy, fz)
        W[k, W_F] = ia[0] + n1[0] + n2[0] - T[k, T_MN] - mo[0]
        W[k, W_F + 1] = ia[1] + n1[1] + n2[1] - T[k, T_MN + 1] - mo[1]
        W[k, W_F + 2] = ia[2] + n1[2] + n2[2] - T[k, T_MN + 2] - mo[2]
        W[k, W_F + 3] = ia[3] + f1[0] - fx
        W[k, W_F + 4] = ia[4] + f1[1] - fy
        W[k, W_F + 5] = ia[5] + f1[2] - fz
    for k in range(n - 1, 0, -1):
        pk = int(T[k, T_PARENT])
        if pk >= 0:
            for j in range(6):
                W[pk, W_F + j] += W[k, W_F + j]


@njit(inline="always", **_JIT)
def accelerations(T, W, M, n, Z, qdd):
    """qdd ← θ̈ of every hinge at W's poses and speeds in Z (module docstring): M θ̈ = −τ_bias.
    M (n, n + 2) scratch."""
    bias(T, W, n, Z, qdd, False)
    for i in range(n):
        for j in range(i):
            M[i, j] = 0.0
    for k in range(n - 1, -1, -1):  # the composite bodies, leaves in: M's rows
        s0, s1, s2 = W[k, W_S], W[k, W_S + 1], W[k, W_S + 2]
        s3, s4, s5 = W[k, W_S + 3], W[k, W_S + 4], W[k, W_S + 5]
        M[k, n] = -(s0 * W[k, W_F] + s1 * W[k, W_F + 1] + s2 * W[k, W_F + 2]
                    + s3 * W[k, W_F + 3] + s4 * W[k, W_F + 4] + s5 * W[k, W_F + 5])  # fmt: skip
        f = _times(W, k, W_IC, s0, s1, s2, s3, s4, s5)
        j = k
        while j >= 0:
            M[k, j] = (
                W[j, W_S] * f[0]
                + W[j, W_S + 1] * f[1]
                + W[j, W_S + 2] * f[2]
                + W[j, W_S + 3] * f[3]
                + W[j, W_S + 4] * f[4]
                + W[j, W_S + 5] * f[5]
            )
            j = int(T[j, T_PARENT])
        pk = int(T[k, T_PARENT])
        if pk >= 0:
            for j in range(10):
                W[pk, W_IC + j] += W[k, W_IC + j]
    # M's lower triangle, filled above where a row's body descends from the column's (zeros
    # elsewhere), solved by Cramer's rule for one or two hinges (a pendulum, a double one:
    # the factor's loops cost more than its arithmetic there), else by its dense L D Lᵀ
    # factor (n is a few dozen at most; no square roots)
    if n == 1:
        qdd[0] = M[0, 1] / M[0, 0]
    elif n == 2:
        a, b, d = M[0, 0], M[1, 0], M[1, 1]
        r = 1.0 / (a * d - b * b)
        qdd[0] = (d * M[0, 2] - b * M[1, 2]) * r
        qdd[1] = (a * M[1, 2] - b * M[0, 2]) * r
    else:
        _factor_solve(M, n, qdd)


@njit(**_JIT)
def _factor_solve(M, n, qdd):
    """qdd ← M⁻¹ M[:, n] by M's L D Lᵀ factor: L below the diagonal, 1/D on it, D in column
    n + 1 (M's lower triangle given)."""
    for i in range(n):
        for j in range(i):
            s = M[i, j]
            for k in range(j):
                s -= M[i, k] * M[j, k] * M[k, n + 1]
            M[i, j] = s * M[j, j]
        d = M[i, i]
        for k in range(i):
            d -= M[i, k] * M[i, k] * M[k, n + 1]
        M[i, n + 1] = d
        M[i, i] = 1.0 / d
    for i in range(n):
        s = M[i, n]
        for k in range(i):
            s -= M[i, k] * qdd[k]
        qdd[i] = s
    for i in range(n - 1, -1, -1):
        s = qdd[i] * M[i, i]
        for k in range(i + 1, n):
            s -= M[k, i] * qdd[k]
        qdd[i] = s
