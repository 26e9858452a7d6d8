"""`Pivot`: body point a held at the world point `at` (a spherical joint), exactly.

The body turns about a with seed 004's equation (5) written about a (DESIGN.md section 8),

    I_a ω̇ + c ω × I_a ω = Rᵀ M_n + (r_g − a) × F_b,      F_b = Rᵀ (F_n + m g_n),
    v = a × ω   (the reference point's velocity when a is still),   v̇ = a × ω̇,

with I_a = I_g + m (|d|² E − d dᵀ), d = r_g − a; after every step (and before the first)
the state is put back on the constraint, p = a_world − R(q/|q|) a, v = a × ω, so the held
point stays put to rounding however long the run. A pivot does no work: it stores nothing.
Its record is its reaction, m a_CG − (F_n + m g_n).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..layout import P_CORIOLIS, P_GRAVITY, P_MASS, P_R_CG
from ..names import NORM_TIME_CONSTANT
from ..params import Bodies
from ..quaternion import Array
from .geometry import rotation, turn
from .jit import kernel

#: Hash of the modules compiled in here (kernel_cache.STAMP_NAME: numba keys its cache on this
#: file's text alone); `python scripts/stamp_kernels.py` keeps it current.
COMPILED_FROM = "b02755572375ad91"

NAME = "pivot"
CODE = 1.0  # its E_KIND
# its row (E_DATA + …): a (3), the held world point (3), I_a (9), I_a⁻¹ (9)
EP_A, EP_AT, EP_IA, EP_IA_INV = 3, 6, 9, 18
AUX_COLUMNS: tuple[int, ...] = ()  # none of its numbers are offsets into aux
_TAU_GAIN = 0.5 / NORM_TIME_CONSTANT
Vec3 = tuple[float, float, float]


@dataclass(frozen=True)
class Pivot:
    body: int
    point: Vec3  # a, body axes from the reference point
    at: Vec3  # the world point it is held at, NED


def pivot_inertia(bodies: Bodies, i: int, point: Sequence[float]) -> Array:
    """I_a, the inertia about body point a (body axes): I_g + m (|d|² E − d dᵀ), d = r_g − a."""
    d = bodies.r_cg_body[i] - np.asarray(point, dtype=float)
    return bodies.inertia_cg[i] + bodies.mass[i] * (float(d @ d) * np.eye(3) - np.outer(d, d))


ELEMENT = Pivot  # the dataclass it is given as


def pack(e: Pivot, row: Array, bodies: Bodies, aux: list[float]) -> None:
    """Its numbers into its element row."""
    inertia = pivot_inertia(bodies, e.body, e.point)
    row[EP_A : EP_A + 3] = e.point
    row[EP_AT : EP_AT + 3] = e.at
    row[EP_IA : EP_IA + 9] = inertia.ravel()
    row[EP_IA_INV : EP_IA_INV + 9] = np.linalg.inv(inertia).ravel()


stored = None  # no work, no energy


@kernel
def derivative(p, i, row, y, fnx, fny, fnz, mnx, mny, mnz):
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


@kernel(inline=True)
def held(row, y):
    """State y (a 13-tuple) put back on the pivot of element row `row`:
    p = a_world − R(q/|q|) a, v = a × ω."""
    r = rotation(y)
    ax = row[EP_A]
    ay = row[EP_A + 1]
    az = row[EP_A + 2]
    gx, gy, gz = turn(r, ax, ay, az)
    wx = y[10]
    wy = y[11]
    wz = y[12]
    return (
        row[EP_AT] - gx, row[EP_AT + 1] - gy, row[EP_AT + 2] - gz,
        y[3], y[4], y[5], y[6],
        ay * wz - az * wy, az * wx - ax * wz, ax * wy - ay * wx,
        wx, wy, wz,
    )  # fmt: skip


@kernel
def reaction(p, i, el, e, Y, b, K, F):
    """The pivot's force on body i (row b of the group's states Y, derivatives K and loads F)
    as a record: m a_CG − (F_n + m g_n), a_CG = R (v̇ + ω × v + ω̇ × r_g + ω × (ω × r_g)), at
    the held point (the moment slots zero)."""
    r = rotation(Y[b])
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
    gx, gy, gz = turn(r, ax, ay, az)
    m = p[i, P_MASS]
    fx = m * gx - F[b, 0]
    fy = m * gy - F[b, 1]
    fz = m * gz - F[b, 2] - m * p[i, P_GRAVITY]
    ax = el[e, EP_AT]
    ay = el[e, EP_AT + 1]
    az = el[e, EP_AT + 2]
    return fx, fy, fz, 0.0, 0.0, 0.0, ax, ay, az, ax, ay, az
