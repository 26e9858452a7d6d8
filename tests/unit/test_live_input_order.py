"""Live inputs that depend on the state keep RK4's fourth order.

A body-frame force and moment, a force at a body point (global or body frame) and a
spring pulling a body point toward a world target (the drag-to-push hand) are
load rows the kernel evaluates at every RK stage from the stage's own orientation. A live
run (paused, stepped) is compared with a tight DOP853 solution of the same continuous load;
held over each step instead (a zero-order hold) the error would shrink only with h.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from sixdof.dynamics import derivative, kernel
from sixdof.scenario import BodySpec, Integration, Scenario
from sixdof.simulation import LiveSimulation

KINDS = {
    "body frame": {"force": (2.0, -1.0, 0.5), "moment": (0.1, 0.3, -0.2), "frame": "body"},
    "global at a point": {"force": (1.5, 0.5, -2.0), "frame": "global", "point": (0.3, -0.2, 0.1)},
    "body at a point": {"force": (0.0, 2.0, 1.0), "frame": "body", "point": (0.25, 0.1, -0.15)},
    "spring toward a target": {
        "channel": "push",
        "point": (0.3, 0.1, -0.2),
        "spring": {"target": (1.0, 2.0, 0.5), "stiffness": 20.0, "damping": 3.0},
    },
}
# Tumbling with a CG offset and gravity: the load turns with the body all the time.
SPEC = {
    "Name": "B",
    "Mass": 2.0,
    "InertiaRadi": (0.3, 0.5, 0.4),
    "CGOffset": (0.05, -0.02, 0.03),
    "AngVel": (0.4, 2.0, 0.7),
    "LocalVel": (1.0, 0.0, 0.0),
}
T = 2.0


def live(kind: str, h: float) -> LiveSimulation:
    scenario = Scenario(bodies=[BodySpec(**SPEC)], integration=Integration(stepsize=h))
    sim = LiveSimulation(scenario, running=False)
    sim.set_input("B", **KINDS[kind])
    return sim


def reference(kind: str) -> np.ndarray:
    """The state at T under the continuous load: DOP853 at 1e-13 on the numpy derivative."""
    sim = live(kind, 1e-3)
    loads, bodies = sim.loads(), sim.bodies

    def rhs(_t: float, y: np.ndarray) -> np.ndarray:
        x = y.reshape(1, 13)
        return derivative(x, kernel.applied(loads, x), bodies).ravel()

    x0 = sim.state_array().ravel()
    sol = solve_ivp(rhs, (0.0, T), x0, method="DOP853", rtol=1e-13, atol=1e-13)
    assert sol.success
    return sol.y[:, -1]


def error(kind: str, h: float, ref: np.ndarray) -> float:
    sim = live(kind, h)
    assert sim.step(round(T / h)) == round(T / h)
    return float(np.max(np.abs(sim.state_array()[0] - ref)))


@pytest.mark.parametrize("kind", list(KINDS))
def test_state_dependent_inputs_converge_at_fourth_order(kind: str) -> None:
    ref = reference(kind)
    errors = [error(kind, h, ref) for h in (4e-3, 2e-3, 1e-3, 5e-4)]
    orders = [math.log2(a / b) for a, b in itertools.pairwise(errors)]
    # measured: 4.01-4.14 for every kind; a load held over each step gives ~1
    assert all(abs(p - 4.0) <= 0.3 for p in orders), (errors, orders)
    assert error(kind, 1e-4, ref) <= 1e-8  # measured 1.5e-13 to 5.2e-13
