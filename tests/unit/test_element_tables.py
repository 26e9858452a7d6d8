"""Timed loads from a CSV table next to a scenario file: inlined, checked row by row, and
the same motion headless and live."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import sixdof
from sixdof.scenario import ScenarioFileError, load_scenario_file, scenario_from_json
from sixdof.simulation import LiveSimulation


def write(folder: Path, table: str, **element: object) -> Path:
    (folder / "thrust.csv").write_text(table)
    scenario = {
        "bodies": [{"Name": "B", "Gravity": 0.0}],
        "elements": [{"kind": "load", "body": "B", "force": [2.0, 0.0, 0.0],
                      "csv": "thrust.csv", **element}],
        "integration": {"TOutput": "0:0.5:4"},
    }  # fmt: skip
    path = folder / "ramp.json"
    path.write_text(json.dumps(scenario))
    return path


def test_a_table_load_moves_the_body_as_its_integral_headless_and_live(tmp_path: Path) -> None:
    path = write(tmp_path, "t,value\n0,0\n1,1\n2,1\n3,0\n")
    result = sixdof.run(path)
    x = result.arrays()["B.Pos"][:, 0]
    # a = 2 s(t): s ramps 0 → 1 over [0, 1] s, so x(t) = t³/3 there, then x' = 2 t − 1 …
    assert x[2] == pytest.approx(1 / 3, abs=1e-12)  # t = 1 s
    assert x[4] == pytest.approx(1 / 3 + 1.0 + 1.0, abs=1e-12)  # t = 2 s: v(1) = 1, a = 2
    scenario = load_scenario_file(path)
    assert scenario.elements[0].table == [(0.0, 0.0), (1.0, 1.0), (2.0, 1.0), (3.0, 0.0)]
    live = LiveSimulation(scenario, running=False)
    live.step(4000)
    assert live.state_array()[0, 0] == pytest.approx(x[-1], abs=1e-12)


@pytest.mark.parametrize(
    ("table", "words", "line"),
    [
        ("t,value\n0,0\n1,oops\n", "two numbers", 3),
        ("0,0,1\n", "2 columns", 1),
        ("0,0\n1,nan\n", "finite", 2),
        ("0,0\n0,1\n", "times must increase", None),
    ],
)
def test_a_bad_table_names_its_row(
    tmp_path: Path, table: str, words: str, line: int | None
) -> None:
    path = write(tmp_path, table)
    with pytest.raises((ScenarioFileError, ValueError)) as err:
        load_scenario_file(path)
    assert words in str(err.value)
    if line is not None:
        assert f":{line}" in str(err.value) or f"line {line}" in str(err.value)


def test_a_csv_path_is_refused_where_there_is_no_file_next_to_it() -> None:
    load = {"kind": "load", "body": "B", "csv": "/etc/passwd"}
    text = json.dumps({"bodies": [{"Name": "B"}], "elements": [load]})
    with pytest.raises(ScenarioFileError) as err:
        scenario_from_json(text)
    assert "inline" in str(err.value)


def test_a_json_file_error_names_the_element_field_and_its_line() -> None:
    """Not pydantic's union tag (`elements[0].spring stiffness`): the element and field, at the
    line of the value itself."""
    text = (
        '{"bodies": [{"Name": "A"}],\n "elements": [\n'
        '  {"kind": "spring", "body": "A",\n   "stiffness": -5}]}\n'
    )
    with pytest.raises(ScenarioFileError) as err:
        scenario_from_json(text, "s.json")
    assert str(err.value) == "s.json:4: elements[0] stiffness: must be in [0, 1e+09] N/m, got -5"
