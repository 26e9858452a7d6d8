"""The compiled core of bodies in a world: elements (pivot, spring, damper, ground, timed
loads) evaluated at every integrator stage, and groups of bodies stepped together.

`kernel_compiled` steps each body on its own. Here a *group* (one body, or the bodies joined
by two-body springs) takes every stage together, because a spring between two bodies needs
both bodies' stage states. Per stage, for each body of the group:

    (F_n, M_n) = its load row (kernel_compiled._applied) + Σ its elements' forces,
    global, about the CG; then ẋ from `_rigid_body`, or from `_pivot_body` when a pivot
    holds it.

A pivot is exact, not a stiff spring: the body rotates about the held body point a with
seed 004's equation (5) written about a (DESIGN.md section 8),

    I_a ω̇ + c ω × I_a ω = Rᵀ M_n + (r_g − a) × F_b,      F_b = Rᵀ (F_n + m g_n),
    v = a × ω   (the reference point's velocity when a is still),   v̇ = a × ω̇,

and after every step (and before the first) the state is put back on the constraint,
p = a_world − R(q/|q|) a, v = a × ω, so the held point stays put to rounding however long
the run. The equations of each element are in elements.py and docs/physics.md.

Layouts are `layout`'s E_* offsets. Numba compiles this on first use (cached on disk), like
kernel_compiled, which it imports its rigid-body derivative from.
"""

from __future__ import annotations

import math

import numpy as np

from .kernel_compiled import _applied, _load, _rigid_body, _store, njit, prange
from .layout import (
    E_BODY,
    E_KIND,
    E_OTHER,
    ED_LIN,
    ED_QUAD,
    EG_C,
    EG_CENTRE,
    EG_EXTENT,
    EG_HEIGHT,
    EG_K,
    EG_MU,
    EG_RATE,
    EG_SHAPE,
    EG_SLIP,
    EL_AMP,
    EL_F,
    EL_FRAME,
    EL_FREQ,
    EL_HAS_POINT,
    EL_M,
    EL_PHASE,
    EL_POINT,
    EL_SIGNAL,
    EL_T0,
    EL_TABLE,
    EL_TABLE_N,
    EP_A,
    EP_AT,
    EP_IA,
    EP_IA_INV,
    ES_A,
    ES_B,
    ES_C,
    ES_K,
    ES_LEN,
    K_DAMPER,
    K_GROUND,
    K_LOAD,
    K_PIVOT,
    K_SPRING,
    P_CORIOLIS,
    P_GRAVITY,
    P_MASS,
    P_R_CG,
    S_SINE,
    S_STEP,
    S_TABLE,
)
from .methods import RK4
from .names import NORM_TIME_CONSTANT

_TAU_GAIN = 0.5 / NORM_TIME_CONSTANT
_B1 = float(RK4.b[0])
_B2 = float(RK4.b[1])


@njit(cache=True, fastmath=False)
def _rotation(y):
    """R(q/|q|) of a state row (a true rotation, as the loads use), 9 entries row-major."""
    qw = y[3]
    qx = y[4]
    qy = y[5]
    qz = y[6]
    s = 2.0 / (qw * qw + qx * qx + qy * qy + qz * qz)
    return (
        1.0 - s * (qy * qy + qz * qz), s * (qx * qy - qw * qz), s * (qx * qz + qw * qy),
        s * (qx * qy + qw * qz), 1.0 - s * (qx * qx + qz * qz), s * (qy * qz - qw * qx),
        s * (qx * qz - qw * qy), s * (qy * qz + qw * qx), 1.0 - s * (qx * qx + qy * qy),
    )  # fmt: skip


@njit(cache=True, fastmath=False)
def _turn(r, x, y, z):
    """R (x, y, z)."""
    return (
        r[0] * x + r[1] * y + r[2] * z,
        r[3] * x + r[4] * y + r[5] * z,
        r[6] * x + r[7] * y + r[8] * z,
    )


@njit(cache=True, fastmath=False)
def _point_motion(Y, b, r, px, py, pz):
    """World position and velocity of the body point (px, py, pz) (body axes, from the
    reference point) of body b at stage rows Y, with R = r its rotation."""
    gx, gy, gz = _turn(r, px, py, pz)
    wx = Y[b, 10]
    wy = Y[b, 11]
    wz = Y[b, 12]
    vx, vy, vz = _turn(
        r,
        Y[b, 7] + (wy * pz - wz * py),
        Y[b, 8] + (wz * px - wx * pz),
        Y[b, 9] + (wx * py - wy * px),
    )
    return Y[b, 0] + gx, Y[b, 1] + gy, Y[b, 2] + gz, vx, vy, vz


@njit(cache=True, fastmath=False)
def _push(F, p, i, b, r, px, py, pz, fx, fy, fz):
    """Add a global force (fx, fy, fz) at body point (px, py, pz) (from the reference point)
    to body b's global (F_n, M_n) about its CG: the moment is (R (point − r_g)) × F."""
    lx, ly, lz = _turn(r, px - p[i, P_R_CG], py - p[i, P_R_CG + 1], pz - p[i, P_R_CG + 2])
    F[b, 0] += fx
    F[b, 1] += fy
    F[b, 2] += fz
    F[b, 3] += ly * fz - lz * fy
    F[b, 4] += lz * fx - lx * fz
    F[b, 5] += lx * fy - ly * fx


#: A timed load's switch within SWITCH_SNAP · h of a stage time is taken to be at that time:
#: a start on the step grid stays on it though t0 + s h and an accumulated room time round.
SWITCH_SNAP = 1e-6


@njit(cache=True, fastmath=False)
def _signal(el, e, aux, t, h, left):
    """The scalar factor of a timed load at time t: 1, a step, a sine or a table. A step or
    a sine switches on at t0; `left` (the stage at the end of a step) takes the value just
    before t, the other stages the value at t, so a switch on the step grid falls between
    two steps and RK4 keeps its order (a switch inside a step costs it, as any jump does)."""
    kind = el[e, EL_SIGNAL]
    t0 = el[e, EL_T0]
    if kind == S_STEP or kind == S_SINE:
        snap = SWITCH_SNAP * h
        on = t > t0 + snap if left else t >= t0 - snap
        if not on:
            return 0.0
        if kind == S_STEP:
            return 1.0
        return el[e, EL_AMP] * math.sin(2.0 * math.pi * el[e, EL_FREQ] * (t - t0) + el[e, EL_PHASE])
    if kind == S_TABLE:  # (time, value) pairs in aux, linear between them, held outside
        start = int(el[e, EL_TABLE])
        count = int(el[e, EL_TABLE_N])
        if t <= aux[start]:
            return aux[start + 1]
        last = start + 2 * (count - 1)
        if t >= aux[last]:
            return aux[last + 1]
        lo = 0
        hi = count - 1
        while hi - lo > 1:  # bisection: tables may be long
            mid = (lo + hi) // 2
            if aux[start + 2 * mid] <= t:
                lo = mid
            else:
                hi = mid
        ta = aux[start + 2 * lo]
        tb = aux[start + 2 * hi]
        va = aux[start + 2 * lo + 1]
        vb = aux[start + 2 * hi + 1]
        return va + (vb - va) * (t - ta) / (tb - ta)
    return 1.0


@njit(cache=True, fastmath=False)
def _record(rec, e, px, py, pz, fx, fy, fz, ox, oy, oz):
    if rec.shape[0] > 0:
        rec[e, 0] = px
        rec[e, 1] = py
        rec[e, 2] = pz
        rec[e, 3] = fx
        rec[e, 4] = fy
        rec[e, 5] = fz
        rec[e, 6] = ox
        rec[e, 7] = oy
        rec[e, 8] = oz


@njit(cache=True, fastmath=False)
def _spring(p, el, e, first, Y, F, rec):
    b = int(el[e, E_BODY])
    other = int(el[e, E_OTHER])
    ra = _rotation(Y[b])
    ax, ay, az = el[e, ES_A], el[e, ES_A + 1], el[e, ES_A + 2]
    pax, pay, paz, vax, vay, vaz = _point_motion(Y, b, ra, ax, ay, az)
    bx, by, bz = el[e, ES_B], el[e, ES_B + 1], el[e, ES_B + 2]
    if other >= 0:
        rb = _rotation(Y[other])
        pbx, pby, pbz, vbx, vby, vbz = _point_motion(Y, other, rb, bx, by, bz)
    else:
        rb = ra
        pbx, pby, pbz, vbx, vby, vbz = bx, by, bz, 0.0, 0.0, 0.0
    dx = pbx - pax
    dy = pby - pay
    dz = pbz - paz
    k = el[e, ES_K]
    c = el[e, ES_C]
    rest = el[e, ES_LEN]
    if rest == 0.0:  # a zero-length spring is linear in the vector: F = k d + c ḋ
        fx = k * dx + c * (vbx - vax)
        fy = k * dy + c * (vby - vay)
        fz = k * dz + c * (vbz - vaz)
    else:
        length = math.sqrt(dx * dx + dy * dy + dz * dz)
        if length > 0.0:
            nx = dx / length
            ny = dy / length
            nz = dz / length
            along = k * (length - rest) + c * (
                (vbx - vax) * nx + (vby - vay) * ny + (vbz - vaz) * nz
            )
            fx = along * nx
            fy = along * ny
            fz = along * nz
        else:  # the ends meet: no direction to push along
            fx = fy = fz = 0.0
    _push(F, p, first + b, b, ra, ax, ay, az, fx, fy, fz)
    if other >= 0:  # equal and opposite at the other end
        _push(F, p, first + other, other, rb, bx, by, bz, -fx, -fy, -fz)
    _record(rec, e, pax, pay, paz, fx, fy, fz, pbx, pby, pbz)


@njit(cache=True, fastmath=False)
def _damper(p, el, e, first, Y, F, rec):
    """Fossen's D(ν) ν = (D_l + D_q |ν|) ν in body axes at the reference point, opposing ν."""
    b = int(el[e, E_BODY])
    i = first + b
    r = _rotation(Y[b])
    t0 = -(el[e, ED_LIN] + el[e, ED_QUAD] * abs(Y[b, 7])) * Y[b, 7]
    t1 = -(el[e, ED_LIN + 1] + el[e, ED_QUAD + 1] * abs(Y[b, 8])) * Y[b, 8]
    t2 = -(el[e, ED_LIN + 2] + el[e, ED_QUAD + 2] * abs(Y[b, 9])) * Y[b, 9]
    t3 = -(el[e, ED_LIN + 3] + el[e, ED_QUAD + 3] * abs(Y[b, 10])) * Y[b, 10]
    t4 = -(el[e, ED_LIN + 4] + el[e, ED_QUAD + 4] * abs(Y[b, 11])) * Y[b, 11]
    t5 = -(el[e, ED_LIN + 5] + el[e, ED_QUAD + 5] * abs(Y[b, 12])) * Y[b, 12]
    # the force acts at o: about the CG its moment gains (o − CG) × f = −r_g × f
    rx = p[i, P_R_CG]
    ry = p[i, P_R_CG + 1]
    rz = p[i, P_R_CG + 2]
    m0 = t3 - (ry * t2 - rz * t1)
    m1 = t4 - (rz * t0 - rx * t2)
    m2 = t5 - (rx * t1 - ry * t0)
    fx, fy, fz = _turn(r, t0, t1, t2)
    mx, my, mz = _turn(r, m0, m1, m2)
    F[b, 0] += fx
    F[b, 1] += fy
    F[b, 2] += fz
    F[b, 3] += mx
    F[b, 4] += my
    F[b, 5] += mz
    _record(rec, e, Y[b, 0], Y[b, 1], Y[b, 2], fx, fy, fz, Y[b, 0], Y[b, 1], Y[b, 2])


@njit(cache=True, fastmath=False)
def _contact(p, el, e, first, b, Y, r, cx, cy, cz, h, F):
    """One contact point (body axes, from the reference point) against the ground plane:
    spring-dashpot normal force N ≥ 0 and regularised Coulomb friction, added to F.
    Returns (N, N · its world point (3), the force (3)) for the record."""
    height = el[e, EG_HEIGHT]
    px, py, pz, vx, vy, vz = _point_motion(Y, b, r, cx, cy, cz)
    depth = pz - height  # NED: below the plane is z > height
    if depth <= 0.0:
        return 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    normal = el[e, EG_K] * depth + el[e, EG_C] * vz
    if normal <= 0.0:  # the dashpot may slow a parting body, never pull it down
        return 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    mu = el[e, EG_MU]
    # below the slip speed friction is viscous; its floor μ N h × the row's rate keeps that
    # part inside the step's stability region (elements.friction_rate)
    slip = max(el[e, EG_SLIP], mu * normal * h * el[e, EG_RATE])
    scale = mu * normal / math.sqrt(vx * vx + vy * vy + slip * slip)
    fx = -scale * vx
    fy = -scale * vy
    fz = -normal
    _push(F, p, first + b, b, r, cx, cy, cz, fx, fy, fz)
    return normal, normal * px, normal * py, normal * pz, fx, fy, fz


@njit(cache=True, fastmath=False)
def _ground(p, el, e, first, Y, h, F, rec):
    b = int(el[e, E_BODY])
    r = _rotation(Y[b])
    ox = el[e, EG_CENTRE]
    oy = el[e, EG_CENTRE + 1]
    oz = el[e, EG_CENTRE + 2]
    n = sx_ = sy_ = sz_ = fx = fy = fz = 0.0
    if el[e, EG_SHAPE] == 0.0:  # a sphere touches with its lowest point
        radius = el[e, EG_EXTENT]
        # the body point below the centre: Rᵀ (0, 0, radius)
        cx = ox + radius * r[6]
        cy = oy + radius * r[7]
        cz = oz + radius * r[8]
        n, sx_, sy_, sz_, fx, fy, fz = _contact(p, el, e, first, b, Y, r, cx, cy, cz, h, F)
    else:  # a box (the mesh's bounding box) touches with its corners
        hx = el[e, EG_EXTENT]
        hy = el[e, EG_EXTENT + 1]
        hz = el[e, EG_EXTENT + 2]
        for corner in range(8):
            sx = hx if corner & 1 else -hx
            sy = hy if corner & 2 else -hy
            sz = hz if corner & 4 else -hz
            c = _contact(p, el, e, first, b, Y, r, ox + sx, oy + sy, oz + sz, h, F)
            n += c[0]
            sx_ += c[1]
            sy_ += c[2]
            sz_ += c[3]
            fx += c[4]
            fy += c[5]
            fz += c[6]
    if rec.shape[0] > 0:  # the record: the total force at the centre of pressure
        if n > 0.0:
            px = sx_ / n
            py = sy_ / n
            pz = sz_ / n
        else:
            px = Y[b, 0]
            py = Y[b, 1]
            pz = el[e, EG_HEIGHT]
        _record(rec, e, px, py, pz, fx, fy, fz, px, py, el[e, EG_HEIGHT])


@njit(cache=True, fastmath=False)
def _timed_load(p, el, e, aux, first, Y, t, h, left, F, rec):
    b = int(el[e, E_BODY])
    r = _rotation(Y[b])
    s = _signal(el, e, aux, t, h, left)
    fx = s * el[e, EL_F]
    fy = s * el[e, EL_F + 1]
    fz = s * el[e, EL_F + 2]
    mx = s * el[e, EL_M]
    my = s * el[e, EL_M + 1]
    mz = s * el[e, EL_M + 2]
    if el[e, EL_FRAME] != 0.0:  # body frame: turns with the body
        fx, fy, fz = _turn(r, fx, fy, fz)
        mx, my, mz = _turn(r, mx, my, mz)
    F[b, 3] += mx
    F[b, 4] += my
    F[b, 5] += mz
    i = first + b
    if el[e, EL_HAS_POINT] != 0.0:
        px, py, pz = el[e, EL_POINT], el[e, EL_POINT + 1], el[e, EL_POINT + 2]
    else:
        px, py, pz = p[i, P_R_CG], p[i, P_R_CG + 1], p[i, P_R_CG + 2]
    _push(F, p, i, b, r, px, py, pz, fx, fy, fz)
    gx, gy, gz = _turn(r, px, py, pz)
    _record(rec, e, Y[b, 0] + gx, Y[b, 1] + gy, Y[b, 2] + gz, fx, fy, fz, 0.0, 0.0, 0.0)


@njit(cache=True, fastmath=False)
def _element_loads(p, el, e0, e1, aux, first, Y, t, h, left, F, rec):
    """Add every element's force and moment (global, about each body's CG) to F (cnt, 6)."""
    for e in range(e0, e1):
        kind = el[e, E_KIND]
        if kind == K_SPRING:
            _spring(p, el, e, first, Y, F, rec)
        elif kind == K_DAMPER:
            _damper(p, el, e, first, Y, F, rec)
        elif kind == K_GROUND:
            _ground(p, el, e, first, Y, h, F, rec)
        elif kind == K_LOAD:
            _timed_load(p, el, e, aux, first, Y, t, h, left, F, rec)


@njit(cache=True, fastmath=False)
def _pivot_body(p, i, el, e, y, fnx, fny, fnz, mnx, mny, mnz):
    """ẋ of body i held at body point a by pivot element e (module docstring), a 13-tuple."""
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
    r00 = 1.0 - 2.0 * (qy * qy + qz * qz)
    r01 = 2.0 * (qx * qy - qw * qz)
    r02 = 2.0 * (qx * qz + qw * qy)
    r10 = 2.0 * (qx * qy + qw * qz)
    r11 = 1.0 - 2.0 * (qx * qx + qz * qz)
    r12 = 2.0 * (qy * qz - qw * qx)
    r20 = 2.0 * (qx * qz - qw * qy)
    r21 = 2.0 * (qy * qz + qw * qx)
    r22 = 1.0 - 2.0 * (qx * qx + qy * qy)
    pdx = r00 * vx + r01 * vy + r02 * vz
    pdy = r10 * vx + r11 * vy + r12 * vz
    pdz = r20 * vx + r21 * vy + r22 * vz
    kn = _TAU_GAIN * (1.0 - (qw * qw + qx * qx + qy * qy + qz * qz))
    qdw = 0.5 * (-(qx * wx + qy * wy + qz * wz)) + kn * qw
    qdx = 0.5 * (qw * wx + (qy * wz - qz * wy)) + kn * qx
    qdy = 0.5 * (qw * wy + (qz * wx - qx * wz)) + kn * qy
    qdz = 0.5 * (qw * wz + (qx * wy - qy * wx)) + kn * qz
    fnz += p[i, P_MASS] * p[i, P_GRAVITY]
    f0 = r00 * fnx + r10 * fny + r20 * fnz
    f1 = r01 * fnx + r11 * fny + r21 * fnz
    f2 = r02 * fnx + r12 * fny + r22 * fnz
    ax = el[e, EP_A]
    ay = el[e, EP_A + 1]
    az = el[e, EP_A + 2]
    # the CG seen from the held point, then the moment about that point
    gx = p[i, P_R_CG] - ax
    gy = p[i, P_R_CG + 1] - ay
    gz = p[i, P_R_CG + 2] - az
    t0 = r00 * mnx + r10 * mny + r20 * mnz + (gy * f2 - gz * f1)
    t1 = r01 * mnx + r11 * mny + r21 * mnz + (gz * f0 - gx * f2)
    t2 = r02 * mnx + r12 * mny + r22 * mnz + (gx * f1 - gy * f0)
    c = p[i, P_CORIOLIS]
    if c != 0.0:
        o = EP_IA
        iwx = el[e, o] * wx + el[e, o + 1] * wy + el[e, o + 2] * wz
        iwy = el[e, o + 3] * wx + el[e, o + 4] * wy + el[e, o + 5] * wz
        iwz = el[e, o + 6] * wx + el[e, o + 7] * wy + el[e, o + 8] * wz
        t0 -= c * (wy * iwz - wz * iwy)
        t1 -= c * (wz * iwx - wx * iwz)
        t2 -= c * (wx * iwy - wy * iwx)
    o = EP_IA_INV
    a0 = el[e, o] * t0 + el[e, o + 1] * t1 + el[e, o + 2] * t2
    a1 = el[e, o + 3] * t0 + el[e, o + 4] * t1 + el[e, o + 5] * t2
    a2 = el[e, o + 6] * t0 + el[e, o + 7] * t1 + el[e, o + 8] * t2
    # v = a × ω, so v̇ = a × ω̇
    return (
        pdx, pdy, pdz, qdw, qdx, qdy, qdz,
        ay * a2 - az * a1, az * a0 - ax * a2, ax * a1 - ay * a0,
        a0, a1, a2,
    )  # fmt: skip


@njit(cache=True, fastmath=False)
def _group_derivative(p, u, el, e0, e1, aux, first, cnt, pivots, Y, t, h, left, F, K, rec):
    """K (cnt, 13) ← ẋ of the group's bodies at stage rows Y (cnt, 13) and time t (`left`:
    timed loads just before t, for the stage that ends a step)."""
    for b in range(cnt):
        fx, fy, fz, mx, my, mz = _applied(u, first + b, _load(Y[b]))
        F[b, 0] = fx
        F[b, 1] = fy
        F[b, 2] = fz
        F[b, 3] = mx
        F[b, 4] = my
        F[b, 5] = mz
    _element_loads(p, el, e0, e1, aux, first, Y, t, h, left, F, rec)
    for b in range(cnt):
        y = _load(Y[b])
        e = pivots[b]
        if e >= 0:
            k = _pivot_body(
                p, first + b, el, e, y, F[b, 0], F[b, 1], F[b, 2], F[b, 3], F[b, 4], F[b, 5]
            )
        else:
            k = _rigid_body(p, first + b, y, F[b, 0], F[b, 1], F[b, 2], F[b, 3], F[b, 4], F[b, 5])
        _store(K[b], k)


@njit(cache=True, fastmath=False)
def _hold(el, pivots, Y):
    """Put each pivoted body back on its constraint: p = a_world − R(q/|q|) a, v = a × ω."""
    for b in range(Y.shape[0]):
        e = pivots[b]
        if e < 0:
            continue
        r = _rotation(Y[b])
        ax = el[e, EP_A]
        ay = el[e, EP_A + 1]
        az = el[e, EP_A + 2]
        gx, gy, gz = _turn(r, ax, ay, az)
        Y[b, 0] = el[e, EP_AT] - gx
        Y[b, 1] = el[e, EP_AT + 1] - gy
        Y[b, 2] = el[e, EP_AT + 2] - gz
        wx = Y[b, 10]
        wy = Y[b, 11]
        wz = Y[b, 12]
        Y[b, 7] = ay * wz - az * wy
        Y[b, 8] = az * wx - ax * wz
        Y[b, 9] = ax * wy - ay * wx


@njit(cache=True, fastmath=False)
def _pivots(el, e0, e1, cnt):
    """Per body of a group the row of the pivot that holds it, or -1."""
    pivots = np.full(cnt, -1, dtype=np.int64)
    for e in range(e0, e1):
        if el[e, E_KIND] == K_PIVOT:
            pivots[int(el[e, E_BODY])] = e
    return pivots


@njit(cache=True, fastmath=False)
def _group_run(p, u, el, e0, e1, aux, first, cnt, pivots, Y, t0, h, n, method, scratch):
    """Advance the group's rows Y (cnt, 13) in place by n steps of h from time t0."""
    S = scratch[0]
    K1 = scratch[1]
    K2 = scratch[2]
    K3 = scratch[3]
    K4 = scratch[4]
    F = scratch[5][:, 0:6]
    rec = np.empty((0, 9))
    for s in range(n):
        t = t0 + s * h
        _group_derivative(p, u, el, e0, e1, aux, first, cnt, pivots, Y, t, h, False, F, K1, rec)
        if method == 0:
            for b in range(cnt):
                for j in range(13):
                    Y[b, j] += h * K1[b, j]
        else:
            for b in range(cnt):
                for j in range(13):
                    S[b, j] = Y[b, j] + 0.5 * h * K1[b, j]
            _group_derivative(
                p, u, el, e0, e1, aux, first, cnt, pivots, S, t + 0.5 * h, h, False, F, K2, rec
            )
            for b in range(cnt):
                for j in range(13):
                    S[b, j] = Y[b, j] + 0.5 * h * K2[b, j]
            _group_derivative(
                p, u, el, e0, e1, aux, first, cnt, pivots, S, t + 0.5 * h, h, False, F, K3, rec
            )
            for b in range(cnt):
                for j in range(13):
                    S[b, j] = Y[b, j] + h * K3[b, j]
            _group_derivative(
                p, u, el, e0, e1, aux, first, cnt, pivots, S, t + h, h, True, F, K4, rec
            )
            for b in range(cnt):
                for j in range(13):
                    Y[b, j] += h * (
                        _B1 * K1[b, j] + _B2 * K2[b, j] + _B2 * K3[b, j] + _B1 * K4[b, j]
                    )
        _hold(el, pivots, Y)


@njit(cache=True, fastmath=False)
def _group_advance(p, x, u, groups, el, bounds, aux, g, t0, h, n, method):
    first = groups[g, 0]
    cnt = groups[g, 1]
    e0 = bounds[g]
    e1 = bounds[g + 1]
    Y = np.empty((cnt, 13))
    for b in range(cnt):
        for j in range(13):
            Y[b, j] = x[first + b, j]
    pivots = _pivots(el, e0, e1, cnt)
    _hold(el, pivots, Y)
    scratch = np.empty((6, cnt, 13))
    _group_run(p, u, el, e0, e1, aux, first, cnt, pivots, Y, t0, h, n, method, scratch)
    for b in range(cnt):
        for j in range(13):
            x[first + b, j] = Y[b, j]


@njit(cache=True, fastmath=False)
def system_serial(p, x, u, groups, el, bounds, aux, t, h, n, method):
    """Advance every group g by n[first] steps of h[first] from t[first] (first = its first
    body): per-body arrays, as `kernel.advance` takes them, read at each group's first row."""
    for g in range(groups.shape[0]):
        f = groups[g, 0]
        _group_advance(p, x, u, groups, el, bounds, aux, g, t[f], h[f], n[f], method[f])


@njit(cache=True, fastmath=False, parallel=True)
def system_parallel(p, x, u, groups, el, bounds, aux, t, h, n, method):
    for g in prange(groups.shape[0]):
        f = groups[g, 0]
        _group_advance(p, x, u, groups, el, bounds, aux, g, t[f], h[f], n[f], method[f])


@njit(cache=True, fastmath=False)
def system_spans(p, x, u, groups, el, bounds, aux, t0, h_spans, n_spans, method, out):
    """Every group through the spans (n_spans[s] steps of h_spans[s]); out[s] ← the states
    after span s; x ← the final states. Time runs from t0 (one value for all bodies)."""
    for g in range(groups.shape[0]):
        first = groups[g, 0]
        cnt = groups[g, 1]
        e0 = bounds[g]
        e1 = bounds[g + 1]
        Y = np.empty((cnt, 13))
        for b in range(cnt):
            for j in range(13):
                Y[b, j] = x[first + b, j]
        pivots = _pivots(el, e0, e1, cnt)
        _hold(el, pivots, Y)
        scratch = np.empty((6, cnt, 13))
        t = t0
        for s in range(h_spans.shape[0]):
            _group_run(
                p,
                u,
                el,
                e0,
                e1,
                aux,
                first,
                cnt,
                pivots,
                Y,
                t,
                h_spans[s],
                n_spans[s],
                method,
                scratch,
            )
            t += h_spans[s] * n_spans[s]
            for b in range(cnt):
                for j in range(13):
                    out[s, first + b, j] = Y[b, j]
        for b in range(cnt):
            for j in range(13):
                x[first + b, j] = Y[b, j]


@njit(cache=True, fastmath=False)
def system_derivative(p, x, u, groups, el, bounds, aux, t, h, out, rec):
    """out (N, 13) ← ẋ of every body at states x and time t; rec (M, 9) ← each element's
    point, force and other end (when rec has rows), and a pivot's reaction force."""
    for g in range(groups.shape[0]):
        first = groups[g, 0]
        cnt = groups[g, 1]
        e0 = bounds[g]
        e1 = bounds[g + 1]
        Y = np.empty((cnt, 13))
        for b in range(cnt):
            for j in range(13):
                Y[b, j] = x[first + b, j]
        pivots = _pivots(el, e0, e1, cnt)
        F = np.zeros((cnt, 6))
        K = np.empty((cnt, 13))
        _group_derivative(p, u, el, e0, e1, aux, first, cnt, pivots, Y, t, h, False, F, K, rec)
        for b in range(cnt):
            for j in range(13):
                out[first + b, j] = K[b, j]
            e = pivots[b]
            if e >= 0 and rec.shape[0] > 0:
                _pivot_reaction(p, first + b, el, e, Y, b, K, F, rec)


@njit(cache=True, fastmath=False)
def _pivot_reaction(p, i, el, e, Y, b, K, F, rec):
    """The pivot's force on the body: m a_CG − (F_n + m g_n), with
    a_CG = R (v̇ + ω × v + ω̇ × r_g + ω × (ω × r_g))."""
    r = _rotation(Y[b])
    wx = Y[b, 10]
    wy = Y[b, 11]
    wz = Y[b, 12]
    rx = p[i, P_R_CG]
    ry = p[i, P_R_CG + 1]
    rz = p[i, P_R_CG + 2]
    cx = wy * rz - wz * ry
    cy = wz * rx - wx * rz
    cz = wx * ry - wy * rx
    ax = (
        K[b, 7]
        + (wy * Y[b, 9] - wz * Y[b, 8])
        + (K[b, 11] * rz - K[b, 12] * ry)
        + (wy * cz - wz * cy)
    )
    ay = (
        K[b, 8]
        + (wz * Y[b, 7] - wx * Y[b, 9])
        + (K[b, 12] * rx - K[b, 10] * rz)
        + (wz * cx - wx * cz)
    )
    az = (
        K[b, 9]
        + (wx * Y[b, 8] - wy * Y[b, 7])
        + (K[b, 10] * ry - K[b, 11] * rx)
        + (wx * cy - wy * cx)
    )
    gx, gy, gz = _turn(r, ax, ay, az)
    m = p[i, P_MASS]
    fx = m * gx - F[b, 0]
    fy = m * gy - F[b, 1]
    fz = m * gz - F[b, 2] - m * p[i, P_GRAVITY]
    _record(rec, e, el[e, EP_AT], el[e, EP_AT + 1], el[e, EP_AT + 2], fx, fy, fz,
            el[e, EP_AT], el[e, EP_AT + 1], el[e, EP_AT + 2])  # fmt: skip
