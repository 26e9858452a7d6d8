"""`Spring`: F = (k (L − L₀) + c L̇) n̂ on the body point a, pulling it toward the other end
(a world point, or another body's point, which gets −F); with L₀ = 0 the vector form
F = k d + c ḋ (d from a to the other end). It stores ½ k (L − L₀)² (one between two bodies
counted on its first body, so the sum over the bodies counts it once).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..layout import E_OTHER
from ..params import Bodies
from ..quaternion import Array
from .geometry import moment, point_motion, row_of
from .jit import kernel
from .poses import Poses

#: Hash of the modules compiled in here (kernel_cache.STAMP_NAME: numba keys its cache on this
#: file's text alone); `python scripts/stamp_kernels.py` keeps it current.
COMPILED_FROM = "e3a53fd73dd0e368"

NAME = "spring"
CODE = 2.0  # its E_KIND
# its row (E_DATA + …): r_a (3), r_b or the world point (3), k, c, rest length
ES_A, ES_B, ES_K, ES_C, ES_LEN = 3, 6, 9, 10, 11
AUX_COLUMNS: tuple[int, ...] = ()
Vec3 = tuple[float, float, float]


@dataclass(frozen=True)
class Spring:
    body: int
    point: Vec3
    to: Vec3  # a world point, or the other body's point (body axes, from its reference point)
    stiffness: float
    damping: float = 0.0
    rest_length: float = 0.0
    other: int | None = None


ELEMENT = Spring  # the dataclass it is given as


def pack(e: Spring, row: Array, bodies: Bodies, aux: list[float]) -> None:
    """Its numbers into its element row (E_OTHER is the packer's)."""
    row[ES_A : ES_A + 3] = e.point
    row[ES_B : ES_B + 3] = e.to
    row[ES_K], row[ES_C], row[ES_LEN] = e.stiffness, e.damping, e.rest_length


def stored(e: Spring, row: Array, poses: Poses) -> float:
    """½ k (L − L₀)², J."""
    end = np.asarray(e.to, dtype=float) if e.other is None else poses.world(e.other, e.to)
    length = float(np.linalg.norm(end - poses.world(e.body, e.point)))
    return 0.5 * e.stiffness * (length - e.rest_length) ** 2


@kernel
def force(row, ya, ra, yb, rb, joined):
    """A spring from body point a (state ya, rotation ra) to a world point, or to body point
    b of a second body (yb, rb) when `joined`: (force on a (3), a's world point (3), the
    other end (3)). The other body gets the opposite force."""
    ax = row[ES_A]
    ay = row[ES_A + 1]
    az = row[ES_A + 2]
    pax, pay, paz, vax, vay, vaz = point_motion(ya, ra, ax, ay, az)
    bx = row[ES_B]
    by = row[ES_B + 1]
    bz = row[ES_B + 2]
    if joined:
        pbx, pby, pbz, vbx, vby, vbz = point_motion(yb, rb, bx, by, bz)
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


@kernel(inline=True)
def act(p, el, e, aux, i, y, r, yo, ro, t, h, left):
    """Its force and moment on body i (global, about the CG), its point and its other end."""
    c = force(row_of(el, e), y, r, yo, ro, el[e, E_OTHER] >= 0.0)
    m = moment(p, i, r, el[e, ES_A], el[e, ES_A + 1], el[e, ES_A + 2], c[0], c[1], c[2])
    return c[0], c[1], c[2], m[0], m[1], m[2], c[3], c[4], c[5], c[6], c[7], c[8]
