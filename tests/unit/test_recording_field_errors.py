"""A hostile recording is refused with the field sentence, never pydantic's own message
(issue 40, finding 19): a keyframe whose scenario, or an event whose values, do not validate
named where they are in the file, in one line, as a scenario's errors are worded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sixdof.cli import main
from sixdof.simulation import LiveSimulation
from sixdof.simulation.recording import RecordingFormatError
from sixdof.simulation.resimulation import last_run_table


def keyframe(**changes: Any) -> dict[str, Any]:
    sim = LiveSimulation({"name": "r", "bodies": [{"Name": "B", "Mass": 2.0, "Gravity": 0.0}]})
    return {**sim.keyframe("load"), **changes}


def recording(items: list[dict[str, Any]], frame_rate: Any = 60.0, **changes: Any) -> dict:
    from sixdof import __version__

    return {"format": "sixdof-recording", "format_version": 1, "sixdof_version": __version__,
            "frame_rate": frame_rate, "segments_dropped": 0,
            "segments": [{"keyframe": keyframe(**changes), "items": items}]}  # fmt: skip


def event(kind: str, **args: Any) -> list[dict[str, Any]]:
    """`kind` at step 1, then a frame."""
    return [{"step": 1, "kind": kind, **args}, {"step": 2, "kind": "frame"}]


FRAME = [{"step": 1, "kind": "frame"}]
MINUS_ONE_KG = {"name": "r", "bodies": [{"Name": "B", "Mass": -1}]}
AM = {"kind": "added_mass", "body": "B", "diagonal": [-5, 0, 0, 0, 0, 0]}
HOSTILE: dict[str, tuple[dict, str]] = {
    "a keyframe's scenario out of range": (
        recording(FRAME, scenario=MINUS_ONE_KG),
        "segments[0].keyframe.scenario.bodies[0].Mass: must be in [1e-06, 1e+06] kg, got -1",
    ),
    "a keyframe's body not an object": (
        recording(FRAME, scenario={"name": "r", "bodies": [1]}),
        "segments[0].keyframe.scenario.bodies[0]: must be a valid dictionary",
    ),
    "a keyframe's added mass": (
        recording(FRAME, scenario={"name": "r", "bodies": [{"Name": "B"}], "elements": [AM]}),
        "segments[0].keyframe.scenario.elements[0].diagonal: M + M_A of body 'B'",
    ),
    "a set_params out of range": (
        recording(event("set_params", body="B", fields={"Mass": -3})),
        "segments[0].items[0]: Mass: must be in [1e-06, 1e+06] kg, got -3",
    ),
    "a set_elements of an unknown kind": (
        recording(event("set_elements", elements=[{"kind": "nope"}])),
        "segments[0].items[0]: elements[0]",
    ),
    "a set_water not a number": (
        recording(event("set_water", water={"level": "x"})),
        'segments[0].items[0]: water.level: must be a number, got "x"',
    ),
    "a set_params without its fields": (
        recording(event("set_params", body="B")),
        "segments[0].items[0]: 'fields' is missing",
    ),
    "a frame rate out of range": (
        recording(FRAME, frame_rate=-1),
        "frame_rate: must be in [1, 1000] Hz, got -1",
    ),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_hostile_recording_is_refused_naming_the_field_in_one_line(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, says = HOSTILE[name]
    path = tmp_path / "recording.json"
    path.write_text(json.dumps(data))
    out = tmp_path / "out.csv"
    assert main(["run", "--input-file", str(path), "--output-file", str(out)]) == 2
    error = [line for line in capsys.readouterr().err.splitlines() if "error" in line]
    assert len(error) == 1 and says in error[0], error
    assert "validation error" not in error[0] and "pydantic" not in error[0]
    assert not out.exists()


def test_resimulating_raises_the_recordings_own_error() -> None:
    data, says = HOSTILE["a keyframe's scenario out of range"]
    with pytest.raises(RecordingFormatError) as caught:
        last_run_table(data)
    assert str(caught.value) == says


def test_a_whole_recording_still_replays() -> None:
    header, table = last_run_table(recording(event("set_params", body="B", fields={"Mass": 3})))
    assert len(table) == 1 and header
