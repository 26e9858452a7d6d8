"""The geometric integrator `geometric`: a fourth-order splitting of the rigid body (model
`full`), compiled with numba (cached on disk, as kernel_compiled.py).

Variables: the CG's position and global velocity (p_c, V), the attitude of the principal
axes q_c = q ⊗ q_G and the angular momentum about the CG in principal axes L_c = I ω_c.
One step of size h is Yoshida's triple jump (Yoshida 1990) of a symmetric second-order
step S:

    Φ_h = S(γ1 h) ∘ S(γ0 h) ∘ S(γ1 h),   γ1 = 1/(2 − 2^(1/3)),  γ0 = 1 − 2 γ1

    S(τ) = K(τ/2) ∘ D(τ) ∘ K(τ/2)
    K(τ): q, p fixed;  V += τ (F_n/m + g_n),  L_c += τ R(q_c)ᵀ M_n   (loads at that state)
    D(τ): p_c += τ V;  free rotation by R1(τ/2) R2(τ/2) R3(τ) R2(τ/2) R1(τ/2)

R_i(τ) is the exact flow of the kinetic energy's term L_i²/(2 I_i): a rotation of L_c
about principal axis i by −τ L_i/I_i and of the body by +τ L_i/I_i about the same axis
(McLachlan 1993; Dullweber, Leimkuhler & McLachlan 1997; the splitting family compared by
Celledoni, Fassò, Säfström & Zanna, SIAM J. Sci. Comput. 2008). Every sub-flow is exact,
S is symmetric, so Φ_h is of order 4. What it keeps by construction: |L| exactly in a
torque-free step (each R_i is a rotation of L), |q| = 1 without the τ term (products of
unit quaternions, renormalised after each step against rounding), and, being symplectic
and Lie–Poisson, the energy error of a torque-free body stays bounded (no secular drift)
over any number of steps, where RK4's grows linearly.

Loads are those of the kernel's load rows (kernel_compiled `_applied`: global, body-frame,
at points, the push spring), evaluated at the kick's state. A load that depends on the
velocity (the push spring's damping c) is taken at the kick's start: that term alone is
first order; everything else stays fourth. Elements and model `fhsim` are refused.

The step is converted from and back to sixdof's state (Pos, Quater, LocalVel, AngVel at
the reference point) every step, so n steps in one call give the same bits as n calls of
one step: a recording replays exactly however the live loop grouped its steps.
"""

from __future__ import annotations

import math

import numpy as np

from ..fields import FieldError
from .kernel_compiled import _applied, _load
from .layout import L_F_GLOBAL, L_M_GLOBAL, L_STATE_DEPENDENT
from .params import Bodies
from .quaternion import Array, IntArray

#: Yoshida's triple-jump weights.
_CBRT2 = 2.0 ** (1.0 / 3.0)
GAMMA1 = 1.0 / (2.0 - _CBRT2)
GAMMA0 = 1.0 - 2.0 * GAMMA1

#: Columns of a packed parameter row: mass, gravity, r_g (3), principal moments (3),
#: q_G (4, body axes → principal axes as a rotation), G (9, ω_b = G ω_c, row-major).
G_MASS, G_GRAVITY, G_R, G_MOMENTS, G_QG, G_ROT = 0, 1, 2, 5, 8, 12
G_SIZE = 21

from numba import njit  # noqa: E402  (after the constants numba reads as globals)


def pack(bodies: Bodies) -> Array:
    """The parameter rows (N, G_SIZE) of the bodies (principal axes from eigh, det +1)."""
    from .quaternion import from_rotmat

    out = np.zeros((len(bodies), G_SIZE))
    for i in range(len(bodies)):
        moments, v = np.linalg.eigh(bodies.inertia_cg[i])
        if np.linalg.det(v) < 0.0:
            v[:, 2] = -v[:, 2]
        out[i, G_MASS] = bodies.mass[i]
        out[i, G_GRAVITY] = bodies.gravity[i]
        out[i, G_R : G_R + 3] = bodies.r_cg_body[i]
        out[i, G_MOMENTS : G_MOMENTS + 3] = moments
        out[i, G_QG : G_QG + 4] = from_rotmat(v)
        out[i, G_ROT : G_ROT + 9] = v.reshape(9)
    return out


def refusal(bodies: Bodies, has_elements: bool) -> str | None:
    """Why `geometric` cannot step these bodies, or None."""
    if has_elements:
        return "the scenario has elements; geometric steps free bodies under their loads"
    for i in range(len(bodies)):
        if bodies.coriolis[i] != 1.0:
            return f"body {i} has model 'fhsim'; geometric integrates the Newton–Euler model"
    return None


def check_geometric(bodies: Bodies, has_elements: bool = False) -> None:
    why = refusal(bodies, has_elements)
    if why is not None:
        raise FieldError("integrator", "invalid", f"integrator: {why}")


@njit(cache=True, nogil=True, fastmath=False, inline="always")
def _qmul(aw, ax, ay, az, bw, bx, by, bz):
    return (
        aw * bw - ax * bx - ay * by - az * bz,
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
    )


@njit(cache=True, nogil=True, fastmath=False, inline="always")
def _rotmat(w, x, y, z):
    return (
        1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - w * z), 2.0 * (x * z + w * y),
        2.0 * (x * y + w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - w * x),
        2.0 * (x * z - w * y), 2.0 * (y * z + w * x), 1.0 - 2.0 * (x * x + y * y),
    )  # fmt: skip


@njit(cache=True, nogil=True, fastmath=False)
def _to_state(pr, i, c, y):
    """sixdof's state y (13) at the reference point from the splitting variables c (13):
    p_c (3), q_c (4), V (3), L_c (3)."""
    gw, gx, gy, gz = pr[i, G_QG], pr[i, G_QG + 1], pr[i, G_QG + 2], pr[i, G_QG + 3]
    qw, qx, qy, qz = _qmul(c[3], c[4], c[5], c[6], gw, -gx, -gy, -gz)
    r = _rotmat(qw, qx, qy, qz)
    # ω_b = G (L_c / I)
    a0 = c[10] / pr[i, G_MOMENTS]
    a1 = c[11] / pr[i, G_MOMENTS + 1]
    a2 = c[12] / pr[i, G_MOMENTS + 2]
    g = G_ROT
    w0 = pr[i, g] * a0 + pr[i, g + 1] * a1 + pr[i, g + 2] * a2
    w1 = pr[i, g + 3] * a0 + pr[i, g + 4] * a1 + pr[i, g + 5] * a2
    w2 = pr[i, g + 6] * a0 + pr[i, g + 7] * a1 + pr[i, g + 8] * a2
    rx, ry, rz = pr[i, G_R], pr[i, G_R + 1], pr[i, G_R + 2]
    y[0] = c[0] - (r[0] * rx + r[1] * ry + r[2] * rz)
    y[1] = c[1] - (r[3] * rx + r[4] * ry + r[5] * rz)
    y[2] = c[2] - (r[6] * rx + r[7] * ry + r[8] * rz)
    y[3], y[4], y[5], y[6] = qw, qx, qy, qz
    # v = Rᵀ V − ω × r_g
    y[7] = r[0] * c[7] + r[3] * c[8] + r[6] * c[9] - (w1 * rz - w2 * ry)
    y[8] = r[1] * c[7] + r[4] * c[8] + r[7] * c[9] - (w2 * rx - w0 * rz)
    y[9] = r[2] * c[7] + r[5] * c[8] + r[8] * c[9] - (w0 * ry - w1 * rx)
    y[10], y[11], y[12] = w0, w1, w2


@njit(cache=True, nogil=True, fastmath=False)
def _from_state(pr, i, y, c):
    """The splitting variables c (13) of sixdof's state y (13); |q| is normalised."""
    n = math.sqrt(y[3] * y[3] + y[4] * y[4] + y[5] * y[5] + y[6] * y[6])
    qw, qx, qy, qz = y[3] / n, y[4] / n, y[5] / n, y[6] / n
    r = _rotmat(qw, qx, qy, qz)
    rx, ry, rz = pr[i, G_R], pr[i, G_R + 1], pr[i, G_R + 2]
    w0, w1, w2 = y[10], y[11], y[12]
    c[0] = y[0] + r[0] * rx + r[1] * ry + r[2] * rz
    c[1] = y[1] + r[3] * rx + r[4] * ry + r[5] * rz
    c[2] = y[2] + r[6] * rx + r[7] * ry + r[8] * rz
    c[3], c[4], c[5], c[6] = _qmul(qw, qx, qy, qz, pr[i, G_QG], pr[i, G_QG + 1],
                                   pr[i, G_QG + 2], pr[i, G_QG + 3])  # fmt: skip
    b0 = y[7] + (w1 * rz - w2 * ry)
    b1 = y[8] + (w2 * rx - w0 * rz)
    b2 = y[9] + (w0 * ry - w1 * rx)
    c[7] = r[0] * b0 + r[1] * b1 + r[2] * b2
    c[8] = r[3] * b0 + r[4] * b1 + r[5] * b2
    c[9] = r[6] * b0 + r[7] * b1 + r[8] * b2
    g = G_ROT  # L_c = I (Gᵀ ω_b)
    c[10] = pr[i, G_MOMENTS] * (pr[i, g] * w0 + pr[i, g + 3] * w1 + pr[i, g + 6] * w2)
    c[11] = pr[i, G_MOMENTS + 1] * (pr[i, g + 1] * w0 + pr[i, g + 4] * w1 + pr[i, g + 7] * w2)
    c[12] = pr[i, G_MOMENTS + 2] * (pr[i, g + 2] * w0 + pr[i, g + 5] * w1 + pr[i, g + 8] * w2)


@njit(cache=True, nogil=True, fastmath=False)
def _kick(pr, u, i, c, y, tau):
    """K(τ): the loads at this state change V and L_c; p and q stay."""
    if u[i, L_STATE_DEPENDENT] != 0.0:
        _to_state(pr, i, c, y)
        fx, fy, fz, mx, my, mz = _applied(u, i, _load(y))
    else:  # global loads alone do not depend on the state: no conversion needed
        fx, fy, fz = u[i, L_F_GLOBAL], u[i, L_F_GLOBAL + 1], u[i, L_F_GLOBAL + 2]
        mx, my, mz = u[i, L_M_GLOBAL], u[i, L_M_GLOBAL + 1], u[i, L_M_GLOBAL + 2]
    m = pr[i, G_MASS]
    c[7] += tau * fx / m
    c[8] += tau * fy / m
    c[9] += tau * (fz / m + pr[i, G_GRAVITY])
    if mx != 0.0 or my != 0.0 or mz != 0.0:
        r = _rotmat(c[3], c[4], c[5], c[6])
        c[10] += tau * (r[0] * mx + r[3] * my + r[6] * mz)
        c[11] += tau * (r[1] * mx + r[4] * my + r[7] * mz)
        c[12] += tau * (r[2] * mx + r[5] * my + r[8] * mz)


@njit(cache=True, nogil=True, fastmath=False)
def _spin(pr, i, c, axis, tau):
    """R_axis(τ): the exact flow of L_a²/(2 I_a)."""
    a = tau * c[10 + axis] / pr[i, G_MOMENTS + axis]
    s = math.sin(0.5 * a)
    h = math.cos(0.5 * a)
    # the body turns by a about the axis: q_c ← q_c ⊗ (cos a/2, sin a/2 e_axis)
    if axis == 0:
        c[3], c[4], c[5], c[6] = _qmul(c[3], c[4], c[5], c[6], h, s, 0.0, 0.0)
    elif axis == 1:
        c[3], c[4], c[5], c[6] = _qmul(c[3], c[4], c[5], c[6], h, 0.0, s, 0.0)
    else:
        c[3], c[4], c[5], c[6] = _qmul(c[3], c[4], c[5], c[6], h, 0.0, 0.0, s)
    # L_c turns by −a about the same axis
    ca = 1.0 - 2.0 * s * s
    sa = 2.0 * s * h
    j = 10 + (axis + 1) % 3
    k = 10 + (axis + 2) % 3
    lj, lk = c[j], c[k]
    c[j] = ca * lj + sa * lk
    c[k] = -sa * lj + ca * lk


@njit(cache=True, nogil=True, fastmath=False)
def _strang(pr, u, i, c, y, tau):
    _kick(pr, u, i, c, y, 0.5 * tau)
    c[0] += tau * c[7]
    c[1] += tau * c[8]
    c[2] += tau * c[9]
    _spin(pr, i, c, 0, 0.5 * tau)
    _spin(pr, i, c, 1, 0.5 * tau)
    _spin(pr, i, c, 2, tau)
    _spin(pr, i, c, 1, 0.5 * tau)
    _spin(pr, i, c, 0, 0.5 * tau)
    _kick(pr, u, i, c, y, 0.5 * tau)


@njit(cache=True, nogil=True, fastmath=False)
def _advance(pr, x, u, h, n):
    """Body i of x (N, 13) advanced by n[i] steps of h[i], in place."""
    c = np.empty(13)
    y = np.empty(13)
    for i in range(x.shape[0]):
        hi = h[i]
        for _ in range(n[i]):
            _from_state(pr, i, x[i], c)
            _strang(pr, u, i, c, y, GAMMA1 * hi)
            _strang(pr, u, i, c, y, GAMMA0 * hi)
            _strang(pr, u, i, c, y, GAMMA1 * hi)
            _to_state(pr, i, c, x[i])


def advance(params: Array, x: Array, loads: Array, h: Array | float, n: IntArray | int) -> None:
    """Advance the states x (N, 13, C-contiguous) in place: body i by n[i] steps of h[i] s,
    under the load rows `loads` (N, LOAD_SIZE) of `kernel.load_rows` or `InputChannels`."""
    count = x.shape[0]
    hs = np.ascontiguousarray(np.broadcast_to(np.asarray(h, dtype=float), (count,)))
    ns = np.ascontiguousarray(np.broadcast_to(np.asarray(n, dtype=np.int64), (count,)))
    _advance(params, x, np.ascontiguousarray(loads, dtype=float), hs, ns)
