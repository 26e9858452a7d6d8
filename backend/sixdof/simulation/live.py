"""LiveSimulation: a world (world.py) advanced in real time, with its past.

The server (layer 4) owns one per room and calls `advance()` at its frame
rate, `frame()` for the state message, and the mutators for client messages.
Everything is synchronous and guarded by one re-entrant lock, so the server
may advance from a worker thread while handlers change things from the event
loop.

A LiveSimulation adds to its world the pacing in real time (pacing.py), the
engine that steps it (engine.py, whose contract it implements) and its past:
the `timeline` (timeline.py) keeps the history and the recording, goes back
and undoes, and hears of every row and change.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ..dynamics.inputs import InputChannels, applied_parts
from ..dynamics.quaternion import Array
from ..fields import check_number, number
from ..scenario import Scenario
from .changes import Plan, plan_load
from .free_engine import FreeEngine
from .history import Precision, row_plan
from .pacing import Pacer
from .payload import body_entries, element_entries
from .recording import Recording
from .timeline import HistoryView, Moment, Timeline
from .validation import plain, steps_count
from .world import World


class LiveSimulation(World):
    """A world advancing in real time (see the module docstring and the engine's contract)."""

    def __init__(
        self,
        scenario: Scenario | Mapping[str, Any],
        *,
        clock: Callable[[], float] = time.monotonic,
        frame_rate: float = 60.0,
        history_seconds: float = 60.0,
        history_bytes: int | None = None,
        history_precision: Precision = "float64",
        recording_bytes: int | None = None,
        max_catch_up: float = 0.1,
        max_compute: float | None = None,
        running: bool = True,
    ) -> None:
        super().__init__()
        self.frame_rate = check_number(frame_rate, "frame_rate")
        seconds = check_number(history_seconds, "history_seconds")
        catch_up = check_number(max_catch_up, "max_catch_up")
        compute = catch_up
        if max_compute is not None:
            compute = check_number(max_compute, "max_compute")
        self._clock = clock
        self._pacer = Pacer(clock, max_catch_up=catch_up, max_compute=compute)
        # a lone simulation is an engine of one (FreeEngine: the kernel's methods, geometric, exact)
        self._engine = FreeEngine(clock, [self])
        self.running = bool(running)
        self.paused_reason: str | None = None
        self.timeline = Timeline(self, frame_rate=self.frame_rate, history_seconds=seconds,
                                 history_bytes=history_bytes, precision=history_precision,
                                 recording_bytes=recording_bytes)  # fmt: skip
        self._commit_load(*plan_load(scenario))

    # ------------------------------------------------------------------ reading

    @property
    def time_scale(self) -> float:
        return self._pacer.time_scale

    @property
    def rtf(self) -> float:
        """Real-time factor over the last second of wall time; 0.0 while paused."""
        return self._pacer.rtf if self.running else 0.0

    @property
    def overruns(self) -> int:
        """Advances that dropped time (lag beyond max_catch_up or compute beyond max_compute)."""
        return self._pacer.overruns

    @property
    def dropped_time(self) -> float:
        """Simulated seconds dropped by overruns, in total."""
        return self._pacer.dropped

    @property
    def history(self) -> HistoryView:
        """The bounded history for plots and CSV, read-only (history.py has the columns)."""
        return HistoryView(self.timeline, self.lock)

    @property
    def recording(self) -> Recording | None:
        """Every change at the step it took effect, and keyframes (recording.py); None: off."""
        return self.timeline.recording

    def status(self) -> dict[str, object]:
        """The `status` object of the state message."""
        with self.lock:
            return {
                "running": self.running,
                "time_scale": self.time_scale,
                "rtf": float(self.rtf),
                "overruns": self.overruns,
                "paused_reason": self.paused_reason,
                "compute_limited": self.running and self._pacer.compute_limited,
                "forked_at": self.timeline.forked_at,
                "recorded_from": self.timeline.recorded_from,
                "integrator": self._w.method,
                "step": self._w.step,
            }

    def frame(self) -> dict[str, object]:
        """The state message's payload {"t", "status", "bodies": [{Name, Pos, …}]}, plain Python."""
        with self.lock:
            outs = self.outputs()
            shared = getattr(outs, "body_entries", None)  # a hub's rows: lists made once per tick
            bodies = shared(self._names) if shared else body_entries(outs, self._names)
            parts = applied_parts(self._inputs, self._x, outs["CGPos"])
            for entry, loads in zip(bodies, parts, strict=True):
                entry["Loads"] = loads
            frame: dict[str, object] = {"t": self.t, "status": self.status(), "bodies": bodies}
            if self._w.system is not None:
                frame["elements"] = element_entries(
                    self._w.system, self._w.bodies, self._x, self.element_records(), self._z
                )
            return frame

    def stamp(self, wait: bool = True) -> tuple[object, ...] | None:
        """Equal at two moments between which nothing the state message shows has changed:
        the world's revision (bumped by every change of its states, inputs or parameters: it
        keys the outputs' cache) and the status. None, without `wait`, while another thread
        holds the simulation (a change or a step under way): the event loop never waits."""
        if not self.lock.acquire(blocking=wait):
            return None
        try:
            return (self._rev, *self.status().values())
        finally:
            self.lock.release()

    def frame_arrays(self) -> tuple[float, dict[str, object], Mapping[str, Array]]:
        """(t, status, outputs): the numbers of `frame()` as arrays (N, …) by output name,
        for a binary encoding of the state message."""
        with self.lock:
            return self.t, self.status(), self.outputs()

    # ------------------------------------------------------------------ running

    def advance(self, now: float | None = None) -> int:
        """Step up to wall time `now` (default: the clock) times the time scale; steps taken.

        Paused, it only notes the time, so resuming does not owe the paused
        interval. Catch-up is bounded (pacing.py): lag beyond max_catch_up and
        compute beyond max_compute are dropped and counted in `overruns`.
        """
        with self.lock:
            before = self.timeline.steps
            now = self._clock() if now is None else number(now, "now")
            errors = self._engine.advance(now)
            if errors:
                raise errors[self]
            return self.timeline.steps - before

    def step(self, n: int = 1) -> int:
        """Take n physics steps now, running or paused; returns the steps taken.

        Fewer than n only when the state diverges (then the simulation pauses
        itself). The history gets a row every 1/frame_rate of simulated time.
        """
        n = steps_count(n)
        with self.lock:
            per_row = self.steps_per_row()
            batches, first_unrecorded = row_plan(n, per_row, self.timeline.history.capacity)
            done = 0
            for j, k in enumerate(batches):
                quiet = first_unrecorded and j == 0
                taken = self._engine.run(self, k, record=not quiet)
                done += taken
                if taken < k:  # diverged: paused at the last good state
                    if quiet:
                        self.timeline.record()
                    break
            return done

    def steps_per_row(self) -> int:
        """Steps between two history rows of `step` (one row per frame of simulated time)."""
        return max(1, round(1.0 / (self.frame_rate * self._w.step)))

    def run_steps(self, k: int) -> int:
        """Exactly k steps now with no history row (a re-simulation's stride); steps taken."""
        with self.lock:
            return self._engine.run(self, k, record=False) if k > 0 else 0

    # ------------------------------------------------------------------ the engine's contract

    def owed(self, now: float) -> int:
        """Steps owed at wall time `now` (pacing.py); 0 while paused. Hold `lock`."""
        return self._pacer.begin(now, self._w.step, running=self.running)

    def compute_deadline(self, start: float) -> float:
        """The wall time by which an advance that started at `start` must stop stepping."""
        return self._pacer.compute_deadline(start)

    def state(self) -> Array:
        """The live state (N, 13) itself (read-only: `commit` replaces it)."""
        return self._x

    def loads(self) -> Array:
        """The load rows (N, LOAD_SIZE) of the inputs, for the kernel (read-only)."""
        return self._inputs.loads()

    def commit(
        self,
        x: Array,
        taken: int,
        reason: str | None = None,
        outs: Mapping[str, Array] | None = None,
        row: Array | None = None,
        z: Array | None = None,
    ) -> None:
        """x (N, 13) is the state after `taken` good steps; a divergence `reason` pauses.

        `outs`: the outputs at x (kept until something changes); `row`: the history row
        of those outputs, laid out as history.COLUMNS, recorded at the new t; `z`: the
        elements' states there (None: unchanged, none carried).
        """
        self._x, self._n_steps = x, self._n_steps + taken
        if z is not None:
            self._z = z
        self.timeline.steps += taken
        if reason is not None:
            self.running, self.paused_reason = False, reason
        if taken:
            self._touch()
            if outs is not None:
                self._cache = (self._rev, outs)
            if row is not None:
                self.timeline.record(row)

    def settle(self, planned: int, taken: int, *, cut_short: bool) -> None:
        """Close the pacing of an advance: `taken` of `planned` steps (cut_short: dropped)."""
        self._pacer.done(planned, taken, self._w.step, cut_short=cut_short)

    # ------------------------------------------------------------------ pacing

    def pause(self, reason: str | None = None) -> None:
        """Stop the clock; `reason`, when given, is shown as paused_reason (e.g. a fault)."""
        with self.lock:
            self.running = False
            if reason is not None:
                self.paused_reason = reason
            self._pacer.clear_window()
            self._log("pause", {"reason": reason})

    def resume(self) -> None:
        """Run again from now; clears paused_reason (a diverged run may diverge again)."""
        with self.lock:
            self.running = True
            self.paused_reason = None
            self._pacer.restart()
            self._log("resume")

    def wake(self) -> None:
        """Pace from now on: an engine that stopped advancing this simulation (a room nobody
        watched) adds it back without owing the time it was left alone."""
        with self.lock:
            self._pacer.restart()

    def set_time_scale(self, x: float) -> None:
        """Simulated seconds per wall-clock second, in [0.01, 100]."""
        value = check_number(x, "time_scale")
        with self.lock:
            self._pacer.time_scale = value
            self._log("set_time_scale", {"time_scale": value})

    # ------------------------------------------------------------------ a new scenario

    def load(self, scenario: Scenario | Mapping[str, Any]) -> None:
        """Replace the scenario: new bodies, initial state and inputs; t = 0; history cleared.

        The time scale and running/paused stay. A scenario for a non-live
        integrator (dopri5, radau) runs with rk4 (changes.plan_load).
        """
        planned = plan_load(scenario)
        with self.lock:
            self._commit_load(*planned)

    # ------------------------------------------------------------------ the time axis

    def keyframe(self, origin: str = "periodic") -> dict[str, Any]:
        """Everything needed to go on from here exactly (Timeline.keyframe); plain JSON."""
        return self.timeline.keyframe(origin)

    @classmethod
    def from_keyframe(cls, keyframe: Mapping[str, Any], **options: Any) -> LiveSimulation:
        """A paused simulation exactly where `keyframe` was taken (options as __init__)."""
        sim = cls(Scenario.model_validate(keyframe["scenario"]), running=False, **options)
        with sim.lock:
            sim.timeline.become(keyframe)
        return sim

    def restore(self, keyframe: Mapping[str, Any], recording: Recording | None = None) -> None:
        """Become the simulation of `keyframe`, paused (a shared snapshot: `now`); with
        `recording` (a copy of the one that keyframe ends) the past comes along."""
        with self.lock:
            self.timeline.become(keyframe)  # a refused keyframe changes nothing
            self.running, self.paused_reason = False, None
            self.timeline.start_over(recording)

    def undo_go_back(self) -> None:
        """Return to where the run was before the last go back (Timeline.undo)."""
        self.timeline.undo()

    def become(self, moment: Moment) -> None:
        """Be the world of `moment`, paced from now on. Hold `lock`."""
        super().become(moment)
        self._pacer.restart()

    def _commit_load(self, plan: Plan, inputs: InputChannels) -> None:
        x = np.ascontiguousarray(plan.x, dtype=float)
        self.become(Moment(plan, x, inputs, 0.0, 0))
        self.paused_reason = None
        self.timeline.new_run("load")

    def _log(self, kind: str, args: dict[str, Any] | None = None) -> None:
        self.timeline.log(kind, args)

    def _after_reset(self, body: str | None, state: Mapping[str, Any] | None) -> None:
        self.paused_reason = None
        if body is None:
            self._pacer.restart()
            self.timeline.new_run("reset")
        else:
            self._log("reset", {"body": body, "state": plain(state)})
