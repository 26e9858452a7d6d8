"""The joint in a scenario (issue 41): its JSON form, the ends that coincide at the start
filled in, a gap refused naming it and where the body would have to be, the checks."""

from __future__ import annotations

import numpy as np
import pytest

from sixdof.dynamics.kinds.joint import Joint, gaps
from sixdof.dynamics.kinds.poses import Poses
from sixdof.fields import FieldError
from sixdof.headless import run_scenario
from sixdof.scenario import Scenario, scenario_from_json, scenario_from_xml, scenario_to_xml

DOUBLE = {
    "bodies": [
        {"Name": "Upper", "Mass": 1.0, "InertiaRadi": [0.29, 0.29, 0.01], "Pos": [0, 0, 0.5]},
        {"Name": "Lower", "Mass": 1.0, "InertiaRadi": [0.29, 0.29, 0.01], "Pos": [0, 0, 1.5],
         "AngVel": [0, 2.0, 0]},
    ],
    "integration": {"method": "rk4", "stepsize": 0.001, "TOutput": "0:0.1:1"},
    "elements": [
        {"kind": "joint", "type": "hinge", "body": "Upper", "point": [0, 0, -0.5]},
        {"kind": "joint", "type": "hinge", "body": "Lower", "point": [0, 0, -0.5],
         "to": {"body": "Upper"}},
    ],
}  # fmt: skip


def test_a_double_pendulum_as_json_is_joined_where_its_ends_meet() -> None:
    scenario = Scenario.model_validate(DOUBLE)
    system = scenario.system()
    assert system is not None
    upper, lower = system.elements
    assert isinstance(upper, Joint) and isinstance(lower, Joint)
    assert upper.other is None and upper.to == pytest.approx((0.0, 0.0, 0.0))
    assert lower.other == 0 and lower.to == pytest.approx((0.0, 0.0, 0.5))
    assert scenario_from_xml(scenario_to_xml(scenario)).elements == scenario.elements
    assert scenario_from_json(scenario.model_dump_json()).elements == scenario.elements


def test_a_double_pendulum_runs_from_json_and_stays_joined() -> None:
    """The lower link is kicked: the upper one must follow, the hinges hold."""
    scenario = Scenario.model_validate(DOUBLE)
    result = run_scenario(scenario)
    x = np.asarray(result.states)[-1]
    system = scenario.system()
    assert system is not None
    poses = Poses.of(scenario.batch(), x)
    assert max(max(gaps(e, poses)) for e in system.elements) < 1e-9  # type: ignore[arg-type]
    assert abs(x[0, 0]) > 1e-3  # the upper link swung


def test_a_joint_whose_ends_start_apart_is_refused_naming_the_gap() -> None:
    spec = {**DOUBLE, "elements": [
        {"kind": "joint", "type": "ball", "body": "Lower", "point": [0, 0, -0.5],
         "to": {"body": "Upper", "point": [0, 0, 0.49]}},
    ]}  # fmt: skip
    with pytest.raises(FieldError, match=r"0\.01 m apart") as info:
        Scenario.model_validate(spec).system()
    assert "'Lower' would have to be at Pos [0, 0, 1.49]" in str(info.value)


@pytest.mark.parametrize(
    ("element", "words"),
    [
        ({"to": {"body": "Lower"}, "body": "Lower"}, "joins two bodies"),
        ({"to": {"body": "Nobody"}}, "no body named 'Nobody'"),
        ({"axis": [0, 0, 0]}, "a direction"),
    ],
)
def test_a_joint_that_does_not_fit_is_refused(element: dict[str, object], words: str) -> None:
    spec = {**DOUBLE, "elements": [{"kind": "joint", "body": "Upper", **element}]}
    with pytest.raises(ValueError, match=words):
        Scenario.model_validate(spec)


def test_joints_run_with_euler_or_rk4_and_refuse_pivots() -> None:
    radau = {**DOUBLE, "integration": {"method": "radau", "stepsize": 0.001}}
    with pytest.raises(ValueError, match="joints run with euler or rk4"):
        Scenario.model_validate(radau)
    pivot = {**DOUBLE, "elements": [*DOUBLE["elements"], {"kind": "pivot", "body": "Upper"}]}  # type: ignore[list-item]
    with pytest.raises(ValueError, match="has a pivot"):
        Scenario.model_validate(pivot)


def test_the_readme_s_mechanism_runs_and_stays_joined() -> None:
    """README.md's "Mechanisms" JSON, as written, runs headless (1 s of its 5) with its
    hinges held."""
    import json
    from pathlib import Path

    text = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    block = text.split("### Mechanisms", 1)[1].split("```json", 1)[1].split("```", 1)[0]
    spec = json.loads(block)
    spec["integration"]["TOutput"] = "0:0.1:1"
    scenario = Scenario.model_validate(spec)
    x = np.asarray(run_scenario(scenario).states)[-1]
    system = scenario.system()
    assert system is not None
    poses = Poses.of(scenario.batch(), x)
    assert max(max(gaps(e, poses)) for e in system.elements) < 1e-9  # type: ignore[arg-type]
    assert abs(x[1, 0]) > 1e-2  # the lower link swung
