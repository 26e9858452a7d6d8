"""A ghost run: the room's own inputs through other settings, beside the live body.

The ghost starts from a keyframe of the room's recording (the earliest of the current run
that can be caught up within MAX_CATCH_UP body-steps), takes the other settings (a model,
an integrator, a step, body parameters), and re-runs the recorded changes at the simulated
times they happened, up to the room's present. From then on it follows the room: every
change the room logs is applied to it as well (minus the settings the ghost overrides),
and each tick it is stepped to the room's time. Its pose and its difference from the live
body (distance, rotation angle) go into the state frame, so the page can draw it and plot
how far apart the two runs drift: this is how the Coriolis terms (full against fhsim) or
an integrator's error show.

After the room goes back or loads, `follow` builds the ghost again a few ms of each tick;
what cannot be cut (reading a keyframe's scenario, the ghost's settings, its kernel's first
call: 5-20 ms for 64 bodies, up to ~1 s when it compiles) runs in a thread of its own
meanwhile, as `set_ghost`'s build runs it in one (server/ghosts.py), so no tick waits for it.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import numpy as np

from ..dynamics import quaternion as quat
from ..fields import FieldError
from .events import PHYSICS_EVENTS, apply_event
from .live import LiveSimulation
from .pieces import FIRST_PIECE_BODY_STEPS, PIECE_SECONDS, Offload, Pieces, finish, serial
from .replay import MOMENTS
from .validation import BODY_FIELDS, SIMULATION_FIELDS  # what a ghost may change

#: Body-steps a ghost may take to catch up with the room when it starts (about 0.1 s).
MAX_CATCH_UP = 1_000_000
#: Body-steps a ghost may take in one tick to keep up; beyond it the ghost lags (and says so).
MAX_PER_TICK = 50_000
REBUILD = ("go_back", "undo_go_back")
#: Wall time a rebuild (after the room went back, or loaded) may take of one tick.
REBUILD_SECONDS = 0.003
#: Times a build in pieces starts again when the room's run is replaced meanwhile.
BUILD_TRIES = 3


class Ghost:
    """The ghost of one live simulation (see the module docstring)."""

    def __init__(
        self, live: LiveSimulation, changes: Mapping[str, Any], sim: LiveSimulation | None = None
    ) -> None:
        """The ghost of `live` with `changes`, built now (`building` builds it in pieces);
        `sim`: the ghost's simulation, already built and following `live`."""
        self.live = live
        self.changes = checked(changes)
        self.stale = False  # the live run was replaced (load, reset, go back): rebuild
        self.behind = False  # could not keep up in the last tick
        self._rebuild: Pieces[LiveSimulation] | None = None  # a rebuild in pieces (follow)
        self._sent: Any = None  # what to send into it next (an Offload's result)
        self._offloaded: Future[Any] | None = None  # its uncut piece, running in a thread
        self.sim = finish(self._building(PIECE_SECONDS)) if sim is None else sim
        live.timeline.listeners.append(self._on_change)

    @classmethod
    def building(
        cls, live: LiveSimulation, changes: Mapping[str, Any], piece_seconds: float = PIECE_SECONDS
    ) -> Pieces[Ghost]:
        """A ghost built in pieces of about `piece_seconds` (pieces.py's `Pieces`: the
        server gives its event loop back between them and charges each to the client who
        asked); the room goes on meanwhile, and the changes it logs are caught up with."""
        ghost = cls.__new__(cls)
        ghost.live, ghost.changes = live, checked(changes)
        ghost.stale = ghost.behind = False
        ghost._offloaded = None
        sim = yield from ghost._building(piece_seconds)
        cls.__init__(ghost, live, ghost.changes, sim)
        return ghost

    @staticmethod
    def body_steps(live: LiveSimulation) -> float:
        """About how many body-steps building a ghost of `live` re-runs (an estimate of its
        cost before it starts): from its starting keyframe to now."""
        rec = live.recording
        if rec is None:
            return 0.0
        with live.lock:
            start = _start_index(live)
            seconds = live.t - rec.segments[start].t if rec.segments else 0.0
            return max(0.0, seconds / live.step_size * len(live.names))

    def close(self) -> None:
        if self._on_change in self.live.timeline.listeners:
            self.live.timeline.listeners.remove(self._on_change)
        self._drop_rebuild()

    def _drop_rebuild(self) -> None:
        if self._offloaded is not None:
            self._offloaded.cancel()  # if it has not started; a running one is let finish
            self._offloaded = None
        if self._rebuild is not None:
            self._rebuild.close()  # its listener goes with it
            self._rebuild = None

    @property
    def rebuilding(self) -> bool:
        """The room's run was replaced and the ghost is being built again (`follow`)."""
        return self.stale or self._rebuild is not None

    # ------------------------------------------------------------------ building

    def _settings(self, sim: LiveSimulation) -> None:
        body = {k: v for k, v in self.changes.items() if k in BODY_FIELDS}
        if body:  # every body at once: one batch built, not one per body
            sim.set_params_each(**body)
        run = {k: v for k, v in self.changes.items() if k in SIMULATION_FIELDS}
        if run:
            sim.set_params(**run)

    def _building(self, piece_seconds: float) -> Pieces[LiveSimulation]:
        """The ghost's simulation, in pieces (`building`), following the room from then on
        (the listener is the caller's to add: `__init__`)."""
        live = self.live
        if live.recording is None:
            raise FieldError("changes", "invalid", "ghost: this room keeps no recording")
        for _ in range(BUILD_TRIES):
            queue = _Queue(live)
            with live.lock:  # what to re-run; what the room does meanwhile is queued
                rec = live.recording
                assert rec is not None
                start = _start_index(live)
                now = live.t
                taken = [(seg.keyframe, list(seg.events)) for seg in list(rec.segments)[start:]]
                live.timeline.listeners.append(queue)
            try:
                sim = yield from self._catching_up(taken, now, queue, piece_seconds)
            finally:
                if queue in live.timeline.listeners:
                    live.timeline.listeners.remove(queue)
            if sim is not None:
                return sim
        raise FieldError("changes", "invalid",
                         "ghost: the room's run was replaced while its ghost was built; "
                         "set it again")  # fmt: skip

    def _catching_up(
        self,
        taken: list[tuple[str, list[tuple[int, int, str, str]]]],
        now: float,
        queue: _Queue,
        piece_seconds: float,
    ) -> Pieces[LiveSimulation | None]:
        """The ghost's simulation from the segments `taken` (keyframe text, events) up to
        `now`, then through the room's changes (`queue`d as they happen) up to the room's
        time; None when the room's run was replaced meanwhile."""
        live = self.live
        pending = queue.pending
        clock = Clock(piece_seconds)
        keyframe = json.loads(taken[0][0])
        yield None
        sim = yield from MOMENTS.starting(taken[0][0], keyframe, live.frame_rate)
        yield Offload(self._settings, (sim,))  # ~5-20 ms for 64 bodies, not to be cut
        clock.restart()
        segments = []
        for i, (text, events) in enumerate(taken):
            items = [{"step": step, "kind": kind, **json.loads(args)}
                     for step, _, kind, args in events]  # fmt: skip
            segments.append({"keyframe": json.loads(text) if i else keyframe, "items": items})
            if clock.over():
                yield None
                clock.restart()
        for t, item in _timed_events(segments):
            yield from _stepping_to(sim, t, clock)
            self._apply(sim, item["kind"], item)
            if clock.over():
                yield None
                clock.restart()
        yield from _stepping_to(sim, now, clock)
        while True:  # the room went on meanwhile: its changes, then its time
            if queue.replaced:
                return None
            if pending:
                kind, args, t = pending.pop(0)
                yield from _stepping_to(sim, t, clock)
                self._queued(sim, kind, args)
                continue
            behind = (live.t - sim.t) / sim.step_size * len(sim.names)
            if behind > FIRST_PIECE_BODY_STEPS:  # more than a short piece: one more
                yield from _stepping_to(sim, live.t, clock)
                continue
            with live.lock:  # the last piece: nothing can come in between
                if queue.replaced:
                    return None
                for kind, args, t in pending:
                    _step_to(sim, t)
                    self._queued(sim, kind, args)
                pending.clear()
                _step_to(sim, live.t)
                sim.timeline.listeners.clear()
                return sim

    def _queued(self, sim: LiveSimulation, kind: str, args: Mapping[str, Any] | None) -> None:
        try:
            self._apply(sim, kind, args or {})
        except FieldError:  # e.g. a step the ghost's integrator cannot take (as _on_change)
            pass

    def _apply(self, sim: LiveSimulation, kind: str, args: Mapping[str, Any]) -> None:
        apply_event(sim, {**args, "kind": kind}, keep=tuple(self.changes))

    # ------------------------------------------------------------------ following the room

    def _on_change(self, kind: str, args: Mapping[str, Any] | None) -> None:
        if kind in ("load", "reset_all") or kind in REBUILD:
            self.stale = True
        elif self.rebuilding:
            return  # the rebuild catches up with it
        elif kind in PHYSICS_EVENTS and args is not None:
            _step_to(self.sim, self.live.t)
            try:
                self._apply(self.sim, kind, args)
            except FieldError:  # e.g. a step the ghost's integrator cannot take
                pass

    def follow(self, rebuild_seconds: float = REBUILD_SECONDS) -> None:
        """Step to the room's time (at most MAX_PER_TICK body-steps); after the room's run
        was replaced, rebuild, about `rebuild_seconds` of it per call (one tick: the room's
        event loop is not held for the whole rebuild; the ghost shows where it was, `behind`,
        until it is done)."""
        if self.stale:
            self.stale = False
            self._drop_rebuild()
            self._rebuild, self._sent = self._building(PIECE_SECONDS), None
        if self._rebuild is not None:
            self.behind = True
            self._go_on_rebuilding(rebuild_seconds)
            return
        left = (self.live.t - self.sim.t) / self.sim.step_size
        limit = max(1, MAX_PER_TICK // max(1, len(self.sim.names)))
        self.behind = left > limit + 0.5
        _step_to(self.sim, self.live.t, limit)

    def _go_on_rebuilding(self, seconds: float) -> None:
        rebuild = self._rebuild
        assert rebuild is not None
        started = time.perf_counter()
        while time.perf_counter() - started < seconds:
            if self._offloaded is not None:
                if not self._offloaded.done():
                    return  # the ghost shows where it was until its thread is done
                offloaded, self._offloaded = self._offloaded, None
                self._sent = offloaded.result()  # what it raised ends the ghost (rooms.py)
            try:
                asked = rebuild.send(self._sent)
            except StopIteration as done:
                self.sim, self._rebuild, self.behind = done.value, None, False
                return
            self._sent = None
            if asked is not None:
                # an uncut piece (a keyframe's scenario not read before, the ghost's
                # settings, its kernel's first call) goes to a thread; the tick goes on
                self._offloaded = _offloads().submit(asked.fn, *asked.args)

    def frame(self, live_bodies: list[dict[str, Any]]) -> dict[str, Any]:
        """The ghost part of the state message: its poses and the differences (all bodies
        at once: one body at a time took 1.7 ms of each tick for 64 bodies)."""
        x = self.sim.state_array()
        pos, q = x[:, 0:3], x[:, 3:7]
        live_pos = np.array([b["Pos"] for b in live_bodies], dtype=float).reshape(-1, 3)
        live_q = np.array([b["Quater"] for b in live_bodies], dtype=float).reshape(-1, 4)
        rel = quat.multiply(quat.conjugate(live_q), q)
        # atan2, not acos(η): acos near 1 resolves no angle below ~1e-8 rad, and an exact
        # ghost beside RK4 at 1 ms is 1e-9 rad away
        angles = 2.0 * np.arctan2(np.linalg.norm(rel[:, 1:], axis=1), np.abs(rel[:, 0]))
        distances = np.linalg.norm(pos - live_pos, axis=1)
        bodies = [{"Pos": p, "Quater": r} for p, r in zip(pos.tolist(), q.tolist(), strict=True)]
        diffs = [{"pos": d, "angle": a}
                 for d, a in zip(distances.tolist(), angles.tolist(), strict=True)]  # fmt: skip
        return {"t": self.sim.t, "changes": self.changes, "behind": self.behind,
                "bodies": bodies, "diff": diffs}  # fmt: skip


_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _offloads() -> ThreadPoolExecutor:
    """The thread that runs the uncut pieces of the ghosts' rebuilds, one after another
    (background work: the rooms' ticks come first), made with the first."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sixdof-ghost")
        return _pool


def checked(changes: Mapping[str, Any]) -> dict[str, Any]:
    """`changes` if a ghost may make them (FieldError naming `changes` if not)."""
    unknown = sorted(set(changes) - set(SIMULATION_FIELDS) - set(BODY_FIELDS))
    if unknown or not changes:
        allowed = ", ".join(SIMULATION_FIELDS + BODY_FIELDS)
        raise FieldError(
            "changes", "invalid", f"changes: give some of {allowed}, got {sorted(changes)}"
        )
    return dict(changes)


def _start_index(live: LiveSimulation) -> int:
    """The recording's segment a ghost starts from: the earliest of the current run within
    MAX_CATCH_UP body-steps of now. Hold the lock."""
    rec = live.recording
    assert rec is not None
    now, bodies, h = live.t, len(live.names), live.step_size
    return next(
        (i for i in range(rec.run_start(), len(rec.segments))
         if (now - rec.segments[i].t) / h * bodies <= MAX_CATCH_UP),
        len(rec.segments) - 1,
    )  # fmt: skip


class _Queue:
    """A listener of the room while its ghost is built: the changes to catch up with, each
    with the room's time; `replaced` once the room's run was replaced (load, go back…)."""

    def __init__(self, live: LiveSimulation) -> None:
        self.live = live
        self.pending: list[tuple[str, Mapping[str, Any] | None, float]] = []
        self.replaced = False

    def __call__(self, kind: str, args: Mapping[str, Any] | None) -> None:
        if kind in ("load", "reset_all") or kind in REBUILD:
            self.replaced = True
        elif kind in PHYSICS_EVENTS and args is not None:
            self.pending.append((kind, args, self.live.t))


class Clock:
    """The wall time of the current piece, against `piece_seconds`."""

    def __init__(self, piece_seconds: float) -> None:
        self.piece_seconds = piece_seconds
        self.since = time.perf_counter()
        self.per_step: float | None = None  # s per body-step, measured
        self.warm = False  # the ghost's kernel was called once (off the loop)

    def restart(self) -> None:
        self.since = time.perf_counter()

    def left(self) -> float:
        return self.piece_seconds - (time.perf_counter() - self.since)

    def over(self) -> bool:
        """The piece is (nearly) over: the caller yields, then `restart`s."""
        return self.left() <= 0.2 * self.piece_seconds


def _stepping_to(sim: LiveSimulation, t: float, clock: Clock) -> Pieces[None]:
    """`_step_to(sim, t)` in pieces of about the clock's piece_seconds."""
    bodies = max(1, len(sim.names))
    while (n := round((t - sim.t) / sim.step_size)) > 0:
        if not clock.warm:  # its kernel's first call (another model or integrator than the
            clock.warm = True  # room's may load or compile it: ~0.1-1 s) in a thread
            if (yield Offload(sim.run_steps, (1,))) < 1:
                raise FieldError("changes", "invalid", "ghost: its run diverged")
            clock.restart()
            continue
        if clock.per_step is None:
            k = max(1, FIRST_PIECE_BODY_STEPS // bodies)
        else:
            k = max(1, int(clock.left() / (clock.per_step * bodies)))
        k = min(k, n)
        started = time.perf_counter()
        with serial():
            taken = sim.run_steps(k)
        clock.per_step = (time.perf_counter() - started) / max(taken, 1) / bodies
        if taken < k:
            raise FieldError("changes", "invalid", "ghost: its run diverged")
        if clock.over():
            yield None
            clock.restart()


def _step_to(sim: LiveSimulation, t: float, limit: int | None = None) -> None:
    n = round((t - sim.t) / sim.step_size)
    if limit is not None:
        n = min(n, limit)
    if n > 0:
        sim.run_steps(n)


def _timed_events(segments: list[dict[str, Any]]) -> list[tuple[float, dict[str, Any]]]:
    """The physics events of consecutive segments with the simulated time of each, from the
    live run's own t = t_base + n_steps × h arithmetic."""
    out = []
    for segment in segments:
        keyframe = segment["keyframe"]
        t_base, h = float(keyframe["t_base"]), float(keyframe["step_size"])
        base = int(keyframe["step"]) - int(keyframe["n_steps"])
        for item in segment["items"]:
            now = t_base + (int(item["step"]) - base) * h
            kind = item["kind"]
            if kind in PHYSICS_EVENTS:
                out.append((now, item))
            if kind == "set_params" and "step" in item["fields"]:
                step = float(item["fields"]["step"])
                if step != h:
                    t_base, h, base = now, step, int(item["step"])
    return out
