"""A one-line progress bar on stderr for headless runs, without extra dependencies.

It stays silent for the first second (short runs print nothing), draws only
when the stream is a terminal unless forced, redraws at most ten times a
second, and erases itself when closed so the summary line that follows is
clean.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO


class ProgressBar:
    """Call with the simulated time t (s); `close()` when the run ends."""

    def __init__(
        self,
        t_end: float,
        stream: TextIO | None = None,
        *,
        force: bool = False,
        delay: float = 1.0,
        width: int = 30,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.t_end = max(float(t_end), 1e-300)
        self.stream = stream if stream is not None else sys.stderr
        isatty = getattr(self.stream, "isatty", lambda: False)
        self.enabled = force or bool(isatty())
        self.delay = delay
        self.width = width
        self.clock = clock
        self.start = clock()
        self.last_draw = -float("inf")
        self.drawn = 0  # length of the line on screen

    def __call__(self, t: float) -> None:
        if not self.enabled:
            return
        now = self.clock()
        elapsed = now - self.start
        if elapsed < self.delay or now - self.last_draw < 0.1:
            return
        self.last_draw = now
        fraction = min(max(t / self.t_end, 0.0), 1.0)
        filled = round(fraction * self.width)
        eta = elapsed * (1.0 - fraction) / fraction if fraction > 0 else float("nan")
        line = (
            f"[{'#' * filled}{'.' * (self.width - filled)}] {100 * fraction:5.1f}%  "
            f"t = {t:.4g} / {self.t_end:.4g} s  elapsed {elapsed:.1f} s  eta {eta:.1f} s"
        )
        self.stream.write("\r" + line.ljust(self.drawn))
        self.stream.flush()
        self.drawn = len(line)

    def close(self) -> None:
        """Erase the bar (if it was drawn)."""
        if self.drawn:
            self.stream.write("\r" + " " * self.drawn + "\r")
            self.stream.flush()
            self.drawn = 0
