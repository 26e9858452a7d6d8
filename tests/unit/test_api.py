"""`sixdof.run`: one call from whatever names a scenario to its results."""

from __future__ import annotations

import doctest
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import sixdof
from sixdof.fields import FieldError
from sixdof.headless import RunResult
from sixdof.scenario import Scenario, ScenarioFileError, load_scenario_file

ROOT = Path(__file__).resolve().parents[2]
FALL = ROOT / "examples" / "free_fall.xml"
G = 9.81


def fall_z(result: RunResult) -> np.ndarray:
    return result.arrays()["Ball.Pos"][:, 2]


@pytest.mark.parametrize(
    "source",
    [
        str(FALL),
        FALL,
        FALL.read_text(encoding="utf-8"),  # FhSim XML text
        load_scenario_file(FALL),  # a Scenario
        load_scenario_file(FALL).model_dump(mode="json"),  # its JSON as a dict
    ],
    ids=["path text", "Path", "XML text", "Scenario", "dict"],
)
def test_every_kind_of_source_runs_the_same(source: object) -> None:
    r = sixdof.run(source, t_end=1.0)  # type: ignore[arg-type]
    assert r.times[-1] == 1.0
    np.testing.assert_allclose(fall_z(r), 0.5 * G * r.times**2, rtol=0, atol=1e-12)


def test_a_preset_by_name_and_its_summary() -> None:
    r = sixdof.run("tennis_racket", t_end=0.5)
    assert r.scenario.name == "tennis_racket"
    assert r.summary.startswith("simulated 0.5 s of 1 body (rk4, 500 steps)")


def test_overrides() -> None:
    base = sixdof.run(FALL, t_end=1.0)
    assert base.times.size == 101 and base.stats.steps == 1000  # the file: 10 ms outputs, 1 ms
    assert sixdof.run(FALL, t_end=1.0, step=0.005).stats.steps == 200
    assert sixdof.run(FALL, t_end=1.0, integrator="euler").scenario.integration.method == "euler"
    assert sixdof.run(FALL, t_end=1.0, integrator=2).scenario.integration.method == "dopri5"
    times = sixdof.run(FALL, output_times=[0.0, 0.25, 2.0]).times
    assert times.tolist() == [0.0, 0.25, 2.0]
    assert sixdof.run(FALL, output_times="0:0.5:1").times.tolist() == [0.0, 0.5, 1.0]
    spin = Scenario.model_validate(
        {"bodies": [{"Name": "B", "LocalVel": [5, 0, 0], "AngVel": [0, 0, 2], "Gravity": 0}],
         "integration": {"TOutput": "0:0.01:1"}}
    )  # fmt: skip
    full = sixdof.run(spin, model="full").arrays()["B.Pos"][-1]
    fhsim = sixdof.run(spin, model="fhsim").arrays()["B.Pos"][-1]
    assert full == pytest.approx([5.0, 0.0, 0.0], abs=1e-9)  # straight on
    assert np.hypot(fhsim[0], fhsim[1] - 2.5) == pytest.approx(2.5, abs=1e-6)  # its circle


def test_pandas_numpy_and_csv_agree_to_the_last_digit(tmp_path: Path) -> None:
    r = sixdof.run("coriolis_full", t_end=0.3)
    rows = r.to_csv(tmp_path / "out.csv")
    lines = (tmp_path / "out.csv").read_text().splitlines()
    frame = r.to_pandas()
    assert list(frame.columns) == lines[0].split(",") == r.columns
    csv = np.array([[float(v) for v in line.split(",")] for line in lines[1:]])
    assert rows == len(frame) == csv.shape[0]
    assert np.array_equal(frame.to_numpy(), csv)  # repr in the CSV: exact
    assert np.array_equal(r.to_numpy(), csv)
    arrays = r.arrays()
    assert arrays["Ship.Quater"].shape == (rows, 4) and arrays["Time"].shape == (rows,)
    angvel = frame[[f"Ship.AngVel[{i}]" for i in range(3)]]
    np.testing.assert_array_equal(arrays["Ship.AngVel"], angvel)


@pytest.mark.parametrize(
    ("call", "kind", "words"),
    [
        (lambda: sixdof.run("no/such/file.xml"), ScenarioFileError, "cannot read"),
        (lambda: sixdof.run("moon_landing"), FieldError, "neither a preset"),
        (lambda: sixdof.run(FALL, step=-1.0), FieldError, "stepsize"),
        (lambda: sixdof.run(FALL, step=0.5), FieldError, "stability limit"),
        (lambda: sixdof.run(FALL, integrator="leapfrog"), FieldError, "integrator"),
        (lambda: sixdof.run(FALL, model="newton"), FieldError, "model"),
        (lambda: sixdof.run(FALL, t_end=-2.0), FieldError, "t_end"),
        (lambda: sixdof.run({"bodies": [{"Mass": -1}]}), FieldError, "[1e-06, 1e+06] kg"),
    ],
)
def test_a_bad_path_or_value_is_a_one_line_error_naming_it(call, kind, words) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(kind) as info:
        call()
    message = str(info.value)
    assert words in message and "\n" not in message


def test_python_dash_m_sixdof_is_the_command() -> None:
    out = subprocess.run([sys.executable, "-m", "sixdof", "--version"], capture_output=True,
                         text=True, check=True)  # fmt: skip
    assert out.stdout.strip() == f"sixdof {sixdof.__version__}"


def test_import_sixdof_stays_light() -> None:
    code = "import sys, sixdof; print([m for m in ('numpy', 'pydantic') if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_api_docs_run() -> None:
    """Every example in docs/api.md and in sixdof.api's docstring runs as written."""
    failures, tried = doctest.testfile(
        str(ROOT / "docs" / "api.md"), module_relative=False, optionflags=doctest.ELLIPSIS
    )
    assert tried >= 8 and failures == 0
    import sixdof.api

    failures, tried = doctest.testmod(sixdof.api)
    assert tried >= 2 and failures == 0
