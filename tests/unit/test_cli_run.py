"""Headless runs: the CSV FhSim writes, atomic output, the `sixdof` command, the examples."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

from sixdof.cli import main
from sixdof.dynamics import ImpossibleInertiaWarning
from sixdof.dynamics.quaternion import rotate
from sixdof.headless import ProgressBar, RunResult, output_columns, run_scenario, write_csv
from sixdof.scenario import (
    BodySpec,
    Integration,
    Scenario,
    atomic_write,
    load_scenario_file,
    scenario_from_xml,
    scenario_to_xml,
)
from sixdof.scenario.presets import PRESETS

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
G = 9.81
PORTS = [("Pos", 3), ("Vel", 3), ("Quater", 4), ("LocalVel", 3), ("AngVel", 3)]

FALL_XML = """\
<Contents>
  <OBJECTS>
    <Lib LibName="fhsim_base" SimObject="Body/6DBody" Name="Ball" Mass="1"
         InertiaRadi="0.2,0.2,0.2"/>
  </OBJECTS>
  <INTEGRATION>
    <Engine IntegratorMethod="1" stepsize="0.001" TOutput="{tout}"/>
  </INTEGRATION>
</Contents>
"""


def read_csv(path: Path) -> tuple[list[str], list[list[str]]]:
    lines = path.read_text().splitlines()
    return lines[0].split(","), [line.split(",") for line in lines[1:]]


def test_header_names_every_port_of_every_body_in_order() -> None:
    scenario = Scenario(bodies=[BodySpec(Name="B"), BodySpec(Name="Second")])
    expected = ["Time"] + [
        f"{b}.{port}[{i}]" for b in ("B", "Second") for port, width in PORTS for i in range(width)
    ]
    assert output_columns(scenario) == expected
    assert expected[1:5] == ["B.Pos[0]", "B.Pos[1]", "B.Pos[2]", "B.Vel[0]"]
    assert expected[16:18] == ["B.AngVel[2]", "Second.Pos[0]"] and len(expected) == 33


def test_rows_at_exactly_the_output_times_starting_from_zero(tmp_path: Path) -> None:
    """The first output time is later than 0: the run still starts at t = 0."""
    scenario = scenario_from_xml(FALL_XML.format(tout="0.5, 1:0.25:2, 0.7"))
    result = run_scenario(scenario)
    out = tmp_path / "fall.csv"
    assert write_csv(out, result.columns, result.table()) == 7
    header, rows = read_csv(out)
    assert header == output_columns(scenario)
    times = [row[0] for row in rows]
    assert times == ["0.5", "0.7", "1.0", "1.25", "1.5", "1.75", "2.0"]
    z = np.array([float(row[header.index("Ball.Pos[2]")]) for row in rows])
    t = np.array([float(x) for x in times])
    np.testing.assert_allclose(z, 0.5 * G * t**2, rtol=1e-12)  # fell from rest at t = 0
    np.testing.assert_allclose(
        [float(r[header.index("Ball.Vel[2]")]) for r in rows], G * t, rtol=1e-12
    )


def test_output_time_grid_is_exact_and_ends_the_run() -> None:
    scenario = scenario_from_xml(FALL_XML.format(tout="0, 0:0.01:0.1"))
    result = run_scenario(scenario)
    assert result.times.tolist() == [0.0, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09, 0.1]
    assert result.stats.steps == 100  # 1 ms steps up to the last output time, no further
    assert [repr(t) for t in result.table()[:, 0].tolist()][:4] == ["0.0", "0.01", "0.02", "0.03"]


def test_numbers_are_written_repr_exact(tmp_path: Path) -> None:
    scenario = PRESETS["symmetric_top"].scenario()
    scenario.integration.TOutput = "0:0.1:1"
    result = run_scenario(scenario)
    write_csv(tmp_path / "o.csv", result.columns, result.table())
    _, rows = read_csv(tmp_path / "o.csv")
    back = np.array([[float(x) for x in row] for row in rows])
    assert np.array_equal(back, result.table())
    assert np.count_nonzero(np.abs(back[1:]) > 0) > 60  # not a table of zeros


def test_several_bodies_run_as_they_would_alone() -> None:
    a = BodySpec(
        Name="A",
        Mass=2.0,
        InertiaRadi=(0.3, 0.4, 0.5),
        Force=(1.0, 0.0, -5.0),
        AngVel=(0.3, 2.0, 0.1),
        model="full",
    )
    b = BodySpec(
        Name="B",
        Mass=0.5,
        InertiaRadi=(0.2, 0.25, 0.3),
        Moment=(0.0, 0.1, 0.0),
        LocalVel=(1.0, 0.0, 0.0),
        AngVel=(0.0, 0.0, 1.0),
        model="fhsim",
    )
    integ = Integration(method="rk4", stepsize=1e-3, TOutput="0:0.1:2")
    both = run_scenario(Scenario(bodies=[a, b], integration=integ))
    table = both.table()
    assert table.shape == (21, 33)
    for k, body in enumerate((a, b)):
        alone = run_scenario(Scenario(bodies=[body], integration=integ)).table()
        np.testing.assert_allclose(table[:, 1 + 16 * k : 17 + 16 * k], alone[:, 1:], atol=1e-12)
    # Vel is the body-frame LocalVel rotated into the global frame
    q, v = table[:, 23:27], table[:, 27:30]
    np.testing.assert_allclose(table[:, 20:23], rotate(q, v), atol=1e-12)


def test_atomic_write_keeps_the_old_file_when_writing_fails(tmp_path: Path) -> None:
    out = tmp_path / "good.csv"
    out.write_text("good\n")
    with pytest.raises(RuntimeError), atomic_write(out) as f:
        f.write("half a file")
        raise RuntimeError("disk on fire")
    assert out.read_text() == "good\n"
    assert [p.name for p in tmp_path.iterdir()] == ["good.csv"]  # no temporary left behind
    with pytest.raises(ValueError, match="does not match"):
        write_csv(out, ["Time", "x"], np.zeros((3, 3)))
    assert out.read_text() == "good\n"


def _failing_run_file(tmp_path: Path) -> Path:
    """Valid input whose run fails: Dormand–Prince cannot meet 1e-14 with steps ≥ HMin."""
    bad = PRESETS["tennis_racket"].scenario()
    bad.integration = Integration(
        method="dopri5", HMin=0.005, HMax=0.01, AbsTol=1e-14, RelTol=1e-14, TOutput="0:0.1:1"
    )
    path = tmp_path / "fails.xml"
    path.write_text(scenario_to_xml(bad))
    return path


def test_a_failing_run_never_replaces_a_good_output(tmp_path: Path, capsys) -> None:
    out = tmp_path / "modeloutput.csv"
    out.write_text("Time\n0.0\n")
    code = main(
        ["run", "--input-file", str(_failing_run_file(tmp_path)), "--output-file", str(out)]
    )
    assert code == 1
    err = capsys.readouterr().err
    assert "the run failed" in err and "HMin" in err and "was not written" in err
    assert out.read_text() == "Time\n0.0\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fails.xml", "modeloutput.csv"]
    # Bad input (exit 2) leaves it alone too.
    bad = tmp_path / "bad.xml"
    bad.write_text(FALL_XML.format(tout="0:0:1"))
    assert main(["run", "--input-file", str(bad), "--output-file", str(out)]) == 2
    assert out.read_text() == "Time\n0.0\n"


def test_run_in_process_writes_csv_and_summary(tmp_path: Path, capsys) -> None:
    src = tmp_path / "fall.json"
    src.write_text(scenario_from_xml(FALL_XML.format(tout="0:0.5:1")).model_dump_json())
    out = tmp_path / "sub" / "x.csv"
    assert main(["run", "--input-file", str(src), "--output-file", str(out)]) == 1
    assert "cannot write" in capsys.readouterr().err  # missing directory: exit 1, no traceback
    out.parent.mkdir()
    assert main(["run", "--input-file", str(src), "--output-file", str(out)]) == 0
    err = capsys.readouterr().err
    assert "simulated 1 s of 1 body (rk4, 1000 steps)" in err and "3 rows written" in err
    header, rows = read_csv(out)
    assert header[0] == "Time" and [r[0] for r in rows] == ["0.0", "0.5", "1.0"]
    assert float(rows[2][header.index("Ball.Pos[2]")]) == pytest.approx(G / 2, rel=1e-12)
    assert main(["run", "--quiet", "--input-file", str(src), "--output-file", str(out)]) == 0
    assert capsys.readouterr().err == ""


def test_cli_prints_warnings_and_located_errors(tmp_path: Path, capsys) -> None:
    src = tmp_path / "w.xml"
    src.write_text(FALL_XML.format(tout="0:0.5:1").replace('Mass="1"', 'Mass="1" Colour="red"'))
    assert main(["run", "--input-file", str(src), "--output-file", str(tmp_path / "o.csv")]) == 0
    err = capsys.readouterr().err
    assert f'sixdof: warning: {src}:3: <Lib Name="Ball"> Colour: unknown attribute' in err
    src.write_text(FALL_XML.format(tout="0:0.5:1").replace('Mass="1"', 'Mass="-1"'))
    assert main(["run", "--input-file", str(src)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f'sixdof: error: {src}:3: <Lib Name="Ball"> Mass: must be a mass > 0')


def _sixdof(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONWARNINGS": "default"}
    return subprocess.run(
        [sys.executable, "-m", "sixdof.cli", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_cli_subprocess_good_and_bad_runs(tmp_path: Path) -> None:
    (tmp_path / "fall.xml").write_text(FALL_XML.format(tout="0, 0:0.25:1"))
    good = _sixdof("run", "--input-file", "fall.xml", cwd=tmp_path)
    assert good.returncode == 0, good.stderr
    assert "5 rows written to modeloutput.csv" in good.stderr  # FhSim's default name
    header, rows = read_csv(tmp_path / "modeloutput.csv")
    assert len(header) == 17 and [r[0] for r in rows] == ["0.0", "0.25", "0.5", "0.75", "1.0"]

    (tmp_path / "bad.xml").write_text(
        FALL_XML.format(tout="0:0.25:1").replace("0.2,0.2,0.2", "1,1")
    )
    bad = _sixdof("run", "--input-file", "bad.xml", "--output-file", "b.csv", cwd=tmp_path)
    assert bad.returncode == 2
    assert bad.stderr.startswith(
        'sixdof: error: bad.xml:4: <Lib Name="Ball"> InertiaRadi: expected 3'
    )
    assert "Traceback" not in bad.stderr and not (tmp_path / "b.csv").exists()


def test_impossible_runs_get_one_line_errors_with_their_cost(tmp_path: Path) -> None:
    xml = tmp_path / "fall.xml"
    xml.write_text(FALL_XML.format(tout="0:0.25:1"))
    same = _sixdof("run", "--input-file", "fall.xml", "--output-file", "./fall.xml", cwd=tmp_path)
    assert same.returncode == 2 and "is the input file" in same.stderr
    assert xml.read_text().startswith("<Contents>")  # not replaced by a CSV
    cases = {
        "tiny.xml": (FALL_XML.format(tout="0:1:10").replace('"0.001"', '"1e-300"'),
                     "1e+301 steps"),
        "rows.xml": (FALL_XML.format(tout="0:1e-6:10"), "more than 2,000,000 output times"),
        "ranges.xml": (FALL_XML.format(tout=",".join(f"{i}:1e-6:{i}.9" for i in range(40))),
                       "more than 2,000,000 output times"),
    }  # fmt: skip
    for name, (text, words) in cases.items():
        (tmp_path / name).write_text(text)
        run = _sixdof("run", "--input-file", name, "--output-file", "o.csv", cwd=tmp_path)
        assert run.returncode == 2 and words in run.stderr, run.stderr
        assert "Traceback" not in run.stderr and len(run.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "o.csv").exists()


def test_a_terminated_run_leaves_no_file_behind(tmp_path: Path) -> None:
    """SIGTERM (a container stopping) ends a run as Ctrl-C does: nothing half-written."""
    (tmp_path / "long.xml").write_text(
        FALL_XML.format(tout="0:0.01:1000").replace('"0.001"', '"0.000001"')
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "sixdof.cli", "run", "--input-file", "long.xml",
         "--output-file", "out.csv"],
        cwd=tmp_path, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stderr is not None
    first = proc.stderr.readline()  # the estimate is printed before the run starts
    assert "1e+09 steps × 1 body: roughly" in first, first
    proc.terminate()
    rest = proc.stderr.read()
    proc.stderr.close()
    assert proc.wait(30) == 130 and "interrupted" in rest, rest
    assert sorted(p.name for p in tmp_path.iterdir()) == ["long.xml"]


def test_usage_errors_and_version(capsys) -> None:
    with pytest.raises(SystemExit) as info:
        main(["run"])
    assert info.value.code == 2 and "--input-file" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0 and capsys.readouterr().out.startswith("sixdof 0.")


def test_presets_and_convert_commands(tmp_path: Path, capsys) -> None:
    assert main(["presets"]) == 0
    listing = capsys.readouterr().out
    assert all(name in listing for name in PRESETS) and "(default)" in listing
    assert main(["presets", "tennis_racket"]) == 0
    assert scenario_from_xml(capsys.readouterr().out) == PRESETS["tennis_racket"].scenario()
    path = tmp_path / "t.xml"
    path.write_text(scenario_to_xml(PRESETS["offset_cg"].scenario()))
    assert main(["convert", str(path), str(tmp_path / "t.json")]) == 0
    assert load_scenario_file(tmp_path / "t.json") == PRESETS["offset_cg"].scenario()
    assert main(["convert", str(path), str(tmp_path / "t.txt")]) == 2
    assert "unknown file type '.txt'" in capsys.readouterr().err


def test_serve_passes_its_options_and_loads_the_scenario(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys,
) -> None:
    calls: list[dict] = []
    fake = types.ModuleType("sixdof.server.launch")
    fake.serve = lambda **kw: calls.append(kw)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "sixdof.server.launch", fake)
    path = tmp_path / "s.xml"
    path.write_text(scenario_to_xml(PRESETS["spin_up"].scenario()))
    assert (
        main(
            [
                "serve",
                "--port",
                "8123",
                "--scenario",
                str(path),
                "--token",
                "tok",
                "--allow-origin",
                "http://a",
                "http://b",
                "--allow-origin",
                "http://c",
                "--open",
                "--limit",
                "max_rooms=3",
            ]
        )
        == 0
    )
    assert calls == [
        dict(
            host="127.0.0.1",
            port=8123,
            scenario=PRESETS["spin_up"].scenario(),
            token="tok",
            allowed_origins=["http://a", "http://b", "http://c"],
            open_browser=True,
            limits={"max_rooms": "3"},
            data=":memory:",  # SIXDOF_DATA, as tests/conftest.py sets it
        )
    ]
    assert main(["serve"]) == 0
    assert calls[1] == dict(
        host="127.0.0.1",
        port=8000,
        scenario=None,
        token=None,
        allowed_origins=[],
        open_browser=False,
        limits={},
        data=":memory:",
    )
    path.write_text("<Contents>")
    assert main(["serve", "--scenario", str(path)]) == 2 and len(calls) == 2
    assert f"{path}:1: not a well-formed XML file" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        main(["serve", "--port", "70000"])
    assert info.value.code == 2


def test_headless_layers_do_not_import_the_web_stack() -> None:
    code = (
        "import sys, sixdof.cli, sixdof.headless, sixdof.scenario.presets; "
        "assert 'fastapi' not in sys.modules and 'uvicorn' not in sys.modules, 'web stack'"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_progress_bar_waits_a_second_then_draws_and_erases() -> None:
    now = [0.0]
    stream = io.StringIO()
    bar = ProgressBar(10.0, stream, force=True, clock=lambda: now[0])
    bar(2.0)
    now[0] = 0.5
    bar(5.0)
    assert stream.getvalue() == ""  # short runs print nothing
    now[0] = 1.5
    bar(6.0)
    drawn = stream.getvalue()
    assert drawn.startswith("\r[") and " 60.0%" in drawn and "t = 6 / 10 s" in drawn
    now[0] = 1.55
    bar(6.5)
    assert stream.getvalue() == drawn  # at most ten redraws a second
    bar.close()
    assert stream.getvalue().endswith("\r") and stream.getvalue().count("\r") == 3
    quiet = io.StringIO()  # not a terminal, not forced: never drawn
    bar = ProgressBar(10.0, quiet, clock=lambda: now[0] + 100)
    bar(5.0)
    bar.close()
    assert quiet.getvalue() == ""


# -- the examples -----------------------------------------------------------------


def _run_example(name: str, t_end: float, suffix: str = ".xml") -> RunResult:
    result = run_scenario(load_scenario_file(EXAMPLES / f"{name}{suffix}"), t_end=t_end)
    assert result.times[-1] == pytest.approx(t_end, abs=0.011)
    return result


def _cg(result: RunResult, body: int = 0) -> np.ndarray:
    x = result.states[:, body]
    r_cg = np.array(result.scenario.bodies[body].CGOffset)
    return x[:, 0:3] + rotate(x[:, 3:7], np.broadcast_to(r_cg, (len(x), 3)))


def test_every_example_is_tested() -> None:
    assert {p.name for p in EXAMPLES.glob("*.json")} == {"bouncing_ball.json"}
    names = {p.stem for p in EXAMPLES.glob("*.xml")}
    assert names == {
        "compound_pendulum",
        "two_masses_spring",
        "free_fall",
        "constant_force_moment",
        "tennis_racket",
        "symmetric_top",
        "coriolis_full",
        "coriolis_fhsim",
        "offset_cg",
        "floating_box",  # and drift_in_current: tests/unit/test_fhsim_xml_water.py
        "drift_in_current",
        "moored_buoy",  # and cart_pole: tests/unit/test_fhsim_lines_xml.py
        "cart_pole",
    }


def test_example_free_fall() -> None:
    r = _run_example("free_fall", 3.0)
    t, pos = r.times, r.states[:, 0, 0:3]
    np.testing.assert_allclose(pos[:, 2], 0.5 * G * t**2, rtol=1e-12, atol=1e-15)
    assert np.all(pos[:, :2] == 0.0)


def test_example_constant_force_moment_obeys_work_energy() -> None:
    """Both models: ½ m |v|² = (F + m g)·Δp and ½ ωᵀIω = ∫ (R ω)·M dt."""
    with pytest.warns(
        ImpossibleInertiaWarning,
        match=r"constant_force_moment\.xml:\d+: <Lib Name=\"B\"> InertiaRadi",
    ):
        scenario = load_scenario_file(EXAMPLES / "constant_force_moment.xml")
    assert scenario.bodies[0].model == "fhsim" and scenario.integration.method == "dopri5"
    r = run_scenario(scenario, t_end=2.0)
    b = scenario.bodies[0]
    x = r.states[:, 0]
    force = np.array(b.Force) + b.Mass * np.array([0.0, 0.0, b.Gravity])
    kinetic = 0.5 * b.Mass * np.sum(x[:, 7:10] ** 2, axis=1)
    np.testing.assert_allclose(kinetic, (x[:, 0:3] - x[0, 0:3]) @ force, rtol=1e-7, atol=1e-12)
    inertia = b.Mass * np.array(b.InertiaRadi) ** 2
    rotational = 0.5 * np.sum(inertia * x[:, 10:13] ** 2, axis=1)
    power = rotate(x[:, 3:7], x[:, 10:13]) @ np.array(b.Moment)
    work = np.concatenate([[0.0], np.cumsum(0.5 * (power[1:] + power[:-1]) * np.diff(r.times))])
    assert rotational[-1] > 0.1
    np.testing.assert_allclose(rotational, work, rtol=1e-3, atol=1e-9)


def test_example_tennis_racket_flips() -> None:
    r = _run_example("tennis_racket", 4.0)
    w = r.states[:, 0, 10:13]
    assert w[0, 0] == 4.0 and w[:, 0].min() < -3.5  # AngVel x reverses: the flip
    inertia = np.array(r.scenario.bodies[0].InertiaRadi) ** 2
    energy = np.sum(inertia * w**2, axis=1)
    momentum = np.linalg.norm(inertia * w, axis=1)
    np.testing.assert_allclose(energy, energy[0], rtol=1e-8)
    np.testing.assert_allclose(momentum, momentum[0], rtol=1e-8)


def test_example_symmetric_top_precesses_about_fixed_momentum() -> None:
    r = _run_example("symmetric_top", 2.0)
    b = r.scenario.bodies[0]
    x = r.states[:, 0]
    inertia = np.array(b.InertiaRadi) ** 2 * b.Mass
    l_world = rotate(x[:, 3:7], inertia * x[:, 10:13])
    np.testing.assert_allclose(l_world, np.broadcast_to(l_world[0], l_world.shape), atol=1e-7)
    axis = rotate(x[:, 3:7], np.broadcast_to([0.0, 0.0, 1.0], (len(x), 3)))
    cos_cone = axis @ l_world[0] / np.linalg.norm(l_world[0])
    np.testing.assert_allclose(cos_cone, cos_cone[0], atol=1e-7)
    assert np.degrees(np.arccos(cos_cone[0])) == pytest.approx(11.9, abs=0.1)
    # the axis turns about L at the precession rate |L| / I⊥
    unit_l = l_world[0] / np.linalg.norm(l_world[0])
    perp = axis - np.outer(axis @ unit_l, unit_l)
    angle = np.unwrap(np.arctan2(np.cross(perp[0], perp) @ unit_l, perp @ perp[0]))
    rate = np.linalg.norm(l_world[0]) / inertia[0]
    np.testing.assert_allclose(angle, rate * r.times, atol=1e-6)
    assert angle[-1] > 2 * np.pi  # at least once round


def test_examples_coriolis_full_straight_fhsim_circle() -> None:
    full = _run_example("coriolis_full", 3.0)
    pos = full.states[:, 0, 0:3]
    np.testing.assert_allclose(pos[:, 0], 5.0 * full.times, rtol=1e-9)
    np.testing.assert_allclose(pos[:, 1:], 0.0, atol=1e-9)
    fhsim = _run_example("coriolis_fhsim", 3.0)
    pos = fhsim.states[:, 0, 0:3]
    radius = np.hypot(pos[:, 0], pos[:, 1] - 2.5)
    np.testing.assert_allclose(radius, 2.5, atol=1e-9)
    assert pos[:, 1].max() == pytest.approx(5.0, abs=1e-3)  # across the circle at t = π/2


def test_example_offset_cg_turns_about_its_cg() -> None:
    r = _run_example("offset_cg", 3.2)
    cg = _cg(r)
    np.testing.assert_allclose(cg, np.outer(r.times, [0.0, 1.0, 0.0]) + cg[0], atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(r.states[:, 0, 0:3] - cg, axis=1), 0.5, atol=1e-6)
    # Pos traces a cycloid: at rest again whenever it passes behind the CG (t = k π)
    speed = np.linalg.norm(rotate(r.states[:, 0, 3:7], r.states[:, 0, 7:10]), axis=1)
    k = int(np.argmin(np.abs(r.times - np.pi)))
    assert speed[k] < 0.01 and speed.max() == pytest.approx(2.0, abs=1e-3)


def test_a_non_unit_initial_quater_is_run_as_given_and_warned(tmp_path: Path, capsys) -> None:
    src = tmp_path / "q.xml"
    text = FALL_XML.format(tout="0, 0.05").replace(
        "</OBJECTS>",
        '</OBJECTS>\n  <INITIALIZATION>\n    <InitialCondition Ball.Quater="1.1,0,0,0"/>\n'
        "  </INITIALIZATION>",
    )
    src.write_text(text)
    out = tmp_path / "q.csv"
    assert main(["run", "--input-file", str(src), "--output-file", str(out)]) == 0
    assert "Ball.Quater: |Quater| = 1.1 is not 1; kept as given" in capsys.readouterr().err
    header, rows = read_csv(out)
    q0 = float(rows[0][header.index("Ball.Quater[0]")])
    q1 = float(rows[1][header.index("Ball.Quater[0]")])
    assert q0 == 1.1  # the first row is the state as given
    # n = q² follows 1 / (1 + (1/n0 − 1) e^(−t/τ)): after 5 τ, |q| − 1 ≈ 1.2e-3
    n = 1.0 / (1.0 + (1.0 / 1.21 - 1.0) * np.exp(-5.0))
    assert q1 == pytest.approx(np.sqrt(n), rel=1e-6)


def test_output_to_stdout_and_t_end(tmp_path: Path) -> None:
    (tmp_path / "fall.xml").write_text(FALL_XML.format(tout="0:0.25:10"))
    out = _sixdof("run", "--input-file", "fall.xml", "--output-file", "-", "--t-end", "1",
                  cwd=tmp_path)  # fmt: skip
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("Time,Ball.Pos[0]") and len(lines) == 1 + 5  # 0 … 1 s by 0.25
    assert float(lines[-1].split(",")[3]) == pytest.approx(G / 2, rel=1e-12)
    assert not (tmp_path / "-").exists() and not (tmp_path / "modeloutput.csv").exists()
    assert "5 rows written to -" in out.stderr
    bad = _sixdof("run", "--input-file", "fall.xml", "--t-end", "-3", cwd=tmp_path)
    assert bad.returncode == 2 and "t_end" in bad.stderr and "Traceback" not in bad.stderr


@pytest.mark.parametrize("command", ["run", "serve", "warm", "presets", "convert"])
def test_every_subcommand_describes_itself_with_examples(command: str, capsys) -> None:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = capsys.readouterr().out
    assert "example" in text and f"sixdof {command}" in text.split("example", 1)[1]


def test_example_compound_pendulum_swings_with_the_elliptic_period() -> None:
    """Pos is the held end (CGOffset to the CG): it stays put, and the bar swings with
    period 4 K(sin²(θ₀/2)) √(I_o/(m g d)) from θ₀ = 1 rad."""
    from sixdof.scenario.presets import elliptic_k

    r = _run_example("compound_pendulum", 4.0)
    b = r.scenario.bodies[0]
    x = r.states[:, 0]
    np.testing.assert_allclose(x[:, 0:3], 0.0, atol=1e-12)
    angle = 2.0 * np.arctan2(x[:, 4], x[:, 3])
    assert angle[0] == pytest.approx(1.0, abs=1e-12)
    k = np.nonzero((angle[:-1] > 0) & (angle[1:] <= 0))[0]
    down = r.times[k] - angle[k] * 0.01 / (angle[k + 1] - angle[k])
    d = b.CGOffset[2]
    i_o = b.Mass * (b.InertiaRadi[0] ** 2 + d**2)
    period = 4 * elliptic_k(np.sin(0.5) ** 2) * np.sqrt(i_o / (b.Mass * G * d))
    assert period == pytest.approx(1.747, abs=5e-4)  # as the file's comment says
    np.testing.assert_allclose(np.diff(down), period, rtol=1e-5)


def test_example_two_masses_oscillate_in_opposition() -> None:
    r = _run_example("two_masses_spring", 3.0)
    m1, m2 = (b.Mass for b in r.scenario.bodies)
    x = r.states
    cg = (m1 * x[:, 0, 0:3] + m2 * x[:, 1, 0:3]) / (m1 + m2)
    np.testing.assert_allclose(cg, 0.0, atol=1e-9)
    gap = x[:, 1, 0] - x[:, 0, 0]
    gap = gap - gap.mean()
    k = np.nonzero((gap[:-1] < 0) & (gap[1:] >= 0))[0]
    rising = r.times[k] - gap[k] * 0.01 / (gap[k + 1] - gap[k])
    omega = np.sqrt(30.0 * (m1 + m2) / (m1 * m2))
    np.testing.assert_allclose(np.diff(rising), 2 * np.pi / omega, rtol=1e-4)
    assert 2 * np.pi / omega == pytest.approx(0.993, abs=5e-4)


def test_example_bouncing_ball_json_runs_from_the_command_line(tmp_path: Path) -> None:
    out = tmp_path / "ball.csv"
    assert main(["run", "--input-file", str(EXAMPLES / "bouncing_ball.json"),
                 "--output-file", str(out), "--quiet"]) == 0  # fmt: skip
    header, rows = read_csv(out)
    assert len(rows) == 601 and header[1] == "Ball.Pos[0]"
    table = np.array(rows, dtype=float)
    height = -table[:, header.index("Ball.Pos[2]")] - 0.15  # the ball's lowest point
    apex = height[np.argmax(np.diff(np.sign(np.diff(height))) < 0) + 1]
    assert apex == pytest.approx(0.8**2 * height[0], rel=0.05)  # e² of the drop
    assert table[-1, header.index("Ball.Vel[0]")] == pytest.approx(5 / 7, rel=0.02)
