"""Physics off the event loop: each room ticks in its own task, its physics in a thread.

A room's tick has two halves. `Room.prepare` (a worker thread of `PHYSICS`) advances the
simulation to the wall clock and encodes the frame; the compiled kernels release the GIL
(`nogil=True`), so the event loop runs beside them. `Room.deliver` (the event loop) hands
the frame to the clients' latest-wins slots. The loop itself only sleeps, awaits and sends,
so one room's scenario, however costly, never holds it: a room that cannot keep up runs
slower (its advance stops at its share of a tick, `compute_limited`), and the other rooms'
ticks go on in their own threads.

Rooms tick independently rather than in one shared kernel call: a shared call is as slow as
its slowest room, which is exactly the stall this module exists to prevent.

Work a client's message asks for (a scenario loaded, elements set, a step) runs in the
bounded requests' pool (pools.py), so a burst of requests queues there instead of on the
loop, and the rooms' ticks, in their own pool, never wait behind it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from .pools import PHYSICS

if TYPE_CHECKING:
    from .rooms import Room


async def tick_room(room: Room, frame_rate: float, ticking: Callable[[], bool]) -> None:
    """Tick `room` at `frame_rate` while `ticking()` (it has clients and is still the
    registry's): sleep to the next deadline, prepare in a thread, deliver on the loop."""
    # time.monotonic, not loop.time: uvloop's loop clock has 1 ms resolution.
    loop = asyncio.get_running_loop()
    period = 1.0 / frame_rate
    deadline = time.monotonic()
    room.sim.wake()  # the time nobody watched is not owed
    while ticking():
        deadline += period
        delay = deadline - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        else:
            await asyncio.sleep(0)  # let sockets and messages in between late ticks
            if -delay > period:  # fell a whole frame behind: skip, do not burst
                deadline = time.monotonic()
        if not ticking():
            return
        start = time.monotonic()
        prepared = await loop.run_in_executor(PHYSICS, room.prepare, start, room.audience())
        room.deliver(prepared)
        room.ticked_at = start
        room.tick_errors.append(start - deadline)
        room.tick_seconds.append(time.monotonic() - start)
        room.tick_cpu_seconds.append(prepared.cpu)
