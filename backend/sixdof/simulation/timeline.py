"""The time axis of a live simulation: its past, and the ways back into it.

A simulation's past is two records kept in step: the history (a row per frame, for the
plots and the CSV) and the recording (keyframes and every change at the step it took
effect, from which resimulation.py and replay.py re-simulate any frame exactly). Both are
stamped at the same moments, go back together, and come back together on an undo, so one
`Timeline` owns them, with the step counter that stamps them, the listeners that follow
every change (a ghost), going back to a past frame and on from there (`go_back`), returning
to the present it left while no change has been made since (`undo`, `forked_at`), a shared
snapshot taking the place of the run (`start_over`), and the replay cursor that lets the
past be played forward frame by frame.

The simulation is reached through `Simulated` (LiveSimulation implements it): its lock,
its time, its outputs, and its whole state as one value, a `Moment`, that a keyframe
serialises and that the simulation can become again.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from ..dynamics.inputs import InputChannels
from ..dynamics.quaternion import Array
from ..fields import FieldError
from .changes import Plan, plan_load, plan_params
from .events import PHYSICS_EVENTS
from .history import PRECISIONS, History, Mark, Precision, csv_pieces
from .recording import Recording

Listener = Callable[[str, dict[str, Any] | None], None]


@dataclass(frozen=True)
class Moment:
    """A world at one step: everything a keyframe holds but the step counter."""

    plan: Plan  # scenario with the current parameters, bodies, integrator and step
    x: Array  # (N, 13)
    inputs: InputChannels
    t_base: float  # t at the last step-size change
    n_steps: int  # steps since then
    z: Array | None = None  # the elements' states (a controller's); None: their initial ones

    def copy(self) -> Moment:
        """Its own state, element states and inputs (the plan is replaced whole, shared)."""
        z = None if self.z is None else self.z.copy()
        return Moment(self.plan, self.x.copy(), self.inputs.copy(), self.t_base, self.n_steps, z)


class Simulated(Protocol):
    """What a timeline needs of the simulation whose past it keeps."""

    lock: threading.RLock
    running: bool

    @property
    def t(self) -> float: ...
    @property
    def time_scale(self) -> float: ...
    @property
    def step_size(self) -> float: ...
    @property
    def names(self) -> list[str]: ...
    def moment(self) -> Moment: ...
    def become(self, moment: Moment) -> None: ...
    def outputs(self) -> Mapping[str, Array]: ...


@dataclass(frozen=True)
class _Left:
    """The present a `go_back` left, for `undo` to return to. Its past is not copied (a
    64-body room's history is 8 MiB: copying it held the event loop 15–27 ms): the history
    is marked (`History.mark`: the rows overwritten since are kept as they go) and the
    recording as it was shares its segments with the live one (`truncate_sharing`)."""

    steps: int  # the step counter there
    moment: Moment  # its world, kept (not as a keyframe: dumping the scenario costs ms)
    history: Mark
    recording: Recording
    t: float  # where the run went back to


def moment_of(keyframe: Mapping[str, Any]) -> Moment:
    """The world a keyframe describes (its scenario, integrator, state, time and inputs)."""
    plan, _ = plan_load(keyframe["scenario"])
    if (plan.method, plan.step) != (keyframe["method"], keyframe["step_size"]):
        fields = {"integrator": keyframe["method"], "step": keyframe["step_size"]}
        plan = plan_params(plan, 0, fields)
    x = np.array(keyframe["x"], dtype=float)
    if x.shape != plan.x.shape:
        raise ValueError(f"keyframe x: shape {x.shape}, expected {plan.x.shape}")
    inputs = InputChannels.from_json(keyframe["inputs"])
    z = None if keyframe.get("z") is None else np.array(keyframe["z"], dtype=float)
    n_states = 0 if plan.system is None else plan.system.n_states
    if z is not None and z.shape != (n_states,):
        raise ValueError(f"keyframe z: shape {z.shape}, expected ({n_states},)")
    return Moment(plan, x, inputs, float(keyframe["t_base"]), int(keyframe["n_steps"]), z)


def keyframe_time(keyframe: Mapping[str, Any]) -> float:
    """Simulated time of a keyframe, by the live run's own t = t_base + n_steps × h."""
    return float(keyframe["t_base"]) + int(keyframe["n_steps"]) * float(keyframe["step_size"])


class Timeline:
    """The past of one simulation and the moves along it (see the module docstring)."""

    history: History

    def __init__(
        self,
        sim: Simulated,
        *,
        frame_rate: float,
        history_seconds: float,
        history_bytes: int | None,
        precision: Precision,
        recording_bytes: int | None,
    ) -> None:
        if precision not in PRECISIONS:
            raise FieldError(
                "history_precision",
                "invalid",
                f"history_precision: one of {', '.join(PRECISIONS)}, got {precision!r}",
            )
        self._sim = sim
        self._rows = max(1, round(history_seconds * frame_rate))
        self._history_bytes = history_bytes  # None: history_seconds alone sets the capacity
        self._precision: Precision = precision
        self.recording: Recording | None = None
        if recording_bytes is not None:
            self.recording = Recording(frame_rate=frame_rate, max_bytes=recording_bytes)
        self.steps = 0  # steps ever taken: the counter the recording stamps changes with
        self.listeners: list[Listener] = []  # called with (kind, args) for every change
        self._left: _Left | None = None
        # replay.Cursor of the last past frame asked for (replay.past_frame keeps it here so
        # that playing the past forward goes on from it); `epoch` bumps whenever the past is
        # rewritten, which a cursor into it does not survive
        self.cursor: object | None = None
        self.epoch = 0

    # ------------------------------------------------------------------ reading

    @property
    def forked_at(self) -> float | None:
        """t the run went back to with `go_back`, while `undo` can still return."""
        return None if self._left is None else self._left.t

    @property
    def recorded_from(self) -> float | None:
        """t where the recording of the current run starts; None without a recording."""
        return None if self.recording is None else self.recording.first_time()

    def keyframe(self, origin: str = "periodic") -> dict[str, Any]:
        """Everything needed to go on from here exactly: scenario (current parameters),
        state, time, input records, integrator and step; plain JSON values."""
        sim = self._sim
        with sim.lock:
            now = sim.moment()
            return {
                "step": self.steps,
                "origin": origin,
                "scenario": now.plan.scenario.model_dump(mode="json"),
                "method": now.plan.method,
                "step_size": now.plan.step,
                "x": now.x.tolist(),
                "z": None if now.z is None else now.z.tolist(),
                "t_base": now.t_base,
                "n_steps": now.n_steps,
                "inputs": now.inputs.to_json(),
                "running": sim.running,
                "time_scale": sim.time_scale,
            }

    # ------------------------------------------------------------------ recording the run

    def new_run(self, origin: str) -> None:
        """A load ("load": a history sized for the new bodies) or a full reset ("reset"):
        the past starts afresh here, with a keyframe and a first row. Hold the lock."""
        if origin == "load":
            bodies = len(self._sim.names)
            capacity = self._rows
            if self._history_bytes is not None:  # bounded in bytes too: fewer rows of many bodies
                fits = self._history_bytes // History.row_bytes(bodies, self._precision)
                capacity = max(1, min(capacity, fits))
            self.history = History(self._sim.names, capacity, self._precision)
        else:
            self.history.clear()
        self._start_segment(origin)
        self.record()

    def record(self, row: Array | None = None) -> None:
        """A history row at the current t (`row` as history.COLUMNS lays it out, else from
        the world's outputs), stamped in the recording. Hold the lock."""
        sim = self._sim
        if row is None:
            self.history.record(sim.t, sim.outputs())
        else:
            self.history.record_row(sim.t, row)
        rec = self.recording
        if rec is None:
            return
        rec.frame(self.steps)
        if rec.needs_keyframe(self.steps, sim.step_size, len(sim.names)):
            rec.start(self.keyframe())

    def log(self, kind: str, args: dict[str, Any] | None = None) -> None:
        """A change at the current step: recorded, and told to the listeners. Hold the lock."""
        if kind in PHYSICS_EVENTS:  # the future left by go_back is gone for good
            self._forget_left()
        if self.recording is not None:
            self.recording.event(self.steps, kind, args)
        for listener in tuple(self.listeners):
            listener(kind, args)

    def _forget_left(self) -> None:
        if self._left is not None:
            self._left.history.history.unmark()
            self._left = None

    def _start_segment(self, origin: str) -> None:
        self._forget_left()
        if self.recording is not None:
            self.recording.start(self.keyframe(origin))
        for listener in tuple(self.listeners):  # a new run: "load" or "reset_all"
            listener("load" if origin == "load" else "reset_all", None)

    # ------------------------------------------------------------------ moving along it

    def become(self, keyframe: Mapping[str, Any], moment: Moment | None = None) -> None:
        """Make the world exactly that of `keyframe` (scenario, integrator, state, time,
        inputs, step counter); its running and time scale stay. `moment`: the keyframe's
        world, when the caller has it already (`moment_of` reads the scenario again: ~15 ms
        for 64 bodies, on the server's event loop), its own to keep. Hold the lock."""
        moment = moment_of(keyframe) if moment is None else moment
        names = [b.Name for b in moment.plan.scenario.bodies]
        if names != self.history.names:
            self.history = History(names, self.history.capacity, self._precision)
        self._sim.become(moment)
        self.steps = int(keyframe["step"])

    def start_over(self, recording: Recording | None = None) -> None:
        """The past of a world that just became a shared snapshot's keyframe (`become`):
        with `recording` (a copy of the one that keyframe ends) that past comes along, else
        the history and the recording start afresh here. Hold the lock."""
        self._forget_left()
        self._rewritten()
        self.history.clear()
        if recording is not None:
            self.recording = recording
            self.history.record(self._sim.t, self._sim.outputs())
        else:
            self._start_segment("load")
            self.record()

    def go_back(
        self, keyframe: Mapping[str, Any], segment: int, frames: int, moment: Moment | None = None
    ) -> None:
        """Go on from `keyframe`, a past frame of this run (replay.go_back finds it, and
        gives its world as `moment`): the history after it is forgotten and the recording
        truncated to segment `segment`'s first `frames` frame stamps. The present it leaves
        stays until the next change: `undo` returns to it."""
        with self._sim.lock:
            rec = self.recording
            if rec is None:
                raise FieldError("t", "invalid", "t: this simulation keeps no recording")
            t = keyframe_time(keyframe)
            now = self._sim.moment()  # a copy: the live state and inputs change in place
            kept = now.copy()
            steps = self.steps
            self._forget_left()
            mark = self.history.mark()  # before `become` (which may replace the history)
            try:
                self.become(keyframe, moment)
            except BaseException:
                mark.history.unmark()
                raise
            self.history.truncate_after(t)
            before = rec.truncate_sharing(segment, frames)
            self._rewritten()
            self._left = _Left(steps, kept, mark, before, t)
            self.log("go_back", {"t": t})

    def undo(self) -> None:
        """Return to where the run was before the last `go_back` (FieldError if none)."""
        with self._sim.lock:
            left = self._left
            if left is None:
                raise FieldError(
                    "type", "invalid", "undo_go_back: nothing to undo (a change since forgot it)"
                )
            self.become({"step": left.steps}, left.moment)
            left.history.history.restore(left.history)
            self.history, self.recording = left.history.history, left.recording
            self._rewritten()
            self._left = None
            self.log("undo_go_back")

    def _rewritten(self) -> None:
        self.cursor = None
        self.epoch += 1


class HistoryView:
    """A simulation's history, read-only and read under its lock (`LiveSimulation.history`);
    it follows the history the timeline holds (go back and undo replace it)."""

    def __init__(self, timeline: Timeline, lock: threading.RLock) -> None:
        self._timeline = timeline
        self._lock = lock

    def __len__(self) -> int:
        return len(self._timeline.history)

    @property
    def names(self) -> list[str]:
        return list(self._timeline.history.names)

    @property
    def capacity(self) -> int:
        return self._timeline.history.capacity

    @property
    def precision(self) -> Precision:
        return self._timeline.history.precision

    @property
    def nbytes(self) -> int:
        return self._timeline.history.nbytes

    @property
    def times(self) -> Array:
        """The rows' simulated times, oldest first (a copy)."""
        with self._lock:
            return self._timeline.history.times

    def header(self) -> list[str]:
        return self._timeline.history.header()

    def table(self) -> Array:
        """(T, columns) in the CSV's layout, oldest first (a copy)."""
        with self._lock:
            return self._timeline.history.table()

    def arrays(self) -> dict[str, Array]:
        """`Time` (T,), `B.Pos` (T, 3), `B.TotalEnergy` (T,), …"""
        with self._lock:
            return self._timeline.history.arrays()

    def csv(self) -> str:
        """The history as CSV (history.py documents the columns)."""
        with self._lock:
            return self._timeline.history.csv()

    def csv_pieces(self, cells: int = 50_000) -> Iterator[str]:
        """csv() in pieces (history.csv_pieces) of a snapshot taken now."""
        with self._lock:
            history = self._timeline.history
            header, table, digits = history.header(), history.table(), history.digits
        return csv_pieces(header, table, cells, digits)
