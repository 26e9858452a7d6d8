"""The geometric integrator (dynamics/splitting.py): its order, what it keeps over a million
steps that RK4 does not, and that its steps do not depend on how they are grouped."""

from __future__ import annotations

import numpy as np
import pytest

import sixdof
from sixdof.dynamics import Bodies, BodyParams, kernel, make_state, splitting
from sixdof.dynamics import quaternion as quat
from sixdof.dynamics.exact import exact_states
from sixdof.fields import FieldError
from sixdof.scenario.presets import preset_scenario

_RACKET = preset_scenario("tennis_racket").bodies[0]
RACKET_RADII, RACKET_SPIN = _RACKET.InertiaRadi, _RACKET.AngVel[0]

BODY = BodyParams.from_inertia(3.0, (1.0, 1.5, 2.0, 0.1, -0.05, 0.2), r_cg_body=(0.3, -0.2, 0.5))
X0 = make_state(
    (1.0, 2.0, 3.0), quat.from_euler(0.3, -0.4, 1.0), (1.0, -2.0, 0.5), (2.0, 4.0, -3.0)
)


def _geometric(bodies: Bodies, x0: np.ndarray, u: np.ndarray, t: float, n: int) -> np.ndarray:
    x = np.array(x0[None], order="C")
    splitting.advance(splitting.pack(bodies), x, kernel.load_rows(u[None], 1), t / n, n)
    return x[0]


def _orders(errors: list[float]) -> np.ndarray:
    return np.log2(np.array(errors[:-1]) / np.array(errors[1:]))


def test_fourth_order_torque_free_against_the_exact_solution() -> None:
    """A full tensor, a CG offset and gravity (the kick is uniform), 2 s; three halvings."""
    bodies = Bodies.of(BODY)
    exact = exact_states(bodies, X0[None], np.zeros((1, 6)), np.array([2.0]))[0, 0]
    errors = [np.abs(_geometric(bodies, X0, np.zeros(6), 2.0, n) - exact).max()
              for n in (100, 200, 400, 800)]  # fmt: skip
    assert np.all(np.abs(_orders(errors) - 4.0) < 0.3), (errors, _orders(errors))


def test_fourth_order_under_a_moment_and_a_force() -> None:
    """Global Force and Moment (the kick turns L with the body), against RK4 at 50 µs."""
    bodies, u = Bodies.of(BODY), np.array([3.0, -2.0, -20.0, 0.5, -1.0, 2.0])
    ref = np.array(X0[None], order="C")
    kernel.advance(kernel.packed(bodies), ref, u[None], 5e-5, 40_000, "rk4")
    errors = [
        np.abs(_geometric(bodies, X0, u, 2.0, n) - ref[0]).max() for n in (100, 200, 400, 800)
    ]
    assert np.all(np.abs(_orders(errors) - 4.0) < 0.3), (errors, _orders(errors))


def _energy_and_momentum(x: np.ndarray, moments: np.ndarray) -> tuple[float, float]:
    w = x[0, 10:13]
    return 0.5 * float(moments @ (w * w)), float(np.linalg.norm(moments * w))


def test_a_million_steps_of_the_tennis_racket_energy_and_momentum_stay_bounded() -> None:
    """10⁶ steps of 10 ms (10⁴ s, ~2000 flips). geometric: energy error bounded (the last
    tenth's largest no larger than the first tenth's, both ~2e-8), |L| to rounding (~2e-13),
    |q| = 1. RK4: energy and |L| drift linearly (×10 from the first tenth to the last)."""
    body = BodyParams.from_radii(1.0, RACKET_RADII, gravity=0.0)
    bodies, moments = Bodies.of(body), np.square(np.array(RACKET_RADII))
    x0 = make_state((0, 0, 0), (1, 0, 0, 0), (0, 0, 0), (RACKET_SPIN, 0.0, 0.02))
    e0, l0 = _energy_and_momentum(x0[None], moments)
    params, loads = splitting.pack(bodies), kernel.load_rows(np.zeros((1, 6)), 1)
    pk = kernel.packed(bodies)
    drift = {}
    for method in ("geometric", "rk4"):
        x = np.array(x0[None], order="C")
        de, dl = [], []
        for _ in range(100):
            if method == "geometric":
                splitting.advance(params, x, loads, 0.01, 10_000)
            else:
                kernel.advance(pk, x, np.zeros((1, 6)), 0.01, 10_000, "rk4")
            e, m = _energy_and_momentum(x, moments)
            de.append(abs(e - e0) / e0)
            dl.append(abs(m - l0) / l0)
        drift[method] = (np.array(de), np.array(dl), float(np.linalg.norm(x[0, 3:7])))
    de, dl, qn = drift["geometric"]
    assert de.max() < 5e-8 and de[-10:].max() <= 1.5 * de[:10].max()  # no secular trend
    assert dl.max() < 1e-11
    assert abs(qn - 1.0) < 1e-14
    de, dl, _ = drift["rk4"]
    assert de[-10:].max() > 8.0 * de[:10].max() and de[-1] > 5e-7
    assert dl[-10:].max() > 8.0 * dl[:10].max()


def test_n_steps_in_one_call_equal_n_calls_bit_for_bit() -> None:
    """The state is converted every step, so the live loop's grouping of steps (which a
    replay does not repeat) changes no bit."""
    bodies, u = Bodies.of(BODY), np.array([0.0, 0.0, 0.0, 0.5, -1.0, 2.0])
    params, loads = splitting.pack(bodies), kernel.load_rows(u[None], 1)
    once = np.array(X0[None], order="C")
    splitting.advance(params, once, loads, 1e-3, 37)
    each = np.array(X0[None], order="C")
    for _ in range(37):
        splitting.advance(params, each, loads, 1e-3, 1)
    assert np.array_equal(once, each)


def test_headless_geometric_and_its_refusals() -> None:
    exact = sixdof.run("tennis_racket", integrator="exact", t_end=10.0).to_numpy()
    geo = sixdof.run("tennis_racket", integrator="geometric", step=0.005, t_end=10.0)
    assert geo.stats.steps == 2000
    assert np.abs(geo.to_numpy() - exact).max() < 1e-4  # 1.0e-6 measured at 5 ms
    with pytest.raises(FieldError, match="fhsim"):
        sixdof.run("tennis_racket", integrator="geometric", model="fhsim", t_end=1.0)
    with pytest.raises(ValueError, match="stepsize"):
        sixdof.run("tennis_racket", integrator="geometric", step=-1.0, t_end=1.0)
