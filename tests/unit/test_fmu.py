"""`sixdof fmu`: the FMU validates, and fmpy and libcosim run it to `sixdof run`'s numbers.

The FMU's slave runs in this process (pythonfmu's binary uses the interpreter that loads
it), so these tests need sixdof importable, as any user of the FMU does (docs/fmu.md).
"""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pythonfmu")
fmpy = pytest.importorskip("fmpy")

from fmpy.validation import validate_fmu  # noqa: E402

from sixdof.cli import main  # noqa: E402
from sixdof.headless import output_columns, run_scenario  # noqa: E402
from sixdof.scenario import BodySpec, Integration, Scenario, load_scenario_file  # noqa: E402

FORCE = (3.0, -2.0, -20.0)
MOMENT = (0.5, -0.3, 0.2)
STOP = 1.0
DT = 0.01


def scenario(**body: object) -> Scenario:
    spec = {
        "Name": "Hull",
        "Mass": 2.0,
        "InertiaRadi": (0.5, 0.6, 0.7),
        "CGOffset": (0.1, 0.0, 0.05),
        "LocalVel": (1.0, 0.0, 0.0),
        "AngVel": (0.3, 2.0, 0.1),
        **body,
    }
    return Scenario(
        name="hull",
        bodies=[BodySpec.model_validate(spec)],
        integration=Integration(method="rk4", stepsize=1e-3, TOutput=f"0:{DT}:{STOP}"),
    )


@pytest.fixture(scope="module")
def fmu(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("fmu")
    source = folder / "hull.json"
    source.write_text(scenario().model_dump_json(), encoding="utf-8")
    out = folder / "hull.fmu"
    assert main(["fmu", str(source), "-o", str(out), "--quiet"]) == 0
    return out


def reference(**body: object) -> np.ndarray:
    """`sixdof run`'s table (T, 1 + 16) of the scenario with these body fields."""
    return run_scenario(scenario(**body)).table()


FMPY_RUN = """
import json, os, sys
import numba, sixdof.fmu.slave  # noqa: F401  (docs/fmu.md: import them before the FMU runs)
import numpy as np
from fmpy import simulate_fmu

fmu, stop, dt, names, rows, start_values, columns = json.loads(sys.argv[1])
signals = None
if rows:
    dtype = [("time", float)] + [(n, float) for n in names]
    signals = np.array([tuple(r) for r in rows], dtype=dtype)
result = simulate_fmu(fmu, stop_time=stop, output_interval=dt, input=signals,
                      start_values=start_values)
print(json.dumps([result[c].tolist() for c in columns]))
sys.stdout.flush()
os._exit(0)  # pythonfmu 0.7 can abort in teardown (docs/fmu.md): the answer is out
"""


def isolated(script: str, job: object) -> tuple[list, str]:
    """Run an FMU in a Python of its own: should pythonfmu's binary upset the process that
    loads it (docs/fmu.md), that process is not pytest's."""
    out = subprocess.run(
        [sys.executable, "-c", script, json.dumps(job)],
        capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1]), out.stderr


def fmpy_run(
    fmu: Path, inputs: dict[str, float] | None = None, start_values: dict | None = None
) -> np.ndarray:
    """fmpy's run of the FMU to STOP at DT, inputs held constant: (T, 1 + 16) as the CSV."""
    names = list(inputs or {})
    rows = [[t, *(inputs or {}).values()] for t in (0.0, STOP)] if inputs else []
    columns = ["time", *output_columns(scenario())[1:]]
    data, _ = isolated(FMPY_RUN, [str(fmu), STOP, DT, names, rows, start_values or {}, columns])
    return np.array(data).T


def test_the_fmu_validates_and_names_its_variables_as_the_csv(fmu: Path) -> None:
    assert validate_fmu(str(fmu)) == []
    md = fmpy.read_model_description(str(fmu))
    by_causality: dict[str, list[str]] = {}
    for v in md.modelVariables:
        by_causality.setdefault(v.causality, []).append(v.name)
    assert by_causality["output"] == output_columns(scenario())[1:]
    inputs = [f"Hull.{p}[{i}]" for p in ("Force", "Moment") for i in range(3)]
    assert by_causality["input"] == inputs
    assert by_causality["parameter"] == [
        "Hull.Mass", *(f"Hull.InertiaRadi[{i}]" for i in range(3)),
        *(f"Hull.CGOffset[{i}]" for i in range(3)),
    ]  # fmt: skip
    assert {v.variability for v in md.modelVariables if v.causality == "parameter"} == {"tunable"}
    with zipfile.ZipFile(fmu) as z:
        assert "resources/scenario.json" in z.namelist()


def test_fmpy_with_a_constant_force_equals_sixdof_run(fmu: Path) -> None:
    inputs = {f"Hull.{p}[{i}]": v[i] for p, v in (("Force", FORCE), ("Moment", MOMENT))
              for i in range(3)}  # fmt: skip
    got = fmpy_run(fmu, inputs)
    want = reference(Force=FORCE, Moment=MOMENT)
    assert got.shape == want.shape
    assert np.max(np.abs(got - want)) <= 1e-9
    assert np.max(np.abs(got[-1, 1:4] - got[0, 1:4])) > 0.5  # it moved


def test_a_tuned_mass_changes_the_run_as_sixdof_run_with_that_mass(fmu: Path) -> None:
    tuned = fmpy_run(fmu, start_values={"Hull.Mass": 5.0, "Hull.CGOffset[2]": -0.1})
    want = reference(Mass=5.0, CGOffset=(0.1, 0.0, -0.1))
    assert np.max(np.abs(tuned - want)) <= 1e-9
    assert np.max(np.abs(tuned - reference())) > 1e-3


LIBCOSIM_RUN = """
import json, os, sys
import numba, sixdof.fmu.slave  # noqa: F401  (docs/fmu.md: import them before the FMU runs)
from libcosimpy.CosimExecution import CosimExecution
from libcosimpy.CosimLogging import CosimLogLevel, log_output_level
from libcosimpy.CosimObserver import CosimObserver
from libcosimpy.CosimSlave import CosimLocalSlave

fmu, step, stop, inputs, outputs = json.loads(sys.argv[1])
log_output_level(CosimLogLevel.ERROR)
execution = CosimExecution.from_step_size(step_size=step)
index = execution.add_local_slave(CosimLocalSlave(fmu_path=fmu, instance_name="hull"))
refs = {v.name.decode(): v.reference for v in execution.slave_variables(index)}
for name, value in inputs.items():
    execution.real_initial_value(index, refs[name], value)
observer = CosimObserver.create_last_value()
execution.add_observer(observer)
assert execution.simulate_until(target_time=stop)
print(json.dumps(observer.last_real_values(index, [refs[c] for c in outputs])))
sys.stdout.flush()
os._exit(0)  # pythonfmu 0.7 can abort in teardown (docs/fmu.md): the answer is out
"""


def test_libcosim_runs_it_to_the_same_final_state(fmu: Path) -> None:
    pytest.importorskip("libcosimpy")
    inputs = {f"Hull.{port}[{k}]": v[k] for port, v in (("Force", FORCE), ("Moment", MOMENT))
              for k in range(3)}  # fmt: skip
    columns = output_columns(scenario())[1:]
    data, err = isolated(LIBCOSIM_RUN, [str(fmu), round(DT * 1e9), round(STOP * 1e9), inputs,
                                        columns])  # fmt: skip
    want = reference(Force=FORCE, Moment=MOMENT)[-1, 1:]
    assert np.max(np.abs(np.array(data) - want)) <= 1e-9
    assert "corrupted" not in err


def test_a_bad_scenario_gives_the_field_error_and_no_fmu(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"bodies": [{"Name": "B", "Mass": -1}]}', encoding="utf-8")
    out = tmp_path / "bad.fmu"
    assert main(["fmu", str(bad), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "Mass" in err and "bad.json" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json"]


def test_a_body_name_fmi_cannot_spell_is_refused_before_building(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "dash.json"
    source.write_text(scenario(Name="my-hull").model_dump_json(), encoding="utf-8")
    assert main(["fmu", str(source), "-o", str(tmp_path / "dash.fmu")]) == 2
    assert "bodies[0].Name" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dash.json"]


OSP_RUN = """
import json, os, sys
import numba, sixdof.fmu.slave  # noqa: F401  (docs/fmu.md: import them before the FMU runs)
from libcosimpy.CosimExecution import CosimExecution
from libcosimpy.CosimLogging import CosimLogLevel, log_output_level
from libcosimpy.CosimObserver import CosimObserver

log_output_level(CosimLogLevel.ERROR)
execution = CosimExecution.from_osp_config_file(sys.argv[1])
observer = CosimObserver.create_last_value()
execution.add_observer(observer)
bob = execution.slave_index_from_instance_name("bob")
refs = {v.name.decode(): v.reference for v in execution.slave_variables(bob)}
assert execution.simulate_until(target_time=2 * 10**9)
print(json.dumps(observer.last_real_values(bob, [refs[f"Bob.Pos[{i}]"] for i in range(3)])))
sys.stdout.flush()
os._exit(0)  # pythonfmu 0.7 can abort in teardown (docs/fmu.md): the answer is out
"""


def test_the_osp_example_holds_the_body_on_the_spring_fmu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """examples/osp: the body's FMU and a spring FMU made the same way, connected by the
    OspSystemStructure.xml there, run by libcosim (in a subprocess: a crash there stays
    there): 2 s of an undamped 2 kg bob on k = 50 N/m under gravity, to 2 cm."""
    pytest.importorskip("libcosimpy")
    import math
    import shutil

    osp = Path(__file__).resolve().parents[2] / "examples" / "osp"
    shutil.copy(osp / "OspSystemStructure.xml", tmp_path)
    assert main(["fmu", str(osp / "bob.json"), "-o", str(tmp_path / "bob.fmu"), "--quiet"]) == 0
    from pythonfmu import FmuBuilder

    monkeypatch.setattr(sys, "path", list(sys.path))  # pythonfmu adds the script's folder
    FmuBuilder.build_FMU(osp / "spring.py", dest=tmp_path)
    assert (tmp_path / "Spring.fmu").exists()
    out = subprocess.run(
        [sys.executable, "-c", OSP_RUN, str(tmp_path)],
        capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    pos = json.loads(out.stdout.strip().splitlines()[-1])
    w, t, sag = math.sqrt(50.0 / 2.0), 2.0, 2.0 * 9.81 / 50.0
    assert pos == pytest.approx([0.5 * math.cos(w * t), 0.0, sag * (1 - math.cos(w * t))], abs=0.02)


REFUSED_RUN = """
import json, os, sys
import numba, sixdof.fmu.slave  # noqa: F401
from fmpy import simulate_fmu

said = []
result = simulate_fmu(json.loads(sys.argv[1]), stop_time=1.0, output_interval=0.01,
                      start_values={"Hull.Mass": -1.0}, debug_logging=True,
                      logger=lambda *args: said.append(args[-1].decode()))
print(json.dumps([len(result), said]))
sys.stdout.flush()
os._exit(0)  # pythonfmu 0.7 can abort in teardown (docs/fmu.md): the answer is out
"""


def test_a_tuned_value_the_scenario_refuses_stops_the_run_naming_it(fmu: Path) -> None:
    (rows, said), _ = isolated(REFUSED_RUN, str(fmu))
    assert rows < 3  # the first step failed: fmpy stops there
    assert any("Mass" in line for line in said), said


@pytest.mark.parametrize("example", ["two_masses_spring.xml", "compound_pendulum.xml"])
def test_an_fmu_carries_the_scenarios_elements(tmp_path: Path, example: str) -> None:
    """A spring between two bodies, a pivot: fmpy's run equals `sixdof run`'s to 1e-9."""
    source = Path(__file__).resolve().parents[2] / "examples" / example
    out = tmp_path / "elements.fmu"
    assert main(["fmu", str(source), "-o", str(out), "--quiet"]) == 0
    loaded = load_scenario_file(source)
    want = run_scenario(loaded, t_end=1.0).table()
    columns = ["time", *output_columns(loaded)[1:]]
    data, _ = isolated(FMPY_RUN, [str(out), 1.0, 0.01, [], [], {}, columns])
    assert np.max(np.abs(np.array(data).T - want)) <= 1e-9
