"""`Buoyancy`: the pressure of the water (hydrostatic ρ g depth plus the Froude–Krylov
pressure of linear waves, water.py) integrated over the wetted part of the body's hull, a
closed triangle mesh (body axes from the reference point, outward), clipped at the
instantaneous surface at every stage: F = −∮ p n dA, M = −∮ p (r − r_CG) × n dA.

It stores the hydrostatic potential ρ g ∫ (z − level) dV = ρ g ∇ (z_B − level) over the
hull's volume below the still level (its gradient is the still-water buoyancy force and
moment), ∇ and the centre of buoyancy B from `hull_submerged.submerged`. Waves and a
current do work on a body, so with them the total is not constant; the still-level
potential is still what is stored.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from .. import hull_tree
from ..layout import (
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
    P_GRAVITY,
    P_R_CG,
)
from ..params import Bodies
from ..quaternion import Array
from .geometry import turn
from .jit import kernel
from .poses import Poses

if TYPE_CHECKING:  # water.py is not compiled in: kept out of this module's stamp
    from ..water import Water

#: Hash of the modules compiled in here (kernel_cache.STAMP_NAME: numba keys its cache on this
#: file's text alone); `python scripts/stamp_kernels.py` keeps it current.
COMPILED_FROM = "8a11303423aa537c"

NAME = "buoyancy"
CODE = 6.0  # its E_KIND
# its row (E_DATA + …): ρ, level, depth (0: deep), triangles (aux offset of their corners'
# vertex indices, count), waves (aux offset, count), reach (largest |vertex| from the
# reference point), Σ amplitudes, vertices (aux offset, count), and in still water
# hull_tree's nodes (aux offset, count) and triangles (aux offset)
EB_RHO, EB_LEVEL, EB_DEPTH, EB_TRI, EB_NTRI, EB_WAVES, EB_NWAVES, EB_REACH, EB_CREST = (
    3, 4, 5, 6, 7, 8, 9, 10, 11,
)  # fmt: skip
EB_VERT, EB_NVERT = 12, 13
EB_TREE, EB_NNODES, EB_CORNERS = 14, 15, 16
AUX_COLUMNS = (EB_TRI, EB_VERT, EB_WAVES, EB_TREE, EB_CORNERS)


def _still_water() -> Water:
    from ..water import Water

    return Water()


@dataclass(frozen=True, eq=False)
class Buoyancy:
    body: int
    triangles: Array  # (T, 3, 3) body axes from the reference point, closed, outward normals
    water: Water = field(default_factory=_still_water)


ELEMENT = Buoyancy  # the dataclass it is given as


def outward(triangles: Array) -> Array:
    """The triangles (T, 3, 3) of a closed mesh wound so that their normals point out (the
    enclosed volume Σ a · (b × c) / 6 positive); ValueError for an empty or flat one."""
    tri = np.asarray(triangles, dtype=float).reshape(-1, 3, 3)
    volume = float(np.einsum("ij,ij->i", tri[:, 0], np.cross(tri[:, 1], tri[:, 2])).sum()) / 6
    if not len(tri) or volume == 0.0 or not math.isfinite(volume):
        raise ValueError("a hull must be a closed triangle mesh enclosing a volume")
    return tri if volume > 0 else tri[:, ::-1, :].copy()


def pack(e: Buoyancy, row: Array, bodies: Bodies, aux: list[float]) -> None:
    """Its numbers into its element row, the hull (and its tree in still water) into aux."""
    from ..water import wave_table

    tri = outward(e.triangles)
    waves = wave_table(e.water, float(bodies.gravity[e.body]))
    row[EB_RHO], row[EB_LEVEL] = e.water.density, e.water.level
    row[EB_DEPTH] = 0.0 if e.water.depth is None else e.water.depth
    # each vertex once (its pressure is evaluated once a stage), the triangles as indices
    vertices, index = np.unique(tri.reshape(-1, 3), axis=0, return_inverse=True)
    row[EB_VERT], row[EB_NVERT] = len(aux), len(vertices)
    aux.extend(vertices.ravel().tolist())
    row[EB_TRI], row[EB_NTRI] = len(aux), len(tri)
    aux.extend(np.asarray(index, dtype=float).ravel().tolist())
    row[EB_WAVES], row[EB_NWAVES] = len(aux), len(waves)
    aux.extend(waves.ravel().tolist())
    row[EB_REACH] = float(np.linalg.norm(tri.reshape(-1, 3), axis=1).max())
    row[EB_CREST] = float(np.abs(waves[:, 0]).sum())
    if len(waves) == 0:  # still water: the pressure is linear, the tree's sums apply
        nodes, ordered = hull_tree.build(tri)
        row[EB_TREE], row[EB_NNODES] = len(aux), len(nodes)
        aux.extend(nodes.ravel().tolist())
        row[EB_CORNERS] = len(aux)
        aux.extend(ordered.ravel().tolist())


def stored(e: Buoyancy, row: Array, poses: Poses) -> float:
    """ρ g ∇ (z_B − level), J: the hydrostatic potential of the volume below the still level."""
    from ..hull_submerged import submerged  # compiled: numba loads with the first room

    i = e.body
    tri = np.ascontiguousarray(e.triangles, dtype=float)
    volume, _, _, z_b = submerged(tri, poses.rot[i], poses.pos(i), e.water.level)
    rho_g = e.water.density * float(poses.bodies.gravity[i])
    return float(rho_g * volume * (z_b - e.water.level))


@kernel
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


@kernel
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


@kernel
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


@kernel
def _still(p, el, e, aux, i, y, r, rho_g):
    """`force` in still water through the hull's tree (hull_tree.py): the head is
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
    gx, gy, gz = turn(r, fx, fy, fz)
    hx, hy, hz = turn(r, mx, my, mz)
    return rho_g * gx, rho_g * gy, rho_g * gz, rho_g * hx, rho_g * hy, rho_g * hz


@kernel
def force(p, el, e, aux, i, y, r, t):
    """The water's pressure on body i's hull (elements.Buoyancy): global (F, M about the CG).
    Still water: `_still`. In waves each vertex is taken to the world and its
    pressure (hydrostatic plus the waves' Froude–Krylov, water.py) evaluated at most once;
    then each triangle is clipped where it is zero."""
    rho_g = el[e, EB_RHO] * p[i, P_GRAVITY]
    level = el[e, EB_LEVEL]
    if y[2] + el[e, EB_REACH] <= level - el[e, EB_CREST] or rho_g == 0.0:
        return 0.0, 0.0, 0.0, 0.0, 0.0, 0.0  # clear of the highest crest
    nw = int(el[e, EB_NWAVES])
    if nw == 0 and el[e, EB_NNODES] > 0.0:
        return _still(p, el, e, aux, i, y, r, rho_g)
    depth = el[e, EB_DEPTH]
    w0 = int(el[e, EB_WAVES])
    rx = p[i, P_R_CG]
    ry = p[i, P_R_CG + 1]
    rz = p[i, P_R_CG + 2]
    gx, gy, gz = turn(r, rx, ry, rz)
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
        ax, ay, az = turn(r, aux[o] - rx, aux[o + 1] - ry, aux[o + 2] - rz)
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
