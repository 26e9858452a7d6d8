"""Physics off the event loop: a room's physics runs in a thread, never on the loop.

A room's tick has two halves. `Room.prepare` (a worker thread of `PHYSICS`) advances the
simulation to the wall clock and encodes the frame; the compiled kernels release the GIL
(`nogil=True`), so the event loop runs beside them. `Room.deliver` (the event loop) hands
the frame to the clients' latest-wins slots. The loop itself only sleeps, awaits and sends,
so one room's scenario, however costly, never holds it: a room that cannot keep up runs
slower (its advance stops at its share of a tick, `compute_limited`), and the other rooms'
ticks go on in their own threads.

Which rooms share a call: a room whose tick is estimated to cost more than
rooms.SOLO_SECONDS (1 ms) ticks alone, in a task and thread of its own (`tick_room`), since
a shared call is as slow as its slowest room, the stall this module exists to prevent. The
cheap rooms (free bodies) tick together (`SharedTick`): one engine call for all of them,
whose Python overhead (~40 µs a room instead of ~380 µs alone) lets a server tick 200 rooms;
one found costly later leaves for a task of its own.

Work a client's message asks for (a scenario loaded, elements set, a step) runs in the
bounded requests' pool (pools.py), so a burst of requests queues there instead of on the
loop, and the rooms' ticks, in their own pool, never wait behind it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from .pools import PHYSICS
from .tick_data import Prepared

if TYPE_CHECKING:
    from ..simulation.engine import Engine
    from .rooms import Room
    from .settings import Settings
    from .tick_data import Audience


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
        audience = room.audience()
        if room.tick_is_still(audience):  # nothing to advance or make: no thread
            prepared = room.prepare_still()
        else:
            prepared = await loop.run_in_executor(PHYSICS, room.prepare, start, audience)
        room.deliver(prepared)
        room.ticked_at = start
        room.tick_errors.append(start - deadline)
        room.tick_seconds.append(time.monotonic() - start)
        room.tick_cpu_seconds.append(prepared.cpu)


class SharedTick:
    """The rooms that tick together: every tick, one engine call advances all their bodies
    (simulation/engine.py), in a thread of `PHYSICS`, then each room's frame is made there
    and sent on the loop. A room found costly (`room.solo`) leaves for a task of its own
    (`solo`, the registry's `_start_ticking`)."""

    def __init__(self, settings: Settings, solo: Callable[[Room], None]) -> None:
        self.settings = settings
        self.solo = solo
        self._rooms: list[Room] = []
        self._engine: Engine | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def engine(self) -> Engine:
        if self._engine is None:
            from ..simulation.free_engine import FreeEngine

            self._engine = FreeEngine()
        return self._engine

    def __contains__(self, room: object) -> bool:
        return room in self._rooms

    def add(self, room: Room) -> None:
        if room not in self._rooms:
            room.sim.wake()  # the time nobody watched is not owed
            self._rooms.append(room)
            self.engine.add(room.sim)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self.run(), name="sixdof-rooms")

    def remove(self, room: Room) -> None:
        if room in self._rooms:
            self._rooms.remove(room)
            self.engine.remove(room.sim)

    async def run(self) -> None:
        """Tick the shared rooms at the frame rate while there are any."""
        loop = asyncio.get_running_loop()
        period = 1.0 / self.settings.frame_rate
        deadline = time.monotonic()
        while self._rooms:
            deadline += period
            delay = deadline - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            else:
                await asyncio.sleep(0)
                if -delay > period:
                    deadline = time.monotonic()
            rooms = list(self._rooms)
            if not rooms:
                return
            audiences = [room.audience() for room in rooms]
            start = time.monotonic()
            prepared: list[Prepared]
            if all(r.tick_is_still(a) for r, a in zip(rooms, audiences, strict=True)):
                prepared = [room.prepare_still() for room in rooms]  # paused, unchanged: no thread
            else:
                prepared = await loop.run_in_executor(PHYSICS, self._tick, start, rooms, audiences)
            busy = time.monotonic() - start
            for room, made in zip(rooms, prepared, strict=True):
                room.deliver(made)
                room.ticked_at = start
                room.tick_errors.append(start - deadline)
                room.tick_seconds.append(busy)
                room.tick_cpu_seconds.append(made.cpu)
                if room.solo and room in self._rooms:
                    self.remove(room)
                    self.solo(room)

    def _tick(self, now: float, rooms: list[Room], audiences: list[Audience]) -> list[Prepared]:
        """In a worker thread: one advance for every shared room, then each room's frame. A
        room's tick CPU is its own frame's and the shared advance's (which it waited for).
        A room found costly (a new room, or one whose world changed) is taken out before the
        advance, so the others never wait for its steps; the loop gives it a task of its own."""
        started = time.thread_time()
        for room in rooms:
            if room.note_cost():
                self.engine.remove(room.sim)
        errors: Mapping[Any, Exception]
        try:
            errors = self.engine.advance(now)
        except Exception as exc:  # the engine isolates faults per simulation; a last guard
            errors = {room.sim: exc for room in rooms}
        shared = time.thread_time() - started
        out = []
        for room, audience in zip(rooms, audiences, strict=True):
            if room.solo:  # nothing made here: its own task ticks it from now on
                out.append(Prepared([], {}, {}, 0.0, (-1, -1)))
                continue
            made = room.prepare(now, audience, advanced=errors.get(room.sim, True))
            made.cpu += shared
            out.append(made)
        return out

    async def close(self) -> None:
        self._rooms.clear()
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
            self._task = None
