"""`Radiation`: a hull's radiation memory, Cummins' convolution as a linear system whose states
step with the body (layout.E_STATES; dynamics/radiation_fit.py fits it to A(ω), B(ω)):

    ẋ = A_r x + B_r ν,   μ = C_r x + D_r ν,   τ_rad = −μ,   Ė_rad = μ · ν

ν = (v, ω) the body's velocity at its reference point in body axes, μ the radiation force
and moment there (body axes; what the hull feels is −μ), E_rad the work the motion has done
on the water (its last state: radiated away or held in the memory, never negative for a
passive fit). A∞ is an added mass: it joins the mass matrix (`added_mass_matrix` reads the
element's `infinite`), its Munk force −C_A(ν) ν acts in the `full` model (added_mass.munk) and
`stored` holds the water's ½ νᵀ A∞ ν, so the energy balance is TotalEnergy + E_rad = what the
body started with, less other losses.

Two optional parts of the same file's linear model act with it (docs/physics.md):
- `excitation` (waves): per wave component of amplitude a, F = a (Re X cos θ + Im X sin θ),
  θ = ω t − k (x cos β + y sin β) at the reference point's (x, y), X the file's diffraction +
  Froude–Krylov force per metre at ω (interpolated when packed) and at the wave's heading
  relative to the body's, β − ψ (interpolated here between the file's headings), in the
  heading frame (NED turned by the yaw ψ): Capytaine's Re(a X e^{−iωt}) with the wave's
  phase there.
- `hydrostatics` (linear_hydrostatics.py): W₀ − C ξ, ξ = (0, 0, z − z₀, φ, θ, 0), in the same
  frame; its potential is `stored`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..layout import E_N_STATES, E_STATES, P_R_CG
from ..params import Bodies
from ..quaternion import Array
from .added_mass import munk
from .geometry import turn
from .jit import kernel

#: Hash of the modules compiled in here (kernel_cache.STAMP_NAME: numba keys its cache on this
#: file's text alone); `python scripts/stamp_kernels.py` keeps it current.
COMPILED_FROM = "6da512fc0fe26673"

NAME = "radiation"
CODE = 10.0  # its E_KIND
# its row (E_DATA + …): the aux offset of A_r, B_r, C_r, D_r and A∞ (row-major); the excitation's
# waves (aux offset, count: a, ω, k, cos β, sin β, β, then Re X and Im X at each heading) and
# the file's headings (aux offset, count, radians, increasing); linear hydrostatics (aux
# offset of z₀, W₀ and C row-major; 1.0 when on)
ER_AUX, ER_WAVES, ER_NWAVES, ER_HEADS, ER_NHEADS, ER_HYDRO, ER_LINEAR = 3, 4, 5, 6, 7, 8, 9
AUX_COLUMNS = (ER_AUX, ER_WAVES, ER_HEADS, ER_HYDRO)
#: Numbers a wave carries before its table of forces (a, ω, k, cos β, sin β, β).
WAVE_HEAD = 6
Matrix = tuple[tuple[float, ...], ...]


@dataclass(frozen=True, eq=False)
class Radiation:
    body: int
    a: Matrix  # s × s
    b: Matrix  # s × 6
    c: Matrix  # 6 × s
    d: Matrix  # 6 × 6
    infinite: Matrix  # 6 × 6: A∞, body axes about the reference point
    # (W, WAVE_HEAD + 12 h): each wave's numbers and its force at the file's headings
    waves: Array = field(default_factory=lambda: np.zeros((0, WAVE_HEAD)))
    headings: Array = field(default_factory=lambda: np.zeros(0))  # (h,) rad, increasing
    # linear hydrostatics: z₀, W₀ (6), C (36), the potential at rest (empty: none)
    hydrostatics: Array = field(default_factory=lambda: np.zeros(0))

    @property
    def n_states(self) -> int:
        return len(self.a) + 1  # the memory's, then E_rad


ELEMENT = Radiation  # the dataclass it is given as


def states(e: Radiation) -> Array:
    """At rest: no memory, no work done yet."""
    return np.zeros(e.n_states)


def pack(e: Radiation, row: Array, bodies: Bodies, aux: list[float]) -> None:
    """Its matrices into aux, the offset and its state count into its row."""
    row[ER_AUX] = len(aux)
    row[E_N_STATES] = e.n_states
    for m in (e.a, e.b, e.c, e.d, e.infinite):
        aux.extend(np.asarray(m, dtype=float).reshape(-1).tolist())
    row[ER_WAVES], row[ER_NWAVES] = len(aux), len(e.waves)
    aux.extend(np.asarray(e.waves, dtype=float).reshape(-1).tolist())
    row[ER_HEADS], row[ER_NHEADS] = len(aux), len(e.headings)
    aux.extend(np.asarray(e.headings, dtype=float).reshape(-1).tolist())
    row[ER_HYDRO], row[ER_LINEAR] = len(aux), float(len(e.hydrostatics) > 0)
    aux.extend(np.asarray(e.hydrostatics, dtype=float).reshape(-1).tolist())


def angles(rot: Array) -> tuple[float, float, float]:
    """Roll, pitch, yaw (z-y-x) of R, body to NED."""
    return (
        math.atan2(rot[2, 1], rot[2, 2]),
        math.asin(max(-1.0, min(1.0, -rot[2, 0]))),
        math.atan2(rot[1, 0], rot[0, 0]),
    )


def stored(e: Radiation, row: Array, poses: Any) -> float:
    """½ νᵀ A∞ ν, the water's kinetic energy moving with the hull, and with linear
    hydrostatics their potential: −W₀·ξ + ½ ξᵀ C ξ from ρ g ∇₀ (z_B − level) at rest, so that
    it starts where the clipped hull's does (J). The work done on the water is the memory's
    last state, not energy of the body's."""
    nu = poses.x[e.body, 7:13]
    water = 0.5 * float(nu @ np.asarray(e.infinite, dtype=float) @ nu)
    if len(e.hydrostatics) == 0:
        return water
    h = np.asarray(e.hydrostatics, dtype=float)
    roll, pitch, _ = angles(poses.rot[e.body])
    xi = np.array([0.0, 0.0, poses.pos(e.body)[2] - h[0], roll, pitch, 0.0])
    c = h[7:43].reshape(6, 6)
    return water + float(h[43] - h[1:7] @ xi + 0.5 * xi @ c @ xi)


@kernel(inline=True)
def _zget(W, base, k):
    """State k of a group's block: its states follow its `base` body rows of W, 13 a row."""
    return W[base + k // 13, k % 13]


@kernel(inline=True)
def _zset(K, base, k, v):
    K[base + k // 13, k % 13] = v


@kernel
def _linear(el, e, aux, y, r, t):
    """The excitation and linear hydrostatics (module docstring) in the heading frame, force
    and moment about the reference point."""
    f = np.zeros(6)
    yaw = math.atan2(r[3], r[0])
    nw = int(el[e, ER_NWAVES])
    nh = int(el[e, ER_NHEADS])
    h0 = int(el[e, ER_HEADS])
    size = WAVE_HEAD + 12 * nh
    for j in range(nw):
        o = int(el[e, ER_WAVES]) + j * size
        rel = aux[o + 5] - yaw  # the wave's heading from the body's, wrapped to (−π, π]
        rel = math.atan2(math.sin(rel), math.cos(rel))
        lo = 0
        w = 0.0
        if nh > 1:
            if rel <= aux[h0]:
                lo = 0
            elif rel >= aux[h0 + nh - 1]:
                lo = nh - 2
                w = 1.0
            else:
                while lo < nh - 2 and aux[h0 + lo + 1] < rel:
                    lo += 1
                w = (rel - aux[h0 + lo]) / (aux[h0 + lo + 1] - aux[h0 + lo])
        phase = aux[o + 1] * t - aux[o + 2] * (y[0] * aux[o + 3] + y[1] * aux[o + 4])
        c = aux[o] * math.cos(phase)
        s = aux[o] * math.sin(phase)
        q = o + WAVE_HEAD + 12 * lo
        for k in range(6):
            x_re = aux[q + k]
            x_im = aux[q + 6 + k]
            if nh > 1:
                x_re += w * (aux[q + 12 + k] - x_re)
                x_im += w * (aux[q + 18 + k] - x_im)
            f[k] += x_re * c + x_im * s
    if el[e, ER_LINEAR] > 0.0:
        hy = int(el[e, ER_HYDRO])
        xi2 = y[2] - aux[hy]
        xi3 = math.atan2(r[7], r[8])
        xi4 = math.asin(min(1.0, max(-1.0, -r[6])))
        for k in range(6):
            c0 = hy + 7 + 6 * k
            f[k] += aux[hy + 1 + k] - aux[c0 + 2] * xi2 - aux[c0 + 3] * xi3 - aux[c0 + 4] * xi4
    # the heading frame to NED: a turn by ψ about z
    cy = math.cos(yaw)
    sy = math.sin(yaw)
    return (
        cy * f[0] - sy * f[1], sy * f[0] + cy * f[1], f[2],
        cy * f[3] - sy * f[4], sy * f[3] + cy * f[4], f[5],
    )  # fmt: skip


@kernel
def act_states(p, el, e, aux, i, y, r, W, base, K, t):
    """−μ on body i (global, about the CG) at the reference point, A∞'s Munk force (`full`),
    the excitation and linear hydrostatics when it has them; its states read from the group's
    stage rows W after `base` body rows and their rates written to K's (when K has rows)."""
    a = int(el[e, ER_AUX])
    k0 = int(el[e, E_STATES])
    s = int(el[e, E_N_STATES]) - 1
    ob = a + s * s  # B_r
    oc = ob + 6 * s  # C_r
    od = oc + 6 * s  # D_r
    mu = np.zeros(6)
    for j in range(6):
        m = 0.0
        for k in range(s):
            m += aux[oc + j * s + k] * _zget(W, base, k0 + k)
        for k in range(6):
            m += aux[od + j * 6 + k] * y[7 + k]
        mu[j] = m
    if K.shape[0] > 0:
        for j in range(s):
            rate = 0.0
            for k in range(s):
                rate += aux[a + j * s + k] * _zget(W, base, k0 + k)
            for k in range(6):
                rate += aux[ob + j * 6 + k] * y[7 + k]
            _zset(K, base, k0 + j, rate)
        power = 0.0
        for k in range(6):
            power += mu[k] * y[7 + k]
        _zset(K, base, k0 + s, power)
    # −μ at the reference point (body axes), then the water's linear parts there (NED);
    # about the CG the moment is M − r_cg × F (NED, r_cg turned)
    gx, gy, gz = turn(r, -mu[0], -mu[1], -mu[2])
    mx, my, mz = turn(r, -mu[3], -mu[4], -mu[5])
    if el[e, ER_NWAVES] > 0.0 or el[e, ER_LINEAR] > 0.0:
        lin = _linear(el, e, aux, y, r, t)
        gx += lin[0]
        gy += lin[1]
        gz += lin[2]
        mx += lin[3]
        my += lin[4]
        mz += lin[5]
    rx, ry, rz = turn(r, p[i, P_R_CG], p[i, P_R_CG + 1], p[i, P_R_CG + 2])
    mx -= ry * gz - rz * gy
    my -= rz * gx - rx * gz
    mz -= rx * gy - ry * gx
    w = munk(p, aux, od + 36, i, y, r)  # A∞ after D_r
    return (
        gx + w[0], gy + w[1], gz + w[2], mx + w[3], my + w[4], mz + w[5],
        y[0], y[1], y[2], y[0], y[1], y[2],
    )  # fmt: skip
