"""Files a scenario names (a load's `csv`, an XML load's `Csv`) are read only from the scenario
file's own folder, are regular files of a bounded size, and never reach an error message
(issue 40, findings 10, 11 and 18). Every command that reads a scenario file (`sixdof run`,
`fmu`, `serve --scenario`, `worker --scenario`) meets the same check; `serve --scenario` as a
real process is in tests/live/test_scenario_files_served.py."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from sixdof.cli import main
from sixdof.scenario import ScenarioFileError, load_scenario_file, named_files
from sixdof.scenario.named_files import MAX_NAMED_BYTES, NamedFileError, NamedFiles

#: What lies beside the scenario's folder: its numbers must never be read or shown.
SECRET = "0,424242\n1,424243\n"
MARK = "42424"

LOAD_XML = """\
<Contents>
  <OBJECTS>
    <Lib LibName="fhsim_base" SimObject="Body/6DBody" Name="B" Mass="1" InertiaRadi="1,1,1"/>
    <Lib LibName="sixdof" SimObject="Element/Load" Name="Push" Force="1,0,0" Signal="table"
         Csv="{name}"/>
  </OBJECTS>
  <INTERCONNECTIONS>
    <Connection B.Force="Push.Force" B.Moment="Push.Moment"/>
  </INTERCONNECTIONS>
</Contents>
"""


def write_scenario(folder: Path, name: str, file: str = "s.json", count: int = 1) -> Path:
    """A scenario whose `count` loads name the table file `name`."""
    path = folder / file
    if file.endswith(".xml"):
        path.write_text(LOAD_XML.format(name=name))
        return path
    load = {"kind": "load", "body": "B", "force": [1.0, 0.0, 0.0], "csv": name}
    scenario = {
        "bodies": [{"Name": "B", "Gravity": 0.0}],
        "elements": [dict(load) for _ in range(count)],
        "integration": {"TOutput": "0:0.5:1"},
    }
    path.write_text(json.dumps(scenario, indent=1))
    return path


def csv_line(path: Path) -> int:
    """The line of the first load's csv in a scenario file: where its errors point."""
    lines = path.read_text().splitlines()
    return next(n for n, line in enumerate(lines, start=1) if '"csv"' in line)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """The scenario's folder, with a secret table beside it (in its parent)."""
    (tmp_path / "secret.csv").write_text(SECRET)
    inside = tmp_path / "scenario"
    inside.mkdir()
    return inside


def _fifo(folder: Path) -> str:
    os.mkfifo(folder / "pipe.csv")
    return "pipe.csv"


def _link(target: str) -> Callable[[Path], str]:
    def make(folder: Path) -> str:
        (folder / "link.csv").symlink_to(target if target.startswith("/") else folder / target)
        return "link.csv"

    return make


def _subfolder(folder: Path) -> str:
    (folder / "sub").mkdir()
    return "sub"


#: name (made in the folder) -> the words of its refusal.
REFUSED: dict[str, tuple[Callable[[Path], str], str]] = {
    "up": (lambda f: "../secret.csv", "goes up a folder ('..')"),
    "up from a subfolder": (lambda f: "tables/../../secret.csv", "goes up a folder ('..')"),
    "absolute": (lambda f: str(f.parent / "secret.csv"), "is an absolute path"),
    "dev zero": (lambda f: "/dev/zero", "is an absolute path"),
    "a drive": (lambda f: "C:secret.csv", "is an absolute path"),
    "a backslash": (lambda f: "..\\secret.csv", "holds '\\'"),
    "symlink out": (_link("../secret.csv"), "leads out of the scenario's folder through a symlink"),
    "symlink to dev zero": (_link("/dev/zero"), "leads out of the scenario's folder"),
    "fifo": (_fifo, "is a FIFO, not a regular file"),
    "a folder": (_subfolder, "is a folder, not a regular file"),
    "not a string": (lambda f: 7, "expected a file name (a string), got int"),  # type: ignore[dict-item,return-value]
}


@pytest.mark.timeout(60)  # a FIFO opened the old way waits for a writer for ever
@pytest.mark.parametrize("case", sorted(REFUSED))
def test_sixdof_run_refuses_a_file_outside_the_rule_naming_the_field(
    folder: Path, case: str, capsys: pytest.CaptureFixture[str]
) -> None:
    make, words = REFUSED[case]
    path = write_scenario(folder, make(folder))
    out = folder / "out.csv"
    assert main(["run", "--input-file", str(path), "--output-file", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"{path}:{csv_line(path)}: elements[0] csv: " in err and words in err, err
    assert "from its own folder" in err or "not a regular file" in err, err  # the rule
    assert MARK not in err and not out.exists()
    assert "MemoryError" not in err and "Traceback" not in err


@pytest.mark.timeout(60)
@pytest.mark.parametrize("case", ["up", "symlink out", "fifo"])
def test_an_xml_input_file_csv_meets_the_same_rule(folder: Path, case: str) -> None:
    make, words = REFUSED[case]
    path = write_scenario(folder, make(folder), "s.xml")
    with pytest.raises(ScenarioFileError) as info:
        load_scenario_file(path)
    err = info.value
    assert (err.line, err.element, err.attribute) == (5, '<Lib Name="Push">', "Csv")
    assert words in err.reason and MARK not in str(err)


@pytest.mark.parametrize("case", ["up", "symlink out", "dev zero"])
def test_sixdof_fmu_refuses_it_before_building(
    folder: Path, case: str, capsys: pytest.CaptureFixture[str]
) -> None:
    make, words = REFUSED[case]
    path = write_scenario(folder, make(folder))
    fmu = folder / "s.fmu"
    assert main(["fmu", str(path), "-o", str(fmu), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "elements[0] csv: " in err and words in err and MARK not in err
    assert not fmu.exists()


def test_serve_and_worker_refuse_it_before_they_start(
    folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import sixdof.cluster.worker_process
    import sixdof.server.launch

    def started(*_args: object, **_kw: object) -> None:
        raise AssertionError("started with a scenario that names a file outside its folder")

    monkeypatch.setattr(sixdof.server.launch, "serve", started)
    monkeypatch.setattr(sixdof.cluster.worker_process, "run_worker", started)
    path = write_scenario(folder, "../secret.csv")
    assert main(["serve", "--scenario", str(path), "--port", "0"]) == 2
    assert main(["worker", "--nats", "nats://127.0.0.1:4222", "--scenario", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("elements[0] csv: ../secret.csv goes up a folder") == 2, err
    assert MARK not in err


def test_a_subfolder_and_a_symlink_that_stays_inside_are_read(folder: Path) -> None:
    (folder / "tables").mkdir()
    (folder / "tables" / "thrust.csv").write_text("t,value\n0,0\n1,1\n")
    (folder / "link.csv").symlink_to(folder / "tables" / "thrust.csv")
    for name in ("tables/thrust.csv", "./tables//thrust.csv", "link.csv"):
        scenario = load_scenario_file(write_scenario(folder, name))
        assert scenario.elements[0].table == [(0.0, 0.0), (1.0, 1.0)], name


@pytest.mark.parametrize(
    ("table", "words"),
    [
        (b"t,value\n0,0\n1,424242x\n", "t.csv:3: expected two numbers (t in s, value); "
                                         "column 2 is not a number"),
        (b"0,0\n1,2,424242\n", "t.csv:2: expected 2 columns (t, value), got 3"),
        (b"0,0\n1,424242e99\n", "t.csv:2: column 2 (value) must be in [-1e+07, 1e+07]"),
        (b"0,0\n-424242,1\n", "t.csv:2: column 1 (t) must be in [0, 1e+06] s"),
        (b"0,0\n1,nan\n", "t.csv:2: column 2 (value) must be finite"),
        (b"0,0\n424242,1\n2,1\n", "t.csv:3: times must increase"),
        (b"0,0\n1,\xff424242\n", "t.csv:2: not UTF-8 text"),
        (b'0,0\n1,"' + b"424242" * 30_000 + b'"\n', "t.csv:2: not a CSV row (field larger"),
    ],
)  # fmt: skip
def test_a_bad_row_names_its_line_and_column_never_its_text(
    folder: Path, table: bytes, words: str
) -> None:
    (folder / "t.csv").write_bytes(table)
    path = write_scenario(folder, "t.csv")
    with pytest.raises(ScenarioFileError) as info:
        load_scenario_file(path)
    message = str(info.value)
    where = f"{path}:{csv_line(path)}: elements[0] csv: "
    assert message.startswith(where) and words in message, message
    assert MARK not in message


def test_the_files_of_a_scenario_share_one_budget_of_bytes(folder: Path) -> None:
    (folder / "a.csv").write_bytes(b"0,1\n" * 15)  # 60 bytes
    (folder / "b.csv").write_bytes(b"0,1\n" * 25)  # 100 bytes
    assert len(NamedFiles(folder, limit=100).read("b.csv")) == 100  # the limit itself is read
    files = NamedFiles(folder, limit=100)
    files.read("a.csv")
    with pytest.raises(NamedFileError, match=r"a\.csv holds more than 40 bytes; the files one "
                       r"scenario names hold at most 100 bytes together \(60 taken"):  # fmt: skip
        files.read("a.csv")


def test_the_size_is_counted_while_reading_not_taken_from_stat(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file whose size stat does not tell (it grows; /proc reports 0) is read to the limit
    + 1 byte and refused, never to its end."""
    (folder / "big.csv").write_bytes(b"0,1\n" * 100_000)
    real_fstat, real_read = os.fstat, os.read
    taken = []

    def fstat(fd: int) -> os.stat_result:
        info = list(real_fstat(fd))
        info[6] = 0  # st_size
        return os.stat_result(info)

    def read(fd: int, n: int) -> bytes:
        taken.append(real_read(fd, n))
        return taken[-1]

    monkeypatch.setattr(named_files.os, "fstat", fstat)
    monkeypatch.setattr(named_files.os, "read", read)
    with pytest.raises(NamedFileError, match="holds more than 1,000 bytes"):
        NamedFiles(folder, limit=1000).read("big.csv")
    assert sum(map(len, taken)) == 1001


def test_a_file_over_8_mib_is_refused_from_its_size(folder: Path) -> None:
    with (folder / "huge.csv").open("wb") as f:
        f.truncate(MAX_NAMED_BYTES + 1)  # sparse: nothing written, nothing read
    with pytest.raises(ScenarioFileError, match=r"huge\.csv holds more than 8,388,608 bytes"):
        load_scenario_file(write_scenario(folder, "huge.csv"))


def test_more_names_than_elements_are_refused_before_any_is_opened(folder: Path) -> None:
    (folder / "t.csv").write_text("0,0\n1,1\n")
    with pytest.raises(ScenarioFileError, match="elements\\[64\\] csv: a scenario names at most "
                       "64 files"):  # fmt: skip
        load_scenario_file(write_scenario(folder, "t.csv", count=10_000))


def test_csv_and_table_together_are_refused(folder: Path) -> None:
    (folder / "t.csv").write_text("0,0\n1,1\n")
    path = write_scenario(folder, "t.csv")
    data = json.loads(path.read_text())
    data["elements"][0]["table"] = [[0, 0], [1, 2]]
    path.write_text(json.dumps(data))
    with pytest.raises(ScenarioFileError, match="elements\\[0\\] csv: give csv or table"):
        load_scenario_file(path)
