"""RadiatedEnergy (dynamics.stored.radiated_energy): the work a body's motion has done on the
water through its radiation elements, their last state E_rad, in a live room's frames. The OES
sphere released 1 m above still water: what it starts with is its TotalEnergy (which holds the
water's ½ νᵀ A∞ ν) plus RadiatedEnergy, to rounding; RadiatedEnergy only grows (a passive
memory)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from sixdof.scenario.kinds.radiation import RadiationElement
from sixdof.scenario.presets import preset_scenario
from sixdof.simulation import LiveSimulation


def test_the_sphere_loses_to_the_water_what_the_water_took() -> None:
    scenario = preset_scenario("oes_sphere_1m")
    element = next(e for e in scenario.elements if isinstance(e, RadiationElement))
    assert element.fit is not None
    infinite = np.asarray(element.fit.infinite)
    sim = LiveSimulation(scenario, running=False)
    start = sim.frame()["bodies"][0]
    assert start["RadiatedEnergy"] == 0.0
    radiated = [0.0]
    for _ in range(4):  # 1.6 s: down through the water and past the first trough
        sim.step(400)
        body = sim.frame()["bodies"][0]
        nu = np.r_[body["LocalVel"], body["AngVel"]]
        water = 0.5 * nu @ infinite @ nu  # in TotalEnergy (StoredEnergy), not KineticEnergy
        assert water > 1e-3 * abs(start["TotalEnergy"])  # so the balance would miss it
        total = body["TotalEnergy"] + body["RadiatedEnergy"]
        assert total == pytest.approx(start["TotalEnergy"], rel=1e-9)
        radiated.append(body["RadiatedEnergy"])
    assert all(b > a for a, b in itertools.pairwise(radiated)), radiated
    # tens of kJ, out of the 1 m drop's mg·1 m = 2.6 MJ
    assert 1e4 < radiated[-1] < 2.6e6


def test_a_body_without_radiation_radiates_nothing() -> None:
    sim = LiveSimulation(preset_scenario("floating_box"), running=False)
    sim.step(100)
    assert [b["RadiatedEnergy"] for b in sim.frame()["bodies"]] == [0.0]
