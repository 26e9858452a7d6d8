"""What every kind's force needs of a body's pose: its rotation, a body point's world
position and velocity, the moment of a force about the CG, an element row by value."""

from __future__ import annotations

from ..layout import P_R_CG
from .jit import kernel

#: Hash of the modules compiled in here (kernel_cache.STAMP_NAME: numba keys its cache on this
#: file's text alone); `python scripts/stamp_kernels.py` keeps it current.
COMPILED_FROM = "1b44cce140711784"


@kernel(inline=True)
def rotation(y):
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


@kernel(inline=True)
def turn(r, x, y, z):
    """R (x, y, z)."""
    return (
        r[0] * x + r[1] * y + r[2] * z,
        r[3] * x + r[4] * y + r[5] * z,
        r[6] * x + r[7] * y + r[8] * z,
    )


@kernel
def row_of(el, e):
    """Element row e as a tuple: the hot paths pass it by value, not the array."""
    return (
        el[e, 0], el[e, 1], el[e, 2], el[e, 3], el[e, 4], el[e, 5], el[e, 6], el[e, 7],
        el[e, 8], el[e, 9], el[e, 10], el[e, 11], el[e, 12], el[e, 13], el[e, 14], el[e, 15],
        el[e, 16], el[e, 17], el[e, 18], el[e, 19], el[e, 20], el[e, 21], el[e, 22], el[e, 23],
        el[e, 24], el[e, 25], el[e, 26], el[e, 27], el[e, 28], el[e, 29], el[e, 30], el[e, 31],
    )  # fmt: skip


@kernel
def point_motion(y, r, px, py, pz):
    """World position and velocity of the body point (px, py, pz) (body axes, from the
    reference point) at state y (a 13-tuple) with R = r its rotation."""
    gx, gy, gz = turn(r, px, py, pz)
    wx = y[10]
    wy = y[11]
    wz = y[12]
    vx, vy, vz = turn(
        r,
        y[7] + (wy * pz - wz * py),
        y[8] + (wz * px - wx * pz),
        y[9] + (wx * py - wy * px),
    )
    return y[0] + gx, y[1] + gy, y[2] + gz, vx, vy, vz


@kernel
def moment(p, i, r, px, py, pz, fx, fy, fz):
    """The moment about body i's CG of a global force (fx, fy, fz) at its body point
    (px, py, pz) (from the reference point): (R (point − r_g)) × F."""
    lx, ly, lz = turn(r, px - p[i, P_R_CG], py - p[i, P_R_CG + 1], pz - p[i, P_R_CG + 2])
    return ly * fz - lz * fy, lz * fx - lx * fz, lx * fy - ly * fx
