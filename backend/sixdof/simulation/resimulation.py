"""Re-simulating a whole recording (recording.py): every run's frames again, from its keyframes.

Each segment starts from its keyframe in a fresh, paused LiveSimulation, steps exactly to
each logged item with the same compiled kernel, applies each event through the same method
the live room used (events.py), and takes a history row at each frame stamp, computed as the
live engine computes it. Fixed steps and identical arithmetic make the rows equal to the
room's own history (tests/live/test_recording.py checks ≤ 1e-9; they are in fact
bit-identical), and each segment's end is checked against the next keyframe exactly.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import __version__
from ..dynamics.model import laid_out
from ..dynamics.quaternion import Array
from .events import PHYSICS_EVENTS, apply_event
from .history import COLUMNS, History
from .live import LiveSimulation
from .recording import check_format, named_at
from .timeline import keyframe_time


@dataclass
class Run:
    """The frames of one run: from a load or a full reset up to the next one."""

    origin: str  # "load", "reset", or "periodic" when older segments were dropped
    header: list[str]
    times: Array  # (T,)
    table: Array  # (T, columns): the room's history.csv layout


class ReplayMismatchWarning(UserWarning):
    """A re-simulated segment did not end exactly on the next stored keyframe."""


class RecordingVersionWarning(UserWarning):
    """The recording was made by another sixdof version: replay may differ in the last bits."""


@dataclass(frozen=True)
class Mismatch:
    """A segment's re-simulated end state against the next keyframe's stored one."""

    segment: int  # index of the segment that ended there
    step: int  # the keyframe's step stamp
    t: float  # its simulated time, s
    size: float  # largest |difference| of any state component

    def __str__(self) -> str:
        return (f"segment {self.segment} ends {self.size:.3g} away from the next keyframe at "
                f"t = {self.t:.6g} s (step {self.step})")  # fmt: skip


def _check_version(recording: Mapping[str, Any]) -> None:
    made = recording.get("sixdof_version")
    if made != __version__:
        warnings.warn(
            f"this recording was made by sixdof {made or 'of an unknown version'}, this is "
            f"{__version__}: replay is bit for bit only for the same version (on IEEE-754 "
            "hardware without FMA contraction); the keyframe checks report any difference",
            RecordingVersionWarning,
            stacklevel=3,
        )


def _compare(sim: LiveSimulation, keyframe: Mapping[str, Any], segment: int) -> Mismatch | None:
    """The segment's end (sim, already stepped to the keyframe's step) against the stored
    state, compared exactly: replay is meant to give the same bits."""
    stored = np.asarray(keyframe["x"], dtype=float)
    here = sim.state_array()
    if here.shape == stored.shape and np.array_equal(here, stored):
        return None
    size = float(np.max(np.abs(here - stored))) if here.shape == stored.shape else math.inf
    return Mismatch(segment, int(keyframe["step"]), keyframe_time(keyframe), size)


def resimulate(data: Any, mismatches: list[Mismatch] | None = None) -> list[Run]:
    """Every run of a recording re-simulated; RecordingFormatError for an unreadable one.

    Each segment is re-simulated from its keyframe up to the next one, and its end state is
    compared exactly with that keyframe's stored state (which the next segment then starts
    from): a difference is appended to `mismatches` (when given) and warned about
    (ReplayMismatchWarning). A recording of another sixdof version replays with a
    RecordingVersionWarning."""
    recording = check_format(data)
    _check_version(recording)
    frame_rate = float(recording["frame_rate"])
    runs: list[Run] = []
    rows: list[Array] = []
    times: list[float] = []
    sim: LiveSimulation | None = None
    found: list[Mismatch] = []

    def close_run() -> None:
        if sim is not None and rows:
            history = History(sim.names, len(rows))
            for t, row in zip(times, rows, strict=True):
                history.record_row(t, row)
            runs.append(Run(origin, history.header(), history.times, history.table()))

    origin = ""
    step = 0
    diverged = False
    for index, segment in enumerate(recording["segments"]):
        keyframe = segment["keyframe"]
        if sim is not None and keyframe["origin"] == "periodic" and not diverged:
            ahead = int(keyframe["step"]) - step  # the last segment's end, up to this keyframe
            if ahead >= 0 and (ahead == 0 or sim.run_steps(ahead) == ahead):
                miss = _compare(sim, keyframe, index - 1)
                if miss is not None:
                    found.append(miss)
        if keyframe["origin"] != "periodic" or sim is None:
            close_run()
            rows, times, origin = [], [], keyframe["origin"]
        with named_at(f"segments[{index}].keyframe"):  # a hostile file's, named
            sim = LiveSimulation.from_keyframe(keyframe, frame_rate=frame_rate)
        step = int(keyframe["step"])
        diverged = False
        for at, item in enumerate(segment["items"]):
            ahead = int(item["step"]) - step
            if ahead < 0:
                raise ValueError(f"recording items out of order at step {item['step']}")
            if ahead and sim.run_steps(ahead) < ahead:
                diverged = True
                break  # diverged here, as the room did
            step = int(item["step"])
            if item["kind"] == "frame":
                times.append(sim.t)
                rows.append(_history_row(sim))
            elif item["kind"] in PHYSICS_EVENTS:
                with named_at(f"segments[{index}].items[{at}]"):
                    apply_event(sim, item)
    close_run()
    if found:
        worst = max(found, key=lambda m: m.size)
        warnings.warn(
            f"replay: {len(found)} segment(s) did not end exactly on the next stored keyframe; "
            f"the largest: {worst}",
            ReplayMismatchWarning,
            stacklevel=2,
        )
    if mismatches is not None:
        mismatches.extend(found)
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
