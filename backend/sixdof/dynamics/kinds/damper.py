"""`Damper`: Fossen's D(ν_r) ν_r = (D_l + D_q |ν_r|) ν_r, diagonal, body axes, opposing the
velocity relative to the water ν_r = ν − (Rᵀ v_c, 0) at the reference point (surge, sway,
heave, roll, pitch, yaw; v_c the current, NED). It dissipates: it stores nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..layout import P_R_CG
from ..params import Bodies
from ..quaternion import Array
from .geometry import turn
from .jit import kernel

#: Hash of the modules compiled in here (kernel_cache.STAMP_NAME: numba keys its cache on this
#: file's text alone); `python scripts/stamp_kernels.py` keeps it current.
COMPILED_FROM = "b02755572375ad91"

NAME = "damper"
CODE = 3.0  # its E_KIND
# its row (E_DATA + …): linear (6), quadratic (6), the water's current (3, NED)
ED_LIN, ED_QUAD, ED_CURRENT = 3, 9, 15
AUX_COLUMNS: tuple[int, ...] = ()
Vec3 = tuple[float, float, float]


@dataclass(frozen=True)
class Damper:
    body: int
    linear: tuple[float, ...] = (0.0,) * 6
    quadratic: tuple[float, ...] = (0.0,) * 6
    current: Vec3 = (0.0, 0.0, 0.0)  # the water's, NED: D acts on ν_r = ν − (Rᵀ current, 0)


ELEMENT = Damper  # the dataclass it is given as


def pack(e: Damper, row: Array, bodies: Bodies, aux: list[float]) -> None:
    """Its numbers into its element row."""
    row[ED_LIN : ED_LIN + 6] = e.linear
    row[ED_QUAD : ED_QUAD + 6] = e.quadratic
    row[ED_CURRENT : ED_CURRENT + 3] = e.current


stored = None  # it dissipates


@kernel
def force(p, el, e, i, y, r):
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
    fx, fy, fz = turn(r, t0, t1, t2)
    mx, my, mz = turn(
        r, t3 - (ry * t2 - rz * t1), t4 - (rz * t0 - rx * t2), t5 - (rx * t1 - ry * t0)
    )
    return fx, fy, fz, mx, my, mz


@kernel(inline=True)
def act(p, el, e, aux, i, y, r, yo, ro, t, h, left):
    """Its force and moment on body i (global, about the CG), at and toward its reference
    point."""
    c = force(p, el, e, i, y, r)
    return c[0], c[1], c[2], c[3], c[4], c[5], y[0], y[1], y[2], y[0], y[1], y[2]
