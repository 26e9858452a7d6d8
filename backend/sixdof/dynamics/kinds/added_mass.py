"""`AddedMass`: M_A (6×6, body axes, about the reference point) joins M_RB in the packed
mass-matrix inverse (kernel.pack), and its Coriolis–centripetal force −C_A(ν) ν =
(p₁ × ω, p₁ × v + p₂ × ω), (p₁, p₂) = M_A ν, acts at the reference point in `full`. It
stores ½ νᵀ M_A ν, the water's kinetic energy moving with the body.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..layout import P_CORIOLIS, P_R_CG
from ..params import Bodies
from ..quaternion import Array
from .geometry import turn
from .jit import kernel
from .poses import Poses

#: Hash of the modules compiled in here (kernel_cache.STAMP_NAME: numba keys its cache on this
#: file's text alone); `python scripts/stamp_kernels.py` keeps it current.
COMPILED_FROM = "e3a53fd73dd0e368"

NAME = "added_mass"
CODE = 7.0  # its E_KIND
EA_MATRIX = 3  # its row (E_DATA + …): the aux offset of M_A (6×6 row-major)
AUX_COLUMNS = (EA_MATRIX,)


@dataclass(frozen=True)
class AddedMass:
    body: int
    matrix: tuple[tuple[float, ...], ...]  # 6×6, body axes, about the reference point


ELEMENT = AddedMass  # the dataclass it is given as


def added_mass_matrix(elements: Sequence[Any], n: int) -> Array | None:
    """(n, 6, 6) Σ M_A per body, or None when no element adds mass: an added mass's matrix
    and a radiation's A∞ (its `infinite`, read by name: that kind imports this one)."""
    found = [
        (e.body, e.matrix) if isinstance(e, AddedMass) else (e.body, e.infinite)
        for e in elements
        if isinstance(e, AddedMass) or hasattr(e, "infinite")
    ]
    if not found:
        return None
    out = np.zeros((n, 6, 6))
    for body, matrix in found:
        out[body] += np.asarray(matrix, dtype=float)
    return out


def pack(e: AddedMass, row: Array, bodies: Bodies, aux: list[float]) -> None:
    """Its matrix into aux, the offset into its row."""
    row[EA_MATRIX] = len(aux)
    aux.extend(np.asarray(e.matrix, dtype=float).ravel().tolist())


def stored(e: AddedMass, row: Array, poses: Poses) -> float:
    """½ νᵀ M_A ν, J."""
    nu = poses.x[e.body, 7:13]
    return 0.5 * float(nu @ np.asarray(e.matrix, dtype=float) @ nu)


@kernel
def _dot6(aux, o, y):
    """aux[o:o + 6] · ν, ν = y[7:13]."""
    return (
        aux[o] * y[7] + aux[o + 1] * y[8] + aux[o + 2] * y[9]
        + aux[o + 3] * y[10] + aux[o + 4] * y[11] + aux[o + 5] * y[12]
    )  # fmt: skip


@kernel
def munk(p, aux, o, i, y, r):
    """−C_A(ν) ν = (p₁ × ω, p₁ × v + p₂ × ω), (p₁, p₂) = M_A ν, M_A the 6×6 at aux[o:o + 36]
    (body axes at the reference point, row-major), in the `full` model only: the global
    (F, M about the CG) on body i. Also a radiation memory's A∞ (kinds/radiation.py)."""
    c = p[i, P_CORIOLIS]
    if c == 0.0:
        return 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
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
    fx, fy, fz = turn(r, t0, t1, t2)
    mx, my, mz = turn(
        r, t3 - (ry * t2 - rz * t1), t4 - (rz * t0 - rx * t2), t5 - (rx * t1 - ry * t0)
    )
    return fx, fy, fz, mx, my, mz


@kernel(inline=True)
def act(p, el, e, aux, i, y, r, yo, ro, t, h, left):
    """Its force and moment on body i (global, about the CG); the record's point is its line
    of action's (system_compiled's `_records`)."""
    c = munk(p, aux, int(el[e, EA_MATRIX]), i, y, r)
    return c[0], c[1], c[2], c[3], c[4], c[5], y[0], y[1], y[2], y[0], y[1], y[2]
