"""The worker threads of a server: where rooms' physics and clients' costly requests run, so
that the event loop only does I/O and bookkeeping (ticking.py says why).

`PHYSICS` ticks rooms; `REQUESTS` carries out clients' costly requests (a scenario loaded,
elements set, a step, a look back), all rooms together: the cap on such work running at
once, more waiting their turn (each was charged to its address before it queued), and the
rooms' ticks, in their own pool, never wait behind it.

What a request or a message costs its address (budget.py) is the CPU its work takes, not
the wall time: a `Meter` made by `metering()` counts the thread CPU of every `off_loop` call
awaited under it and of the synchronous blocks it times on the loop (`Meter.here`). Wall
time would bill each client for the machine's load as well as for its own work.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextvars import ContextVar
from typing import TypeVar

T = TypeVar("T")

#: Threads that tick rooms: one per room that is ticking at once (a thread waiting on a
#: compiled kernel costs no CPU); more rooms than this wait for a free thread.
PHYSICS_THREADS = 64
#: Threads that carry out clients' costly requests, all rooms together.
REQUEST_THREADS = max(2, min(4, os.cpu_count() or 2))

PHYSICS = ThreadPoolExecutor(PHYSICS_THREADS, thread_name_prefix="sixdof-tick")
REQUESTS = ThreadPoolExecutor(REQUEST_THREADS, thread_name_prefix="sixdof-request")


class Meter:
    """The CPU seconds one request's or message's work has taken so far (`cpu`)."""

    def __init__(self) -> None:
        self.cpu = 0.0

    def here(self) -> _Here:
        """Count a block run on this thread; it must not await (the loop's thread runs other
        clients' work between awaits, which its CPU clock would count too)."""
        return _Here(self)


# Context managers as classes, not generators: contextlib's generator-based ones set the
# `__traceback__` of an exception passing through, which a frozen one (a Refusal) refuses.


class _Here:
    def __init__(self, meter: Meter) -> None:
        self.meter = meter

    def __enter__(self) -> None:
        self.started = time.thread_time()

    def __exit__(self, *exc: object) -> None:
        self.meter.cpu += time.thread_time() - self.started


_METER: ContextVar[Meter | None] = ContextVar("sixdof_meter", default=None)


def metering() -> _Metering:
    """A meter for the work awaited in the block (in this task). Work is counted once, by the
    innermost meter: a meter around this one does not see it (whoever made this one
    charges it)."""
    return _Metering()


class _Metering:
    def __enter__(self) -> Meter:
        self.meter = Meter()
        self.token = _METER.set(self.meter)
        return self.meter

    def __exit__(self, *exc: object) -> None:
        _METER.reset(self.token)


def counted_so_far() -> float:
    """What the meter in force has counted so far (0 without one)."""
    meter = _METER.get()
    return 0.0 if meter is None else meter.cpu


def _counted(meter: Meter, fn: Callable[..., T], args: tuple[object, ...]) -> T:
    started = time.thread_time()
    try:
        return fn(*args)
    finally:  # a refused body cost its validation too
        meter.cpu += time.thread_time() - started


async def off_loop(fn: Callable[..., T], *args: object) -> T:
    """`fn(*args)` in the requests' pool, awaited: the event loop stays free meanwhile; its
    thread's CPU is counted on the meter in force (`metering`), if any."""
    loop = asyncio.get_running_loop()
    meter = _METER.get()
    if meter is None:
        return await loop.run_in_executor(REQUESTS, fn, *args)
    return await loop.run_in_executor(REQUESTS, _counted, meter, fn, args)
