"""A wave steeper than 1/7 is refused with its reason (issue 45): a 1.5 m, 3 s wave (14 m long,
H/λ = 0.21) was accepted without a word and the scene was lost. Linear (Airy) theory, which the
kernels use, does not hold past the breaking steepness."""

from __future__ import annotations

import math

import pytest
from pydantic import ValidationError

from sixdof.fields import FieldError
from sixdof.scenario import Scenario
from sixdof.scenario.water import MAX_STEEPNESS, WaterSpec
from sixdof.simulation.changes import plan_load, plan_water


def steepness(amplitude: float, period: float) -> float:
    """H/λ of a deep-water wave: λ = g T² / (2π)."""
    return 2 * amplitude / (9.81 * period**2 / (2 * math.pi))


def test_the_issues_wave_is_refused_with_the_reason() -> None:
    assert steepness(1.5, 3.0) == pytest.approx(0.2135, abs=1e-3)
    with pytest.raises(ValidationError, match=r"steepness H/λ = 0\.21.*1/7.*linear wave theory"):
        WaterSpec.model_validate({"waves": [{"amplitude": 1.5, "period": 3.0}]})


def test_the_limit_is_the_breaking_steepness() -> None:
    period = 4.0
    limit = MAX_STEEPNESS * 9.81 * period**2 / (2 * math.pi) / 2  # the amplitude at H/λ = 1/7
    WaterSpec.model_validate({"waves": [{"amplitude": 0.99 * limit, "period": period}]})
    with pytest.raises(ValidationError, match="waves\\[1\\]"):
        WaterSpec.model_validate(
            {"waves": [{"amplitude": 0.1, "period": 8}, {"amplitude": 1.01 * limit, "period": 4}]}
        )


def test_shallow_water_makes_the_same_wave_steeper() -> None:
    wave = {"amplitude": 0.5, "period": 4.0}  # deep: 25 m long, H/λ = 0.04
    WaterSpec.model_validate({"waves": [wave]})
    with pytest.raises(ValidationError, match="past the breaking limit"):
        WaterSpec.model_validate({"waves": [wave], "depth": 0.2})  # 5.5 m long: H/λ = 0.18


def test_a_live_change_of_the_water_is_refused_too() -> None:
    from sixdof.scenario.presets import preset_scenario

    scenario: Scenario = preset_scenario("buoy_in_waves")
    plan, _ = plan_load(scenario)
    with pytest.raises(FieldError, match="breaking limit"):
        plan_water(plan, {"waves": [{"amplitude": 1.5, "period": 3.0}]})
