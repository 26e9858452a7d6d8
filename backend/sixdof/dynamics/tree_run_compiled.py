"""A tree of hinges hung from the world stepped in its hinge angles (docs/physics.md, "Joint",
"Trees of hinges in their angles"; the equations: tree_compiled), and its joints' reactions.

A run (`run`): the bodies are put on their joints as the general path puts them (its
projection, `constraints_compiled.hold`), each hinge's relative turn at that moment is its
reference K₀ = R_P⁻¹ R_c (P its parent body, or the world), and its angle θ from there is
held as (cos θ/2, sin θ/2) beside θ̇, integrated by the one stage sequence
(stepper_compiled.rk_step) and normalised after every step, as a quaternion is. The bodies'
13 states are written back at the end of the run: their joints hold by construction (gap 0
to rounding). A joint's reaction (`reactions`: JointForce, JointMoment) is the spatial force
its parent passes to its child's subtree, from the same equations at the state.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import constraints_compiled as joints
from .kernel_compiled import _applied, njit
from .kinds import geometry, joint
from .layout import E_OTHER, P_GRAVITY, P_INERTIA_O, P_MASS, P_R_CG
from .stepper_compiled import load as _load
from .stepper_compiled import rk_step
from .tree_compiled import (
    T_A,
    T_B,
    T_BODY,
    T_DIAG,
    T_E,
    T_F,
    T_J,
    T_M,
    T_MN,
    T_PARENT,
    T_Q0,
    T_QU,
    T_RG,
    T_U,
    W_F,
    W_P,
    W_POS,
    W_Q,
    W_R,
    W_S,
    W_V,
    W_W,
    Z_C,
    Z_QD,
    Z_S,  # fmt: skip
    accelerations,
    at,
    bias,
    cross,
    place,
    pose,
    qmul,
)

#: Hash of the modules compiled in here (kernel_cache.STAMP_NAME: numba keys its cache on this
#: file's text alone); `python scripts/stamp_kernels.py` keeps it current.
COMPILED_FROM = "534f04f01e5a4ff3"

_JIT: Any = {"cache": True, "nogil": True, "fastmath": False, "error_model": "numpy"}


@njit(inline="always", **_JIT)
def _stage(T, W, M, qdd, n, Z, t, h, left, ws, s):
    """The reduced state's rate at Z, as `stepper_compiled.rk_step` calls a derivative: its
    arrays in the stepper's four array slots (p, u, el, aux there: a tuple of arrays would
    cost reference counts at every stage), none of which this stage reads. Z's rows are the
    stepper's (`tree_compiled.at`)."""
    for k in range(n):
        i, j = at(k)
        pose(T, W, k, Z[i, j + Z_C], Z[i, j + Z_S])
    accelerations(T, W, M, n, Z, qdd)
    rate = ws[s]
    for k in range(n):
        i, j = at(k)
        c, d, w = Z[i, j + Z_C], Z[i, j + Z_S], Z[i, j + Z_QD]
        rate[i, j + Z_C] = -0.5 * d * w
        rate[i, j + Z_S] = 0.5 * c * w
        rate[i, j + Z_QD] = qdd[k]
    return rate


@njit(**_JIT)
def _rows(cnt):
    """Zeroed stepper rows, 13 wide, holding a reduced state of cnt hinges."""
    return np.zeros(((cnt + 3) // 4, 13))


@njit(**_JIT)
def _constants(p, u, el, first, T, Y):
    """T's columns past the order's from the bodies' parameters, loads, joints and states Y
    (the references K₀ at Y); the world point O the spatial vectors are taken about."""
    e = int(T[0, T_E])
    origin = (el[e, joint.EJ_B], el[e, joint.EJ_B + 1], el[e, joint.EJ_B + 2])
    for k in range(T.shape[0]):
        b = int(T[k, T_BODY])
        e = int(T[k, T_E])
        o = int(el[e, E_OTHER])
        i = first + b
        qc = joint.unit_q(_load(Y[b]))
        qp = joint.unit_q(_load(Y[o])) if o >= 0 else (1.0, 0.0, 0.0, 0.0)
        q0 = qmul(qp[0], -qp[1], -qp[2], -qp[3], qc[0], qc[1], qc[2], qc[3])
        qu = qmul(q0[0], q0[1], q0[2], q0[3], 0.0, el[e, joint.EJ_U], el[e, joint.EJ_U + 1],
                   el[e, joint.EJ_U + 2])  # fmt: skip
        for j in range(4):  # q_K = q_K₀ ⊗ (cos θ/2, sin θ/2 û) = cos θ/2 q_K₀ + sin θ/2 q_U
            T[k, T_Q0 + j] = q0[j]
            T[k, T_QU + j] = qu[j]
        for j in range(3):
            T[k, T_A + j] = el[e, joint.EJ_A + j]
            T[k, T_B + j] = el[e, joint.EJ_B + j] - (origin[j] if o < 0 else 0.0)
            T[k, T_U + j] = el[e, joint.EJ_U + j]
            T[k, T_RG + j] = p[i, P_R_CG + j]
        m = p[i, P_MASS]
        T[k, T_M] = m
        r = (p[i, P_R_CG], p[i, P_R_CG + 1], p[i, P_R_CG + 2])
        rr = r[0] * r[0] + r[1] * r[1] + r[2] * r[2]
        for a in range(3):  # about the CG: I_o − m (|r|² E − r rᵀ)
            for c in range(3):
                T[k, T_J + 3 * a + c] = p[i, P_INERTIA_O + 3 * a + c] - m * (
                    (rr if a == c else 0.0) - r[a] * r[c]
                )
        off = T[k, T_J + 1] ** 2 + T[k, T_J + 2] ** 2 + T[k, T_J + 5] ** 2
        T[k, T_DIAG] = (
            1.0
            if off + T[k, T_J + 3] ** 2 + T[k, T_J + 6] ** 2 + T[k, T_J + 7] ** 2 == 0.0
            else 0.0
        )
        f = _applied(u, i, _load(Y[b]))
        for j in range(3):
            T[k, T_F + j] = f[j]
            T[k, T_MN + j] = f[3 + j]
        T[k, T_F + 2] += m * p[i, P_GRAVITY]
    return origin


@njit(**_JIT)
def _speeds(T, el, Y, Z):
    """Z's θ̇ ← each hinge's at states Y: â · (Ω_c − Ω_P)."""
    for k in range(T.shape[0]):
        b = int(T[k, T_BODY])
        o = int(el[int(T[k, T_E]), E_OTHER])
        r = geometry.rotation(_load(Y[b]))
        a = geometry.turn(r, T[k, T_U], T[k, T_U + 1], T[k, T_U + 2])
        w = geometry.turn(r, Y[b, 10], Y[b, 11], Y[b, 12])
        if o >= 0:
            ro = geometry.rotation(_load(Y[o]))
            wo = geometry.turn(ro, Y[o, 10], Y[o, 11], Y[o, 12])
            w = (w[0] - wo[0], w[1] - wo[1], w[2] - wo[2])
        i, j = at(k)
        Z[i, j + Z_QD] = a[0] * w[0] + a[1] * w[1] + a[2] * w[2]


@njit(**_JIT)
def _write(T, W, Z, origin, Y):
    """The bodies' states Y from the reduced state Z: poses root out, V = V_P + S θ̇."""
    for k in range(T.shape[0]):
        i, j = at(k)
        pose(T, W, k, Z[i, j + Z_C], Z[i, j + Z_S])
        d = Z[i, j + Z_QD]
        pk = int(T[k, T_PARENT])
        for c in range(6):
            W[k, W_V + c] = (W[pk, W_V + c] if pk >= 0 else 0.0) + W[k, W_S + c] * d
        b = int(T[k, T_BODY])
        q = W[k, W_Q : W_Q + 4]
        s = 1.0 / math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
        r = W[k, W_R : W_R + 9]
        w0, w1, w2 = W[k, W_V], W[k, W_V + 1], W[k, W_V + 2]
        x0, x1, x2 = W[k, W_POS], W[k, W_POS + 1], W[k, W_POS + 2]
        c = cross(w0, w1, w2, x0, x1, x2)  # the reference point's velocity, v_O + ω × x
        v0, v1, v2 = W[k, W_V + 3] + c[0], W[k, W_V + 4] + c[1], W[k, W_V + 5] + c[2]
        for j in range(3):
            Y[b, j] = W[k, W_POS + j] + origin[j]
            Y[b, 7 + j] = r[j] * v0 + r[3 + j] * v1 + r[6 + j] * v2
            Y[b, 10 + j] = r[j] * w0 + r[3 + j] * w1 + r[6 + j] * w2
        for j in range(4):
            Y[b, 3 + j] = q[j] * s


@njit(**_JIT)
def run(p, u, el, e0, e1, aux, first, T, Y, t0, h, n, method):
    """Advance the tree's bodies Y (cnt, 13) in place by n steps of h from t0 (module
    docstring); T: `order`'s."""
    cnt = Y.shape[0]
    m = joints.joint_rows(el, e0, e1)
    joints.hold(p, el, e0, e1, first, np.full(cnt, -1, dtype=np.int64), Y, np.empty((cnt, 6)),
                np.empty((m, joint.C_G + 2 * m)), m)  # fmt: skip
    origin = _constants(p, u, el, first, T, Y)
    Z = _rows(cnt)
    for k in range(cnt):
        i, j = at(k)
        Z[i, j + Z_C] = 1.0
    _speeds(T, el, Y, Z)
    W = np.zeros((cnt, W_W))
    ws = (_rows(cnt), _rows(cnt), _rows(cnt), _rows(cnt), _rows(cnt))
    M = np.empty((cnt, cnt + 2))
    qdd = np.empty(cnt)
    for s in range(n):
        rk_step(_stage, T, W, M, qdd, cnt, Z, t0 + s * h, h, method, ws)
        for k in range(cnt):
            i, j = at(k)
            c, d = Z[i, j + Z_C], Z[i, j + Z_S]
            r = 1.5 - 0.5 * (c * c + d * d)  # 1/√ by Newton from 1: c² + d² − 1 is O(h⁵)
            Z[i, j + Z_C] = c * r
            Z[i, j + Z_S] = d * r
    _write(T, W, Z, origin, Y)


@njit(**_JIT)
def reactions(p, u, el, first, T, Y, rec):
    """rec[e] ← joint e's point, the force on its body, its other end and the moment about
    its point (global), from the reduced dynamics at states Y: the spatial force its parent
    passes across it."""
    cnt = Y.shape[0]
    origin = _constants(p, u, el, first, T, Y)
    W = np.zeros((cnt, W_W))
    Z = _rows(cnt)
    qdd = np.empty(cnt)
    _speeds(T, el, Y, Z)
    for k in range(cnt):
        b = int(T[k, T_BODY])
        r = geometry.rotation(_load(Y[b]))
        for j in range(9):
            W[k, W_R + j] = r[j]
        pk = int(T[k, T_PARENT])
        x = (T[k, T_B], T[k, T_B + 1], T[k, T_B + 2])
        if pk >= 0:
            x = geometry.turn(W[pk, W_R : W_R + 9], x[0], x[1], x[2])
            x = (x[0] + W[pk, W_POS], x[1] + W[pk, W_POS + 1], x[2] + W[pk, W_POS + 2])
        place(T, W, k, r, x[0], x[1], x[2])
        a = geometry.turn(r, T[k, T_A], T[k, T_A + 1], T[k, T_A + 2])
        for j in range(3):  # its own point, from its own state
            rec[int(T[k, T_E]), j] = Y[b, j] + a[j]
    accelerations(T, W, np.empty((cnt, cnt + 2)), cnt, Z, qdd)
    bias(T, W, cnt, Z, qdd, True)
    for k in range(cnt):
        e = int(T[k, T_E])
        f = W[k, W_F : W_F + 6]  # what the subtree needs: what the joint gives it
        x0, x1, x2 = W[k, W_P], W[k, W_P + 1], W[k, W_P + 2]
        mo = cross(x0, x1, x2, f[3], f[4], f[5])
        for j in range(3):
            rec[e, 3 + j] = f[3 + j]
            rec[e, 6 + j] = W[k, W_P + j] + origin[j]
            rec[e, 9 + j] = f[j] - mo[j]
