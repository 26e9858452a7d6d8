"""Test doubles shared by several test modules."""

from __future__ import annotations


class FakeClock:
    """A clock moved by hand; `tick` is added after every read (to model slow computing)."""

    def __init__(self, t: float = 100.0, tick: float = 0.0) -> None:
        self.t = t
        self.tick = tick

    def __call__(self) -> float:
        now = self.t
        self.t += self.tick
        return now
