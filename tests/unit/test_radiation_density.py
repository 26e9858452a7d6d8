"""A radiation fit says the water it is for (`fit.density`); in a scenario with other water its
added mass A∞, its memory's output (C, D) and its waves' force scale by the ratio, as the
file's coefficients would (potential flow's pressure is ρ ∂φ/∂t), and a stiffness that holds
the body's weight is refused there (scenario/kinds/radiation.py, radiation_water.py)."""

from __future__ import annotations

import copy
import json
import shutil
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sixdof.dynamics.kinds.radiation import Radiation
from sixdof.fields import FieldError
from sixdof.scenario import Scenario, load_scenario_file
from sixdof.scenario.presets import preset_scenario

SHIPPED = resources.files("sixdof.scenario.presets") / "bem" / "oes_sphere.nc"


def built(scenario: Scenario, body: int = 0) -> Radiation:
    system = scenario.system()
    assert system is not None
    return next(e for e in system.elements if isinstance(e, Radiation) and e.body == body)


def in_water(scenario: Scenario, density: float, **water: Any) -> Scenario:
    data = scenario.model_dump(mode="json")
    data["water"] = {**(data.get("water") or {}), "density": density, **water}
    return Scenario.model_validate(data)


@pytest.fixture(scope="module")
def barge() -> Scenario:
    return preset_scenario("barge_in_waves")


def test_a_fit_for_fresh_water_in_sea_water_is_scaled(barge: Scenario) -> None:
    fresh = built(barge)
    assert barge.water is not None and barge.water.density == 1000.0
    sea = built(in_water(barge, 1025.0))
    k = 1.025
    np.testing.assert_allclose(sea.infinite, k * np.asarray(fresh.infinite), rtol=1e-15)
    np.testing.assert_allclose(sea.c, k * np.asarray(fresh.c), rtol=1e-15)
    np.testing.assert_allclose(sea.d, k * np.asarray(fresh.d), rtol=1e-15)
    assert sea.a == fresh.a and sea.b == fresh.b  # the memory's own dynamics are the water's


def test_the_waves_force_from_the_file_is_scaled_too(tmp_path: Path) -> None:
    """The OES sphere with the file's excitation in a 0.05 m, 7.85 s wave, fitted for fresh
    water, then the same scenario in sea water: each wave's force per metre × 1.025."""
    shutil.copyfile(str(SHIPPED), tmp_path / "oes_sphere.nc")
    scenario = {
        "bodies": [{"Name": "Sphere", "Mesh": "sphere", "Size": [10, 10, 10],
                    "Mass": 1000 * 2 / 3 * np.pi * 125, "InertiaRadi": [2, 2, 2]}],
        "elements": [{"kind": "radiation", "body": "Sphere", "file": "oes_sphere.nc",
                      "excitation": "bem", "hydrostatics": "linear"}],
        "water": {"density": 1000.0, "waves": [{"amplitude": 0.05, "period": 7.85}]},
    }  # fmt: skip
    (tmp_path / "sphere.json").write_text(json.dumps(scenario))
    fresh_scenario = load_scenario_file(tmp_path / "sphere.json")
    fresh, sea = built(fresh_scenario), built(in_water(fresh_scenario, 1025.0))
    head = 6  # a, ω, k, cos β, sin β, β: the water's own, unchanged
    np.testing.assert_allclose(sea.waves[:, :head], fresh.waves[:, :head], rtol=1e-15)
    np.testing.assert_allclose(sea.waves[:, head:], 1.025 * fresh.waves[:, head:], rtol=1e-15)
    assert np.abs(fresh.waves[:, head:]).max() > 1e4  # N per metre: there is a force


def test_a_fit_that_does_not_say_its_water_is_taken_as_it_is(barge: Scenario) -> None:
    data = barge.model_dump(mode="json")
    for element in data["elements"]:
        if element["kind"] == "radiation":
            element["fit"]["density"] = None
    unsaid = Scenario.model_validate(data)
    assert built(in_water(unsaid, 1025.0)).infinite == built(barge).infinite


def test_the_heave_of_the_barge_in_denser_water_follows_its_added_mass(barge: Scenario) -> None:
    """The built element's A∞ is what the dynamics use: the mass matrix's heave entry."""
    from sixdof.dynamics.elements import added_mass_matrix

    sea = in_water(barge, 1025.0)
    fresh_system, sea_system = barge.system(), sea.system()
    assert fresh_system is not None and sea_system is not None
    fresh_added = added_mass_matrix(fresh_system.elements, len(barge.bodies))
    sea_added = added_mass_matrix(sea_system.elements, len(barge.bodies))
    assert fresh_added is not None and sea_added is not None
    # Barge's memory (scaled) and Undamped's added_mass of 512 t (an element of its own: not)
    assert sea_added[0, 2, 2] == pytest.approx(1.025 * fresh_added[0, 2, 2], rel=1e-15)
    assert sea_added[1, 2, 2] == fresh_added[1, 2, 2]


def stiff_sphere(density: float) -> dict[str, Any]:
    """The OES sphere's twin on linear hydrostatics, its fit given a stiffness for `density`."""
    data = preset_scenario("oes_sphere_1m").model_dump(mode="json")
    twin = next(
        e for e in data["elements"] if e["kind"] == "radiation" and e["hydrostatics"] == "linear"
    )
    twin["fit"]["stiffness"] = np.diag([0.0, 0.0, 7.7e5, 1e6, 1e6, 0.0]).tolist()
    twin["fit"]["density"] = density
    return data


def test_a_fits_stiffness_for_other_water_is_refused() -> None:
    Scenario.model_validate(stiff_sphere(1000.0))  # its own water: fine
    data = stiff_sphere(1025.0)
    with pytest.raises(ValueError) as refused:
        Scenario.model_validate(copy.deepcopy(data))
    error = refused.value
    cause = error if isinstance(error, FieldError) else error.__cause__ or error
    text = str(cause)
    assert "hydrostatics linear" in text and "1025 kg/m³" in text and "here is 1000" in text
