"""Undo of a go back without a copy of the past (issue 32's follow-up): `Timeline.go_back`
marks the history (the rows overwritten afterwards are kept as they go) and keeps the
recording as it was by sharing its segments; `undo` must give back exactly, bit for bit,
the history, the recording and the state it left, however far the room ran meanwhile (its
ring of rows wrapped around, new keyframes, older segments dropped by the byte bound)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from sixdof.simulation import LiveSimulation
from sixdof.simulation.history import History
from sixdof.simulation.recording import EVENT_OVERHEAD, Recording
from sixdof.simulation.replay import go_back

CROWD = {
    "name": "crowd",
    "bodies": [{"Name": f"B{i}", "Pos": [i, 0, 0.1 * i], "Gravity": 0.0} for i in range(4)],
}


def room(recording_bytes: int = 8 << 20) -> LiveSimulation:
    """A paused room of 4 bodies with a 6 s history (360 rows) and 8 s of past."""
    sim = LiveSimulation(CROWD, running=False, history_seconds=6.0,
                         recording_bytes=recording_bytes)  # fmt: skip
    sim.timeline.recording.keyframe_seconds = 1.0  # type: ignore[union-attr]  # many segments
    sim.set_input("B1", [1.0, 0.0, 0.0], [0.0, 0.0, 0.2])
    sim.step(4000)
    sim.set_params("B2", Mass=3.0)
    sim.step(4000)
    return sim


def recorded(rec: Recording | None) -> str:
    """The recording as JSON, without the `undo_go_back` events an undo logs in it."""
    assert rec is not None
    data = rec.to_json()
    for segment in data["segments"]:
        segment["items"] = [i for i in segment["items"] if i["kind"] != "undo_go_back"]
    return json.dumps(data)


def everything(sim: LiveSimulation) -> dict[str, Any]:
    """What an undo must give back: the history's rows and times (raw bytes, so -0.0 and NaN
    bits count), the recording as JSON (but for the undo's own event), the state and the
    step counter."""
    rec = sim.recording
    assert rec is not None
    undos = sum(e[2] == "undo_go_back" for seg in rec.segments for e in seg.events)
    return {
        "times": sim.history.times.tobytes(),
        "table": sim.history.table().tobytes(),
        "rows": len(sim.history),
        "recording": recorded(rec),
        "nbytes": rec.nbytes - undos * (len("{}") + EVENT_OVERHEAD),
        "dropped": rec.dropped,
        "x": sim.state_array().tobytes(),
        "t": sim.t,
        "steps": sim.timeline.steps,
    }


@pytest.mark.parametrize("after", [0, 30, 500])  # rows: none, a few, more than the ring holds
@pytest.mark.parametrize("back", [0.1, 0.5, 0.95])  # how far back: a share of the history
def test_undo_gives_back_the_left_present_bit_for_bit(after: int, back: float) -> None:
    sim = room()
    before = everything(sim)
    history_before = sim.timeline.history
    times = sim.history.times
    target = float(times[int(len(times) * (1 - back))])
    go_back(sim, target)
    assert sim.t <= target and len(sim.history) < before["rows"]
    if after:
        sim.step(after * sim.steps_per_row())  # overwrites slots of the left history
    sim.undo_go_back()
    assert everything(sim) == before
    assert sim.timeline.history is history_before  # the same ring: nothing was copied
    # and the room goes on from there as if it had never gone back
    sim.step(200)
    again = room()
    again.step(200)
    assert sim.history.table().tobytes() == again.history.table().tobytes()
    assert recorded(sim.recording) == recorded(again.recording)


def test_undo_after_older_segments_were_dropped_gives_them_back() -> None:
    sim = room(recording_bytes=64 * 1024)  # the byte bound drops segments as the room runs
    before = everything(sim)
    go_back(sim, float(sim.history.times[-100]))
    dropped = sim.recording.dropped
    for _ in range(40):  # in steps shorter than the history (a long one skips its rows)
        sim.step(1000)
    assert sim.recording.dropped > dropped  # the live recording dropped some of the shared
    sim.undo_go_back()
    assert everything(sim) == before


def test_a_change_after_going_back_stops_keeping_overwritten_rows() -> None:
    sim = room()
    go_back(sim, float(sim.history.times[10]))
    history = sim.timeline.history
    sim.step(20 * sim.steps_per_row())
    assert history._kept  # rows kept for the undo
    sim.set_input("B0", [0.0, 1.0, 0.0])  # the left present is gone for good
    assert history._kept is None and sim.timeline.forked_at is None
    sim.step(20 * sim.steps_per_row())
    assert history._kept is None


def test_going_back_copies_neither_the_history_nor_the_recording(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sim = room()

    def refused(*args: Any) -> Any:
        raise AssertionError("a whole copy of the past")

    monkeypatch.setattr(History, "copy", refused)
    monkeypatch.setattr(Recording, "copy", refused)
    go_back(sim, float(sim.history.times[30]))
    sim.undo_go_back()


def test_a_history_mark_restores_and_is_single_use() -> None:
    history = History(["B"], 4)
    rows = [np.full((1, history._data.shape[2]), float(i)) for i in range(10)]
    for i in range(3):
        history.record_row(float(i), rows[i])
    table = history.table().tobytes()
    mark = history.mark()
    history.truncate_after(0.5)
    for i in range(3, 10):  # wraps the ring of 4 twice
        history.record_row(float(i), rows[i])
    history.restore(mark)
    assert history.table().tobytes() == table and len(history) == 3
    with pytest.raises(ValueError, match="mark is gone"):
        history.restore(mark)
