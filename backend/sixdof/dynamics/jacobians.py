"""Analytic Jacobians of the 6DBody model: A = ∂ẋ/∂x (13×13), B = ∂ẋ/∂u (13×6).

Block structure (rows: ṗ, q̇, ν̇; columns: p, q, v, ω):

    A = [[0, ∂(Rv)/∂q,        R,        0       ],
         [0, ∂q̇/∂q,           0,        ½L(q)₁:₄],
         [0, M⁻¹ ∂τ_b/∂q,     −c M⁻¹ ∂(Cν)/∂ν   ]]
    B = [[0, 0], [0, 0], M⁻¹ [[Rᵀ, 0], [S(r_g) Rᵀ, Rᵀ]]]

with, for R(q) = E + 2ηS(ε) + 2S(ε)² and a fixed vector a,

    ∂(R a)/∂η = 2 S(ε) a         ∂(R a)/∂ε = −2η S(a) − 2 S(ε×a) − 2 S(ε) S(a)
    ∂(Rᵀa)/∂η = −2 S(ε) a        ∂(Rᵀa)/∂ε = 2η S(a) − 2 S(ε×a) − 2 S(ε) S(a)
    ∂q̇/∂q = ½ Q((0,ω)) + k[(1 − qᵀq) E₄ − 2 q qᵀ],      k = 1/(2τ)

and C ν = (m ω × (v + ω × r), m r × (ω × v) + ω × I_o ω):

    ∂/∂v: [m S(ω);  m S(r) S(ω)]
    ∂/∂ω: [−m (S(v) + S(ω×r) + S(ω) S(r));  −m S(r) S(v) − S(I_o ω) + S(ω) I_o]

Gravity enters τ_b through Rᵀ (F_n + m g_n), so it appears in ∂τ_b/∂q: the
Jacobian is complete, as FhSim promises. Checked against central finite
differences in tests/unit/test_jacobians.py.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from . import quaternion as quat
from .model import (
    ANG_VEL,
    INPUT_SIZE,
    LOCAL_VEL,
    NORM_TIME_CONSTANT,
    NU,
    POS,
    QUATER,
    STATE_SIZE,
    _as_batch,
    gravity_world,
)
from .params import Bodies
from .quaternion import Array, skew


def _d_rotate_dq(q: Array, a: Array, transpose: bool) -> Array:
    """∂(R(q) a)/∂q or ∂(R(q)ᵀ a)/∂q, shape (N, 3, 4)."""
    eta = q[:, 0, None, None]
    eps = q[:, 1:]
    s_eps = skew(eps)
    s_a = skew(a)
    sign = -1.0 if transpose else 1.0
    out = np.empty((q.shape[0], 3, 4))
    out[:, :, 0] = sign * 2.0 * np.einsum("nij,nj->ni", s_eps, a)
    out[:, :, 1:] = -sign * 2.0 * eta * s_a - 2.0 * skew(np.cross(eps, a)) - 2.0 * s_eps @ s_a
    return out


def state_jacobian(x: ArrayLike, u: ArrayLike, bodies: Bodies) -> Array:
    """A = ∂ẋ/∂x, shape (13, 13) for one state or (N, 13, 13) for a batch."""
    xb, ub, single = _as_batch(x, u)
    n = xb.shape[0]
    q = xb[:, QUATER]
    v = xb[:, LOCAL_VEL]
    w = xb[:, ANG_VEL]
    rotmat = quat.to_rotmat(q)
    r = bodies.r_cg_body
    m = bodies.mass[:, None, None]
    s_r = skew(r)
    jac = np.zeros((n, STATE_SIZE, STATE_SIZE))

    jac[:, POS, QUATER] = _d_rotate_dq(q, v, transpose=False)
    jac[:, POS, LOCAL_VEL] = rotmat

    k = 0.5 / NORM_TIME_CONSTANT
    w4 = np.concatenate([np.zeros((n, 1)), w], axis=-1)
    norm_err = 1.0 - np.sum(q * q, axis=-1)
    jac[:, QUATER, QUATER] = (
        0.5 * quat.right_matrix(w4)
        + k * norm_err[:, None, None] * np.eye(4)
        - 2.0 * k * np.einsum("ni,nj->nij", q, q)
    )
    jac[:, QUATER, ANG_VEL] = 0.5 * quat.left_matrix(q)[:, :, 1:]

    force_world = ub[:, 0:3] + bodies.mass[:, None] * gravity_world(bodies)
    d_force_body = _d_rotate_dq(q, force_world, transpose=True)
    d_moment_body = _d_rotate_dq(q, ub[:, 3:6], transpose=True) + s_r @ d_force_body
    d_tau_dq = np.concatenate([d_force_body, d_moment_body], axis=1)
    minv = bodies.mass_matrix_inv
    jac[:, NU, QUATER] = minv @ d_tau_dq

    if np.any(bodies.coriolis):
        s_w = skew(w)
        s_v = skew(v)
        i_o = bodies.inertia_o
        d_c = np.zeros((n, 6, 6))
        d_c[:, 0:3, 0:3] = m * s_w
        d_c[:, 0:3, 3:6] = -m * (s_v + skew(np.cross(w, r)) + s_w @ s_r)
        d_c[:, 3:6, 0:3] = m * s_r @ s_w
        d_c[:, 3:6, 3:6] = -m * s_r @ s_v - skew(np.einsum("nij,nj->ni", i_o, w)) + s_w @ i_o
        jac[:, NU, NU] = -bodies.coriolis[:, None, None] * (minv @ d_c)
    return jac[0] if single else jac


def input_jacobian(x: ArrayLike, u: ArrayLike, bodies: Bodies) -> Array:
    """B = ∂ẋ/∂(F_n, M_n), shape (13, 6) or (N, 13, 6). Independent of u (ẋ is affine in u)."""
    xb, _, single = _as_batch(x, u)
    n = xb.shape[0]
    rot_t = np.swapaxes(quat.to_rotmat(xb[:, QUATER]), -1, -2)
    d_tau_du = np.zeros((n, 6, INPUT_SIZE))
    d_tau_du[:, 0:3, 0:3] = rot_t
    d_tau_du[:, 3:6, 0:3] = skew(bodies.r_cg_body) @ rot_t
    d_tau_du[:, 3:6, 3:6] = rot_t
    jac = np.zeros((n, STATE_SIZE, INPUT_SIZE))
    jac[:, NU, :] = bodies.mass_matrix_inv @ d_tau_du
    return jac[0] if single else jac


def linearize(x: ArrayLike, u: ArrayLike, bodies: Bodies) -> tuple[Array, Array]:
    """(A, B) about (x, u): δẋ ≈ A δx + B δu."""
    return state_jacobian(x, u, bodies), input_jacobian(x, u, bodies)


__all__ = ["input_jacobian", "linearize", "state_jacobian"]
