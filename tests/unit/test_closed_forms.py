"""The model against motions with closed-form solutions (DESIGN.md sections 2 and 3).

Every run goes through the public `integrate`. Most use RK4 at a small step (the compiled
path, fast); the circle/line and the CG-offset checks also run Dormand–Prince, which
evaluates the numpy reference `model.derivative`, so both implementations of the
equations meet the same closed forms. The tolerances are far below the size of the effect
each test is about (the wrong model misses by metres or radians, not micrometres).
"""

from __future__ import annotations

import numpy as np
import pytest

from sixdof.dynamics import Bodies, BodyParams, IntegratorSettings, integrate, make_state
from sixdof.dynamics import quaternion as quat

FINE = IntegratorSettings(method="rk4", step=2.5e-4)
TIGHT = IntegratorSettings(method="dopri5", abstol=1e-11, reltol=1e-11)
G = 9.81


def run(
    bodies: Bodies,
    x0: np.ndarray,
    u: np.ndarray,
    times: np.ndarray,
    settings: IntegratorSettings = FINE,
) -> np.ndarray:
    states, _ = integrate(bodies, np.atleast_2d(x0), u, times, settings)
    return states


def rotation_about(axis: np.ndarray, angle: np.ndarray) -> np.ndarray:
    """Quaternions (T, 4) of rotations by `angle` (T,) about the unit `axis`."""
    half = 0.5 * np.asarray(angle)[:, None]
    return np.concatenate([np.cos(half), np.sin(half) * axis], axis=-1)


def same_rotation(q: np.ndarray, expected: np.ndarray, atol: float) -> None:
    """q and expected are the same rotation (q and −q are): compare their matrices."""
    np.testing.assert_allclose(quat.to_rotmat(q), quat.to_rotmat(expected), rtol=0, atol=atol)


def test_free_fall_in_both_models() -> None:
    # Any fixed orientation, no spin: p = p0 + R v0 t + ½ g t² (NED: g along +z). RK4 is
    # exact for this polynomial motion, so even 10 ms steps must hit it to rounding.
    params = [BodyParams.from_radii(3.0, (0.5, 0.6, 0.7), model=m) for m in ("full", "fhsim")]
    q0 = quat.from_euler(0.4, -0.3, 2.0)
    p0, v0 = np.array([1.0, -2.0, -50.0]), np.array([4.0, -1.0, 2.0])
    times = np.linspace(0.0, 3.0, 31)
    x0 = np.stack([make_state(p0, q0, v0)] * 2)
    coarse = IntegratorSettings(method="rk4", step=0.01)
    states = run(Bodies.of(params), x0, np.zeros(6), times, coarse)
    t = times[:, None, None]
    expected = p0 + quat.rotate(q0, v0) * t + 0.5 * np.array([0.0, 0.0, G]) * t**2
    np.testing.assert_allclose(states[:, :, 0:3], np.broadcast_to(expected, (31, 2, 3)), atol=1e-10)
    np.testing.assert_allclose(states[:, :, 3:7], np.broadcast_to(q0, (31, 2, 4)), atol=1e-14)
    # Global velocity R v = R v0 + g t.
    vel = quat.rotate(states[-1, :, 3:7], states[-1, :, 7:10])
    expected_vel = quat.rotate(q0, v0) + np.array([0.0, 0.0, G * 3.0])
    np.testing.assert_allclose(vel, np.broadcast_to(expected_vel, (2, 3)), rtol=0, atol=1e-10)


def test_constant_global_force_on_a_spinning_body_moves_the_cg_on_a_parabola() -> None:
    # `full`: whatever the tumbling, the CG obeys m p̈ = F_n + m g_n. `fhsim` keeps the
    # body-frame velocity when the body turns (no ω × v), so it must miss by metres.
    mass = 2.0
    force = np.array([3.0, -4.0, -15.0])
    u = np.concatenate([force, np.zeros(3)])
    params = [
        BodyParams.from_inertia(mass, (0.4, 0.7, 0.9, 0.05, -0.03, 0.08), model=model)
        for model in ("full", "fhsim")
    ]
    q0 = quat.from_euler(0.2, 0.5, -1.0)
    p0, v0_body = np.array([0.5, 1.0, -2.0]), np.array([1.0, 2.0, -0.5])
    w0 = np.array([1.0, 2.5, -1.5])
    x0 = np.stack([make_state(p0, q0, v0_body, w0)] * 2)
    times = np.linspace(0.0, 3.0, 7)
    states = run(Bodies.of(params), x0, u, times)
    t = times[:, None]
    expected = p0 + quat.rotate(q0, v0_body) * t + 0.5 * (force / mass + [0, 0, G]) * t**2
    np.testing.assert_allclose(states[:, 0, 0:3], expected, rtol=0, atol=1e-8)
    assert np.max(np.linalg.norm(states[:, 1, 0:3] - expected, axis=-1)) > 0.5
    # ...and the body really tumbled: ω changed direction in the body (ω × Iω ≠ 0).
    assert np.linalg.norm(states[-1, 0, 10:13] - w0) > 0.1


def test_spin_up_from_rest_about_a_principal_axis() -> None:
    # A global moment M about z on a body whose principal axis lies along z:
    # ψ = ½ (M/I) t², ω = (M/I) t along that axis, in both models (ω × Iω = 0).
    mass, moment = 2.0, 1.5
    i_z = mass * 0.7**2
    # Bodies 2, 3: a full tensor whose third principal axis is a = Rp e3 in body axes,
    # started with the orientation R0 = Rpᵀ that carries a onto the global z axis.
    rp = quat.to_rotmat(quat.from_euler(0.3, -0.5, 0.8))
    principal = np.array([0.5, 0.8, 1.1])
    params = [BodyParams.from_radii(mass, (0.5, 0.6, 0.7), model=m) for m in ("full", "fhsim")]
    params += [BodyParams(mass, rp @ np.diag(principal) @ rp.T, model=m) for m in ("full", "fhsim")]
    q0_full = quat.from_rotmat(rp.T)
    x0 = np.stack([make_state()] * 2 + [make_state(quater=q0_full)] * 2)
    u = np.array([0.0, 0.0, 0.0, 0.0, 0.0, moment])
    times = np.linspace(0.0, 2.0, 9)
    states = run(Bodies.of(params), x0, u, times)
    t = times
    yaw_diag = 0.5 * moment / i_z * t**2
    assert 3.0 < yaw_diag[-1] < np.pi  # a large turn, still inside (−π, π]
    euler = quat.to_euler(states[:, 0:2, 3:7])
    np.testing.assert_allclose(euler[..., 2], np.stack([yaw_diag] * 2, -1), rtol=0, atol=1e-9)
    np.testing.assert_allclose(euler[..., :2], 0.0, atol=1e-9)
    w_diag = np.outer(moment / i_z * t, [0, 0, 1])
    for i in (0, 1):
        np.testing.assert_allclose(states[:, i, 10:13], w_diag, atol=1e-10)
    z_axis = np.array([0.0, 0.0, 1.0])
    expected_q = quat.multiply(rotation_about(z_axis, 0.5 * moment / principal[2] * t**2), q0_full)
    w_full = np.outer(moment / principal[2] * t, rp[:, 2])
    for i in (2, 3):
        same_rotation(states[:, i, 3:7], expected_q, atol=1e-9)
        np.testing.assert_allclose(states[:, i, 10:13], w_full, atol=1e-10)


def test_torque_free_symmetric_top(outputs_over_time) -> None:
    # I1 = I2 ≠ I3: body-frame (ω1, ω2) turns at Ω = (I3 − I1)/I1 · ω3, ω3 constant; in
    # space the symmetry axis turns about the fixed angular momentum L at |L|/I1.
    mass = 1.5
    i1, i3 = mass * 0.6**2, mass * 0.8**2
    params = [
        BodyParams.from_radii(mass, (0.6, 0.6, 0.8), gravity=0.0, model=m)
        for m in ("full", "fhsim")
    ]
    q0 = quat.from_euler(0.3, 0.2, -0.4)
    w0 = np.array([0.6, -0.3, 4.0])
    x0 = np.stack([make_state(quater=q0, ang_vel=w0)] * 2)
    times = np.linspace(0.0, 5.0, 26)
    states = run(Bodies.of(params), x0, np.zeros(6), times)
    omega_rate = (i3 - i1) / i1 * w0[2]
    c, s = np.cos(omega_rate * times), np.sin(omega_rate * times)
    expected_w = np.stack(
        [w0[0] * c - w0[1] * s, w0[0] * s + w0[1] * c, np.full_like(times, w0[2])], axis=-1
    )
    assert omega_rate * times[-1] > 2 * np.pi  # more than a full precession cycle
    np.testing.assert_allclose(states[:, 0, 10:13], expected_w, rtol=0, atol=1e-9)
    # fhsim drops ω × Iω: its ω never moves.
    np.testing.assert_allclose(states[:, 1, 10:13], np.broadcast_to(w0, (26, 3)), atol=1e-12)
    # Space cone: a(t) = R(q(t)) e3 = rotation about L by |L| t / I1 of a(0).
    ang_mom = quat.rotate(q0, np.array([i1, i1, i3]) * w0)
    rate = np.linalg.norm(ang_mom) / i1
    axis0 = quat.rotate(q0, [0.0, 0.0, 1.0])
    spin = rotation_about(ang_mom / np.linalg.norm(ang_mom), rate * times)
    sym_axis = quat.rotate(states[:, 0, 3:7], [0.0, 0.0, 1.0])
    np.testing.assert_allclose(sym_axis, quat.rotate(spin, axis0), atol=1e-9)
    out = outputs_over_time(states, np.zeros(6), Bodies.of(params))
    np.testing.assert_allclose(
        out["AngularMomentum"][:, 0], np.broadcast_to(ang_mom, (26, 3)), atol=1e-10
    )


@pytest.mark.parametrize("settings", [FINE, TIGHT], ids=["rk4", "dopri5"])
def test_straight_line_in_full_and_circle_in_fhsim(settings: IntegratorSettings) -> None:
    # LocalVel (5,0,0), AngVel (0,0,2), no force, no gravity. `full`: the body turns but its
    # CG flies straight on at 5 m/s. `fhsim`: the velocity turns with the body, a circle of
    # radius 5/2 = 2.5 m about (0, 2.5, 0), closed after π s.
    params = [
        BodyParams.from_radii(1.0, (0.5, 0.6, 0.7), gravity=0.0, model=m) for m in ("full", "fhsim")
    ]
    x0 = np.stack([make_state(local_vel=(5.0, 0.0, 0.0), ang_vel=(0.0, 0.0, 2.0))] * 2)
    times = np.linspace(0.0, np.pi, 13)
    states = run(Bodies.of(params), x0, np.zeros(6), times, settings)
    t = times
    zeros = np.zeros_like(t)
    line = np.stack([5.0 * t, zeros, zeros], -1)
    np.testing.assert_allclose(states[:, 0, 0:3], line, rtol=0, atol=1e-9)
    circle = np.stack([2.5 * np.sin(2 * t), 2.5 * (1 - np.cos(2 * t)), zeros], -1)
    np.testing.assert_allclose(states[:, 1, 0:3], circle, rtol=0, atol=1e-9)
    radius = np.linalg.norm(states[:, 1, 0:2] - [0.0, 2.5], axis=-1)
    np.testing.assert_allclose(radius, 2.5, atol=1e-9)
    # Both bodies turn alike: yaw = 2t (wrapped).
    yaw = quat.to_euler(states[:, :, 3:7])[..., 2]
    np.testing.assert_allclose(np.exp(1j * yaw), np.exp(2j * t)[:, None] * [1, 1], atol=1e-9)


def about_cg_state(x_o: np.ndarray, r_g: np.ndarray) -> np.ndarray:
    """The same motion described at the CG: p + R r_g, same q, v + ω × r_g, same ω."""
    q, v, w = x_o[3:7], x_o[7:10], x_o[10:13]
    return make_state(x_o[0:3] + quat.rotate(q, r_g), q, v + np.cross(w, r_g), w)


# RK4 at 0.2 ms over 10 s (compiled path), and Dormand–Prince at AbsTol = RelTol = 1e-11 over
# 3 s (the numpy reference derivative; ~10⁴ evaluations, which is why it stops at 3 s).
CG_OFFSET_RUNS = [
    pytest.param(IntegratorSettings(method="rk4", step=2e-4), 10.0, id="rk4"),
    pytest.param(IntegratorSettings(method="dopri5", abstol=1e-11, reltol=1e-11), 3.0, id="dopri5"),
]


@pytest.mark.parametrize(("settings", "duration"), CG_OFFSET_RUNS)
def test_cg_offset_run_traces_the_same_cg_path(
    settings: IntegratorSettings,
    duration: float,
    outputs_over_time,
) -> None:
    # Seed 004 / DESIGN.md section 3. A body described about a point o with the CG at r_g
    # must move its CG exactly as the same body described about its CG, in both models.
    # For `fhsim` too: with C ν dropped, M_RB ν̇ = τ still gives I_g ω̇ = Rᵀ M_n and
    # d/dt(v + ω × r_g) = F_b / m, which is `fhsim` about the CG (docs/physics.md).
    # Bodies: (full about o, full about CG, fhsim about o, fhsim about CG).
    r_g = np.array([0.3, -0.2, 0.5])
    entries = (0.6, 0.9, 1.2, 0.05, -0.04, 0.1)
    params = [
        BodyParams.from_inertia(2.0, entries, r_cg_body=offset, model=model)
        for model in ("full", "fhsim")
        for offset in (r_g, (0.0, 0.0, 0.0))
    ]
    x_o = make_state(
        (1.0, -1.0, -3.0), quat.from_euler(0.3, -0.2, 0.9), (1.0, 0.5, -0.3), (1.5, -2.0, 2.5)
    )
    x_cg = about_cg_state(x_o, r_g)
    x0 = np.stack([x_o, x_cg, x_o, x_cg])
    u = np.array([2.0, -1.0, -17.0, 0.4, -0.3, 0.6])  # Force and Moment at the CG, global
    times = np.linspace(0.0, duration, 11)
    states = run(Bodies.of(params), x0, u, times, settings)
    cg_pos = outputs_over_time(states, u, Bodies.of(params))["CGPos"]
    for about_o, about_cg in ((0, 1), (2, 3)):
        np.testing.assert_allclose(cg_pos[:, about_o], cg_pos[:, about_cg], rtol=0, atol=1e-8)
        np.testing.assert_allclose(cg_pos[:, about_cg], states[:, about_cg, 0:3], atol=0)
        np.testing.assert_allclose(states[:, about_o, 3:7], states[:, about_cg, 3:7], atol=1e-9)
        np.testing.assert_allclose(states[:, about_o, 10:13], states[:, about_cg, 10:13], atol=1e-9)
        travel = np.linalg.norm(states[-1, about_cg, 0:3] - states[0, about_cg, 0:3])
        assert travel > duration  # a real trajectory, not a body at rest
    # The two models part ways (by metres): the equivalence is not a trivial one.
    assert np.max(np.linalg.norm(cg_pos[:, 0] - cg_pos[:, 2], axis=-1)) > 0.1 * duration
