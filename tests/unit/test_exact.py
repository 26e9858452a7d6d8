"""The exact method (dynamics/exact.py) against independent solutions.

References: scipy's DOP853 at rtol 1e-13 on the package's own derivative for well-
conditioned motions, and for the tennis racket (close to the separatrix, where DOP853's
rounding alone grows to ~2e-10 over 20 s) RK4 in 80-bit long double with Richardson
extrapolation (h = 0.5 ms and 1 ms over 20 s; estimated error ~3e-12, measured difference
from the closed form 4.5e-12). Tolerances are 1e-10, as the issue asks: a wrong sign, a
wrong branch of ψ or φ, or a missing elliptic-integral term is an error of order one.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import sixdof
from sixdof.dynamics import Bodies, BodyParams, kernel, make_state
from sixdof.dynamics import quaternion as quat
from sixdof.dynamics.exact import FreeRotation, exact_states, flip_interval
from sixdof.fields import FieldError
from sixdof.scenario.presets import preset_scenario

_RACKET = preset_scenario("tennis_racket").bodies[0]
RACKET_RADII, RACKET_SPIN = _RACKET.InertiaRadi, _RACKET.AngVel[0]

RACKET_I = np.diag(np.square(RACKET_RADII))
RACKET_W0 = np.array([RACKET_SPIN, 0.0, 0.02])  # the preset's AngVel


def _dop853(body: BodyParams, x0: np.ndarray, times: np.ndarray) -> np.ndarray:
    # the compiled derivative: the numpy one costs ~50 µs a call, minutes here
    pk, loads = kernel.packed(Bodies.of(body)), kernel.load_rows(np.zeros((1, 6)), 1)
    sol = solve_ivp(lambda _t, y: kernel.derivative(pk, y[None], loads)[0], (0.0, times[-1]),
                    x0, method="DOP853", rtol=1e-13, atol=1e-15, t_eval=times)  # fmt: skip
    return sol.y.T


def _exact(body: BodyParams, x0: np.ndarray, times: np.ndarray) -> np.ndarray:
    return exact_states(Bodies.of(body), x0[None], np.zeros((1, 6)), times)[:, 0]


CASES = {
    # a full tensor (principal axes off the body axes), a CG offset and gravity
    "asymmetric, full tensor, CG offset, gravity": (
        BodyParams.from_inertia(3.0, (1.0, 1.5, 2.0, 0.1, -0.05, 0.2), r_cg_body=(0.3, -0.2, 0.5)),
        make_state(
            (1.0, 2.0, 3.0), quat.from_euler(0.3, -0.4, 1.0), (1.0, -2.0, 0.5), (2.0, 4.0, -3.0)
        ),
    ),
    # the polhode circles the smallest moment's axis: the axes are turned end for end
    "asymmetric, about the minor axis": (
        BodyParams.from_radii(2.0, (0.5, 0.6, 0.7), gravity=0.0),
        make_state((0, 0, 0), (1, 0, 0, 0), (0, 0, 0), (5.0, 0.5, -0.3)),
    ),
    "symmetric (prolate)": (
        BodyParams.from_radii(1.0, (0.4, 0.4, 0.2), gravity=9.81),
        make_state((0, 0, 0), quat.from_euler(0.2, 0.1, -0.5), (0.3, 0, 0), (1.0, 0.5, 3.0)),
    ),
    "symmetric (oblate)": (
        BodyParams.from_radii(1.0, (0.3, 0.3, 0.4), gravity=0.0),
        make_state((0, 0, 0), quat.from_euler(-0.3, 0.6, 2.0), (0, 0, 0), (1.0, -0.5, 3.0)),
    ),
    "steady spin about a principal axis": (
        BodyParams.from_radii(1.0, (0.3, 0.4, 0.5), gravity=0.0),
        make_state((0, 0, 0), quat.from_euler(0.1, 0.2, 0.3), (1.0, 0, 0), (0.0, 0.0, 7.0)),
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_exact_matches_dop853_over_20_s(name: str) -> None:
    body, x0 = CASES[name]
    times = np.linspace(0.0, 20.0, 101)
    exact, ref = _exact(body, x0, times), _dop853(body, x0, times)
    assert np.abs(exact[:, 10:13] - ref[:, 10:13]).max() < 1e-10  # ω
    assert np.abs(exact[:, 3:7] - ref[:, 3:7]).max() < 1e-10  # q, sign included: continuous
    assert np.abs(exact[:, 7:10] - ref[:, 7:10]).max() < 1e-9  # v (|v| ~ 200 m/s with g)
    assert np.abs(exact[:, 0:3] - ref[:, 0:3]).max() < 1e-8 * max(1.0, np.abs(ref[:, 0:3]).max())


def _racket_long_double(steps: int, every: int) -> np.ndarray:
    """(q, ω) of the tennis racket every `every` RK4 steps over 20 s, in long double."""
    ld = np.longdouble
    moments = np.square(np.array(RACKET_RADII)).astype(ld)
    i0, i1, i2 = moments

    def f(y: np.ndarray) -> np.ndarray:
        qw, qx, qy, qz, w0, w1, w2 = y
        half = ld(0.5)
        return np.array([
            -half * (qx * w0 + qy * w1 + qz * w2), half * (qw * w0 + qy * w2 - qz * w1),
            half * (qw * w1 + qz * w0 - qx * w2), half * (qw * w2 + qx * w1 - qy * w0),
            (i1 - i2) * w1 * w2 / i0, (i2 - i0) * w2 * w0 / i1, (i0 - i1) * w0 * w1 / i2,
        ], dtype=ld)  # fmt: skip

    y = np.array([1, 0, 0, 0, *RACKET_W0], dtype=ld)
    h = ld(20) / ld(steps)
    out = [y]
    for k in range(steps):
        k1 = f(y)
        k2 = f(y + h / 2 * k1)
        k3 = f(y + h / 2 * k2)
        k4 = f(y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        if (k + 1) % every == 0:
            out.append(y)
    return np.array(out)


def test_tennis_racket_matches_a_long_double_solution_to_1e_10() -> None:
    coarse, fine = _racket_long_double(20_000, 1_000), _racket_long_double(40_000, 2_000)
    ref = ((16 * fine - coarse) / 15).astype(float)  # Richardson: RK4's h⁴ term removed
    assert np.abs(fine - coarse).astype(float).max() < 1e-10  # the reference is converged
    w, q = FreeRotation(RACKET_I, RACKET_W0, np.array([1.0, 0, 0, 0])).at(np.linspace(0, 20, 21))
    assert np.abs(w - ref[:, 4:]).max() < 1e-10
    assert np.abs(q - ref[:, :4]).max() < 1e-10


def test_flip_interval_is_2k_over_lambda_and_the_measured_one() -> None:
    """Times between sign changes of the middle-axis AngVel (x) found by DOP853's event
    location equal 2K(m)/λ to 1e-9 s; the value is the issue's 4.655426 s."""
    expected = flip_interval(RACKET_I, RACKET_W0)
    assert expected == pytest.approx(4.655426, abs=5e-7)
    moments = np.diag(RACKET_I)

    def euler(_t: float, w: np.ndarray) -> np.ndarray:
        return -np.cross(w, moments * w) / moments

    def crossing(_t: float, w: np.ndarray) -> float:
        return float(w[0])

    sol = solve_ivp(euler, (0.0, 20.0), RACKET_W0, method="DOP853", rtol=1e-13, atol=1e-15,
                    events=crossing)  # fmt: skip
    times = sol.t_events[0]
    assert len(times) == 4  # at 2.3, 7.0, 11.6, 16.3 s
    assert np.abs(np.diff(times) - expected).max() < 1e-9
    # …and the exact ω(t) itself crosses zero there
    w, _ = FreeRotation(RACKET_I, RACKET_W0, np.array([1.0, 0, 0, 0])).at(times)
    assert np.abs(w[:, 0]).max() < 1e-8


def test_symmetric_top_precesses_at_l_over_i_perp() -> None:
    """Symmetric body: ω3 constant, ω⊥ turning at Ω = (I3 − I1) ω3/I1 in the body, the
    symmetry axis sweeping its cone about L at |L|/I1 in space (closed forms, no ODE)."""
    i1, i3, w = 0.5, 0.8, np.array([0.4, 0.0, 3.0])
    rot = FreeRotation(np.diag([i1, i1, i3]), w, np.array([1.0, 0, 0, 0]))
    t = np.linspace(0.0, 10.0, 51)
    omega, q = rot.at(t)
    big_omega = (i3 - i1) * w[2] / i1
    np.testing.assert_allclose(omega[:, 2], 3.0, atol=1e-14)
    np.testing.assert_allclose(omega[:, 0], 0.4 * np.cos(big_omega * t), atol=1e-13)
    np.testing.assert_allclose(omega[:, 1], 0.4 * np.sin(big_omega * t), atol=1e-13)
    l_world = quat.rotate(q, omega * np.array([i1, i1, i3]))
    np.testing.assert_allclose(l_world, np.broadcast_to(l_world[0], l_world.shape), atol=1e-13)
    axis = quat.rotate(q, np.array([0.0, 0.0, 1.0]))
    l_hat = l_world[0] / np.linalg.norm(l_world[0])
    along = axis @ l_hat
    np.testing.assert_allclose(along, along[0], atol=1e-13)  # the cone's angle
    perp = axis - np.outer(along, l_hat)
    angle = np.unwrap(np.arctan2(perp @ np.cross(l_hat, perp[0]), perp @ perp[0]))
    rate = np.linalg.norm(l_world[0]) / i1
    np.testing.assert_allclose(angle, rate * t, atol=1e-12)


def test_rk4_error_against_the_exact_solution_is_fourth_order() -> None:
    grid = "0:0.5:5"
    exact = sixdof.run("tennis_racket", integrator="exact", output_times=grid).to_numpy()
    errors = []
    for h in (0.005, 0.0025, 0.00125, 0.000625):  # at 0.01 s: 4.34, pre-asymptotic
        rk4 = sixdof.run("tennis_racket", integrator="rk4", step=h, output_times=grid).to_numpy()
        errors.append(np.abs(rk4 - exact).max())
    orders = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    assert np.all(np.abs(orders - 4.0) < 0.3), orders


def test_exact_headless_run_and_its_refusals() -> None:
    r = sixdof.run("tennis_racket", integrator="exact", t_end=2.0)
    assert r.stats.steps == 0 and "exact" in r.summary
    with pytest.raises(FieldError, match="model 'fhsim'"):
        sixdof.run("tennis_racket", integrator="exact", model="fhsim", t_end=1.0)
    scenario = preset_scenario("tennis_racket")
    scenario.bodies[0].Moment = (0.0, 0.0, 1.0)
    with pytest.raises(FieldError, match="has a Moment"):
        sixdof.run(scenario, integrator="exact", t_end=1.0)
    scenario.bodies[0].Moment = (0.0, 0.0, 0.0)
    scenario.bodies[0].Force = (1.0, 2.0, 3.0)  # uniform: allowed, the CG accelerates
    x = sixdof.run(scenario, integrator="exact", t_end=2.0).arrays()["T.Pos"][-1]
    np.testing.assert_allclose(x, 0.5 * np.array([1.0, 2.0, 3.0]) * 4.0, atol=1e-12)
    bad = BodyParams.from_radii(1.0, (0.3, 0.4, 0.5))
    x0 = make_state((0, 0, 0), (1.0, 0.1, 0, 0), (0, 0, 0), (1, 2, 3))
    with pytest.raises(FieldError, match="not a rotation"):
        sixdof.dynamics.integrate(Bodies.of(bad), x0, np.zeros(6), [0.0, 1.0],
                                  sixdof.dynamics.IntegratorSettings("exact"))  # fmt: skip


def test_exact_refuses_elements() -> None:
    spec = {
        "bodies": [{"Name": "P", "AngVel": [0, 0, 1]}],
        "elements": [{"kind": "pivot", "body": "P", "point": [0, 0, -0.5]}],
        "integration": {"method": "exact", "TOutput": "0:0.1:1"},
    }
    with pytest.raises(FieldError, match="elements"):
        sixdof.run(spec)


def test_quaternion_is_continuous_through_many_turns() -> None:
    """The half-angle products keep q continuous (no sign jumps) however far t goes."""
    rot = FreeRotation(np.diag([0.3, 0.5, 0.7]), np.array([3.0, 1.0, -2.0]), np.ones(4) / 2)
    t = np.linspace(0.0, 200.0, 200_001)
    _, q = rot.at(t)
    assert np.abs(np.diff(q, axis=0)).max() < 4.0 * 0.001  # |q̇| ≤ |ω|/2 ≈ 1.9
    assert math.isclose(float(np.linalg.norm(q, axis=1).max()), 1.0, abs_tol=1e-14)
