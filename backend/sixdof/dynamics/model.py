"""The 6DBody equations of motion (DESIGN.md sections 2 and 3).

State x, shape (N, 13) or (13,):
    x[0:3]   Pos      p, global position of the reference point o (NED, m)
    x[3:7]   Quater   q = (η, ε), body → global
    x[7:10]  LocalVel v, body-frame velocity of o (m/s)
    x[10:13] AngVel   ω, body-frame angular velocity (rad/s)
Input u, shape (N, 6) or (6,): global Force F_n (N) then global Moment M_n
(N·m), both acting at the CG.

    ṗ = R(q) v
    q̇ = ½ q ⊗ (0, ω) + (1/(2τ)) (1 − qᵀq) q,            τ = 0.01 s
    M_RB ν̇ = τ_b − c · C_RB(ν) ν,                          ν = (v, ω)
    τ_b = (F_b, Rᵀ M_n + r_g × F_b),   F_b = Rᵀ (F_n + m g_n)
    C ν = (m ω × (v + ω × r_g),  m r_g × (ω × v) + ω × (I_o ω))

with c = 1 for model `full` and c = 0 for `fhsim` (FhSim 3.1: Coriolis and
gyroscopic terms neglected). With r_g = 0 this reduces to m v̇ + c m ω × v =
F_b and I_g ω̇ + c ω × I_g ω = Rᵀ M_n. Reference: Fossen, Handbook of Marine
Craft Hydrodynamics and Motion Control (2011), eqs. 3.44–3.60.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from numpy.typing import ArrayLike

from . import quaternion as quat
from .elements import Buoyancy, System
from .hydro import draft_and_wave
from .names import NORM_TIME_CONSTANT
from .output_table import PORTS
from .params import Bodies
from .quaternion import Array
from .sizes import INPUT_SIZE, STATE_SIZE
from .stored import radiated_energy, stored_energy

POS = slice(0, 3)
QUATER = slice(3, 7)
LOCAL_VEL = slice(7, 10)
ANG_VEL = slice(10, 13)
NU = slice(7, 13)

STATE_NAMES: tuple[tuple[str, int], ...] = (
    ("Pos", 3),
    ("Quater", 4),
    ("LocalVel", 3),
    ("AngVel", 3),
)

#: FhSim's output ports of Body/6DBody with their widths, in the order FhSim writes them.
OUTPUT_PORTS = PORTS


def rest_state(n: int | None = None) -> Array:
    """At rest at the origin with identity orientation: (13,) or (n, 13)."""
    x = np.zeros(STATE_SIZE)
    x[3] = 1.0
    return x if n is None else np.tile(x, (n, 1))


def make_state(
    pos: ArrayLike = (0.0, 0.0, 0.0),
    quater: ArrayLike = (1.0, 0.0, 0.0, 0.0),
    local_vel: ArrayLike = (0.0, 0.0, 0.0),
    ang_vel: ArrayLike = (0.0, 0.0, 0.0),
) -> Array:
    """Assemble x from its parts; broadcasting gives a batch."""
    return np.concatenate(_lead(pos, quater, local_vel, ang_vel), axis=-1)


def _lead(*arrays: ArrayLike) -> list[Array]:
    """Broadcast the leading axes of vectors of different widths."""
    arrs = [np.asarray(a, float) for a in arrays]
    lead = np.broadcast_shapes(*[a.shape[:-1] for a in arrs])
    return [np.broadcast_to(a, (*lead, a.shape[-1])) for a in arrs]


def gravity_world(bodies: Bodies) -> Array:
    """g_n = (0, 0, g) for each body, shape (N, 3): NED, gravity points down (+z)."""
    g = np.zeros((len(bodies), 3))
    g[:, 2] = bodies.gravity
    return g


def _as_batch(x: ArrayLike, u: ArrayLike) -> tuple[Array, Array, bool]:
    x = np.asarray(x, dtype=float)
    u = np.asarray(u, dtype=float)
    single = x.ndim == 1
    if single:
        x = x[None, :]
    if u.ndim == 1:
        u = np.broadcast_to(u, (x.shape[0], INPUT_SIZE))
    return x, u, single


def body_wrench(x: Array, u: Array, bodies: Bodies, rotmat: Array) -> Array:
    """τ_b = (F_b, Rᵀ M_n + r_g × F_b), shape (N, 6): the generalised force about o."""
    force_body = np.einsum(
        "nji,nj->ni", rotmat, u[:, 0:3] + bodies.mass[:, None] * gravity_world(bodies)
    )
    moment_body = np.einsum("nji,nj->ni", rotmat, u[:, 3:6])
    moment_body = moment_body + np.cross(bodies.r_cg_body, force_body)
    return np.concatenate([force_body, moment_body], axis=-1)


def coriolis_wrench(x: Array, bodies: Bodies) -> Array:
    """C_RB(ν) ν, shape (N, 6), before the model's factor c is applied."""
    v = x[:, LOCAL_VEL]
    w = x[:, ANG_VEL]
    r = bodies.r_cg_body
    m = bodies.mass[:, None]
    lin = m * np.cross(w, v + np.cross(w, r))
    i_o_w = np.einsum("nij,nj->ni", bodies.inertia_o, w)
    ang = m * np.cross(r, np.cross(w, v)) + np.cross(w, i_o_w)
    return np.concatenate([lin, ang], axis=-1)


def quaternion_rate(q: Array, w: Array) -> Array:
    """q̇ = ½ q ⊗ (0, ω) + (1/(2τ)) (1 − qᵀq) q, shape (N, 4)."""
    w4 = np.concatenate([np.zeros((*w.shape[:-1], 1)), w], axis=-1)
    norm_err = 1.0 - np.sum(q * q, axis=-1, keepdims=True)
    return 0.5 * quat.multiply(q, w4) + (0.5 / NORM_TIME_CONSTANT) * norm_err * q


def derivative(x: ArrayLike, u: ArrayLike, bodies: Bodies) -> Array:
    """ẋ = f(x, u) for one state (13,) or a batch (N, 13); see the module docstring."""
    xb, ub, single = _as_batch(x, u)
    q = xb[:, QUATER]
    rotmat = quat.to_rotmat(q)
    xdot = np.empty_like(xb)
    xdot[:, POS] = np.einsum("nij,nj->ni", rotmat, xb[:, LOCAL_VEL])
    xdot[:, QUATER] = quaternion_rate(q, xb[:, ANG_VEL])
    rhs = body_wrench(xb, ub, bodies, rotmat)
    if np.any(bodies.coriolis):
        rhs = rhs - bodies.coriolis[:, None] * coriolis_wrench(xb, bodies)
    xdot[:, NU] = np.einsum("nij,nj->ni", bodies.mass_matrix_inv, rhs)
    return xdot[0] if single else xdot


def laid_out(outs: Mapping[str, Array], layout: Sequence[tuple[str, int]], n: int) -> Array:
    """Batch outputs (N, …) side by side as (N, Σ width), in `layout`'s (name, width) order:
    one row of numbers per body, as the binary frame and the history store them."""
    return np.concatenate([np.reshape(outs[k], (n, w)) for k, w in layout], axis=1)


def outputs(
    x: ArrayLike,
    u: ArrayLike,
    bodies: Bodies,
    system: System | None = None,
    t: float = 0.0,
    z: ArrayLike | None = None,
) -> dict[str, Array]:
    """All outputs of DESIGN.md section 1 for a state (13,) or batch (N, 13).

    Pos, Vel (= R v, global), Quater, LocalVel, AngVel, Euler (φ, θ, ψ; z-y-x,
    rad), AngVelGlobal (R ω), CGPos (p + R r_g), CGVel (R (v + ω × r_g)), KineticEnergy
    (½ νᵀ M_RB ν, J) and its parts TranslationalEnergy (½ m |v_CG|²) and RotationalEnergy
    (½ ωᵀ I_g ω),
    PotentialEnergy (−m g_nᵀ p_CG, J), StoredEnergy (what the elements `system` hold:
    stored.stored_energy), TotalEnergy (their sum), RadiatedEnergy (the work done on the water
    through radiation elements: stored.radiated_energy), LinearMomentum (global,
    m R (v + ω × r_g), kg·m/s), AngularMomentum (about the CG, global,
    R I_g ω, kg·m²/s), Force and Moment (the applied global inputs); Draft, Heel, Trim and
    WaveElevation of a floating body (hydro.hydro_outputs, with the elements `system`
    acting on these bodies alone and the time t; Draft and WaveElevation 0 without one);
    JointGap, JointGapAngle, JointForce and JointMoment (joint_outputs, 0 without joints);
    CableForce, CableTension and CableSeabedLength (cable_lines, 0 without cables). z: the
    elements' states (a cable's nodes; None: their initial ones).
    """
    xb, ub, single = _as_batch(x, u)
    q = xb[:, QUATER]
    rotmat = quat.to_rotmat(q)
    v = xb[:, LOCAL_VEL]
    w = xb[:, ANG_VEL]
    nu = xb[:, NU]
    m = bodies.mass
    cg_pos = xb[:, POS] + np.einsum("nij,nj->ni", rotmat, bodies.r_cg_body)
    kinetic = 0.5 * np.einsum("ni,nij,nj->n", nu, bodies.mass_matrix, nu)
    potential = -m * np.einsum("ni,ni->n", gravity_world(bodies), cg_pos)
    vel_cg_body = v + np.cross(w, bodies.r_cg_body)
    vel_cg = np.einsum("nij,nj->ni", rotmat, vel_cg_body)
    # Kinetic energy split about the CG (König): ½ m |v_CG|² + ½ ωᵀ I_g ω; their sum equals
    # ½ νᵀ M_RB ν for a rigid body with the CG offset r_g.
    translational = 0.5 * m * np.einsum("ni,ni->n", vel_cg_body, vel_cg_body)  # R-free
    rotational = 0.5 * np.einsum("ni,nij,nj->n", w, bodies.inertia_cg, w)
    out = {
        "Pos": xb[:, POS].copy(),
        "Vel": np.einsum("nij,nj->ni", rotmat, v),
        "Quater": q.copy(),
        "LocalVel": v.copy(),
        "AngVel": w.copy(),
        "Euler": quat.to_euler(q),
        "AngVelGlobal": np.einsum("nij,nj->ni", rotmat, w),
        "CGPos": cg_pos,
        "KineticEnergy": kinetic,
        "PotentialEnergy": potential,
        "TotalEnergy": kinetic + potential,
        "CGVel": vel_cg,
        "TranslationalEnergy": translational,
        "RotationalEnergy": rotational,
        "LinearMomentum": m[:, None] * vel_cg,
        "AngularMomentum": np.einsum("nij,njk,nk->ni", rotmat, bodies.inertia_cg, w),
        "Force": ub[:, 0:3].copy(),
        "Moment": ub[:, 3:6].copy(),
    }
    zs = None if z is None else np.asarray(z, dtype=float)
    stored = stored_energy(system, bodies, xb, zs)
    out["StoredEnergy"] = stored
    out["TotalEnergy"] = out["TotalEnergy"] + stored
    out["RadiatedEnergy"] = radiated_energy(system, len(xb), zs)
    euler = out["Euler"]
    out.update(Heel=euler[:, 0].copy(), Trim=euler[:, 1].copy())
    if system is not None and any(isinstance(e, Buoyancy) for e in system.elements):
        out.update(draft_and_wave(system, bodies, xb, t))
    else:
        out.update(Draft=np.zeros(len(xb)), WaveElevation=np.zeros(len(xb)))
    from .cable_lines import cable_outputs
    from .joint_outputs import joint_outputs  # it reaches the kernels, which import this

    out.update(joint_outputs(system, bodies, xb, ub, t))
    out.update(cable_outputs(system, bodies, xb, zs))
    if single:
        return {k: a[0] for k, a in out.items()}
    return out
