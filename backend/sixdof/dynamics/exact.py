"""The exact solution of a torque-free rigid body (model `full`): no integrator, no step.

Rotation about the CG (Euler's equations I ω̇ + ω × I ω = 0) in closed form; the CG moves
with constant acceleration (uniform gravity, and a constant global Force at the CG, which
exert no moment about it). This is the reference an integrator's own error is measured
against (the page's "exact" ghost, the tests, benchmarks/bench_integrators.py).

Angular velocity (Landau & Lifshitz, Mechanics §37). In principal axes with moments
I1, I2, I3 ordered so that axis 3 is the one the polhode encircles (L² > 2E I2 for
I1 < I2 < I3; otherwise the axes are turned end for end, see `_frame`), with
2E = Σ I_i ω_i², L² = Σ I_i² ω_i²:

    ω1 = A1 cn u,   ω2 = s A2 sn u,   ω3 = s A3 dn u,     u = λ t + u0,  s = sign ω3(0)
    A1² = (2E I3 − L²)/(I1 (I3 − I1)),  A2² = (2E I3 − L²)/(I2 (I3 − I2)),
    A3² = (L² − 2E I1)/(I3 (I3 − I1)),  λ² = (I3 − I2)(L² − 2E I1)/(I1 I2 I3),
    m = (I2 − I1)(2E I3 − L²)/((I3 − I2)(L² − 2E I1))

(scipy's `ellipj(u, m)`; its m is k²). The differences 2E I3 − L² etc. are summed term by
term (Σ I_i ω_i² (I3 − I_i)), which is exactly zero for a spin about axis 3 instead of a
rounding residue whose square root would be a spurious 1e-8 wobble.

Attitude. L is fixed in space. With l = I ω/|L| in principal axes, the rotation from
principal axes to a frame whose z is along L is Rz(φ) Rx(θ) Rz(ψ), with
cos θ = l3, tan ψ = l1/l2, and (differentiating Ṙ = R S(ω))

    φ̇ = |L| (I1 ω1² + I2 ω2²)/(I1² ω1² + I2² ω2²)
      = |L|/I1 + |L| (I3 − I1)/(I1 I3) · n sn²u/(1 − n sn²u)

with n = −I3 (I2 − I1)/(I1 (I3 − I2)) ≤ 0 (constant: it does not depend on ω0). Hence

    φ(t) = φ0 + (|L|/I1) t + |L|(I3 − I1)/(I1 I3 λ) · [J(am u) − J(am u0)],
    J(α) = Π(n; α | m) − F(α | m) = (n/3) sin³α R_J(cos²α, 1 − m sin²α, 1, 1 − n sin²α)

the incomplete elliptic integral of the third kind through Carlson's R_J (scipy
`elliprj`), continued past |α| = π/2 by J(α + jπ) = J(α) + 2j J(π/2). u is reduced to
[−K, K] (scipy `ellipk`) before `ellipj`, and am u, ψ and φ are kept continuous, so the
quaternion, a product of half-angle rotations, is continuous in t (no sign jumps).

A spin about a principal axis (ω ∥ I ω) is steady: ω constant, q(t) = q0 ⊗ exp(ω t/2).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..fields import FieldError
from . import quaternion as quat
from .model import ANG_VEL, LOCAL_VEL, POS, QUATER, STATE_SIZE
from .params import Bodies
from .quaternion import Array

#: |ω × I ω| ≤ STEADY × |ω| |I ω|: a spin about a principal axis (the wobble it leaves out
#: is of that relative size).
STEADY = 1e-15
#: An initial |Quater| further than this from 1 is refused (the exact solution is a
#: rotation; the integrators' τ term would pull such a q back within a few τ anyway).
QUATER_TOLERANCE = 1e-6


def _rot_x(angle: Array) -> Array:
    h = 0.5 * angle
    z = np.zeros_like(h)
    return np.stack([np.cos(h), np.sin(h), z, z], axis=-1)


def _rot_z(angle: Array) -> Array:
    h = 0.5 * angle
    z = np.zeros_like(h)
    return np.stack([np.cos(h), z, z, np.sin(h)], axis=-1)


def _frame(inertia: Array, w_body: Array) -> tuple[Array, Array]:
    """(moments (3,), G (3×3, det +1)) with ω_b = G ω_c: principal axes ordered so that
    the third is the one ω circles about.

    eigh gives I1 ≤ I2 ≤ I3. When 2E I2 − L² > 0 the polhode circles axis 1, and the axes
    are taken as (e3, −e2, e1): a proper rotation (a transposition of two axes alone would
    reflect and reverse the sense of Euler's equations) under which the same formulas hold
    with I1 > I2 > I3.
    """
    moments, v = np.linalg.eigh(inertia)
    if np.linalg.det(v) < 0.0:
        v[:, 2] = -v[:, 2]
    w = v.T @ w_body
    i1, i2, i3 = moments
    d2 = i1 * w[0] ** 2 * (i2 - i1) + i3 * w[2] ** 2 * (i2 - i3)  # 2E I2 − L², summed stably
    if d2 > 0.0:
        turn = np.array([[0.0, 0.0, 1.0], [0.0, -1.0, 0.0], [1.0, 0.0, 0.0]])
        return moments[::-1].copy(), v @ turn
    return moments, v


@dataclass(frozen=True)
class _Elliptic:
    """The constants of one non-steady rotation (module docstring's symbols)."""

    moments: Array  # I1, I2, I3 in the order of `_frame`
    g: Array  # ω_b = G ω_c
    q_g: Array  # the quaternion of G
    a: tuple[float, float, float]  # A1, A2, A3
    rate: float  # λ (signed)
    m: float
    n: float
    s: float  # sign of ω3
    k: float  # K(m), inf on the separatrix
    u0: float
    j_full: float  # J(π/2)
    l_mag: float  # |L|


def _elliptic(inertia: Array, w0: Array) -> _Elliptic:
    from scipy.special import ellipk, ellipkinc, elliprj

    moments, g = _frame(inertia, w0)
    i1, i2, i3 = (float(v) for v in moments)
    w1, w2, w3 = (float(v) for v in g.T @ w0)
    d3 = i1 * w1**2 * (i3 - i1) + i2 * w2**2 * (i3 - i2)  # 2E I3 − L²
    d1 = i2 * w2**2 * (i2 - i1) + i3 * w3**2 * (i3 - i1)  # L² − 2E I1
    a1 = math.sqrt(d3 / (i1 * (i3 - i1)))
    a2 = math.sqrt(d3 / (i2 * (i3 - i2)))
    a3 = math.sqrt(d1 / (i3 * (i3 - i1)))
    # λ = (I3 − I2) A2 A3/(I1 A1) from the first Euler equation: negative when the axes
    # were turned end for end (I3 < I2), and u then runs backwards.
    rate = math.copysign(math.sqrt((i3 - i2) * d1 / (i1 * i2 * i3)), i3 - i2)
    m = min(1.0, (i2 - i1) * d3 / ((i3 - i2) * d1))
    n = -i3 * (i2 - i1) / (i1 * (i3 - i2))
    s = 1.0 if w3 > 0.0 else -1.0
    k = float(ellipk(m)) if m < 1.0 else math.inf  # on the separatrix: one flip, ever
    alpha0 = math.atan2(w2 / (s * a2), w1 / a1)
    j0 = round(alpha0 / math.pi)
    u0 = float(ellipkinc(alpha0 - j0 * math.pi, m)) + (2 * j0 * k if j0 else 0.0)
    j_full = n / 3.0 * float(elliprj(0.0, 1.0 - m, 1.0, 1.0 - n)) if m < 1.0 else 0.0
    l_mag = math.sqrt((i1 * w1) ** 2 + (i2 * w2) ** 2 + (i3 * w3) ** 2)
    return _Elliptic(moments, g, quat.from_rotmat(g), (a1, a2, a3), rate, m, n, s, k, u0,
                     j_full, l_mag)  # fmt: skip


class FreeRotation:
    """The torque-free rotation of one body from ω0 (body axes) and q0; `at(t)` gives
    (ω (T, 3) body axes, q (T, 4)). See the module docstring for the formulas."""

    def __init__(self, inertia: Array, w0: Array, q0: Array) -> None:
        self.inertia = np.asarray(inertia, dtype=float)
        self.w0 = np.asarray(w0, dtype=float)
        self.q0 = np.asarray(q0, dtype=float)
        iw = self.inertia @ self.w0
        cross = float(np.linalg.norm(np.cross(self.w0, iw)))
        self.steady = cross <= STEADY * float(np.linalg.norm(self.w0) * np.linalg.norm(iw))
        self._c: _Elliptic | None = None if self.steady else _elliptic(self.inertia, self.w0)
        if self._c is not None:
            self._start = self._phase(self._c, np.zeros(1))

    @property
    def flip_interval(self) -> float:
        """Time between two sign changes of the middle-axis component of ω, 2K/λ (s);
        inf for a steady spin or on the separatrix."""
        if self._c is None:
            return math.inf
        return 2.0 * self._c.k / abs(self._c.rate)

    @staticmethod
    def _phase(c: _Elliptic, t: Array) -> tuple[Array, Array, Array, Array]:
        """(ω_c (T, 3), θ, ψ, φ − (|L|/I1) t) at times t, all continuous in t."""
        from scipy.special import ellipj, elliprj

        i1, i2, i3 = (float(v) for v in c.moments)
        a1, a2, a3 = c.a
        s, m, n, k = c.s, c.m, c.n, c.k
        u = c.u0 + c.rate * t
        if math.isinf(k):
            j = np.zeros_like(u)
            r = u
        else:
            j = np.round(u / (2.0 * k))
            r = u - 2.0 * k * j
        sn, cn, dn, _ = ellipj(r, m)
        alpha_r = np.arctan2(sn, cn)  # am r, in [−π/2, π/2] as cn ≥ 0 on [−K, K]
        sign = 1.0 - 2.0 * np.mod(j, 2.0)
        w = np.stack([a1 * cn * sign, s * a2 * sn * sign, s * a3 * dn], axis=-1)
        lv = w * c.moments / c.l_mag
        theta = np.arctan2(np.hypot(lv[:, 0], lv[:, 1]), lv[:, 2])
        # ψ = atan2(l1, l2) as a function of am u = α_r + jπ: on [−π/2, π/2] l1 ∝ cos α_r ≥ 0
        # (clamped against a rounding −0), and each half period turns it by −π s.
        psi = np.arctan2(np.maximum(i1 * a1 * np.cos(alpha_r), 0.0), s * i2 * a2 * np.sin(alpha_r))
        psi = psi - j * math.pi * s
        sin_a = np.sin(alpha_r)
        cos2 = np.cos(alpha_r) ** 2
        big_j = n / 3.0 * sin_a**3 * elliprj(cos2, 1.0 - m * sin_a**2, 1.0, 1.0 - n * sin_a**2)
        big_j = big_j + 2.0 * j * c.j_full
        phi = c.l_mag * (i3 - i1) / (i1 * i3 * c.rate) * big_j
        return w, theta, psi, phi

    def at(self, t: Array | Sequence[float]) -> tuple[Array, Array]:
        """(ω (T, 3) in body axes, q (T, 4)) at times t (s, from the start)."""
        t = np.asarray(t, dtype=float).reshape(-1)
        c = self._c
        if c is None:
            w_abs = float(np.linalg.norm(self.w0))
            axis = self.w0 / w_abs if w_abs > 0.0 else np.zeros(3)
            half = 0.5 * w_abs * t
            step = np.concatenate([np.cos(half)[:, None], np.sin(half)[:, None] * axis], axis=1)
            return np.broadcast_to(self.w0, (t.size, 3)).copy(), quat.multiply(self.q0, step)
        w_c, theta, psi, phi_rest = self._phase(c, t)
        _, theta0, psi0, phi0 = self._start
        phi = c.l_mag / c.moments[0] * t + (phi_rest - phi0)
        # principal → L-frame rotation at t, and the same at 0 (φ measured from its start)
        q_pl = quat.multiply(quat.multiply(_rot_z(phi), _rot_x(theta)), _rot_z(psi))
        q_pl0 = quat.multiply(_rot_x(theta0), _rot_z(psi0))[0]
        q_g = c.q_g
        # q(t) = q0 ⊗ q_G ⊗ q_pl(0)* ⊗ q_pl(t) ⊗ q_G*
        left = quat.multiply(quat.multiply(self.q0, q_g), quat.conjugate(q_pl0))
        q = quat.multiply(quat.multiply(left, q_pl), quat.conjugate(q_g))
        return w_c @ c.g.T, q


def flip_interval(inertia: Array, w0: Array) -> float:
    """Time between two flips (sign changes of the middle-axis ω component), 2K(m)/λ, s."""
    return FreeRotation(inertia, w0, np.array([1.0, 0.0, 0.0, 0.0])).flip_interval


def refusal(bodies: Bodies, x0: Array, u: Array, has_elements: bool) -> str | None:
    """Why the exact method does not apply to these bodies, or None when it does."""
    if has_elements:
        return "the scenario has elements (pivots, springs, ground): they exert moments"
    for i in range(len(bodies)):
        if bodies.coriolis[i] != 1.0:
            return f"body {i} has model 'fhsim'; the exact solution is the Newton–Euler one"
        if np.any(u[i, 3:6] != 0.0):
            return f"body {i} has a Moment; only a torque-free body has this closed form"
        norm = float(np.linalg.norm(x0[i, QUATER]))
        if abs(norm - 1.0) > QUATER_TOLERANCE:
            return f"body {i} has |Quater| = {norm:.9g}, not a rotation; give a unit quaternion"
    return None


def check_exact(bodies: Bodies, x0: Array, u: Array, has_elements: bool = False) -> None:
    """FieldError when the exact method does not apply (see `refusal`)."""
    why = refusal(bodies, x0, u, has_elements)
    if why is not None:
        raise FieldError(
            "integrator",
            "invalid",
            f"integrator: exact applies to torque-free bodies of model 'full' (uniform gravity "
            f"and a constant global Force at the CG allowed, no Moment, no elements): {why}",
        )


def exact_states(bodies: Bodies, x0: Array, u: Array, times: Array, t0: float = 0.0) -> Array:
    """States at `times` (T,) of bodies (N) that were x0 (N, 13) at t0: shape (T, N, 13).

    u (N, 6): constant global Force (and a zero Moment) at the CG. Call `check_exact` first.
    """
    t = np.asarray(times, dtype=float) - t0
    out = np.empty((t.size, len(bodies), STATE_SIZE))
    for i in range(len(bodies)):
        x = x0[i]
        q0 = x[QUATER] / np.linalg.norm(x[QUATER])
        w0, r = x[ANG_VEL], bodies.r_cg_body[i]
        rot = FreeRotation(bodies.inertia_cg[i], w0, q0)
        w, q = rot.at(t)
        rot0 = quat.to_rotmat(q0)
        p_cg0 = x[POS] + rot0 @ r
        v_cg0 = rot0 @ (x[LOCAL_VEL] + np.cross(w0, r))
        acc = u[i, 0:3] / bodies.mass[i] + np.array([0.0, 0.0, bodies.gravity[i]])
        p_cg = p_cg0 + t[:, None] * v_cg0 + 0.5 * t[:, None] ** 2 * acc
        v_cg = v_cg0 + t[:, None] * acc
        rotmat = quat.to_rotmat(q)
        out[:, i, POS] = p_cg - rotmat @ r
        out[:, i, QUATER] = q
        out[:, i, LOCAL_VEL] = np.einsum("tji,tj->ti", rotmat, v_cg) - np.cross(w, r)
        out[:, i, ANG_VEL] = w
    return out
