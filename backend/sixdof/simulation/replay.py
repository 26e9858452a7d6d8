"""Re-simulating a recording (recording.py): the room's frames again, from its keyframes.

Each segment starts from its keyframe in a fresh, paused LiveSimulation, steps exactly to
each logged item with the same compiled kernel, applies each event through the same method
the live room used (set_input, set_params, reset), and takes a history row at each frame
stamp, computed as the live engine computes it. Fixed steps and identical arithmetic make
the rows equal to the room's own history (tests/test_recording.py checks ≤ 1e-9; they
are in fact bit-identical).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..dynamics.quaternion import Array
from .history import History
from .live import LiveSimulation
from .recording import check_format

#: Events that change the physics, and the LiveSimulation method each calls.
PHYSICS_EVENTS = ("set_input", "set_params", "reset")


@dataclass
class Run:
    """The frames of one run: from a load or a full reset up to the next one."""

    origin: str  # "load", "reset", or "periodic" when older segments were dropped
    header: list[str]
    times: Array  # (T,)
    table: Array  # (T, columns): the room's history.csv layout

    def csv_rows(self) -> Array:
        return self.table


def _apply(sim: LiveSimulation, item: Mapping[str, Any]) -> None:
    kind = item["kind"]
    if kind == "set_input":
        sim.set_input(item["body"], item["force"], item["moment"], frame=item["frame"],
                      point=item["point"], channel=item["channel"],
                      spring=item.get("spring"))  # fmt: skip
    elif kind == "set_params":
        sim.set_params(item["body"], **item["fields"])
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
                rows.append(sim.history_row())
            elif item["kind"] in PHYSICS_EVENTS:
                _apply(sim, item)
    close_run()
    return runs


def last_run_table(data: Any) -> tuple[list[str], np.ndarray]:
    """(header, table) of the recording's last run: what the room's history.csv covers."""
    runs = resimulate(data)
    if not runs:
        raise ValueError("the recording holds no frame")
    return runs[-1].header, runs[-1].table


def frame_at(segment: Mapping[str, Any], frame_rate: float, t: float) -> dict[str, Any] | None:
    """The room's frame at simulated time t, re-simulated from one segment (Recording.
    segment_at): the last frame stamp at or before t, as the state message's payload
    {"t", "bodies"} (no status: it is the past); None when no frame of it is that early."""
    keyframe = segment["keyframe"]
    sim = LiveSimulation.from_keyframe(keyframe, frame_rate=frame_rate)
    step = int(keyframe["step"])
    found: dict[str, Any] | None = None
    for item in segment["items"]:
        ahead = int(item["step"]) - step
        if ahead and sim.run_steps(ahead) < ahead:
            break
        step = int(item["step"])
        if item["kind"] == "frame":
            if sim.t > t + 1e-12:
                break
            frame = sim.frame()
            found = {"t": frame["t"], "bodies": frame["bodies"]}
        elif item["kind"] in PHYSICS_EVENTS:
            _apply(sim, item)
    return found
