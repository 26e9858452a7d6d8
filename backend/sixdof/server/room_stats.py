"""A room's figures (`GET /api/rooms/{room}/stats`): its clients, its simulated time and
real-time factor, and the percentiles of its last 600 ticks' lateness, wall time and CPU."""

from __future__ import annotations

from collections import deque
from typing import Any, Protocol


class _Room(Protocol):
    """What the figures read of a room (rooms.Room; not imported: rooms.py imports this)."""

    name: str
    seq: int
    fault: str | None
    ticked_at: float | None
    sim: Any
    settings: Any
    clients: Any
    tick_errors: deque[float]
    tick_seconds: deque[float]
    tick_cpu_seconds: deque[float]

    def expires_in(self) -> float | None: ...


def _pct(xs: list[float], q: float) -> float | None:
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else None


def room_stats(room: _Room) -> dict[str, Any]:
    """`room`'s figures, read on the event loop."""
    errs = sorted(room.tick_errors)
    busy = sorted(room.tick_seconds)
    cpu = sorted(room.tick_cpu_seconds)
    return {
        "room": room.name,
        "clients": len(room.clients),
        "seq": room.seq,
        "t": room.sim.t,
        "ticked_at": room.ticked_at,  # server's monotonic clock: Δt / Δticked_at = rtf
        "rtf": room.sim.rtf,  # simulated / wall time over the last second; 0 while paused
        "overruns": room.sim.overruns,
        "frame_rate": room.settings.frame_rate,
        "tick_error_p50": _pct(errs, 0.5),
        "tick_error_p99": _pct(errs, 0.99),
        "tick_busy_p50": _pct(busy, 0.5),
        "tick_busy_p99": _pct(busy, 0.99),  # the whole tick: every room's physics and frames
        "tick_cpu_p50": _pct(cpu, 0.5),
        "tick_cpu_p99": _pct(cpu, 0.99),
        "tick_cpu_max": cpu[-1] if cpu else None,  # the longest tick's CPU of those kept
        "frames_dropped": sum(c.frames_dropped for c in room.clients),
        "max_frames_dropped": max((c.frames_dropped for c in room.clients), default=0),
        "fault": room.fault,
        "expires_in": room.expires_in(),
    }
