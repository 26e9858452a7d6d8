"""A world's step estimate is worked out by the thread that changed the world, never by a tick
(issue 40: a shared tick spent ~6-10 ms estimating a 64-ship fleet, its deep copy included,
while every cheap room in it waited)."""

from __future__ import annotations

from typing import Any

import pytest
from support.worlds import SHIP, fleet

from sixdof.simulation import cost
from sixdof.simulation.live import LiveSimulation


def _refuse_estimates(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []

    def counted(*args: Any, **kwargs: Any) -> float:
        calls.append(1)
        return 0.0

    monkeypatch.setattr(cost, "step_seconds", counted)
    return calls


def test_each_change_estimates_once_and_ticks_only_read(monkeypatch: pytest.MonkeyPatch) -> None:
    sim = LiveSimulation(fleet(2, 2), running=True)
    known = sim.step_estimate()
    assert known == pytest.approx(cost.step_seconds(sim.scenario), rel=1e-12)
    assert known > 0.0
    calls = _refuse_estimates(monkeypatch)
    sim.step(3)
    sim.advance(sim._clock() + 0.05)
    sim.set_input("S0", force=[1.0, 0.0, 0.0], channel="push")
    assert sim.step_estimate() == known  # read, not worked out again
    assert calls == []
    sim.set_water({"waves": [{"amplitude": 0.1, "period": 3.0}]})
    assert len(calls) == 1  # by the change itself, before any tick asks
    sim.set_params("S0", Mass=7000.0)
    sim.set_elements([{"kind": "buoyancy", "body": "S1"}])
    sim.load({"bodies": [{**SHIP, "Name": "Alone"}]})
    assert len(calls) == 4
    sim.step_estimate()
    sim.step(2)
    assert len(calls) == 4


def test_the_estimate_follows_the_world() -> None:
    sim = LiveSimulation(fleet(2, 0), running=False)
    still = sim.step_estimate()
    sim.set_water({"waves": [{"amplitude": 0.1, "period": 3.0 + k} for k in range(8)]})
    waves = sim.step_estimate()
    assert waves == pytest.approx(cost.step_seconds(sim.scenario), rel=1e-12)
    assert waves > 2 * still  # every hull vertex sums eight components now
    sim.set_params(integrator="euler")
    assert sim.step_estimate() == pytest.approx(waves / 4, rel=1e-12)  # 1 stage, not 4
