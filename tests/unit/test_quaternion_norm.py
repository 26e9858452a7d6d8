"""A non-unit initial Quater is kept, and the norm term of seed 001 pulls it back to one.

With n = qᵀq the kinematics give ṅ = 2 qᵀq̇ = (1 − n) n / τ (the rotation part is
orthogonal to q), so n(t) = 1 / (1 + (1/n₀ − 1) e^(−t/τ)): |q| − 1 decays at rate 1/τ.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from pydantic import ValidationError

from sixdof.dynamics.model import NORM_TIME_CONSTANT as TAU
from sixdof.fields import FieldError
from sixdof.scenario import BodySpec, Integration, Scenario
from sixdof.scenario.errors import field_error
from sixdof.simulation import LiveSimulation


def norm_squared(t: float, n0: float) -> float:
    return 1.0 / (1.0 + (1.0 / n0 - 1.0) * math.exp(-t / TAU))


@pytest.mark.parametrize("start", [1.1, 0.8])
def test_a_non_unit_quater_decays_at_one_over_tau(start: float) -> None:
    q0 = start * np.array([0.6, 0.0, 0.8, 0.0])
    spec = BodySpec(Name="B", Quater=tuple(q0), AngVel=(0.5, 2.0, -1.0), Gravity=0.0)
    scenario = Scenario(bodies=[spec], integration=Integration(stepsize=1e-4))
    assert scenario.bodies[0].Quater == pytest.approx(tuple(q0), abs=0)  # kept as given
    assert "is not 1" in scenario.notes()[0]
    sim = LiveSimulation(scenario, running=False)
    n0 = start**2
    for k in range(1, 6):  # t = 5 ms … 25 ms: e^(−t/τ) from 0.61 down to 0.08
        sim.step(50)
        t = k * 50 * 1e-4
        q = sim.state_array()[0, 3:7]
        deviation, expected = q @ q - 1.0, norm_squared(t, n0) - 1.0
        assert deviation == pytest.approx(expected, rel=0.01), (t, deviation, expected)
    # the rate itself: ln|n − 1| falls at n/τ, so at 1/τ within 1 % once n is near one
    sim.step(100)
    d1 = abs(sim.state_array()[0, 3:7] @ sim.state_array()[0, 3:7] - 1.0)
    sim.step(100)
    d2 = abs(sim.state_array()[0, 3:7] @ sim.state_array()[0, 3:7] - 1.0)
    rate = math.log(d1 / d2) / 0.01
    exact = math.log(abs(norm_squared(0.035, n0) - 1) / abs(norm_squared(0.045, n0) - 1)) / 0.01
    assert rate == pytest.approx(exact, rel=1e-3)
    assert rate == pytest.approx(1.0 / TAU, rel=0.012)


@pytest.mark.parametrize(
    ("quater", "text"),
    [
        ((1.0, 0.0, 0.0, 1e200), "must be in [-2, 2]"),  # overflow: refused, not zeros
        ((0.0, 0.0, 0.0, 0.0), "norm must be in [0.5, 2]"),
        ((0.2, 0.0, 0.0, 0.0), "norm must be in [0.5, 2]"),
        ((1.5, 1.5, 0.0, 0.0), "norm must be in [0.5, 2]"),
    ],
)
def test_impossible_quaternions_are_refused_with_a_field_error(
    quater: tuple[float, ...], text: str
) -> None:
    with pytest.raises(ValidationError) as info:
        BodySpec(Name="B", Quater=quater)
    refused = field_error(info.value)
    assert refused.field == "Quater" and text in refused.message
    sim = LiveSimulation(Scenario(), running=False)
    before = sim.state_array()
    with pytest.raises(FieldError) as err:
        sim.reset("B", {"Quater": list(quater)})
    assert err.value.field == "Quater" and text in err.value.message
    np.testing.assert_array_equal(sim.state_array(), before)
