"""How long the event loop was held, in the loop thread's CPU time: what a room's tick can be
kept waiting by this process's own work, read the same on an idle machine and a loaded one.

A beat is a timer on the loop every `interval` seconds. When it fires it reads the loop
thread's CPU clock (`time.thread_time`); the CPU spent since the previous beat is the work
every callback ran in between: a synchronous section longer than `interval` shows up whole in
one beat, since a timer cannot fire in the middle of a callback. Wall-clock gaps would say the
same on a quiet machine, but on a loaded one they grow with whatever else runs there; the
thread's CPU time does not. (It does not see the loop waiting for the GIL held by another of
this process's threads.)

The last `keep` beats are kept with their numbers, so a reader asks for the longest since a
beat it saw before (`since`): the REST endpoint /api/probe, and the tests that assert that a
burst of work never held the loop longer than a bound.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from typing import Any

#: Beats per second: 200. A finer beat costs more wake-ups; a coarser one lumps pieces
#: of work that the loop did yield between.
INTERVAL_S = 0.005
#: 8192 beats: the last ~41 s at one beat each 5 ms.
KEEP = 8192


class LoopProbe:
    """The loop's beats and the CPU spent between them; `start()` on the loop to watch."""

    def __init__(self, interval: float = INTERVAL_S, keep: int = KEEP) -> None:
        self.interval = interval
        self.beat = 0  # the number of the latest beat
        self._cpu: deque[float] = deque(maxlen=keep)  # CPU seconds before each kept beat
        self._last_cpu = 0.0
        self._handle: asyncio.TimerHandle | None = None

    def start(self) -> None:
        """Begin beating on the running loop (again after `stop`)."""
        self.stop()
        self._last_cpu = time.thread_time()
        self._handle = asyncio.get_running_loop().call_later(self.interval, self._on_beat)

    def stop(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def _on_beat(self) -> None:
        cpu = time.thread_time()
        self._cpu.append(cpu - self._last_cpu)
        self._last_cpu = cpu
        self.beat += 1
        self._handle = asyncio.get_running_loop().call_later(self.interval, self._on_beat)

    def longest_since(self, since: int) -> tuple[float, int]:
        """(the most CPU seconds between two beats after beat `since`, the beats counted);
        beats older than the kept ones are not counted."""
        count = min(max(0, self.beat - since), len(self._cpu))
        if count == 0:
            return 0.0, 0
        kept = len(self._cpu)
        return max(self._cpu[i] for i in range(kept - count, kept)), count

    def reading(self, since: int | None = None) -> dict[str, Any]:
        """What /api/probe answers: the latest beat's number and the longest CPU seconds
        between beats after `since` (default: every kept beat)."""
        start = self.beat - len(self._cpu) if since is None else since
        longest, counted = self.longest_since(start)
        return {
            "beat": self.beat,
            "interval_s": self.interval,
            "since": start,
            "beats": counted,
            # beats asked for that are no longer kept: the reading covers only the rest
            "complete": self.beat - start <= len(self._cpu),
            "longest_cpu_s": longest,
        }
