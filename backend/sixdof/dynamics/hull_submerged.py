"""The part of a closed triangle mesh below a horizontal plane, compiled: `hull_cut.cut`'s
volume and centre of buoyancy alone, for what runs every tick of a floating body's room, the
hydrostatic potential of `stored` and the buoyancy's drawn point (`hydro.place_buoyancy`).

For the ship (648 triangles then), numpy's `cut` took ~0.4 ms a call, twice a tick: half of the
room's whole tick. This takes ~5 µs (a 4,000-triangle hull half under water: ~12 µs, 30 when
the dry half was visited too). Imported where it is called, as the kernels are: numba
loads with the first room, not with the server (tests/unit/test_layers.py).
"""

from __future__ import annotations

from numba import njit

from .quaternion import Array


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy", inline="always")
def _corner(
    triangles: Array, k: int, j: int, rot: Array, pos: Array, level: float
) -> tuple[float, float, float]:
    """Corner j of triangle k (body axes) in world axes from the apex (pos[0], pos[1], level)."""
    vx = triangles[k, j, 0]
    vy = triangles[k, j, 1]
    vz = triangles[k, j, 2]
    return (
        rot[0, 0] * vx + rot[0, 1] * vy + rot[0, 2] * vz,
        rot[1, 0] * vx + rot[1, 1] * vy + rot[1, 2] * vz,
        pos[2] - level + rot[2, 0] * vx + rot[2, 1] * vy + rot[2, 2] * vz,
    )


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy", inline="always")
def _depth(triangles: Array, k: int, j: int, rot: Array, pos: Array, level: float) -> float:
    """`_corner`'s depth alone: a dry triangle is passed over on its three depths."""
    vx = triangles[k, j, 0]
    vy = triangles[k, j, 1]
    vz = triangles[k, j, 2]
    return pos[2] - level + rot[2, 0] * vx + rot[2, 1] * vy + rot[2, 2] * vz


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def submerged(
    triangles: Array, rot: Array, pos: Array, level: float
) -> tuple[float, float, float, float]:
    """(volume, centre x, y, z) of the part below z = level of the closed mesh `triangles`
    (T, 3, 3), body axes, placed at `pos` (3,) turned by `rot` (3, 3) (world, NED): `cut`'s
    volume and centre, compiled. Either winding: the part below, closed by its waterplane
    (which adds nothing, seen from an apex on the plane), is a closed surface wound as the
    mesh, so the sign of its signed volume is the winding, and the dry triangles need not be
    visited at all. A vertex exactly on the plane counts as dry, as in `cut`."""
    ox = pos[0]  # the apex, on the plane above the reference point
    oy = pos[1]
    six = 0.0  # 6 × the signed volume below, and 24 × its first moment about the apex
    mx = my = mz = 0.0
    for k in range(triangles.shape[0]):
        wa = _depth(triangles, k, 0, rot, pos, level) > 0.0
        wb = _depth(triangles, k, 1, rot, pos, level) > 0.0
        wc = _depth(triangles, k, 2, rot, pos, level) > 0.0
        wet = int(wa) + int(wb) + int(wc)
        if wet == 0:
            continue
        ax, ay, az = _corner(triangles, k, 0, rot, pos, level)  # from the apex, world axes
        bx, by, bz = _corner(triangles, k, 1, rot, pos, level)
        cx, cy, cz = _corner(triangles, k, 2, rot, pos, level)
        if wet == 3:
            full = ax * (by * cz - bz * cy) + ay * (bz * cx - bx * cz) + az * (bx * cy - by * cx)
            six += full
            mx += full * (ax + bx + cx)
            my += full * (ay + by + cy)
            mz += full * (az + bz + cz)
            continue
        # the odd corner first, cyclic order kept (the wet one of one, the dry one of two)
        if wa == wb:
            ax, ay, az, bx, by, bz, cx, cy, cz = cx, cy, cz, ax, ay, az, bx, by, bz
        elif wa == wc:
            ax, ay, az, bx, by, bz, cx, cy, cz = bx, by, bz, cx, cy, cz, ax, ay, az
        tb = az / (az - bz)
        tc = az / (az - cz)
        px = ax + tb * (bx - ax)  # where a→b and a→c cross the plane
        py = ay + tb * (by - ay)
        pz = 0.0
        qx = ax + tc * (cx - ax)
        qy = ay + tc * (cy - ay)
        qz = 0.0
        if wet == 1:  # the wet tip (a, p, q)
            v = ax * (py * qz - pz * qy) + ay * (pz * qx - px * qz) + az * (px * qy - py * qx)
            six += v
            mx += v * (ax + px + qx)
            my += v * (ay + py + qy)
            mz += v * (az + pz + qz)
        else:  # the wet quadrilateral (p, b, c, q): (p, b, c) and (p, c, q)
            v = px * (by * cz - bz * cy) + py * (bz * cx - bx * cz) + pz * (bx * cy - by * cx)
            six += v
            mx += v * (px + bx + cx)
            my += v * (py + by + cy)
            mz += v * (pz + bz + cz)
            v = px * (cy * qz - cz * qy) + py * (cz * qx - cx * qz) + pz * (cx * qy - cy * qx)
            six += v
            mx += v * (px + cx + qx)
            my += v * (py + cy + qy)
            mz += v * (pz + cz + qz)
    if six < 0.0:  # wound inward
        six = -six
        mx = -mx
        my = -my
        mz = -mz
    if six == 0.0:
        return 0.0, ox, oy, level
    return six / 6.0, ox + mx / (4.0 * six), oy + my / (4.0 * six), level + mz / (4.0 * six)


__all__ = ["submerged"]
