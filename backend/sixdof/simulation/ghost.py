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
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..dynamics import quaternion as quat
from ..fields import FieldError
from .live import LiveSimulation
from .replay import apply_event

#: Body-steps a ghost may take to catch up with the room when it starts (about 0.1 s).
MAX_CATCH_UP = 1_000_000
#: Body-steps a ghost may take in one tick to keep up; beyond it the ghost lags (and says so).
MAX_PER_TICK = 50_000
#: What a ghost may change: the room's body parameters, its integrator and step.
SIM_FIELDS = ("integrator", "step")
BODY_FIELDS = ("model", "Mass", "InertiaRadi", "Inertia", "CGOffset", "Gravity")
REBUILD = ("go_back", "undo_go_back")


class Ghost:
    """The ghost of one live simulation (see the module docstring)."""

    def __init__(self, live: LiveSimulation, changes: Mapping[str, Any]) -> None:
        unknown = sorted(set(changes) - set(SIM_FIELDS) - set(BODY_FIELDS))
        if unknown or not changes:
            allowed = ", ".join(SIM_FIELDS + BODY_FIELDS)
            raise FieldError(
                "changes", "invalid", f"changes: give some of {allowed}, got {sorted(changes)}"
            )
        self.live = live
        self.changes = dict(changes)
        self.stale = False  # the live run was replaced (load, reset, go back): rebuild
        self.behind = False  # could not keep up in the last tick
        self.sim = self._build()
        live.timeline.listeners.append(self._on_change)

    def close(self) -> None:
        if self._on_change in self.live.timeline.listeners:
            self.live.timeline.listeners.remove(self._on_change)

    # ------------------------------------------------------------------ building

    def _settings(self, sim: LiveSimulation) -> None:
        body = {k: v for k, v in self.changes.items() if k in BODY_FIELDS}
        if body:  # every body at once: one batch built, not one per body
            sim.set_params_each(**body)
        run = {k: v for k, v in self.changes.items() if k in SIM_FIELDS}
        if run:
            sim.set_params(**run)

    def _build(self) -> LiveSimulation:
        live = self.live
        rec = live.recording
        if rec is None:
            raise FieldError("changes", "invalid", "ghost: this room keeps no recording")
        with live.lock:
            now, bodies, h = live.t, len(live.names), live.step_size
            first = rec.run_start()
            start = next(
                (i for i in range(first, len(rec.segments))
                 if (now - rec.segments[i].t) / h * bodies <= MAX_CATCH_UP),
                len(rec.segments) - 1,
            )  # fmt: skip
            segments = [rec.segments[i].to_json() for i in range(start, len(rec.segments))]
        ghost = LiveSimulation.from_keyframe(segments[0]["keyframe"], frame_rate=live.frame_rate)
        self._settings(ghost)
        for t, item in _timed_events(segments):
            _step_to(ghost, t)
            self._apply(ghost, item["kind"], item)
        _step_to(ghost, now)
        ghost.timeline.listeners.clear()
        return ghost

    def _apply(self, sim: LiveSimulation, kind: str, args: Mapping[str, Any]) -> None:
        apply_event(sim, {**args, "kind": kind}, keep=tuple(self.changes))

    # ------------------------------------------------------------------ following the room

    def _on_change(self, kind: str, args: Mapping[str, Any] | None) -> None:
        if kind in ("load", "reset_all") or kind in REBUILD:
            self.stale = True
        elif kind in ("set_input", "set_params", "reset") and args is not None:
            _step_to(self.sim, self.live.t)
            try:
                self._apply(self.sim, kind, args)
            except FieldError:  # e.g. a step the ghost's integrator cannot take
                pass

    def follow(self) -> None:
        """Step to the room's time (at most MAX_PER_TICK body-steps); rebuild after the
        room's run was replaced."""
        if self.stale:
            self.stale = False
            self.sim = self._build()
            return
        left = (self.live.t - self.sim.t) / self.sim.step_size
        limit = max(1, MAX_PER_TICK // max(1, len(self.sim.names)))
        self.behind = left > limit + 0.5
        _step_to(self.sim, self.live.t, limit)

    def frame(self, live_bodies: list[dict[str, Any]]) -> dict[str, Any]:
        """The ghost part of the state message: its poses and the differences."""
        x = self.sim.state_array()
        bodies, diffs = [], []
        for i, live_body in enumerate(live_bodies):
            pos, q = x[i, 0:3], x[i, 3:7]
            rel = quat.multiply(quat.conjugate(np.asarray(live_body["Quater"])), q)
            bodies.append({"Pos": pos.tolist(), "Quater": q.tolist()})
            diffs.append({
                "pos": float(np.linalg.norm(pos - np.asarray(live_body["Pos"]))),
                # atan2, not acos(η): acos near 1 resolves no angle below ~1e-8 rad, and an
                # exact ghost beside RK4 at 1 ms is 1e-9 rad away
                "angle": 2.0 * math.atan2(float(np.linalg.norm(rel[1:])), abs(float(rel[0]))),
            })  # fmt: skip
        return {"t": self.sim.t, "changes": self.changes, "behind": self.behind,
                "bodies": bodies, "diff": diffs}  # fmt: skip


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
            if kind in ("set_input", "set_params", "reset"):
                out.append((now, item))
            if kind == "set_params" and "step" in item["fields"]:
                step = float(item["fields"]["step"])
                if step != h:
                    t_base, h, base = now, step, int(item["step"])
    return out
