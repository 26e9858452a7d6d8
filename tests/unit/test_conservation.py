"""Invariants: energy in both models, momentum in `full` only; the Dzhanibekov flips; |q| ≈ 1.

One 100 s run at h = 1 ms with RK4 (100,000 steps), shared by every test here through a
module-scoped fixture, on a batch of four bodies, torque-free and without gravity:

0. `full`, principal moments m(0.25, 0.49, 0.64), spun at 5 rad/s about the intermediate
   axis (y) with a 0.01 rad/s nudge about the others: it must flip, again and again.
1. the same body in `fhsim`: no ω × Iω, so ω never changes and it never flips.
2. `full`, a fully populated tensor, |ω| ≈ 5 rad/s in a general direction.
3. `full` with a CG offset r_g, the same tensor, moving and spinning: the invariants
   hold about the CG even though the state describes the point o.

Those tests are marked slow. A shorter run under gravity checks the energy balance.
"""

from __future__ import annotations

import numpy as np
import pytest

from sixdof.dynamics import Bodies, BodyParams, IntegratorSettings, integrate, make_state
from sixdof.dynamics import quaternion as quat

DURATION = 100.0
SAMPLE = 0.01  # s between stored states
TENSOR = (0.6, 0.9, 1.2, 0.05, -0.04, 0.1)
PARAMS = [
    BodyParams.from_radii(2.0, (0.5, 0.7, 0.8), gravity=0.0),
    BodyParams.from_radii(2.0, (0.5, 0.7, 0.8), gravity=0.0, model="fhsim"),
    BodyParams.from_inertia(2.0, TENSOR, gravity=0.0),
    BodyParams.from_inertia(2.0, TENSOR, r_cg_body=(0.3, -0.2, 0.5), gravity=0.0),
]
X0 = np.stack(
    [
        make_state(ang_vel=(0.01, 5.0, 0.01)),
        make_state(ang_vel=(0.01, 5.0, 0.01)),
        make_state(quater=quat.from_euler(0.3, -0.2, 0.9), ang_vel=(2.0, -3.0, 3.5)),
        make_state(
            (1.0, 2.0, 3.0), quat.from_euler(0.3, -0.2, 0.9), (1.0, 0.5, -0.3), (2.0, -3.0, 3.5)
        ),
    ]
)


@pytest.fixture(scope="module")
def long_run(outputs_over_time) -> dict[str, np.ndarray]:
    times = np.linspace(0.0, DURATION, round(DURATION / SAMPLE) + 1)
    bodies = Bodies.of(PARAMS)
    settings = IntegratorSettings(method="rk4", step=1e-3)
    states, stats = integrate(bodies, X0, np.zeros(6), times, settings)
    assert stats.steps == 100_000
    run = outputs_over_time(states, np.zeros(6), bodies)
    run["states"] = states
    # |L| about the CG from the body-frame vector I_g ω: the invariant of Euler's equations,
    # independent of the tiny |q| − 1 by which R(q) is scaled (see the |q| test below).
    i_w = np.einsum("nij,tnj->tni", bodies.inertia_cg, states[:, :, 10:13])
    run["AngularMomentumNorm"] = np.linalg.norm(i_w, axis=-1)
    return run


def relative_drift(series: np.ndarray) -> np.ndarray:
    return np.max(np.abs(series / series[0] - 1.0), axis=0)


def test_energy_and_angular_momentum_are_conserved(long_run: dict[str, np.ndarray]) -> None:
    full = [0, 2, 3]
    kinetic = long_run["KineticEnergy"][:, full]
    assert np.all(relative_drift(kinetic) < 1e-9)  # measured ~2e-13
    assert np.all(relative_drift(long_run["AngularMomentumNorm"][:, full]) < 1e-9)
    # The global angular momentum vector stays fixed in space: this checks the orientation
    # too (phase error of RK4 and |q|² ≈ 1 − 2e-9 scaling R), hence 1e-8, not 1e-9.
    ang_mom = long_run["AngularMomentum"][:, full]
    drift = np.max(np.linalg.norm(ang_mom - ang_mom[0], axis=-1), axis=0)
    assert np.all(drift / np.linalg.norm(ang_mom[0], axis=-1) < 1e-8)
    # Linear momentum of the body with a CG offset: constant (no force), though o wobbles.
    lin = long_run["LinearMomentum"][:, 3]
    assert np.max(np.linalg.norm(lin - lin[0], axis=-1)) < 1e-8 * np.linalg.norm(lin[0])
    assert np.ptp(long_run["Vel"][:, 3], axis=0).max() > 1.0  # o itself does not move uniformly


def test_intermediate_axis_flips_in_full_only(long_run: dict[str, np.ndarray]) -> None:
    w_mid = long_run["states"][:, 0, 11]  # ω_y of body 0
    flips = int(np.count_nonzero(np.diff(np.sign(w_mid)) != 0))
    assert flips >= 2, f"{flips} sign changes of the intermediate-axis ω"
    assert np.min(w_mid) < -4.9 and np.max(w_mid) > 4.9  # full reversals, not wobbles
    # `fhsim`: ω stays what it was, so there is nothing to flip.
    w_fhsim = long_run["states"][:, 1, 10:13]
    np.testing.assert_allclose(w_fhsim, np.broadcast_to(X0[1, 10:13], w_fhsim.shape), atol=1e-12)


def test_quaternion_norm_stays_one(long_run: dict[str, np.ndarray]) -> None:
    w = long_run["states"][:, :, 10:13]
    speed = np.linalg.norm(w, axis=-1)[:, [0, 2]]
    assert np.all((speed > 4.5) & (speed < 6.0))  # AngVel ≈ 5 rad/s throughout
    norm = np.linalg.norm(long_run["states"][:, :, 3:7], axis=-1)
    assert np.max(np.abs(norm - 1.0)) < 1e-8  # measured ~8e-10 (RK4 bias, balanced by 1/τ)


def test_gravity_energy_balance_in_both_models_momentum_in_full_only(
    outputs_over_time,
) -> None:
    # Under gravity alone, kinetic + potential energy is constant in both models: the terms
    # `fhsim` drops (ω × v, ω × Iω) do no work. They do turn momentum, so only `full` has
    # L (about the CG) constant and p_lin = m g t + p_lin(0). Bodies: (full, full) and
    # (fhsim, fhsim), each with and without a CG offset, tumbling while they fall.
    params = [
        BodyParams.from_inertia(2.0, TENSOR, r_cg_body=offset, model=model)
        for model in ("full", "fhsim")
        for offset in ((0.3, -0.2, 0.5), (0.0, 0.0, 0.0))
    ]
    x0 = make_state(
        (1.0, 2.0, 3.0), quat.from_euler(0.3, -0.2, 0.9), (1, 0.5, -0.3), (1.5, -2, 2.5)
    )
    bodies = Bodies.of(params)
    times = np.linspace(0.0, 10.0, 101)
    states, _ = integrate(bodies, np.stack([x0] * 4), np.zeros(6), times, IntegratorSettings())
    out = outputs_over_time(states, np.zeros(6), bodies)
    kinetic, total = out["KineticEnergy"], out["TotalEnergy"]
    assert np.all(np.ptp(kinetic, axis=0) > 1000.0)  # ~10 kJ traded with potential energy
    assert np.all(np.max(np.abs(total - total[0]), axis=0) < 1e-10 * np.max(kinetic, axis=0))
    ang_mom = out["AngularMomentum"]
    ang_drift = np.max(np.linalg.norm(ang_mom - ang_mom[0], axis=-1), axis=0)
    lin = out["LinearMomentum"] - 2.0 * 9.81 * times[:, None, None] * np.array([0.0, 0.0, 1.0])
    lin_drift = np.max(np.linalg.norm(lin - lin[0], axis=-1), axis=0)
    scale = 2.0 * 9.81 * times[-1]
    assert np.all(ang_drift[:2] < 1e-8 * np.linalg.norm(ang_mom[0, :2], axis=-1))
    assert np.all(lin_drift[:2] < 1e-8 * scale)
    assert np.all(ang_drift[2:] > 0.1) and np.all(lin_drift[2:] > 0.1 * scale)
