"""LiveSimulation: one scenario's bodies, their state and inputs, advanced in real time.

The server (layer 4) owns one per room and calls `advance()` at its frame
rate, `frame()` for the state message, and the mutators for client messages.
Everything is synchronous and guarded by one re-entrant lock, so the server
may advance from a worker thread while handlers change things from the event
loop.

Parameter changes keep the pose: Pos, Quater, LocalVel and AngVel stay as
they are, except that a CGOffset change moves the reference point and keeps
the CG's global position and velocity (changes.py says exactly what is kept).

`version` bumps on every accepted set_params, on constant inputs (they are
part of the scenario) and on load: the server re-sends hello when it changes.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np

from ..dynamics import Bodies, outputs
from ..dynamics.inputs import InputChannels, applied_parts
from ..dynamics.names import Method
from ..dynamics.quaternion import Array
from ..fields import FieldError, check_number, number
from ..scenario import Scenario
from .changes import Plan, plan_load, plan_params, with_constant_input
from .engine import Engine
from .history import COLUMNS, PRECISIONS, History, Precision, csv_pieces, row_plan
from .limits import MAX_STEPS_PER_CALL
from .pacing import Pacer
from .payload import body_entries
from .recording import Recording
from .validation import check_param_names, input_update, spring_update, state_update

#: Changes that make the future left by `go_back` unreachable.
PHYSICS_CHANGES = ("set_input", "set_params", "reset")


class LiveSimulation:
    """A scenario's bodies advancing in real time (see the module docstring and the contract)."""

    _w: Plan  # scenario, parameters, packed bodies, integrator and step (replaced whole)
    _x: Array  # (N, 13), the live state
    _inputs: InputChannels
    _names: list[str]
    _name_index: dict[str, int]
    _t_base: float
    _n_steps: int
    _history: History

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
        self.frame_rate = check_number(frame_rate, "frame_rate")
        self.history_seconds = check_number(history_seconds, "history_seconds")
        self.history_bytes = history_bytes  # None: history_seconds alone sets the capacity
        if history_precision not in PRECISIONS:
            raise FieldError(
                "history_precision",
                "invalid",
                f"history_precision: one of {', '.join(PRECISIONS)}, got {history_precision!r}",
            )
        self.history_precision: Precision = history_precision
        catch_up = check_number(max_catch_up, "max_catch_up")
        compute = catch_up
        if max_compute is not None:
            compute = check_number(max_compute, "max_compute")
        self.lock = threading.RLock()
        self._clock = clock
        self._pacer = Pacer(clock, max_catch_up=catch_up, max_compute=compute)
        self._engine = Engine(clock, [self])  # a lone simulation is an engine of one
        self._n_steps_total = 0  # steps ever taken (advance's return value)
        self.running = bool(running)
        self.paused_reason: str | None = None
        self.version = 0
        self._rev = 0  # bumps on every change of state, inputs or parameters (output cache key)
        self._cache: tuple[int, Mapping[str, Array]] | None = None
        # every change at the step it took effect, and keyframes (recording.py); None: off
        self.recording: Recording | None = None
        self._undo: tuple[dict[str, Any], History, Recording, float] | None = None
        # called with (kind, args) for every change logged (a ghost follows the room so)
        self.listeners: list[Callable[[str, dict[str, Any] | None], None]] = []
        if recording_bytes is not None:
            self.recording = Recording(frame_rate=self.frame_rate, max_bytes=recording_bytes)
        self._commit_load(*plan_load(scenario))

    # ------------------------------------------------------------------ reading

    @property
    def t(self) -> float:
        """Simulated time, s: t at the last step-size change + steps since then × step."""
        return self._t_base + self._n_steps * self._w.step

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
    def max_catch_up(self) -> float:
        return self._pacer.max_catch_up

    @property
    def integrator(self) -> Method:
        return self._w.method

    @property
    def step_size(self) -> float:
        return self._w.step

    @property
    def names(self) -> list[str]:
        return list(self._names)

    @property
    def bodies(self) -> Bodies:
        """The physics parameters of all bodies (replaced whole on a change)."""
        return self._w.bodies

    @property
    def scenario(self) -> Scenario:
        """The live scenario (a copy): current parameters, constant global inputs, integrator;
        its Pos/Quater/LocalVel/AngVel are the initial state `reset()` returns to."""
        with self.lock:
            return self._w.scenario.model_copy(deep=True)

    def state_array(self) -> Array:
        """A copy of the state of all bodies, (N, 13): Pos, Quater, LocalVel, AngVel."""
        with self.lock:
            return self._x.copy()

    def applied_inputs(self) -> Array:
        """The total applied input now, (N, 6): global Force and Moment about the CG."""
        with self.lock:
            return self._inputs.total(self._x).copy()

    def inputs(self) -> dict[str, dict[str, dict[str, object]]]:
        """Per body its records: {"B": {"constant": {frame, Force, Moment, lever}, "push": …}};
        `lever`: point of application − CGOffset, body axes; None for a force at the CG."""
        with self.lock:
            return {
                name: {ch: self._inputs.record(ch, i) for ch in ("constant", "push")}
                for i, name in enumerate(self._names)
            }

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
                "forked_at": self.forked_at,
                "recorded_from": None if self.recording is None else self.recording.first_time(),
                "integrator": self._w.method,
                "step": self._w.step,
            }

    def frame(self) -> dict[str, object]:
        """The state message's payload {"t", "status", "bodies": [{Name, Pos, …}]}, plain Python."""
        with self.lock:
            outs = self._outputs()
            shared = getattr(outs, "body_entries", None)  # a hub's rows: lists made once per tick
            bodies = shared(self._names) if shared else body_entries(outs, self._names)
            parts = applied_parts(self._inputs, self._x, outs["CGPos"])
            for entry, loads in zip(bodies, parts, strict=True):
                entry["Loads"] = loads
            return {"t": self.t, "status": self.status(), "bodies": bodies}

    def frame_arrays(self) -> tuple[float, dict[str, object], Mapping[str, Array]]:
        """(t, status, outputs): the numbers of `frame()` as arrays (N, …) by output name,
        for a binary encoding of the state message."""
        with self.lock:
            return self.t, self.status(), self._outputs()

    def history_csv(self) -> str:
        """The bounded history as CSV (history.py documents the columns)."""
        with self.lock:
            return self._history.csv()

    def history_csv_pieces(self, cells: int = 50_000) -> Iterator[str]:
        """history_csv() in pieces (history.csv_pieces) of a snapshot taken now."""
        with self.lock:
            header, table = self._history.header(), self._history.table()
            digits = self._history.digits
        return csv_pieces(header, table, cells, digits)

    def history_arrays(self) -> dict[str, Array]:
        """The bounded history as arrays: `Time` (T,), `B.Pos` (T, 3), `B.TotalEnergy` (T,), …"""
        with self.lock:
            return self._history.arrays()

    # ------------------------------------------------------------------ running

    def advance(self, now: float | None = None) -> int:
        """Step up to wall time `now` (default: the clock) times the time scale; steps taken.

        Paused, it only notes the time, so resuming does not owe the paused
        interval. Catch-up is bounded (pacing.py): lag beyond max_catch_up and
        compute beyond max_compute are dropped and counted in `overruns`.
        """
        with self.lock:
            before = self._n_steps_total
            now = self._clock() if now is None else number(now, "now")
            errors = self._engine.advance(now)
            if errors:
                raise errors[self]
            return self._n_steps_total - before

    def step(self, n: int = 1) -> int:
        """Take n physics steps now, running or paused; returns the steps taken.

        Fewer than n only when the state diverges (then the simulation pauses
        itself). The history gets a row every 1/frame_rate of simulated time.
        """
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
            raise FieldError("n", "invalid", f"n: expected a whole number of steps, got {n!r}")
        if not 1 <= n <= MAX_STEPS_PER_CALL:
            raise FieldError(
                "n", "out_of_range", f"n: must be in [1, {MAX_STEPS_PER_CALL}] steps, got {n}"
            )
        with self.lock:
            per_row = self.steps_per_row()
            batches, first_unrecorded = row_plan(n, per_row, self._history.capacity)
            done = 0
            for j, k in enumerate(batches):
                quiet = first_unrecorded and j == 0
                taken = self._engine.run(self, k, record=not quiet)
                done += taken
                if taken < k:  # diverged: paused at the last good state
                    if quiet:
                        self._record_row()
                    break
            return done

    def steps_per_row(self) -> int:
        """Steps between two history rows of `step` (one row per frame of simulated time)."""
        return max(1, round(1.0 / (self.frame_rate * self._w.step)))

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
    ) -> None:
        """x (N, 13) is the state after `taken` good steps; a divergence `reason` pauses.

        `outs`: the outputs at x (kept until something changes); `row`: the history row
        of those outputs, laid out as history.COLUMNS, recorded at the new t.
        """
        self._x, self._n_steps = x, self._n_steps + taken
        self._n_steps_total += taken
        if reason is not None:
            self.running, self.paused_reason = False, reason
        if taken:
            self._touch()
            if outs is not None:
                self._cache = (self._rev, outs)
            if row is not None:
                self._history.record_row(self.t, row)
                self._stamp_frame()

    def settle(self, planned: int, taken: int, *, cut_short: bool) -> None:
        """Close the pacing of an advance: `taken` of `planned` steps (cut_short: dropped)."""
        self._pacer.done(planned, taken, self._w.step, cut_short=cut_short)

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

    def reset(self, body: str | None = None, state: Mapping[str, Any] | None = None) -> None:
        """Back to the scenario's initial state, or to a given one.

        body None: the whole simulation restarts (t = 0, history and push inputs
        cleared) and a given `state` applies to the first body. body "B": only
        that body's state is replaced (by `state`, or by its initial state) and
        time runs on. `state` holds any of Pos, Quater, LocalVel, AngVel; the
        others come from the scenario's initial state. Running or paused stays;
        paused_reason is cleared.
        """
        with self.lock:
            initial = self._w.scenario.initial_states()
            if body is None:
                if state is not None:
                    initial[0] = state_update(initial[0], state)
                self._x = initial
                self._t_base, self._n_steps = 0.0, 0
                self._inputs.clear("push")
                self._history.clear()
                self._pacer.restart()
            else:
                i = self._index(body)
                row = state_update(initial[i], state if state is not None else {})
                self._x = self._x.copy()
                self._x[i] = row
            self.paused_reason = None
            self._touch()
            if body is None:
                self._start_segment("reset")
                self._record_row()
            else:
                self._log("reset", {"body": body, "state": _plain(state)})

    # ------------------------------------------------------------------ changing

    def set_input(
        self,
        body: str | None,
        force: Any = (0.0, 0.0, 0.0),
        moment: Any = (0.0, 0.0, 0.0),
        *,
        frame: str = "global",
        point: Any = None,
        channel: str = "constant",
        spring: Any = None,
    ) -> None:
        """Replace one input channel of a body (inputs.py has the equations).

        channel "constant" replaces the body's constant input; when global and at
        the CG (no point) it is the scenario's Force/Moment, otherwise those read
        zero and `inputs()` reports it. channel "push" is a transient input on
        top, cleared by zeros or a full reset. frame "body": the vectors are in
        body axes and turn with the body. point (body axes, relative to the
        reference point, m): the force acts there, adding the moment
        (point − CGOffset) × F about the CG. None force/moment mean zero.
        spring {target, stiffness, damping, max_force} (push channel only): instead of a
        given force, the point (the CG without one) is pulled toward the world target by
        F = stiffness (target − point) − damping × the point's velocity, at most max_force,
        evaluated at every integrator stage.
        """
        with self.lock:
            i = self._index(body)
            f, m, frame_, p, channel_ = input_update(force, moment, frame, point, channel)
            r_cg = self._w.params[i].r_cg_body
            lever = None if p is None else p - r_cg
            call = {"body": body, "force": f.tolist(), "moment": m.tolist(), "frame": frame_,
                    "point": None if p is None else p.tolist(), "channel": channel_}  # fmt: skip
            if spring is not None:
                target, k, c, cap = spring_update(spring, channel_)
                at = r_cg if p is None else p
                self._inputs.set_spring(i, target, at, at - r_cg, k, c, cap)
                self._touch()
                self._log("set_input", {**call, "spring": _plain(spring)})
                return
            if channel_ == "constant":
                plain = frame_ == "global" and p is None
                scenario = with_constant_input(self._w.scenario, i, f if plain else None, m)
                self._w = dataclasses.replace(self._w, scenario=scenario)
                self.version += 1
            self._inputs.set(i, channel_, frame_, f, m, lever)  # type: ignore[arg-type]  # checked choices
            self._touch()
            self._log("set_input", call)

    def set_params(self, body: str | None = None, **fields: Any) -> list[str]:
        """Change parameters while running, all or nothing; returns warnings (usually none).

        Body fields: Mass, InertiaRadi, Inertia (6 or None), CGOffset, Gravity,
        model; visual: Mesh, Material, MeshScale, Size, MeshOrigin; simulation:
        integrator ("euler"|"rk4"), step (s). InertiaRadi without Inertia clears
        a full tensor. On error nothing changes.
        """
        with self.lock:
            check_param_names(fields)
            i = self._index(body)
            plan = plan_params(dataclasses.replace(self._w, x=self._x), i, fields)
            # Validated and built: swap it in (nothing below can fail).
            if plan.step != self._w.step:
                self._t_base, self._n_steps = self.t, 0
            self._w = plan
            self._x = plan.x
            if fields:
                self.version += 1
            self._touch()
            self._log("set_params", {"body": body, "fields": _plain(fields)})
            return list(plan.notes)

    def load(self, scenario: Scenario | Mapping[str, Any]) -> None:
        """Replace the scenario: new bodies, initial state and inputs; t = 0; history cleared.

        The time scale and running/paused stay. A scenario for a non-live
        integrator (dopri5, radau) runs with rk4 (changes.plan_load).
        """
        planned = plan_load(scenario)
        with self.lock:
            self._commit_load(*planned)

    # ------------------------------------------------------------------ internals

    def _index(self, body: str | None) -> int:
        if body is None:
            return 0
        i = self._name_index.get(body) if isinstance(body, str) else None
        if i is None:
            raise FieldError(
                "body", "unknown_body", f"body: no body named {body!r}; bodies are {self._names}"
            )
        return i

    def _touch(self) -> None:
        self._rev += 1

    # ------------------------------------------------------------------ recording

    def keyframe(self, origin: str = "periodic") -> dict[str, Any]:
        """Everything needed to go on from here exactly: scenario (current parameters),
        state, time, input records, integrator and step; plain JSON values."""
        with self.lock:
            return {
                "step": self._n_steps_total,
                "origin": origin,
                "scenario": self._w.scenario.model_dump(mode="json"),
                "method": self._w.method,
                "step_size": self._w.step,
                "x": self._x.tolist(),
                "t_base": self._t_base,
                "n_steps": self._n_steps,
                "inputs": self._inputs.to_json(),
                "running": self.running,
                "time_scale": self.time_scale,
            }

    @classmethod
    def from_keyframe(cls, keyframe: Mapping[str, Any], **options: Any) -> LiveSimulation:
        """A paused simulation exactly where `keyframe` was taken (options as __init__)."""
        sim = cls(Scenario.model_validate(keyframe["scenario"]), running=False, **options)
        sim._restore(keyframe)
        return sim

    def _restore(self, keyframe: Mapping[str, Any]) -> None:
        """Become exactly the simulation of `keyframe` (scenario, integrator, state, time,
        inputs, step counter); running and the time scale stay. Hold `lock`."""
        plan, _ = plan_load(keyframe["scenario"])
        if (plan.method, plan.step) != (keyframe["method"], keyframe["step_size"]):
            fields = {"integrator": keyframe["method"], "step": keyframe["step_size"]}
            plan = plan_params(plan, 0, fields)
        x = np.array(keyframe["x"], dtype=float)
        if x.shape != plan.x.shape:
            raise ValueError(f"keyframe x: shape {x.shape}, expected {plan.x.shape}")
        names = [b.Name for b in plan.scenario.bodies]
        if names != self._names:
            capacity = self._history.capacity
            self._history = History(names, capacity, self.history_precision)
        self._w = plan
        self._x = x
        self._names, self._name_index = names, {n: i for i, n in enumerate(names)}
        self._t_base, self._n_steps = float(keyframe["t_base"]), int(keyframe["n_steps"])
        self._inputs = InputChannels.from_json(keyframe["inputs"])
        self._n_steps_total = int(keyframe["step"])
        self.version += 1
        self._touch()

    def restore(self, keyframe: Mapping[str, Any], recording: Recording | None = None) -> None:
        """Become the simulation of `keyframe`, paused (a shared snapshot: `now`); with
        `recording` (a copy of the one that keyframe ends) the past comes along, else the
        history and the recording start afresh there."""
        with self.lock:
            self._restore(keyframe)
            self.running, self.paused_reason = False, None
            self._undo = None
            self._history.clear()
            if recording is not None:
                self.recording = recording
                self._history.record(self.t, self._outputs())
            else:
                self._start_segment("load")
                self._record_row()
            self._pacer.restart()

    # ------------------------------------------------------------------ the time axis

    @property
    def forked_at(self) -> float | None:
        """t the run went back to with `go_back`, while `undo_go_back` can still return."""
        return None if self._undo is None else self._undo[3]

    def go_back(self, keyframe: Mapping[str, Any], segment: int, frames: int) -> None:
        """Go on from `keyframe`, a past frame of this run (replay.fork finds it): the
        history after it is forgotten and the recording truncated to segment `segment`'s
        first `frames` frame stamps. The present it leaves stays until the next change:
        `undo_go_back` returns to it."""
        with self.lock:
            rec = self.recording
            if rec is None:
                raise FieldError("t", "invalid", "t: this simulation keeps no recording")
            t = float(keyframe["t_base"]) + int(keyframe["n_steps"]) * float(keyframe["step_size"])
            undo = (self.keyframe("undo"), self._history.copy(), rec.copy(), t)
            self._restore(keyframe)
            self._history.truncate_after(t)
            rec.truncate(segment, frames)
            self._undo = undo
            self._pacer.restart()
            self._log("go_back", {"t": t}, keep_undo=True)

    def undo_go_back(self) -> None:
        """Return to where the run was before the last `go_back` (FieldError if none)."""
        with self.lock:
            if self._undo is None:
                raise FieldError(
                    "type", "invalid", "undo_go_back: nothing to undo (a change since forgot it)"
                )
            keyframe, history, recording, _ = self._undo
            self._restore(keyframe)
            self._history, self.recording, self._undo = history, recording, None
            self._pacer.restart()
            self._log("undo_go_back", keep_undo=True)

    def steps_taken(self) -> int:
        """The step counter the recording stamps changes with (all steps since creation)."""
        return self._n_steps_total

    def run_steps(self, k: int) -> int:
        """Exactly k steps now with no history row (a re-simulation's stride); steps taken."""
        with self.lock:
            return self._engine.run(self, k, record=False) if k > 0 else 0

    def history_row(self) -> Array:
        """The history row of the current state, (N, history.WIDTH) in history.COLUMNS order,
        computed as the engine computes it."""
        with self.lock:
            outs = self._outputs()
            n = len(self._names)
            return np.concatenate([np.reshape(outs[k], (n, w)) for k, w in COLUMNS], axis=1)

    def _record_row(self) -> None:
        self._history.record(self.t, self._outputs())
        self._stamp_frame()

    def _stamp_frame(self) -> None:
        rec = self.recording
        if rec is None:
            return
        rec.frame(self._n_steps_total)
        if rec.needs_keyframe(self._n_steps_total, self._w.step, len(self._names)):
            rec.start(self.keyframe())

    def _start_segment(self, origin: str) -> None:
        self._undo = None
        if self.recording is not None:
            self.recording.start(self.keyframe(origin))
        for listener in tuple(self.listeners):  # a new run: "load" or "reset_all"
            listener("load" if origin == "load" else "reset_all", None)

    def _log(
        self, kind: str, args: dict[str, Any] | None = None, *, keep_undo: bool = False
    ) -> None:
        if kind in PHYSICS_CHANGES and not keep_undo:
            self._undo = None  # a change: the future left by go_back is gone for good
        if self.recording is not None:
            self.recording.event(self._n_steps_total, kind, args)
        for listener in tuple(self.listeners):
            listener(kind, args)

    def _outputs(self) -> Mapping[str, Array]:
        """dynamics.outputs at the current state and inputs, cached until something changes."""
        if self._cache is None or self._cache[0] != self._rev:
            u = self._inputs.total(self._x)
            self._cache = (self._rev, outputs(self._x, u, self._w.bodies))
        return self._cache[1]

    def _commit_load(self, plan: Plan, inputs: InputChannels) -> None:
        self._w = plan
        self._x = np.ascontiguousarray(plan.x, dtype=float)
        self._inputs = inputs
        self._names = [b.Name for b in plan.scenario.bodies]
        self._name_index = {n: i for i, n in enumerate(self._names)}
        self._t_base, self._n_steps = 0.0, 0
        capacity = max(1, round(self.history_seconds * self.frame_rate))
        if self.history_bytes is not None:  # bounded in bytes too: fewer seconds of many bodies
            fits = self.history_bytes // History.row_bytes(len(self._names), self.history_precision)
            capacity = max(1, min(capacity, fits))
        self._history = History(self._names, capacity, self.history_precision)
        self.paused_reason = None
        self._pacer.restart()
        self.version += 1
        self._touch()
        self._start_segment("load")
        self._record_row()


def _plain(value: Any) -> Any:
    """`value` with numpy arrays and numbers turned into lists and floats (for JSON)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value
