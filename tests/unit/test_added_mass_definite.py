"""Added mass must leave M + M_A positive definite (issue 40, finding 16): checked with the
body wherever an added mass can arrive (a scenario, a live set_elements, a set_params that
changes the body's mass matrix), refused naming the field and the smallest eigenvalue, and
changing nothing. Before, a negative diagonal was checked for symmetry only: a singular sum
paused the room with numpy's LinAlgError, a negative one ran on silently."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from pydantic import ValidationError

from sixdof.fields import FieldError
from sixdof.scenario import Scenario, scenario_from_xml, scenario_to_xml
from sixdof.scenario.errors import field_error
from sixdof.scenario.file_errors import ScenarioFileError
from sixdof.scenario.presets import PRESETS
from sixdof.simulation import LiveSimulation

MASS = 10.0  # the hull's: M_RB's surge entry, and its smallest eigenvalue with radii of 1 m


def hull(added: dict[str, Any] | None = None) -> dict[str, Any]:
    """A hull (and a bystander body) with `added` as its third element."""
    elements: list[dict[str, Any]] = [
        {"kind": "damper", "body": "B"},
        {"kind": "buoyancy", "body": "B"},
    ]
    if added is not None:
        elements.append({"kind": "added_mass", "body": "Hull", **added})
    return {
        "name": "hull",
        "bodies": [
            {"Name": "Hull", "Mass": MASS, "InertiaRadi": [1.0, 1.0, 1.0], "Gravity": 0.0},
            {"Name": "B", "Gravity": 0.0},
        ],
        "elements": elements,
    }


def diagonal(*first: float) -> dict[str, Any]:
    return {"diagonal": [*first, *[0.0] * (6 - len(first))]}


def refusal(scenario: dict[str, Any]) -> FieldError:
    with pytest.raises(ValidationError) as caught:
        Scenario.model_validate(scenario)
    return field_error(caught.value)


@pytest.mark.parametrize(
    ("added", "field", "smallest"),
    [
        (diagonal(-13.2), "elements[2].diagonal", "-3.2"),  # negative definite: ran silently
        (diagonal(-MASS), "elements[2].diagonal", "eigenvalue is"),  # singular: LinAlgError
        ({"matrix": [[-20.0 if a == b == 5 else 0.0 for b in range(6)] for a in range(6)]},
         "elements[2].matrix", "-10"),
    ],
)  # fmt: skip
def test_a_scenario_whose_added_mass_leaves_m_plus_ma_not_definite_is_refused(
    added: dict[str, Any], field: str, smallest: str
) -> None:
    error = refusal(hull(added))
    assert error.field == field, error
    assert error.message.startswith(f"{field}: M + M_A of body 'Hull'"), error.message
    assert "must be positive definite" in error.message and smallest in error.message
    # the live load of its JSON says the same and changes nothing
    sim = LiveSimulation(hull(diagonal(1.0)))
    before = (sim.scenario, sim.version)
    with pytest.raises(FieldError) as caught:
        sim.load(hull(added))
    assert caught.value.field == field and "positive definite" in caught.value.message
    assert (sim.scenario, sim.version) == before


def test_added_mass_that_keeps_the_sum_definite_is_accepted() -> None:
    Scenario.model_validate(hull(diagonal(-MASS + 0.5, 5.0, 5.0)))  # M + M_A = 0.5 in surge
    shipped = [p.scenario() for p in PRESETS.values()]  # the drifting barge has added mass
    assert any(e.kind == "added_mass" for s in shipped for e in s.elements)
    for scenario in shipped:
        Scenario.model_validate(scenario.model_dump(mode="json"))


def test_an_fhsim_xml_file_names_the_element() -> None:
    good = scenario_to_xml(Scenario.model_validate(hull(diagonal(1.0))))
    text = good.replace('Diagonal="1,0,0,0,0,0"', 'Diagonal="-13.2,0,0,0,0,0"')
    assert text != good
    with pytest.raises(ScenarioFileError) as caught:
        scenario_from_xml(text)
    assert '<Lib Name="AddedMass1"> Diagonal: M + M_A' in str(caught.value), caught.value
    assert "positive definite; its smallest eigenvalue is -3.2" in str(caught.value)


def test_set_elements_live_is_refused_and_changes_nothing() -> None:
    sim = LiveSimulation(hull(diagonal(1.0)))
    sim.run_steps(10)
    before = (sim.scenario, sim.version, sim.state_array().copy())
    bad = [{"kind": "added_mass", "body": "Hull", "diagonal": [-11.0, 0, 0, 0, 0, 0]}]
    with pytest.raises(FieldError) as caught:
        sim.set_elements(bad)
    assert caught.value.field == "elements[0].diagonal", caught.value
    assert "smallest eigenvalue is -1" in caught.value.message, caught.value.message
    assert (sim.scenario, sim.version) == before[:2]
    assert np.array_equal(sim.state_array(), before[2])
    sim.run_steps(10)  # and it goes on
    assert np.all(np.isfinite(sim.state_array()))


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"Mass": 4.0}, "Mass"),  # surge: 4 - 5 < 0
        ({"InertiaRadi": [0.5, 0.5, 0.5]}, "InertiaRadi"),  # yaw: 10·0.25 - 3 < 0
        ({"Inertia": [1.0, 1.0, 1.0, 0.0, 0.0, 0.0]}, "Inertia"),
        ({"CGOffset": [0.0, 0.0, 3.0]}, "CGOffset"),  # couples surge and pitch
        ({"Gravity": 1.0, "Mass": 2.0}, "Mass"),
    ],
)
def test_set_params_that_would_break_it_is_refused_and_changes_nothing(
    fields: dict[str, Any], named: str
) -> None:
    sim = LiveSimulation(hull(diagonal(-5.0, 0.0, 0.0, 0.0, 0.0, -3.0)))
    sim.run_steps(10)
    before = (sim.scenario, sim.version, sim.state_array().copy())
    with pytest.raises(FieldError) as caught:
        sim.set_params("Hull", **fields)
    assert caught.value.field == named, caught.value
    assert caught.value.message.startswith(f"{named}: "), caught.value.message
    assert "elements[2].diagonal" in caught.value.message
    assert "would not be positive definite" in caught.value.message
    assert (sim.scenario, sim.version) == before[:2]
    assert np.array_equal(sim.state_array(), before[2])
    with pytest.raises(FieldError):  # every body at once (a ghost's): the same
        sim.set_params_each(**fields)
    assert (sim.scenario, sim.version) == before[:2]


def test_set_params_of_other_bodies_or_within_the_margin_is_accepted() -> None:
    sim = LiveSimulation(hull(diagonal(-5.0)))
    sim.set_params("B", Mass=0.001)  # no added mass on B
    sim.set_params("Hull", Mass=5.5)  # surge 0.5 > 0
    assert sim.scenario.bodies[0].Mass == 5.5
