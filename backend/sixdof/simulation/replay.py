"""Re-simulating a recording (recording.py): the room's frames again, from its keyframes.

Each segment starts from its keyframe in a fresh, paused LiveSimulation, steps exactly to
each logged item with the same compiled kernel, applies each event through the same method
the live room used (set_input, set_params, reset), and takes a history row at each frame
stamp, computed as the live engine computes it. Fixed steps and identical arithmetic make
the rows equal to the room's own history (tests/test_recording.py checks ≤ 1e-9; they
are in fact bit-identical).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..dynamics.model import laid_out
from ..dynamics.quaternion import Array
from ..fields import FieldError
from .history import COLUMNS, History
from .live import LiveSimulation
from .recording import check_format

#: Events that change the physics, and the LiveSimulation method each calls.
PHYSICS_EVENTS = ("set_input", "set_params", "set_elements", "reset")


@dataclass
class Run:
    """The frames of one run: from a load or a full reset up to the next one."""

    origin: str  # "load", "reset", or "periodic" when older segments were dropped
    header: list[str]
    times: Array  # (T,)
    table: Array  # (T, columns): the room's history.csv layout


def apply_event(sim: LiveSimulation, item: Mapping[str, Any], keep: Sequence[str] = ()) -> None:
    """Make a recorded physics change on `sim` with the method the room used; `keep`: the
    set_params fields not to change (a ghost's own settings)."""
    kind = item["kind"]
    if kind == "set_input":
        sim.set_input(item["body"], item["force"], item["moment"], frame=item["frame"],
                      point=item["point"], channel=item["channel"],
                      spring=item.get("spring"))  # fmt: skip
    elif kind == "set_params":
        fields = {k: v for k, v in item["fields"].items() if k not in keep}
        if fields:
            sim.set_params(item["body"], **fields)
    elif kind == "set_elements":
        sim.set_elements(item["elements"])
    elif kind == "reset":
        sim.reset(item["body"], item["state"])


def resimulate(data: Any) -> list[Run]:
    """Every run of a recording re-simulated; RecordingFormatError for an unreadable one."""
    recording = check_format(data)
    frame_rate = float(recording["frame_rate"])
    runs: list[Run] = []
    rows: list[Array] = []
    times: list[float] = []
    sim: LiveSimulation | None = None

    def close_run() -> None:
        if sim is not None and rows:
            history = History(sim.names, len(rows))
            for t, row in zip(times, rows, strict=True):
                history.record_row(t, row)
            runs.append(Run(origin, history.header(), history.times, history.table()))

    origin = ""
    for segment in recording["segments"]:
        keyframe = segment["keyframe"]
        if keyframe["origin"] != "periodic" or sim is None:
            close_run()
            rows, times, origin = [], [], keyframe["origin"]
        sim = LiveSimulation.from_keyframe(keyframe, frame_rate=frame_rate)
        step = int(keyframe["step"])
        for item in segment["items"]:
            ahead = int(item["step"]) - step
            if ahead < 0:
                raise ValueError(f"recording items out of order at step {item['step']}")
            if ahead and sim.run_steps(ahead) < ahead:
                break  # diverged here, as the room did
            step = int(item["step"])
            if item["kind"] == "frame":
                times.append(sim.t)
                rows.append(_history_row(sim))
            elif item["kind"] in PHYSICS_EVENTS:
                apply_event(sim, item)
    close_run()
    return runs


def _history_row(sim: LiveSimulation) -> Array:
    """The history row of `sim`'s current state, (N, history.WIDTH) in history.COLUMNS
    order, from the outputs the live engine computes."""
    outs, n = sim.outputs(), len(sim.names)
    return laid_out(outs, COLUMNS, n)


def last_run_table(data: Any) -> tuple[list[str], np.ndarray]:
    """(header, table) of the recording's last run: what the room's history.csv covers."""
    runs = resimulate(data)
    if not runs:
        raise ValueError("the recording holds no frame")
    return runs[-1].header, runs[-1].table


def _frames_until(segment: Mapping[str, Any], t: float) -> int:
    """How many of the segment's frame stamps are at or before simulated time t.

    Times follow the live simulation's own arithmetic, t = t_base + n_steps × h, with h
    changed (and t_base moved) only by a set_params that changes the step, so no physics
    is needed to know them."""
    keyframe = segment["keyframe"]
    t_base, h = float(keyframe["t_base"]), float(keyframe["step_size"])
    base_step = int(keyframe["step"]) - int(keyframe["n_steps"])
    frames = 0
    for item in segment["items"]:
        now = t_base + (int(item["step"]) - base_step) * h
        if item["kind"] == "frame":
            if now > t + 1e-12:
                break
            frames += 1
        elif item["kind"] == "set_params" and "step" in item["fields"]:
            step = float(item["fields"]["step"])
            if step != h:
                t_base, h, base_step = now, step, int(item["step"])
    return frames


@dataclass
class Cursor:
    """Where a re-simulation of one segment stands: the next request further on in the same
    segment goes on from here instead of from the keyframe (playing the past forward costs
    what running it did, not its square). The live simulation's timeline keeps the last one
    (`Timeline.cursor`) and drops it when its past is rewritten."""

    segment_step: int  # the segment's keyframe step
    sim: LiveSimulation
    index: int  # the next item to take
    step: int
    frames: int


def _replay_to(
    segment: Mapping[str, Any],
    frame_rate: float,
    t: float,
    wanted: int | None = None,
    cursor: Cursor | None = None,
) -> tuple[LiveSimulation, int, Cursor] | None:
    """A simulation exactly at the segment's last frame at or before t (with the events
    before that frame applied, none after), or at its `wanted`-th frame stamp, how many
    frame stamps that is, and a cursor there; None when there is no such frame. `cursor`:
    a previous result in this segment to go on from, used when it is not past `wanted`."""
    wanted = _frames_until(segment, t) if wanted is None else wanted
    if wanted < 1:
        return None
    keyframe = segment["keyframe"]
    key = int(keyframe["step"])
    if cursor is not None and cursor.segment_step == key and cursor.frames <= wanted:
        sim, index, step, frames = cursor.sim, cursor.index, cursor.step, cursor.frames
    else:
        sim = LiveSimulation.from_keyframe(keyframe, frame_rate=frame_rate)
        index, step, frames = 0, key, 0
    items = segment["items"]
    while frames < wanted and index < len(items):
        item = items[index]
        index += 1
        ahead = int(item["step"]) - step
        if ahead and sim.run_steps(ahead) < ahead:
            break
        step = int(item["step"])
        if item["kind"] == "frame":
            frames += 1
        elif item["kind"] in PHYSICS_EVENTS:
            apply_event(sim, item)
    if frames < 1:
        return None
    return sim, frames, Cursor(key, sim, index, step, frames)


def go_back(sim: LiveSimulation, t: float) -> float:
    """Take the live `sim` back to its frame at or before simulated time t of the current
    run and let it go on from there (`Timeline.go_back`); returns that frame's t.
    FieldError when t is outside the recorded run."""
    rec = sim.recording
    if rec is None:
        raise FieldError("t", "invalid", "t: this simulation keeps no recording")
    with sim.lock:
        found = rec.segment_at(t)
        first = rec.first_time()
        now = sim.t
    if found is None or t > now + 1e-9:
        span = f"[{first:g}, {now:g}] s" if first is not None else "the recorded run"
        raise FieldError("t", "out_of_range", f"t: must be within {span}, got {t:g}")
    _, segment = found
    replayed = _replay_to(segment, sim.frame_rate, t)
    if replayed is None:
        raise FieldError("t", "out_of_range", f"t: no frame at or before {t:g} s")
    there, frames, _ = replayed
    with sim.lock:  # the room went on meanwhile: find the segment again by its keyframe
        key = int(segment["keyframe"]["step"])
        index = next((i for i, s in enumerate(rec.segments) if s.step == key), None)
        if index is None or sim.recording is not rec:  # dropped, or an undo replaced it
            raise FieldError("t", "out_of_range", f"t: {t:g} s has just left the recording")
        sim.timeline.go_back(there.keyframe("go_back"), index, frames)
    return there.t


def frame_at(segment: Mapping[str, Any], frame_rate: float, t: float) -> dict[str, Any] | None:
    """The room's frame at simulated time t, re-simulated from one segment (Recording.
    segment_at): the last frame stamp at or before t, as the state message's payload
    {"t", "bodies"} (no status: it is the past); None when no frame of it is that early."""
    replayed = _replay_to(segment, frame_rate, t)
    if replayed is None:
        return None
    frame = replayed[0].frame()
    return {"t": frame["t"], "bodies": frame["bodies"]}


def past_frame(sim: LiveSimulation, t: float, offset: int = 0) -> dict[str, Any] | None:
    """The frame at or before t of `sim`'s current run, or `offset` frames from it (−1: the
    one before), re-simulated from its recording; None outside the recorded run. The
    result also says whether it is the run's latest recorded frame ("last")."""
    timeline = sim.timeline
    with sim.lock:
        rec = timeline.recording
        found = None if rec is None else rec.segment_at(t)
        if rec is None or found is None:
            return None
        index, segment = found
        wanted = _frames_until(segment, t) + offset
        first = rec.run_start()
        while wanted < 1 and index > first:  # step over segment boundaries
            index -= 1
            wanted += rec.frame_count(index)
        while wanted > rec.frame_count(index) and index < len(rec.segments) - 1:
            wanted -= rec.frame_count(index)
            index += 1
        wanted = max(1, min(wanted, rec.frame_count(index)))
        last = index == len(rec.segments) - 1 and wanted == rec.frame_count(index)
        segment = rec.segments[index].to_json()
        cursor, epoch = timeline.cursor, timeline.epoch
    ours = cursor if isinstance(cursor, Cursor) else None
    replayed = _replay_to(segment, sim.frame_rate, float("inf"), wanted, ours)
    if replayed is None:
        return None
    with sim.lock:
        if timeline.epoch == epoch:  # the past it went through is still this run's
            timeline.cursor = replayed[2]
    frame = replayed[0].frame()
    return {"t": frame["t"], "bodies": frame["bodies"], "last": last}
