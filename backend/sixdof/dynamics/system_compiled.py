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

from .borrow import borrowed
from .kernel_compiled import (
    _applied,
    _axpy,
    _load,
    _rigid_body,
    _rk4_sum,
    _step,
    _step_turning,
    _store,
    njit,
)
from .layout import (
    E_BODY,
    E_KIND,
    E_OTHER,
    EA_MATRIX,
    EB_CORNERS,
    EB_CREST,
    EB_DEPTH,
    EB_LEVEL,
    EB_NNODES,
    EB_NTRI,
    EB_NVERT,
    EB_NWAVES,
    EB_REACH,
    EB_RHO,
    EB_TREE,
    EB_TRI,
    EB_VERT,
    EB_WAVES,
    ED_CURRENT,
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
    K_ADDED_MASS,
    K_BUOYANCY,
    K_DAMPER,
    K_GROUND,
    K_LOAD,
    K_PIVOT,
    K_SPRING,
    L_STATE_DEPENDENT,
    N_CENTRE,
    N_COUNT,
    N_FIRST,
    N_HALF,
    N_P,
    N_S,
    N_SKIP,
    N_T,
    N_U,
    NODE_SIZE,
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

#: Hash of the modules compiled in here (kernel_cache.STAMP_NAME: numba keys its cache on this
#: file's text alone); `python scripts/stamp_kernels.py` keeps it current.
COMPILED_FROM = "c73a30da5faf5ef7"

_TAU_GAIN = 0.5 / NORM_TIME_CONSTANT
_B1 = float(RK4.b[0])
_B2 = float(RK4.b[1])
#: A timed load's switch within SWITCH_SNAP · h of a stage time is taken to be at that time:
#: a start on the step grid stays on it though t0 + s h and an accumulated room time round.
SWITCH_SNAP = 1e-6


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy", inline="always")
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


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy", inline="always")
def _turn(r, x, y, z):
    """R (x, y, z)."""
    return (
        r[0] * x + r[1] * y + r[2] * z,
        r[3] * x + r[4] * y + r[5] * z,
        r[6] * x + r[7] * y + r[8] * z,
    )


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _row(el, e):
    """Element row e as a tuple: the hot paths pass it by value, not the array."""
    return (
        el[e, 0], el[e, 1], el[e, 2], el[e, 3], el[e, 4], el[e, 5], el[e, 6], el[e, 7],
        el[e, 8], el[e, 9], el[e, 10], el[e, 11], el[e, 12], el[e, 13], el[e, 14], el[e, 15],
        el[e, 16], el[e, 17], el[e, 18], el[e, 19], el[e, 20], el[e, 21], el[e, 22], el[e, 23],
        el[e, 24], el[e, 25], el[e, 26], el[e, 27], el[e, 28], el[e, 29], el[e, 30], el[e, 31],
    )  # fmt: skip


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _point_motion(y, r, px, py, pz):
    """World position and velocity of the body point (px, py, pz) (body axes, from the
    reference point) at state y (a 13-tuple) with R = r its rotation."""
    gx, gy, gz = _turn(r, px, py, pz)
    wx = y[10]
    wy = y[11]
    wz = y[12]
    vx, vy, vz = _turn(
        r,
        y[7] + (wy * pz - wz * py),
        y[8] + (wz * px - wx * pz),
        y[9] + (wx * py - wy * px),
    )
    return y[0] + gx, y[1] + gy, y[2] + gz, vx, vy, vz


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _moment(p, i, r, px, py, pz, fx, fy, fz):
    """The moment about body i's CG of a global force (fx, fy, fz) at its body point
    (px, py, pz) (from the reference point): (R (point − r_g)) × F."""
    lx, ly, lz = _turn(r, px - p[i, P_R_CG], py - p[i, P_R_CG + 1], pz - p[i, P_R_CG + 2])
    return ly * fz - lz * fy, lz * fx - lx * fz, lx * fy - ly * fx


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
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


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
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


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _spring(row, ya, ra, yb, rb, joined):
    """A spring from body point a (state ya, rotation ra) to a world point, or to body point
    b of a second body (yb, rb) when `joined`: (force on a (3), a's world point (3), the
    other end (3)). The other body gets the opposite force."""
    ax = row[ES_A]
    ay = row[ES_A + 1]
    az = row[ES_A + 2]
    pax, pay, paz, vax, vay, vaz = _point_motion(ya, ra, ax, ay, az)
    bx = row[ES_B]
    by = row[ES_B + 1]
    bz = row[ES_B + 2]
    if joined:
        pbx, pby, pbz, vbx, vby, vbz = _point_motion(yb, rb, bx, by, bz)
    else:
        pbx, pby, pbz, vbx, vby, vbz = bx, by, bz, 0.0, 0.0, 0.0
    dx = pbx - pax
    dy = pby - pay
    dz = pbz - paz
    k = row[ES_K]
    c = row[ES_C]
    rest = row[ES_LEN]
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
            rate = (vbx - vax) * nx + (vby - vay) * ny + (vbz - vaz) * nz
            along = k * (length - rest) + c * rate
            fx = along * nx
            fy = along * ny
            fz = along * nz
        else:  # the ends meet: no direction to push along
            fx = 0.0
            fy = 0.0
            fz = 0.0
    return fx, fy, fz, pax, pay, paz, pbx, pby, pbz


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _damper(p, el, e, i, y, r):
    """Fossen's D(ν_r) ν_r = (D_l + D_q |ν_r|) ν_r in body axes at the reference point,
    opposing ν_r = ν − (Rᵀ v_c, 0), the velocity relative to the water (current v_c, NED):
    the global (F, M about the CG) on body i."""
    cx = el[e, ED_CURRENT]
    cy = el[e, ED_CURRENT + 1]
    cz = el[e, ED_CURRENT + 2]
    ux = y[7] - (r[0] * cx + r[3] * cy + r[6] * cz)
    uy = y[8] - (r[1] * cx + r[4] * cy + r[7] * cz)
    uz = y[9] - (r[2] * cx + r[5] * cy + r[8] * cz)
    t0 = -(el[e, ED_LIN] + el[e, ED_QUAD] * abs(ux)) * ux
    t1 = -(el[e, ED_LIN + 1] + el[e, ED_QUAD + 1] * abs(uy)) * uy
    t2 = -(el[e, ED_LIN + 2] + el[e, ED_QUAD + 2] * abs(uz)) * uz
    t3 = -(el[e, ED_LIN + 3] + el[e, ED_QUAD + 3] * abs(y[10])) * y[10]
    t4 = -(el[e, ED_LIN + 4] + el[e, ED_QUAD + 4] * abs(y[11])) * y[11]
    t5 = -(el[e, ED_LIN + 5] + el[e, ED_QUAD + 5] * abs(y[12])) * y[12]
    # the force acts at o: about the CG its moment gains (o − CG) × f = −r_g × f
    rx = p[i, P_R_CG]
    ry = p[i, P_R_CG + 1]
    rz = p[i, P_R_CG + 2]
    fx, fy, fz = _turn(r, t0, t1, t2)
    mx, my, mz = _turn(
        r, t3 - (ry * t2 - rz * t1), t4 - (rz * t0 - rx * t2), t5 - (rx * t1 - ry * t0)
    )
    return fx, fy, fz, mx, my, mz


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _contact(p, el, e, i, y, r, cx, cy, cz, h):
    """One contact point (body axes, from the reference point) against the ground plane:
    spring-dashpot normal force N ≥ 0 and regularised Coulomb friction. Returns the force
    (3), its moment about the CG (3), N and N · the point's world position (3)."""
    px, py, pz, vx, vy, vz = _point_motion(y, r, cx, cy, cz)
    depth = pz - el[e, EG_HEIGHT]  # NED: below the plane is z > height
    if depth <= 0.0:
        return 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    normal = el[e, EG_K] * depth + el[e, EG_C] * vz
    if normal <= 0.0:  # the dashpot may slow a parting body, never pull it down
        return 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    mu = el[e, EG_MU]
    # below the slip speed friction is viscous; its floor μ N h × the row's rate keeps that
    # part inside the step's stability region (elements.friction_rate)
    slip = max(el[e, EG_SLIP], mu * normal * h * el[e, EG_RATE])
    scale = mu * normal / math.sqrt(vx * vx + vy * vy + slip * slip)
    fx = -scale * vx
    fy = -scale * vy
    fz = -normal
    mx, my, mz = _moment(p, i, r, cx, cy, cz, fx, fy, fz)
    return fx, fy, fz, mx, my, mz, normal, normal * px, normal * py, normal * pz


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _ground(p, el, e, i, y, r, h):
    """The ground's total force and moment on body i (global, about the CG), and its centre
    of pressure (N-weighted mean of the touching points; the point under the body when none
    touches) for the record."""
    ox = el[e, EG_CENTRE]
    oy = el[e, EG_CENTRE + 1]
    oz = el[e, EG_CENTRE + 2]
    if el[e, EG_SHAPE] == 0.0:  # a sphere touches with its lowest point, Rᵀ (0, 0, r) below
        radius = el[e, EG_EXTENT]
        c = _contact(
            p, el, e, i, y, r, ox + radius * r[6], oy + radius * r[7], oz + radius * r[8], h
        )
        fx, fy, fz, mx, my, mz, n, sx, sy, sz = c
    else:  # a box (the mesh's bounding box) touches with its corners
        fx = fy = fz = mx = my = mz = n = sx = sy = sz = 0.0
        hx = el[e, EG_EXTENT]
        hy = el[e, EG_EXTENT + 1]
        hz = el[e, EG_EXTENT + 2]
        for corner in range(8):
            cx = ox + (hx if corner & 1 else -hx)
            cy = oy + (hy if corner & 2 else -hy)
            cz = oz + (hz if corner & 4 else -hz)
            c = _contact(p, el, e, i, y, r, cx, cy, cz, h)
            fx += c[0]
            fy += c[1]
            fz += c[2]
            mx += c[3]
            my += c[4]
            mz += c[5]
            n += c[6]
            sx += c[7]
            sy += c[8]
            sz += c[9]
    if n > 0.0:
        return fx, fy, fz, mx, my, mz, sx / n, sy / n, sz / n
    return fx, fy, fz, mx, my, mz, y[0], y[1], el[e, EG_HEIGHT]


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _timed_load(p, el, e, aux, i, y, r, t, h, left):
    """A timed load's global force and moment about body i's CG, and its world point."""
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
    if el[e, EL_HAS_POINT] != 0.0:
        px = el[e, EL_POINT]
        py = el[e, EL_POINT + 1]
        pz = el[e, EL_POINT + 2]
        ax, ay, az = _moment(p, i, r, px, py, pz, fx, fy, fz)
        mx += ax
        my += ay
        mz += az
    else:
        px = p[i, P_R_CG]
        py = p[i, P_R_CG + 1]
        pz = p[i, P_R_CG + 2]
    gx, gy, gz = _turn(r, px, py, pz)
    return fx, fy, fz, mx, my, mz, y[0] + gx, y[1] + gy, y[2] + gz


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _wave_head(aux, w0, nw, depth, t, x, y, d):
    """Σ a f(d) cos(ω t − k (x cos β + y sin β)), m: the waves' Froude–Krylov pressure head at
    world (x, y) and depth d below the still level (water.py), d clamped to [0, depth]."""
    if d < 0.0:
        d = 0.0
    if depth > 0.0 and d > depth:
        d = depth
    s = 0.0
    for j in range(nw):
        o = w0 + 5 * j
        k = aux[o + 2]
        if depth > 0.0:
            f = (math.exp(-k * d) + math.exp(-k * (2.0 * depth - d))) / (
                1.0 + math.exp(-2.0 * k * depth)
            )
        else:
            f = math.exp(-k * d)
        s += aux[o] * f * math.cos(aux[o + 1] * t - k * (x * aux[o + 3] + y * aux[o + 4]))
    return s


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _panel(ax, ay, az, bx, by, bz, cx, cy, cz, pa, pb, pc):
    """−∫ p n dA and −∫ p ℓ × n dA over a triangle (corners ℓ from the CG, world, wound
    outward) with the pressure linear between its corner values: exact for a linear p."""
    ux = bx - ax
    uy = by - ay
    uz = bz - az
    vx = cx - ax
    vy = cy - ay
    vz = cz - az
    sx = 0.5 * (uy * vz - uz * vy)
    sy = 0.5 * (uz * vx - ux * vz)
    sz = 0.5 * (ux * vy - uy * vx)
    ps = pa + pb + pc
    m = ps / 3.0
    # ∫ p ℓ dA = (A / 12) (Σ pᵢ ℓᵢ + Σ pᵢ Σ ℓᵢ)
    qx = (pa * ax + pb * bx + pc * cx + ps * (ax + bx + cx)) / 12.0
    qy = (pa * ay + pb * by + pc * cy + ps * (ay + by + cy)) / 12.0
    qz = (pa * az + pb * bz + pc * cz + ps * (az + bz + cz)) / 12.0
    return (
        -m * sx, -m * sy, -m * sz,
        -(qy * sz - qz * sy), -(qz * sx - qx * sz), -(qx * sy - qy * sx),
    )  # fmt: skip


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _wetted(ax, ay, az, bx, by, bz, cx, cy, cz, pa, pb, pc):
    """`_panel` over the part of a triangle where p > 0: a is the odd corner (the only wet
    one, or the only dry one), cut where p, linear along the edges, is zero."""
    sab = pa / (pa - pb)
    sac = pa / (pa - pc)
    dx = ax + sab * (bx - ax)
    dy = ay + sab * (by - ay)
    dz = az + sab * (bz - az)
    ex = ax + sac * (cx - ax)
    ey = ay + sac * (cy - ay)
    ez = az + sac * (cz - az)
    if pa > 0.0:
        return _panel(ax, ay, az, dx, dy, dz, ex, ey, ez, pa, 0.0, 0.0)
    f = _panel(dx, dy, dz, bx, by, bz, cx, cy, cz, 0.0, pb, pc)
    g = _panel(dx, dy, dz, cx, cy, cz, ex, ey, ez, 0.0, pc, 0.0)
    return f[0] + g[0], f[1] + g[1], f[2] + g[2], f[3] + g[3], f[4] + g[4], f[5] + g[5]


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _still_buoyancy(p, el, e, aux, i, y, r, rho_g):
    """`_buoyancy` in still water through the hull's tree (hull_tree.py): the head is
    d = n·v + c at body point v (n the world's down in body axes, c = z − level), so a node
    whose box is under water adds its linear sums, a dry one nothing, and only the triangles
    of leaves across the surface are clipped. Body axes about the reference point until the
    end; global (F, M about the CG) out."""
    nx = r[6]
    ny = r[7]
    nz = r[8]
    anx = abs(nx)
    any_ = abs(ny)
    anz = abs(nz)
    c = y[2] - el[e, EB_LEVEL]
    tree = int(el[e, EB_TREE])
    nodes = int(el[e, EB_NNODES])
    corners = int(el[e, EB_CORNERS])
    fx = fy = fz = mx = my = mz = 0.0
    k = 0
    while k < nodes:
        o = tree + NODE_SIZE * k
        mid = nx * aux[o + N_CENTRE] + ny * aux[o + N_CENTRE + 1] + nz * aux[o + N_CENTRE + 2] + c
        rad = anx * aux[o + N_HALF] + any_ * aux[o + N_HALF + 1] + anz * aux[o + N_HALF + 2]
        if mid + rad <= 0.0:  # dry
            k = int(aux[o + N_SKIP])
            continue
        if mid - rad >= 0.0:  # under water: −(P n + c S), T n + c U
            q = o + N_P
            fx -= aux[q] * nx + aux[q + 1] * ny + aux[q + 2] * nz + c * aux[o + N_S]
            fy -= aux[q + 3] * nx + aux[q + 4] * ny + aux[q + 5] * nz + c * aux[o + N_S + 1]
            fz -= aux[q + 6] * nx + aux[q + 7] * ny + aux[q + 8] * nz + c * aux[o + N_S + 2]
            q = o + N_T
            mx += aux[q] * nx + aux[q + 1] * ny + aux[q + 2] * nz + c * aux[o + N_U]
            my += aux[q + 3] * nx + aux[q + 4] * ny + aux[q + 5] * nz + c * aux[o + N_U + 1]
            mz += aux[q + 6] * nx + aux[q + 7] * ny + aux[q + 8] * nz + c * aux[o + N_U + 2]
            k = int(aux[o + N_SKIP])
            continue
        count = int(aux[o + N_COUNT])
        if count == 0:  # an inner node across the surface: into its first child
            k += 1
            continue
        first = int(aux[o + N_FIRST])
        for j in range(first, first + count):
            q = corners + 9 * j
            ax = aux[q]
            ay = aux[q + 1]
            az = aux[q + 2]
            bx = aux[q + 3]
            by = aux[q + 4]
            bz = aux[q + 5]
            cx = aux[q + 6]
            cy = aux[q + 7]
            cz = aux[q + 8]
            da = nx * ax + ny * ay + nz * az + c
            db = nx * bx + ny * by + nz * bz + c
            dc = nx * cx + ny * cy + nz * cz + c
            wa = da > 0.0
            wb = db > 0.0
            wc = dc > 0.0
            if not (wa or wb or wc):
                continue
            ux = bx - ax
            uy = by - ay
            uz = bz - az
            vx = cx - ax
            vy = cy - ay
            vz = cz - az
            sx = 0.5 * (uy * vz - uz * vy)  # the area vector, outward
            sy = 0.5 * (uz * vx - ux * vz)
            sz = 0.5 * (ux * vy - uy * vx)
            # ∫ d dA = w |s| and ∫ d v dA = |s| (gx, gy, gz): then F −= w s, M += s × g
            if wa and wb and wc:
                w = 0.0
                gx = gy = gz = 0.0
                full = True
            else:
                # the odd corner first (cyclic order kept, so s is unchanged): the triangle
                # from it to where the edges cross the surface, heads (d, 0, 0), is the wet
                # part (odd corner wet) or the dry tip taken off the whole (odd corner dry)
                # (single assignments: numba keeps tuple temporaries on the stack, and a
                # larger frame slowed every call, the early exits too)
                if wa == wb:
                    ox = cx
                    oy = cy
                    oz = cz
                    od = dc
                    px = ax
                    py = ay
                    pz = az
                    pd = da
                    rx_ = bx
                    ry_ = by
                    rz_ = bz
                    rd = db
                elif wa == wc:
                    ox = bx
                    oy = by
                    oz = bz
                    od = db
                    px = cx
                    py = cy
                    pz = cz
                    pd = dc
                    rx_ = ax
                    ry_ = ay
                    rz_ = az
                    rd = da
                else:
                    ox = ax
                    oy = ay
                    oz = az
                    od = da
                    px = bx
                    py = by
                    pz = bz
                    pd = db
                    rx_ = cx
                    ry_ = cy
                    rz_ = cz
                    rd = dc
                tp = od / (od - pd)
                tr = od / (od - rd)
                w = tp * tr * od / 3.0
                gw = w / 4.0
                gx = gw * (4.0 * ox + tp * (px - ox) + tr * (rx_ - ox))
                gy = gw * (4.0 * oy + tp * (py - oy) + tr * (ry_ - oy))
                gz = gw * (4.0 * oz + tp * (pz - oz) + tr * (rz_ - oz))
                full = od <= 0.0
                if full:
                    w = -w
                    gx = -gx
                    gy = -gy
                    gz = -gz
            if full:
                ds = da + db + dc
                w += ds / 3.0
                gx += (da * ax + db * bx + dc * cx + ds * (ax + bx + cx)) / 12.0
                gy += (da * ay + db * by + dc * cy + ds * (ay + by + cy)) / 12.0
                gz += (da * az + db * bz + dc * cz + ds * (az + bz + cz)) / 12.0
            fx -= w * sx
            fy -= w * sy
            fz -= w * sz
            mx += sy * gz - sz * gy
            my += sz * gx - sx * gz
            mz += sx * gy - sy * gx
        k = int(aux[o + N_SKIP])
    # about the CG: M − r_g × F; then to the world
    rx = p[i, P_R_CG]
    ry = p[i, P_R_CG + 1]
    rz = p[i, P_R_CG + 2]
    mx -= ry * fz - rz * fy
    my -= rz * fx - rx * fz
    mz -= rx * fy - ry * fx
    gx, gy, gz = _turn(r, fx, fy, fz)
    hx, hy, hz = _turn(r, mx, my, mz)
    return rho_g * gx, rho_g * gy, rho_g * gz, rho_g * hx, rho_g * hy, rho_g * hz


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _buoyancy(p, el, e, aux, i, y, r, t):
    """The water's pressure on body i's hull (elements.Buoyancy): global (F, M about the CG).
    Still water: `_still_buoyancy`. In waves each vertex is taken to the world and its
    pressure (hydrostatic plus the waves' Froude–Krylov, water.py) evaluated at most once;
    then each triangle is clipped where it is zero."""
    rho_g = el[e, EB_RHO] * p[i, P_GRAVITY]
    level = el[e, EB_LEVEL]
    if y[2] + el[e, EB_REACH] <= level - el[e, EB_CREST] or rho_g == 0.0:
        return 0.0, 0.0, 0.0, 0.0, 0.0, 0.0  # clear of the highest crest
    nw = int(el[e, EB_NWAVES])
    if nw == 0 and el[e, EB_NNODES] > 0.0:
        return _still_buoyancy(p, el, e, aux, i, y, r, rho_g)
    depth = el[e, EB_DEPTH]
    w0 = int(el[e, EB_WAVES])
    rx = p[i, P_R_CG]
    ry = p[i, P_R_CG + 1]
    rz = p[i, P_R_CG + 2]
    gx, gy, gz = _turn(r, rx, ry, rz)
    ox = y[0] + gx  # the CG, world
    oy = y[1] + gy
    oz = y[2] + gz
    v0 = int(el[e, EB_VERT])
    nv = int(el[e, EB_NVERT])
    crest = el[e, EB_CREST]
    # per vertex: ℓ from the CG (world axes), depth below the still level, pressure head
    # (evaluated when a triangle needs it: a vertex above every crest, d + Σ|a| ≤ 0, is dry
    # whatever the waves, and a triangle of three such is skipped without a transcendental)
    w = np.empty((nv, 6))
    for j in range(nv):
        o = v0 + 3 * j
        ax, ay, az = _turn(r, aux[o] - rx, aux[o + 1] - ry, aux[o + 2] - rz)
        w[j, 0] = ax
        w[j, 1] = ay
        w[j, 2] = az
        w[j, 3] = oz + az - level
        w[j, 5] = 0.0
    fx = fy = fz = mx = my = mz = 0.0
    t0 = int(el[e, EB_TRI])
    for j in range(int(el[e, EB_NTRI])):
        o = t0 + 3 * j
        ia = int(aux[o])
        ib = int(aux[o + 1])
        ic = int(aux[o + 2])
        if w[ia, 3] + crest <= 0.0 and w[ib, 3] + crest <= 0.0 and w[ic, 3] + crest <= 0.0:
            continue
        for k in (ia, ib, ic):
            if w[k, 5] == 0.0:
                d = w[k, 3]
                w[k, 4] = d + _wave_head(aux, w0, nw, depth, t, ox + w[k, 0], oy + w[k, 1], d)
                w[k, 5] = 1.0
        da = w[ia, 4]
        db = w[ib, 4]
        dc = w[ic, 4]
        wa = da > 0.0
        wb = db > 0.0
        wc = dc > 0.0
        if not (wa or wb or wc):
            continue
        ax = w[ia, 0]
        ay = w[ia, 1]
        az = w[ia, 2]
        bx = w[ib, 0]
        by = w[ib, 1]
        bz = w[ib, 2]
        cx = w[ic, 0]
        cy = w[ic, 1]
        cz = w[ic, 2]
        if wa and wb and wc:
            c = _panel(ax, ay, az, bx, by, bz, cx, cy, cz, da, db, dc)
        elif wa == wb:  # c is the odd corner
            c = _wetted(cx, cy, cz, ax, ay, az, bx, by, bz, dc, da, db)
        elif wa == wc:  # b is
            c = _wetted(bx, by, bz, cx, cy, cz, ax, ay, az, db, dc, da)
        else:  # a is
            c = _wetted(ax, ay, az, bx, by, bz, cx, cy, cz, da, db, dc)
        fx += c[0]
        fy += c[1]
        fz += c[2]
        mx += c[3]
        my += c[4]
        mz += c[5]
    return rho_g * fx, rho_g * fy, rho_g * fz, rho_g * mx, rho_g * my, rho_g * mz


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _dot6(aux, o, y):
    """aux[o:o + 6] · ν, ν = y[7:13]."""
    return (
        aux[o] * y[7] + aux[o + 1] * y[8] + aux[o + 2] * y[9]
        + aux[o + 3] * y[10] + aux[o + 4] * y[11] + aux[o + 5] * y[12]
    )  # fmt: skip


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _added_mass(p, el, e, aux, i, y, r):
    """−C_A(ν) ν = (p₁ × ω, p₁ × v + p₂ × ω), (p₁, p₂) = M_A ν, body axes at the reference
    point (the Munk moment), in the `full` model only: the global (F, M about the CG). M_A
    itself is in the packed mass-matrix inverse (kernel.pack)."""
    c = p[i, P_CORIOLIS]
    if c == 0.0:
        return 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    o = int(el[e, EA_MATRIX])
    q = (
        _dot6(aux, o, y), _dot6(aux, o + 6, y), _dot6(aux, o + 12, y),
        _dot6(aux, o + 18, y), _dot6(aux, o + 24, y), _dot6(aux, o + 30, y),
    )  # fmt: skip
    vx = y[7]
    vy = y[8]
    vz = y[9]
    wx = y[10]
    wy = y[11]
    wz = y[12]
    t0 = c * (q[1] * wz - q[2] * wy)
    t1 = c * (q[2] * wx - q[0] * wz)
    t2 = c * (q[0] * wy - q[1] * wx)
    t3 = c * ((q[1] * vz - q[2] * vy) + (q[4] * wz - q[5] * wy))
    t4 = c * ((q[2] * vx - q[0] * vz) + (q[5] * wx - q[3] * wz))
    t5 = c * ((q[0] * vy - q[1] * vx) + (q[3] * wy - q[4] * wx))
    rx = p[i, P_R_CG]
    ry = p[i, P_R_CG + 1]
    rz = p[i, P_R_CG + 2]
    fx, fy, fz = _turn(r, t0, t1, t2)
    mx, my, mz = _turn(
        r, t3 - (ry * t2 - rz * t1), t4 - (rz * t0 - rx * t2), t5 - (rx * t1 - ry * t0)
    )
    return fx, fy, fz, mx, my, mz


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _hull_forces(p, el, e0, e1, aux, i, b, y, t):
    """The buoyancy elements on body i (index b in its group): global (F, M about the CG).
    Apart from `_element_forces`, whose light kinds slowed by ~25 ns a call with the hull's
    code beside them (bench_water.py), even on bodies without a hull."""
    fx = fy = fz = mx = my = mz = 0.0
    r = _rotation(y)
    for e in range(e0, e1):
        if el[e, E_BODY] != b or el[e, E_KIND] != K_BUOYANCY:
            continue
        c = _buoyancy(p, el, e, aux, i, y, r, t)
        fx += c[0]
        fy += c[1]
        fz += c[2]
        mx += c[3]
        my += c[4]
        mz += c[5]
    return fx, fy, fz, mx, my, mz


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _element_forces(p, el, e0, e1, aux, i, b, y, t, h, left):
    """The elements that act on body i alone (everything but a spring joining it to another
    body, a pivot and buoyancy, `_hull_forces`): global (F, M) about its CG at state y (a
    13-tuple); b is its index in its group (the elements' E_BODY)."""
    fx = fy = fz = mx = my = mz = 0.0
    r = _rotation(y)
    for e in range(e0, e1):
        if el[e, E_BODY] != b:
            continue
        kind = el[e, E_KIND]
        if kind == K_SPRING:
            if el[e, E_OTHER] >= 0.0:
                continue
            sx, sy, sz, _, _, _, _, _, _ = _spring(_row(el, e), y, r, y, r, False)
            ax, ay, az = _moment(p, i, r, el[e, ES_A], el[e, ES_A + 1], el[e, ES_A + 2], sx, sy, sz)
            fx += sx
            fy += sy
            fz += sz
            mx += ax
            my += ay
            mz += az
        elif kind == K_DAMPER:
            c = _damper(p, el, e, i, y, r)
            fx += c[0]
            fy += c[1]
            fz += c[2]
            mx += c[3]
            my += c[4]
            mz += c[5]
        elif kind == K_GROUND:
            c = _ground(p, el, e, i, y, r, h)
            fx += c[0]
            fy += c[1]
            fz += c[2]
            mx += c[3]
            my += c[4]
            mz += c[5]
        elif kind == K_LOAD:
            c = _timed_load(p, el, e, aux, i, y, r, t, h, left)
            fx += c[0]
            fy += c[1]
            fz += c[2]
            mx += c[3]
            my += c[4]
            mz += c[5]
        elif kind == K_ADDED_MASS:
            c = _added_mass(p, el, e, aux, i, y, r)
            fx += c[0]
            fy += c[1]
            fz += c[2]
            mx += c[3]
            my += c[4]
            mz += c[5]
    return fx, fy, fz, mx, my, mz


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _pivot_body(p, i, row, y, fnx, fny, fnz, mnx, mny, mnz):
    """ẋ of body i held at body point a by the pivot of element row `row` (module
    docstring), a 13-tuple."""
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
    ax = row[EP_A]
    ay = row[EP_A + 1]
    az = row[EP_A + 2]
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
        iwx = row[o] * wx + row[o + 1] * wy + row[o + 2] * wz
        iwy = row[o + 3] * wx + row[o + 4] * wy + row[o + 5] * wz
        iwz = row[o + 6] * wx + row[o + 7] * wy + row[o + 8] * wz
        t0 -= c * (wy * iwz - wz * iwy)
        t1 -= c * (wz * iwx - wx * iwz)
        t2 -= c * (wx * iwy - wy * iwx)
    o = EP_IA_INV
    a0 = row[o] * t0 + row[o + 1] * t1 + row[o + 2] * t2
    a1 = row[o + 3] * t0 + row[o + 4] * t1 + row[o + 5] * t2
    a2 = row[o + 6] * t0 + row[o + 7] * t1 + row[o + 8] * t2
    # v = a × ω, so v̇ = a × ω̇
    return (
        pdx, pdy, pdz, qdw, qdx, qdy, qdz,
        ay * a2 - az * a1, az * a0 - ax * a2, ax * a1 - ay * a0,
        a0, a1, a2,
    )  # fmt: skip


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _derivative_one(p, u, el, e0, e1, aux, i, pivot, forces, hulls, turning, y, t, h, left):
    """ẋ of a body alone in its group at state y (a 13-tuple): straight code, no arrays.
    `forces`: it has elements other than a pivot and buoyancy; `hulls`: it has buoyancy;
    `turning`: its load row has
    state-dependent parts (both decided once per run, as kernel_compiled does)."""
    if turning:
        fx, fy, fz, mx, my, mz = _applied(u, i, y)
    else:
        fx = u[i, 0]
        fy = u[i, 1]
        fz = u[i, 2]
        mx = u[i, 3]
        my = u[i, 4]
        mz = u[i, 5]
    if forces:
        c = _element_forces(p, el, e0, e1, aux, i, 0.0, y, t, h, left)
        fx += c[0]
        fy += c[1]
        fz += c[2]
        mx += c[3]
        my += c[4]
        mz += c[5]
    if hulls:
        c = _hull_forces(p, el, e0, e1, aux, i, 0.0, y, t)
        fx += c[0]
        fy += c[1]
        fz += c[2]
        mx += c[3]
        my += c[4]
        mz += c[5]
    if pivot >= 0:
        return _pivot_body(p, i, _row(el, pivot), y, fx, fy, fz, mx, my, mz)
    return _rigid_body(p, i, y, fx, fy, fz, mx, my, mz)


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy", inline="always")
def _held(row, y):
    """State y (a 13-tuple) put back on the pivot of element row `row`:
    p = a_world − R(q/|q|) a, v = a × ω."""
    r = _rotation(y)
    ax = row[EP_A]
    ay = row[EP_A + 1]
    az = row[EP_A + 2]
    gx, gy, gz = _turn(r, ax, ay, az)
    wx = y[10]
    wy = y[11]
    wz = y[12]
    return (
        row[EP_AT] - gx, row[EP_AT + 1] - gy, row[EP_AT + 2] - gz,
        y[3], y[4], y[5], y[6],
        ay * wz - az * wy, az * wx - ax * wz, ax * wy - ay * wx,
        wx, wy, wz,
    )  # fmt: skip


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _step_one(p, u, el, e0, e1, aux, i, pivot, forces, hulls, turning, y, t, h, method):
    """One step of a body alone in its group: explicit Euler (method 0) or classic RK4 (1),
    each stage from its own state and time; the new 13-tuple (the shape of kernel_compiled's
    `_step`, which keeps the state in registers)."""
    k1 = _derivative_one(p, u, el, e0, e1, aux, i, pivot, forces, hulls, turning, y, t, h, False)
    if method == 0:
        return _axpy(y, h, k1)
    y2 = _axpy(y, 0.5 * h, k1)
    k2 = _derivative_one(
        p, u, el, e0, e1, aux, i, pivot, forces, hulls, turning, y2, t + 0.5 * h, h, False
    )
    y3 = _axpy(y, 0.5 * h, k2)
    k3 = _derivative_one(
        p, u, el, e0, e1, aux, i, pivot, forces, hulls, turning, y3, t + 0.5 * h, h, False
    )
    y4 = _axpy(y, h, k3)
    k4 = _derivative_one(
        p, u, el, e0, e1, aux, i, pivot, forces, hulls, turning, y4, t + h, h, True
    )
    return _rk4_sum(y, h, k1, k2, k3, k4)


# The two commonest elements, a pivot or one world spring alone on a body, step as straight
# code: their derivative is inlined into the step, as kernel_compiled inlines _rigid_body
# (a pivot 254 → 130 ns a step, a spring 252 → 190 ns; a free body ~105 ns). Inlined twins,
# not inline="always" on the originals, so the general paths keep their calls and compile
# as fast as before.
_pivot_body_inline = njit(fastmath=False, error_model="numpy", inline="always")(_pivot_body.py_func)
_spring_inline = njit(fastmath=False, error_model="numpy", inline="always")(_spring.py_func)
_moment_inline = njit(fastmath=False, error_model="numpy", inline="always")(_moment.py_func)


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy", inline="always")
def _derivative_pivot(p, u, i, row, turning, y):
    """ẋ of a body held by a pivot and nothing else (a pendulum, a top)."""
    if turning:
        fx, fy, fz, mx, my, mz = _applied(u, i, y)
    else:
        fx = u[i, 0]
        fy = u[i, 1]
        fz = u[i, 2]
        mx = u[i, 3]
        my = u[i, 4]
        mz = u[i, 5]
    return _pivot_body_inline(p, i, row, y, fx, fy, fz, mx, my, mz)


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _step_pivot(p, u, i, row, turning, y, h, method):
    """`_step_one` for a body held by a pivot and nothing else, kept back on it."""
    k1 = _derivative_pivot(p, u, i, row, turning, y)
    if method == 0:
        return _held(row, _axpy(y, h, k1))
    k2 = _derivative_pivot(p, u, i, row, turning, _axpy(y, 0.5 * h, k1))
    k3 = _derivative_pivot(p, u, i, row, turning, _axpy(y, 0.5 * h, k2))
    k4 = _derivative_pivot(p, u, i, row, turning, _axpy(y, h, k3))
    return _held(row, _rk4_sum(y, h, k1, k2, k3, k4))


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy", inline="always")
def _derivative_spring(p, u, i, row, turning, y):
    """ẋ of a body on one spring to a world point and nothing else."""
    if turning:
        fx, fy, fz, mx, my, mz = _applied(u, i, y)
    else:
        fx = u[i, 0]
        fy = u[i, 1]
        fz = u[i, 2]
        mx = u[i, 3]
        my = u[i, 4]
        mz = u[i, 5]
    r = _rotation(y)
    sx, sy, sz, _, _, _, _, _, _ = _spring_inline(row, y, r, y, r, False)
    ax, ay, az = _moment_inline(p, i, r, row[ES_A], row[ES_A + 1], row[ES_A + 2], sx, sy, sz)
    return _rigid_body(p, i, y, fx + sx, fy + sy, fz + sz, mx + ax, my + ay, mz + az)


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _step_spring(p, u, i, row, turning, y, h, method):
    """`_step_one` for a body on one spring to a world point and nothing else."""
    k1 = _derivative_spring(p, u, i, row, turning, y)
    if method == 0:
        return _axpy(y, h, k1)
    k2 = _derivative_spring(p, u, i, row, turning, _axpy(y, 0.5 * h, k1))
    k3 = _derivative_spring(p, u, i, row, turning, _axpy(y, 0.5 * h, k2))
    k4 = _derivative_spring(p, u, i, row, turning, _axpy(y, h, k3))
    return _rk4_sum(y, h, k1, k2, k3, k4)


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _run_pivot(p, u, i, row, turning, y, h, n, method):
    y = _held(row, y)
    for _ in range(n):
        y = _step_pivot(p, u, i, row, turning, y, h, method)
    return y


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _run_spring(p, u, i, row, turning, y, h, n, method):
    for _ in range(n):
        y = _step_spring(p, u, i, row, turning, y, h, method)
    return y


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _run_free(p, u, i, turning, y, h, n, method):
    if turning:
        for _ in range(n):
            y = _step_turning(p, u, i, y, h, method)
    else:
        for _ in range(n):
            y = _step(p, u, i, y, h, method)
    return y


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _run_general(p, u, el, e0, e1, aux, i, pivot, forces, hulls, turning, y, t0, h, n, method):
    if pivot < 0:
        for s in range(n):
            y = _step_one(
                p, u, el, e0, e1, aux, i, pivot, forces, hulls, turning, y, t0 + s * h, h, method
            )
        return y
    prow = _row(el, pivot)
    y = _held(prow, y)
    for s in range(n):
        z = _step_one(
            p, u, el, e0, e1, aux, i, pivot, forces, hulls, turning, y, t0 + s * h, h, method
        )
        y = _held(prow, z)
    return y


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _run_one(p, u, el, e0, e1, aux, i, y, t0, h, n, method):
    """n steps of h from time t0 of a body alone in its group; the new 13-tuple. The common
    cases (nothing, one pivot, one world spring) step through small functions of their own
    that keep the state in registers, as kernel_compiled does; the rest through the
    general element loop."""
    pivot = -1
    forces = 0
    hulls = 0
    spring = -1
    for e in range(e0, e1):
        if el[e, E_KIND] == K_PIVOT:
            pivot = e
        elif el[e, E_KIND] == K_BUOYANCY:
            hulls += 1
        else:
            forces += 1
            if el[e, E_KIND] == K_SPRING and el[e, E_OTHER] < 0.0:
                spring = e
    turning = u[i, L_STATE_DEPENDENT] != 0.0
    if pivot < 0 and forces == 0 and hulls == 0:  # free in a batch with elements: the free kernel
        return _run_free(p, u, i, turning, y, h, n, method)
    if forces == 0 and hulls == 0:
        return _run_pivot(p, u, i, _row(el, pivot), turning, y, h, n, method)
    if pivot < 0 and forces == 1 and hulls == 0 and spring >= 0:
        return _run_spring(p, u, i, _row(el, spring), turning, y, h, n, method)
    return _run_general(
        p, u, el, e0, e1, aux, i, pivot, forces > 0, hulls > 0, turning, y, t0, h, n, method
    )


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _group_derivative(p, u, el, e0, e1, aux, first, cnt, pivots, Y, t, h, left, F, K):
    """K (cnt, 13) ← ẋ of a group's bodies at stage rows Y (cnt, 13) and time t."""
    for b in range(cnt):
        y = _load(Y[b])
        a = _applied(u, first + b, y)
        c = _element_forces(p, el, e0, e1, aux, first + b, float(b), y, t, h, left)
        w = _hull_forces(p, el, e0, e1, aux, first + b, float(b), y, t)
        for j in range(6):
            F[b, j] = a[j] + c[j] + w[j]
    for e in range(e0, e1):  # springs joining two bodies: equal and opposite
        if el[e, E_KIND] != K_SPRING or el[e, E_OTHER] < 0.0:
            continue
        a = int(el[e, E_BODY])
        o = int(el[e, E_OTHER])
        ya = _load(Y[a])
        yo = _load(Y[o])
        ra = _rotation(ya)
        ro = _rotation(yo)
        fx, fy, fz, _, _, _, _, _, _ = _spring(_row(el, e), ya, ra, yo, ro, True)
        ax, ay, az = _moment(
            p, first + a, ra, el[e, ES_A], el[e, ES_A + 1], el[e, ES_A + 2], fx, fy, fz
        )
        bx, by, bz = _moment(
            p, first + o, ro, el[e, ES_B], el[e, ES_B + 1], el[e, ES_B + 2], -fx, -fy, -fz
        )
        F[a, 0] += fx
        F[a, 1] += fy
        F[a, 2] += fz
        F[a, 3] += ax
        F[a, 4] += ay
        F[a, 5] += az
        F[o, 0] -= fx
        F[o, 1] -= fy
        F[o, 2] -= fz
        F[o, 3] += bx
        F[o, 4] += by
        F[o, 5] += bz
    for b in range(cnt):
        y = _load(Y[b])
        e = pivots[b]
        if e >= 0:
            row = _row(el, e)
            k = _pivot_body(
                p, first + b, row, y, F[b, 0], F[b, 1], F[b, 2], F[b, 3], F[b, 4], F[b, 5]
            )
        else:
            k = _rigid_body(p, first + b, y, F[b, 0], F[b, 1], F[b, 2], F[b, 3], F[b, 4], F[b, 5])
        _store(K[b], k)


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _pivots(el, e0, e1, cnt):
    """Per body of a group the row of the pivot that holds it, or -1."""
    pivots = np.full(cnt, -1, dtype=np.int64)
    for e in range(e0, e1):
        if el[e, E_KIND] == K_PIVOT:
            pivots[int(el[e, E_BODY])] = e
    return pivots


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _hold(el, pivots, Y):
    for b in range(Y.shape[0]):
        if pivots[b] >= 0:
            _store(Y[b], _held(_row(el, pivots[b]), _load(Y[b])))


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _keep_alive(*arrays):
    """A last use of owned arrays whose borrowed views were in use until here."""
    return len(arrays)


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _group_run(p, u, el, e0, e1, aux, first, cnt, pivots, Y, t0, h, n, method):
    """Advance a group's rows Y (cnt, 13) in place by n steps of h from time t0, every stage
    of every body together (a spring joins them)."""
    S_ = np.empty((cnt, 13))  # owned here, lent below
    K1_ = np.empty((cnt, 13))
    K2_ = np.empty((cnt, 13))
    K3_ = np.empty((cnt, 13))
    K4_ = np.empty((cnt, 13))
    F_ = np.empty((cnt, 6))
    S = borrowed(S_)
    K1 = borrowed(K1_)
    K2 = borrowed(K2_)
    K3 = borrowed(K3_)
    K4 = borrowed(K4_)
    F = borrowed(F_)
    _hold(el, pivots, Y)
    for s in range(n):
        t = t0 + s * h
        _group_derivative(p, u, el, e0, e1, aux, first, cnt, pivots, Y, t, h, False, F, K1)
        if method == 0:
            for b in range(cnt):
                for j in range(13):
                    Y[b, j] += h * K1[b, j]
        else:
            for b in range(cnt):
                for j in range(13):
                    S[b, j] = Y[b, j] + 0.5 * h * K1[b, j]
            _group_derivative(
                p, u, el, e0, e1, aux, first, cnt, pivots, S, t + 0.5 * h, h, False, F, K2
            )
            for b in range(cnt):
                for j in range(13):
                    S[b, j] = Y[b, j] + 0.5 * h * K2[b, j]
            _group_derivative(
                p, u, el, e0, e1, aux, first, cnt, pivots, S, t + 0.5 * h, h, False, F, K3
            )
            for b in range(cnt):
                for j in range(13):
                    S[b, j] = Y[b, j] + h * K3[b, j]
            _group_derivative(p, u, el, e0, e1, aux, first, cnt, pivots, S, t + h, h, True, F, K4)
            for b in range(cnt):
                for j in range(13):
                    Y[b, j] += h * (
                        _B1 * K1[b, j] + _B2 * K2[b, j] + _B2 * K3[b, j] + _B1 * K4[b, j]
                    )
        _hold(el, pivots, Y)
    # numba frees an array after its last use: the owned scratch must outlive its loans
    _keep_alive(S_, K1_, K2_, K3_, K4_, F_)


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _advance_group(p, x, u, groups, el, bounds, aux, g, t0, h, n, method):
    """Group g's rows of x advanced in place by n steps of h from time t0."""
    first = groups[g, 0]
    cnt = groups[g, 1]
    e0 = bounds[g]
    e1 = bounds[g + 1]
    if cnt == 1:  # a body alone: its state stays in registers
        y = _run_one(p, u, el, e0, e1, aux, first, _load(x[first]), t0, h, n, method)
        _store(x[first], y)
        return
    Y = x[first : first + cnt]
    _group_run(p, u, el, e0, e1, aux, first, cnt, _pivots(el, e0, e1, cnt), Y, t0, h, n, method)


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def system_serial(p, x, u, groups, el, bounds, aux, t, h, n, method):
    """Advance every group g by n[first] steps of h[first] from t[first] (first = its first
    body): per-body arrays, as `kernel.advance` takes them, read at each group's first row."""
    p = borrowed(p)  # alive for this call: no reference counting in the calls below
    x = borrowed(x)
    u = borrowed(u)
    el = borrowed(el)
    aux = borrowed(aux)
    for g in range(groups.shape[0]):
        f = groups[g, 0]
        _advance_group(p, x, u, groups, el, bounds, aux, g, t[f], h[f], n[f], method[f])


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def system_derivative(p, x, u, groups, el, bounds, aux, t, h, out, rec):
    """out (N, 13) ← ẋ of every body at states x and time t; rec (M, 9) ← each element's
    point, force and other end (when rec has rows; a pivot's reaction force)."""
    p = borrowed(p)
    x = borrowed(x)
    u = borrowed(u)
    el = borrowed(el)
    aux = borrowed(aux)
    for g in range(groups.shape[0]):
        first = groups[g, 0]
        cnt = groups[g, 1]
        e0 = bounds[g]
        e1 = bounds[g + 1]
        Y = x[first : first + cnt]
        pivots = _pivots(el, e0, e1, cnt)
        F = np.zeros((cnt, 6))
        K = np.empty((cnt, 13))
        _group_derivative(p, u, el, e0, e1, aux, first, cnt, pivots, Y, t, h, False, F, K)
        for b in range(cnt):
            for j in range(13):
                out[first + b, j] = K[b, j]
        if rec.shape[0] > 0:
            _records(p, u, el, e0, e1, aux, first, pivots, Y, t, h, F, K, rec)


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _records(p, u, el, e0, e1, aux, first, pivots, Y, t, h, F, K, rec):
    """What each element of a group does at rows Y: rec[e] = point, force, other end."""
    for e in range(e0, e1):
        kind = el[e, E_KIND]
        b = int(el[e, E_BODY])
        i = first + b
        y = _load(Y[b])
        r = _rotation(y)
        if kind == K_SPRING:
            o = int(el[e, E_OTHER])
            joined = o >= 0
            yo = _load(Y[o]) if joined else y
            c = _spring(_row(el, e), y, r, yo, _rotation(yo), joined)
            _record(rec, e, c[3], c[4], c[5], c[0], c[1], c[2], c[6], c[7], c[8])
        elif kind == K_DAMPER:
            c = _damper(p, el, e, i, y, r)
            _record(rec, e, y[0], y[1], y[2], c[0], c[1], c[2], y[0], y[1], y[2])
        elif kind == K_GROUND:
            c = _ground(p, el, e, i, y, r, h)
            _record(rec, e, c[6], c[7], c[8], c[0], c[1], c[2], c[6], c[7], el[e, EG_HEIGHT])
        elif kind == K_LOAD:
            c = _timed_load(p, el, e, aux, i, y, r, t, h, False)
            _record(rec, e, c[6], c[7], c[8], c[0], c[1], c[2], c[6], c[7], c[8])
        elif kind == K_PIVOT:
            _pivot_reaction(p, i, el, e, Y, b, K, F, rec)
        elif kind == K_BUOYANCY or kind == K_ADDED_MASS:
            if kind == K_BUOYANCY:
                c = _buoyancy(p, el, e, aux, i, y, r, t)
            else:
                c = _added_mass(p, el, e, aux, i, y, r)
            # the point of the line of action nearest the CG: CG + F × M / |F|²
            gx, gy, gz = _turn(r, p[i, P_R_CG], p[i, P_R_CG + 1], p[i, P_R_CG + 2])
            ff = c[0] * c[0] + c[1] * c[1] + c[2] * c[2]
            s = 1.0 / ff if ff > 0.0 else 0.0
            px = y[0] + gx + s * (c[1] * c[5] - c[2] * c[4])
            py = y[1] + gy + s * (c[2] * c[3] - c[0] * c[5])
            pz = y[2] + gz + s * (c[0] * c[4] - c[1] * c[3])
            _record(rec, e, px, py, pz, c[0], c[1], c[2], px, py, pz)


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
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
