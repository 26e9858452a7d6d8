"""Replay's guarantee, checked (simulation/resimulation.py): every re-simulated segment must end
exactly on the next stored keyframe, a difference is reported with its size and time, and a
recording of another sixdof version replays with a warning."""

from __future__ import annotations

import json
import warnings

import pytest
from support.driving import driven

from sixdof import __version__
from sixdof.simulation.resimulation import (
    Mismatch,
    RecordingVersionWarning,
    ReplayMismatchWarning,
    resimulate,
)
from sixdof.simulation.timeline import keyframe_time


def _recording() -> dict:
    sim = driven()
    return json.loads(json.dumps(sim.recording.to_json()))


def test_an_untouched_recording_replays_onto_every_keyframe_exactly() -> None:
    data = _recording()
    periodic = [s for s in data["segments"][1:] if s["keyframe"]["origin"] == "periodic"]
    assert periodic  # there are segment ends to check
    found: list[Mismatch] = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # neither a mismatch nor a version warning
        resimulate(data, found)
    assert found == []


def test_a_corrupted_keyframe_is_reported_with_its_size_and_time() -> None:
    data = _recording()
    index = next(i for i, s in enumerate(data["segments"])
                 if i > 0 and s["keyframe"]["origin"] == "periodic")  # fmt: skip
    keyframe = data["segments"][index]["keyframe"]
    keyframe["x"][0][11] += 3e-12  # one bit-level nudge of AngVel y: a different rounding
    found: list[Mismatch] = []
    with pytest.warns(ReplayMismatchWarning, match=r"1 segment\(s\).*3e-12"):
        resimulate(data, found)
    assert len(found) == 1
    miss = found[0]
    assert miss.segment == index - 1 and miss.step == keyframe["step"]
    assert miss.t == keyframe_time(keyframe)
    assert miss.size == pytest.approx(3e-12, rel=1e-3)


def test_another_sixdof_version_replays_with_a_warning() -> None:
    data = _recording()
    data["sixdof_version"] = "0.0.1"
    with pytest.warns(RecordingVersionWarning, match=rf"sixdof 0\.0\.1, this is {__version__}"):
        runs = resimulate(data)
    assert runs  # it still replays
