"""What holds a group's bodies, compiled: the joints' constraint forces at every stage, and
after every step the pivots' bodies put back on them and the joints' drift projected out
(docs/physics.md, "Joint").

At a stage, with each body's free acceleration ν̇_f from its own model (`_rigid_body`, under
everything else that acts on it), the multipliers λ solve

    G λ = −(J ν̇_f + bias),    G = J M⁻¹ Jᵀ,

by an envelope Cholesky factor of G (a row's zeros before its first nonzero stay zeros in
L, and G is formed only there, a joint's rows at a time: a chain whose joints are listed in
order costs O(m w²), w the band, not O(m³)); a row whose pivot falls below DEPENDENT of its
diagonal lies in the span of the rows before it (two hinges on one axis, a closed loop's
extra rows) and is dropped, its λ 0: no singular solve, and the rows kept are solved to
rounding. The bodies then feel Jᵀλ (a force at the reference point and a moment, body
axes), turned into the global force and moment about the CG the derivative takes, so
J ν̇ + bias = 0 holds at every stage, for either model.
After every step (and before the first) the drift is projected out: the quaternions are
normalised, the positions moved by M⁻¹Jᵀμ with (J M⁻¹ Jᵀ) μ = −C (Gauss-Newton, until
|C| ≤ 1e-12 m or rad, at most 3 passes), then the velocities by M⁻¹Jᵀμ with
(J M⁻¹ Jᵀ) μ = −J ν: the smallest changes in the bodies' own mass metric.

The scratch C (m, C_G + 2m) holds one constraint row each (kinds/joint.py's C_* columns).
Called from `system_compiled`, whose import compiles the kinds' functions used here.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .kernel_compiled import _rigid_body, njit
from .kinds import geometry, joint, pivot
from .layout import E_BODY, E_KIND, E_OTHER, P_MASS_INV, P_R_CG
from .stepper_compiled import load as _load
from .stepper_compiled import store as _store

#: Hash of the modules compiled in here (kernel_cache.STAMP_NAME: numba keys its cache on this
#: file's text alone); `python scripts/stamp_kernels.py` keeps it current.
COMPILED_FROM = "4422ea885bbb91cc"

_JIT: Any = {"cache": True, "nogil": True, "fastmath": False, "error_model": "numpy"}
#: what `_rows` fills besides J: the bias of the rates, or the position errors (passed as
#: `bool()` of these, plain bools: as literals, `_rows` was compiled once for each)
RATES, POSITIONS = False, True
DEPENDENT = 1e-10  # a pivot this small, relative to its row's diagonal, drops the row
POSITION_TOL = 1e-12  # m or rad: a smaller error is left as it is
VELOCITY_TOL = 1e-12  # m/s or rad/s
POSITION_PASSES = 3
_WORLD = (0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
_E = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)
C_JA, C_JB, C_MA, C_MB = joint.C_JA, joint.C_JB, joint.C_MA, joint.C_MB
C_BIAS, C_RHS, C_LAM, C_A, C_B, C_FIRST, C_END, C_G = (
    joint.C_BIAS, joint.C_RHS, joint.C_LAM, joint.C_A, joint.C_B, joint.C_FIRST, joint.C_END,
    joint.C_G,
)  # fmt: skip


@njit(**_JIT)
def joint_rows(el, e0, e1):
    """The constraint rows of the joints among elements e0…e1 (0: no joints)."""
    m = 0
    for e in range(e0, e1):
        if el[e, E_KIND] == joint.CODE:
            m += joint.count(el, e)
    return m


@njit(**_JIT)
def _ends(el, e, Y):
    """Joint e's bodies in the group (the other −1 for the world), their states and turns."""
    a = int(el[e, E_BODY])
    o = int(el[e, E_OTHER])
    ya = _load(Y[a])
    if o >= 0:
        yb = _load(Y[o])
        return a, o, ya, geometry.rotation(ya), yb, geometry.rotation(yb)
    return a, o, ya, geometry.rotation(ya), _WORLD, _E


@njit(**_JIT)
def _rows(el, e0, e1, Y, C, positions):
    """C's rows ← every joint's J, its bias (or, `positions`, its position errors), bodies
    and where its joint's rows end."""
    k = np.int64(0)  # typed first as the literal 0, fill and error were compiled for it too
    for e in range(e0, e1):
        if el[e, E_KIND] != joint.CODE:
            continue
        a, o, ya, ra, yb, rb = _ends(el, e, Y)
        k1 = joint.fill(el, e, ya, ra, yb, rb, C, k)
        if positions:
            joint.error(el, e, ya, ra, yb, rb, C, k)
        for r in range(k, k1):
            C[r, C_A] = a
            C[r, C_B] = o
            C[r, C_END] = k1
        k = k1


# Inlined: called with constant columns, a call compiled one copy per pair of them (four)
@njit(inline="always", **_JIT)
def _dot6(C, r, j, s, mj):
    """Row r's J block at column j against row s's M⁻¹Jᵀ block at column mj."""
    return (C[r, j] * C[s, mj] + C[r, j + 1] * C[s, mj + 1] + C[r, j + 2] * C[s, mj + 2]
            + C[r, j + 3] * C[s, mj + 3] + C[r, j + 4] * C[s, mj + 4]
            + C[r, j + 5] * C[s, mj + 5])  # fmt: skip


@njit(inline="always", **_JIT)  # as _dot6: two constant triples of columns
def _inverse_mass(p, first, C, r, j, mj, bc):
    """C[r, mj:mj + 6] ← M⁻¹ of the body in column bc times row r's J block at column j."""
    b = int(C[r, bc])
    for u in range(6):
        s = 0.0
        if b >= 0:
            k = P_MASS_INV + 6 * u
            for v in range(6):
                s += p[first + b, k + v] * C[r, j + v]
        C[r, mj + u] = s


@njit(**_JIT)
def _matrix(p, first, C, m):
    """M⁻¹Jᵀ of each row on each of its bodies, and the lower triangle of G = J M⁻¹ Jᵀ into
    C[:, C_G:C_G + m] from each row's first nonzero (C_FIRST) on: rows of joints that share
    no body meet in a zero, skipped a joint at a time (a chain's G is a band)."""
    for r in range(m):
        _inverse_mass(p, first, C, r, C_JA, C_MA, C_A)
        _inverse_mass(p, first, C, r, C_JB, C_MB, C_B)
    for r in range(m):
        a = C[r, C_A]
        b = C[r, C_B]
        lead = -1
        s = 0
        while s <= r:
            end = min(int(C[s, C_END]), r + 1)
            sa = C[s, C_A]
            sb = C[s, C_B]
            aa = a >= 0.0 and a == sa
            ab = a >= 0.0 and a == sb
            ba = b >= 0.0 and b == sa
            bb = b >= 0.0 and b == sb
            if not (aa or ab or ba or bb):
                if lead >= 0:
                    for c in range(s, end):
                        C[r, C_G + c] = 0.0
                s = end
                continue
            if lead < 0:
                lead = s
            for c in range(s, end):
                g = 0.0
                if aa:
                    g += _dot6(C, r, C_JA, c, C_MA)
                if ab:
                    g += _dot6(C, r, C_JA, c, C_MB)
                if ba:
                    g += _dot6(C, r, C_JB, c, C_MA)
                if bb:
                    g += _dot6(C, r, C_JB, c, C_MB)
                C[r, C_G + c] = g
            s = end
        C[r, C_FIRST] = lead


@njit(**_JIT)
def _substitute(C, m, src, dst):
    """C[:, dst] ← (L Lᵀ)⁻¹ C[:, src], L the factor in C[:, C_G + m:] with its diagonal held
    as reciprocals (dst may be src)."""
    f = C_G + m
    for i in range(m):
        s = C[i, src]
        for k in range(int(C[i, C_FIRST]), i):
            s -= C[i, f + k] * C[k, dst]
        C[i, dst] = s * C[i, f + i]
    for i in range(m - 1, -1, -1):  # by columns of Lᵀ: row i of L is zero before C_FIRST
        x = C[i, dst] * C[i, f + i]
        C[i, dst] = x
        for k in range(int(C[i, C_FIRST]), i):
            C[k, dst] -= C[i, f + k] * x


@njit(**_JIT)
def _solve(C, m):
    """C[:, C_LAM] ← λ with G λ = C[:, C_RHS] (the module docstring's solve): the envelope
    Cholesky factor of G, a row whose pivot falls to DEPENDENT of its diagonal dropped."""
    f = C_G + m
    for i in range(m):
        fi = int(C[i, C_FIRST])
        for j in range(fi, i + 1):
            s = C[i, C_G + j]
            for k in range(max(fi, int(C[j, C_FIRST])), j):
                s -= C[i, f + k] * C[j, f + k]
            if j < i:
                C[i, f + j] = s * C[j, f + j]
            elif s > DEPENDENT * C[i, C_G + i]:
                C[i, f + i] = 1.0 / math.sqrt(s)
            else:  # in the span of the rows before it (or empty): its λ is 0
                C[i, f + i] = 0.0
    _substitute(C, m, C_RHS, C_LAM)


@njit(**_JIT)
def _spread(C, m, cnt, out, column):
    """out[b, :6] ← Σ_rows C[r, column] × (row r's J on body b), or its M⁻¹Jᵀ when `column`
    is negative (−1 − column then)."""
    moved = column < 0
    col = -1 - column if moved else column
    for b in range(cnt):
        for j in range(6):
            out[b, j] = 0.0
    for r in range(m):
        lam = C[r, col]
        for j, mj, bc in ((C_JA, C_MA, C_A), (C_JB, C_MB, C_B)):
            b = int(C[r, bc])
            if b < 0:
                continue
            src = mj if moved else j
            for u in range(6):
                out[b, u] += lam * C[r, src + u]


@njit(**_JIT)
def drives(p, el, e0, e1, first, Y, F):
    """F (cnt, 6) += what the joints' springs, dampers and stops do to each body (global,
    about its CG; kinds/joint.py `drive`): along the joints' free coordinates, before their
    constraint forces are solved from everything that acts."""
    for e in range(e0, e1):
        if el[e, E_KIND] != joint.CODE or el[e, joint.EJ_DRIVEN] == 0.0:
            continue
        a, o, ya, ra, yb, rb = _ends(el, e, Y)
        c = joint.drive(el, e, ya, ra, yb, rb)
        k = joint.EJ_A
        w = geometry.moment(p, first + a, ra, el[e, k], el[e, k + 1], el[e, k + 2], c[0], c[1],
                            c[2])  # fmt: skip
        F[a, 0] += c[0]
        F[a, 1] += c[1]
        F[a, 2] += c[2]
        F[a, 3] += w[0] + c[3]
        F[a, 4] += w[1] + c[4]
        F[a, 5] += w[2] + c[5]
        if o < 0:
            continue
        k = joint.EJ_B  # the other end: the opposite force at its point, the opposite moment
        w = geometry.moment(p, first + o, rb, el[e, k], el[e, k + 1], el[e, k + 2], -c[0], -c[1],
                            -c[2])  # fmt: skip
        F[o, 0] -= c[0]
        F[o, 1] -= c[1]
        F[o, 2] -= c[2]
        F[o, 3] += w[0] - c[3]
        F[o, 4] += w[1] - c[4]
        F[o, 5] += w[2] - c[5]


@njit(**_JIT)
def constrain(p, el, e0, e1, first, cnt, Y, F, K, C, m):
    """F (cnt, 6) += the joints' forces on each body (global, about its CG) at stage rows Y,
    F holding everything else that acts on them; K (cnt, 13) is scratch."""
    _rows(el, e0, e1, Y, C, bool(RATES))  # plain bools: one compiled _rows for both
    _matrix(p, first, C, m)
    for b in range(cnt):
        k = _rigid_body(p, first + b, _load(Y[b]), F[b, 0], F[b, 1], F[b, 2], F[b, 3], F[b, 4],
                        F[b, 5])  # fmt: skip
        for j in range(6):
            K[b, 7 + j] = k[7 + j]
    for r in range(m):
        s = C[r, C_BIAS]
        for j, bc in ((C_JA, C_A), (C_JB, C_B)):
            b = int(C[r, bc])
            if b >= 0:
                for v in range(6):
                    s += C[r, j + v] * K[b, 7 + v]
        C[r, C_RHS] = -s
    _solve(C, m)
    _spread(C, m, cnt, K, np.int64(C_LAM))  # Jᵀλ (a plain int: one compiled _spread for both)
    for b in range(cnt):
        r = geometry.rotation(_load(Y[b]))
        i = first + b
        fx, fy, fz = K[b, 0], K[b, 1], K[b, 2]
        gx = K[b, 3] - (p[i, P_R_CG + 1] * fz - p[i, P_R_CG + 2] * fy)  # about the CG
        gy = K[b, 4] - (p[i, P_R_CG + 2] * fx - p[i, P_R_CG] * fz)
        gz = K[b, 5] - (p[i, P_R_CG] * fy - p[i, P_R_CG + 1] * fx)
        F[b, 0] += r[0] * fx + r[1] * fy + r[2] * fz
        F[b, 1] += r[3] * fx + r[4] * fy + r[5] * fz
        F[b, 2] += r[6] * fx + r[7] * fy + r[8] * fz
        F[b, 3] += r[0] * gx + r[1] * gy + r[2] * gz
        F[b, 4] += r[3] * gx + r[4] * gy + r[5] * gz
        F[b, 5] += r[6] * gx + r[7] * gy + r[8] * gz


@njit(**_JIT)
def _worst(C, m):
    w = 0.0
    for r in range(m):
        w = max(w, abs(C[r, C_BIAS]))
    return w


@njit(**_JIT)
def _correction(p, first, C, m, cnt, D):
    """D ← the least change of the group's bodies, in the mass metric, that takes the rows'
    errors (C_BIAS) to zero to first order: −M⁻¹ Jᵀ (J M⁻¹ Jᵀ)⁻¹ error."""
    _matrix(p, first, C, m)
    for r in range(m):
        C[r, C_RHS] = -C[r, C_BIAS]
    _solve(C, m)
    _spread(C, m, cnt, D, -1 - C_LAM)


@njit(**_JIT)
def project(p, el, e0, e1, first, cnt, Y, D, C, m):
    """The group's rows Y put back on its joints (module docstring); D (cnt, ≥6) scratch."""
    for b in range(cnt):
        s = 1.0 / math.sqrt(Y[b, 3] ** 2 + Y[b, 4] ** 2 + Y[b, 5] ** 2 + Y[b, 6] ** 2)
        for j in range(3, 7):
            Y[b, j] *= s
    fresh = False  # C's rows are of the positions as they are now
    for _ in range(POSITION_PASSES):
        _rows(el, e0, e1, Y, C, bool(POSITIONS))
        if _worst(C, m) <= POSITION_TOL:
            fresh = True
            break
        _correction(p, first, C, m, cnt, D)  # the move, body axes: δp, δθ
        for b in range(cnt):
            r = geometry.rotation(_load(Y[b]))
            for j in range(3):
                Y[b, j] += r[3 * j] * D[b, 0] + r[3 * j + 1] * D[b, 1] + r[3 * j + 2] * D[b, 2]
            w, x, y, z = Y[b, 3], Y[b, 4], Y[b, 5], Y[b, 6]
            hx, hy, hz = 0.5 * D[b, 3], 0.5 * D[b, 4], 0.5 * D[b, 5]  # q ⊗ (1, δθ/2)
            qw = w - x * hx - y * hy - z * hz
            qx = x + w * hx + y * hz - z * hy
            qy = y + w * hy + z * hx - x * hz
            qz = z + w * hz + x * hy - y * hx
            s = 1.0 / math.sqrt(qw * qw + qx * qx + qy * qy + qz * qz)
            Y[b, 3], Y[b, 4], Y[b, 5], Y[b, 6] = qw * s, qx * s, qy * s, qz * s
    if not fresh:
        _rows(el, e0, e1, Y, C, bool(RATES))  # plain bools: one compiled _rows for both
    for r in range(m):  # the constraints' rates, J ν
        s = 0.0
        for j, bc in ((C_JA, C_A), (C_JB, C_B)):
            b = int(C[r, bc])
            if b >= 0:
                for v in range(6):
                    s += C[r, j + v] * Y[b, 7 + v]
        C[r, C_BIAS] = s
    if _worst(C, m) <= VELOCITY_TOL:
        return
    _correction(p, first, C, m, cnt, D)
    for b in range(cnt):
        for j in range(6):
            Y[b, 7 + j] += D[b, j]


@njit(**_JIT)
def reaction(el, e0, e, Y, C):
    """What joint e did at the last `constrain`: (force on its body, moment on it about its
    point, its point, its other end), global, the 12-tuple of an element's record."""
    k = 0
    for g in range(e0, e):
        if el[g, E_KIND] == joint.CODE:
            k += joint.count(el, g)
    _, _, ya, ra, yb, rb = _ends(el, e, Y)
    f = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]  # Jᵀλ on its body: at the reference point, body axes
    for r in range(k, k + joint.count(el, e)):
        lam = C[r, C_LAM]
        for j in range(6):
            f[j] += lam * C[r, C_JA + j]
    fw = geometry.turn(ra, f[0], f[1], f[2])
    mw = geometry.turn(ra, f[3], f[4], f[5])
    pa, sa, _, _, _ = joint.frame(ya, ra, el[e, joint.EJ_A], el[e, joint.EJ_A + 1],
                                  el[e, joint.EJ_A + 2])  # fmt: skip
    pb = joint.frame(yb, rb, el[e, joint.EJ_B], el[e, joint.EJ_B + 1], el[e, joint.EJ_B + 2])[0]
    arm = joint.cross(sa, fw)  # moved from the reference point to the joint's point
    return (fw[0], fw[1], fw[2], mw[0] - arm[0], mw[1] - arm[1], mw[2] - arm[2], pa[0], pa[1],
            pa[2], pb[0], pb[1], pb[2])  # fmt: skip


@njit(**_JIT)
def pivots_of(el, e0, e1, cnt):
    """Per body of a group the row of the pivot that holds it, or -1."""
    pivots = np.full(cnt, -1, dtype=np.int64)
    for e in range(e0, e1):
        if el[e, E_KIND] == pivot.CODE:
            pivots[int(el[e, E_BODY])] = e
    return pivots


@njit(**_JIT)
def hold(p, el, e0, e1, first, pivots, Y, D, C, m):
    """A group's rows Y put back on its pivots and its m joint rows (after a step, and before
    the first); D (cnt, ≥ 6) scratch."""
    for b in range(Y.shape[0]):
        if pivots[b] >= 0:
            _store(Y[b], pivot.held(geometry.row_of(el, pivots[b]), _load(Y[b])))
    if m > 0:
        project(p, el, e0, e1, first, Y.shape[0], Y, D, C, m)


@njit(**_JIT)
def gaps(el, groups, bounds, x, out):
    """out[e] ← (m, rad): how far joint e (rows el, every group's) is from holding at states
    x (kinds/joint.py `gaps`, one loop for a frame's joints): its ends apart (a slider's
    across its axis), and its bodies turned off what it holds (a hinge: its axis in A off the
    line in B; a slider, a weld: the turn q_A q_0⁻¹ q_B⁻¹, 2 atan2(|ε|, |η|))."""
    for g in range(groups.shape[0]):
        Y = x[groups[g, 0] : groups[g, 0] + groups[g, 1]]
        for e in range(bounds[g], bounds[g + 1]):
            if el[e, E_KIND] != joint.CODE:
                continue
            _, _, ya, ra, yb, rb = _ends(el, e, Y)
            k, t = joint.EJ_A, el[e, joint.EJ_TYPE]
            pa = joint.frame(ya, ra, el[e, k], el[e, k + 1], el[e, k + 2])[0]
            k = joint.EJ_B
            pb = joint.frame(yb, rb, el[e, k], el[e, k + 1], el[e, k + 2])[0]
            d = (pa[0] - pb[0], pa[1] - pb[1], pa[2] - pb[2])
            out[e, 0] = math.sqrt(joint.dot(d, d))
            out[e, 1] = 0.0
            if t == joint.HINGE:  # R_A axis against R_B R_0 axis = R_B (b̂_1 × b̂_2)
                k = joint.EJ_U
                a = geometry.turn(ra, el[e, k], el[e, k + 1], el[e, k + 2])
                v = (el[e, joint.EJ_V], el[e, joint.EJ_V + 1], el[e, joint.EJ_V + 2])
                w = (el[e, joint.EJ_W], el[e, joint.EJ_W + 1], el[e, joint.EJ_W + 2])
                line = joint.cross(v, w)
                b = geometry.turn(rb, line[0], line[1], line[2])
                c = joint.cross(a, b)
                out[e, 1] = math.atan2(math.sqrt(joint.dot(c, c)), joint.dot(a, b))
            if t == joint.SLIDER:  # across the axis R_A (t̂_1 × t̂_2)
                u = (el[e, joint.EJ_U], el[e, joint.EJ_U + 1], el[e, joint.EJ_U + 2])
                v = (el[e, joint.EJ_V], el[e, joint.EJ_V + 1], el[e, joint.EJ_V + 2])
                line = joint.cross(u, v)
                a = geometry.turn(ra, line[0], line[1], line[2])
                s = joint.dot(d, a)
                c = (d[0] - s * a[0], d[1] - s * a[1], d[2] - s * a[2])
                out[e, 0] = math.sqrt(joint.dot(c, c))
            if t == joint.SLIDER or t == joint.FIXED:
                qa = joint.unit_q(ya)
                qb = joint.unit_q(yb)
                k = joint.EJ_Q
                q0 = (el[e, k], -el[e, k + 1], -el[e, k + 2], -el[e, k + 3])
                q = joint.qmul(joint.qmul(qa, q0), (qb[0], -qb[1], -qb[2], -qb[3]))
                out[e, 1] = 2.0 * math.atan2(math.sqrt(q[1] * q[1] + q[2] * q[2] + q[3] * q[3]),
                                             abs(q[0]))  # fmt: skip
