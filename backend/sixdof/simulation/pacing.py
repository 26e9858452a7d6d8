"""Real-time pacing: how many fixed physics steps each advance owes, and the real-time factor.

Simulated time follows the wall clock times a time scale s. Every advance at
wall time `now` adds (now − last) · s to a budget of simulated seconds; the
caller then takes n = ⌊budget / h⌋ steps of size h and the budget keeps the
remainder (< h), so no time is lost to rounding and t never runs ahead of the
clock.

When the machine falls behind, catching up is bounded twice, so a slow moment
never turns into a spiral of ever longer advances:

- lag: wall time beyond `max_catch_up` since the previous advance is dropped
  (the body skips that time instead of rushing through it);
- compute: the caller stops stepping once one advance has spent `max_compute`
  seconds of wall time, and the steps it did not take are dropped.

Each advance that drops time counts one overrun. The real-time factor is
rtf = Σ simulated time advanced / Σ (wall time · s) over the advances of the
last `window` seconds of wall time: 1.0 when the loop keeps up, below 1 when
time is dropped.

All times come from an injected clock (seconds, monotonic), so tests drive the
pacing with a fake clock and no sleeps.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable

Clock = Callable[[], float]


class Pacer:
    """Bookkeeping of real-time pacing for one simulation (no physics here)."""

    def __init__(
        self,
        clock: Clock,
        *,
        time_scale: float = 1.0,
        max_catch_up: float = 0.1,
        max_compute: float = 0.1,
        window: float = 1.0,
    ) -> None:
        self.clock = clock
        self.time_scale = time_scale
        self.max_catch_up = max_catch_up
        self.max_compute = max_compute
        self.window = window
        self.overruns = 0
        self.dropped = 0.0  # simulated seconds dropped in total
        self._compute_cut_at: float | None = None  # wall time of the last advance cut short
        self._last_wall = clock()
        self._budget = 0.0  # simulated seconds owed, < one step after each advance
        self._wall_dt = 0.0  # full wall time of the advance being planned
        # (wall time at the end of an advance, simulated seconds taken, wall · scale owed)
        self._samples: deque[tuple[float, float, float]] = deque()
        self._sum_sim = 0.0
        self._sum_demand = 0.0

    def restart(self, now: float | None = None) -> None:
        """Start pacing afresh from `now` (on resume): time spent paused is not owed."""
        self._last_wall = self.clock() if now is None else now
        self._budget = 0.0
        self.clear_window()

    def clear_window(self) -> None:
        self._samples.clear()
        self._sum_sim = 0.0
        self._sum_demand = 0.0

    def begin(self, now: float, step: float, *, running: bool = True) -> int:
        """Start an advance at `now`: the steps owed (`plan`), 0 when not running (pacing then
        restarts: paused time is not owed); with 0 the advance is already recorded (`done`)."""
        if not running:
            self.restart(now)
            return 0
        planned = self.plan(now, step)
        if planned == 0:
            self.done(0, 0, step, cut_short=False)
        return planned

    def plan(self, now: float, step: float) -> int:
        """Steps owed at wall time `now` for step size `step` (s); bounds the lag first."""
        wall_dt = max(0.0, now - self._last_wall)
        self._last_wall = now
        self._wall_dt = wall_dt
        owed = min(wall_dt, self.max_catch_up)
        if wall_dt > self.max_catch_up:
            self.overruns += 1
            self.dropped += (wall_dt - self.max_catch_up) * self.time_scale
        self._budget += owed * self.time_scale
        # 1e-9 of a step absorbs rounding of the budget, so 1000 advances of 1 ms
        # at h = 1 ms take 1000 steps, not 999.
        return max(0, math.floor(self._budget / step + 1e-9))

    def compute_deadline(self, start: float) -> float:
        """The wall time by which an advance that started at `start` must stop stepping."""
        return start + self.max_compute

    def done(self, planned: int, taken: int, step: float, *, cut_short: bool) -> None:
        """Record an advance: `taken` of `planned` steps; with cut_short the rest is dropped."""
        self._budget = max(0.0, self._budget - planned * step)
        if cut_short and taken < planned:
            self.overruns += 1
            self.dropped += (planned - taken) * step
            self._compute_cut_at = self._last_wall
        self._record(taken * step, self._wall_dt * self.time_scale)

    def _record(self, sim_dt: float, demand: float) -> None:
        now = self._last_wall
        self._samples.append((now, sim_dt, demand))
        self._sum_sim += sim_dt
        self._sum_demand += demand
        while self._samples and self._samples[0][0] <= now - self.window:
            _, old_sim, old_demand = self._samples.popleft()
            self._sum_sim -= old_sim
            self._sum_demand -= old_demand
        if not self._samples:
            self._sum_sim = self._sum_demand = 0.0

    @property
    def compute_limited(self) -> bool:
        """An advance in the last `window` s ran out of compute time and dropped steps."""
        cut = self._compute_cut_at
        return cut is not None and cut > self._last_wall - self.window

    @property
    def rtf(self) -> float:
        """Real-time factor over the window; 0.0 before anything was measured."""
        if self._sum_demand <= 0.0:
            return 0.0
        return self._sum_sim / self._sum_demand
