"""The registry of a server's rooms: made on first join, ticked together by one task,
removed `room_ttl` s after their last client leaves.

One asyncio task ticks every room at the frame rate: the `Engine` advances all rooms'
simulations together (one compiled call for all their bodies, simulation/engine.py), then
each room encodes its state frame once and offers it to every client's latest-wins slot
(clients.py), so the clock never waits for a socket. A fault in one room is caught and
logged there (rooms.py); the others carry on.
"""

from __future__ import annotations

import asyncio
import gc
import importlib
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Generic, TypeVar

from ..dynamics import kernel_cache
from ..simulation import is_warm, warm_up
from .clients import Viewer
from .errors import Refusal
from .protocol import Preparing
from .rooms import Room, check_room_name
from .settings import Settings
from .snapshots import Snapshot

if TYPE_CHECKING:
    from ..simulation.engine import Engine
    from ..simulation.live import LiveSimulation

log = logging.getLogger("sixdof.server")


R = TypeVar("R")


class ByName(Generic[R]):
    """Rooms by name, as /api/health and /api/rooms list them (rest.py): this server's
    (`Rooms`) or the ones a gateway has viewers in (`cluster.gateway.RemoteRooms`)."""

    def __init__(self) -> None:
        self._rooms: dict[str, R] = {}

    def __len__(self) -> int:
        return len(self._rooms)

    def names(self) -> list[str]:
        return sorted(self._rooms)

    def get(self, name: str) -> R | None:
        return self._rooms.get(name)


class Rooms(ByName[Room]):
    """The registry of live rooms: created on first join, removed `room_ttl` s after the last
    client leaves. One task ticks them all (`run`) while there is at least one room."""

    def __init__(self, settings: Settings, make_sim: Callable[[], LiveSimulation]) -> None:
        super().__init__()
        self.settings = settings
        self.make_sim = make_sim
        self._engine: Engine | None = None
        self._task: asyncio.Task[None] | None = None
        self._loading: tuple[float, bool] | None = None  # (monotonic start, cache was cold)

    async def preparing(self) -> str:
        """The `preparing` message for a viewer who joins before the physics is loaded: what
        is being done, whether numba compiles (its cache was cold) and for how long so far."""
        since, cold = await self._started()
        if cold:
            message = "preparing the physics — the first start compiles it, about 10 s"
        else:
            message = "preparing the physics — loading it, about a second"
        elapsed = round(time.monotonic() - since, 2)
        return Preparing(message=message, cold=cold, elapsed=elapsed).model_dump_json()

    async def _started(self) -> tuple[float, bool]:
        """When the physics began loading (time.monotonic) and whether numba's cache was
        cold then; noted by the first to ask. The check hashes the kernels' sources (~60 ms),
        so it runs in a thread, not on the event loop."""
        if self._loading is None:
            since = time.monotonic()
            cold = await asyncio.to_thread(kernel_cache.is_cold)
            if self._loading is None:  # a viewer who came meanwhile may have noted it
                self._loading = (since, cold)
        return self._loading

    async def physics_ready(self) -> None:
        """Load the simulation before the first room: numpy, the engine's modules, numba and
        its cached kernels, ~140 MiB and ~0.6 s (a compilation of ~10 s if numba's cache is
        cold: `sixdof warm`).

        A server nobody has joined does not hold them, and they load in a thread so the
        event loop keeps answering meanwhile. The objects they bring are long-lived: frozen
        out of the garbage collector's sight, as at start-up (`launch`)."""
        if is_warm():
            return
        await self._started()

        def load() -> None:
            for module in ("live", "engine", "replay", "ghost"):  # what a room uses
                importlib.import_module(f"..simulation.{module}", __package__)
            importlib.import_module(".binary", __package__)
            if warm_up() > 0.0:
                gc.collect()
                gc.freeze()

        await asyncio.to_thread(load)

    @property
    def engine(self) -> Engine:
        """What advances every ticking room's simulation; made with the first room."""
        if self._engine is None:
            from ..simulation.free_engine import FreeEngine

            self._engine = FreeEngine()
        return self._engine

    def get_or_create(
        self, name: str, *, by_watcher: bool = False, snapshot: Snapshot | None = None
    ) -> Room:
        """The room `name`, made if there is none. Rooms made by watchers (`by_watcher`) are
        capped apart (max_watcher_rooms), so watchers cannot use up the rooms of the people
        who hold the token. A new room does not tick until a client joins."""
        check_room_name(name)
        room = self._rooms.get(name)
        if room is not None:
            return room
        made = sum(r.made_by_watcher == by_watcher for r in self._rooms.values())
        cap = self.settings.max_watcher_rooms if by_watcher else self.settings.max_rooms
        if made >= cap:
            who = "rooms made without the token" if by_watcher else "rooms"
            raise Refusal(
                "forbidden",
                f"room: the server holds its maximum of {cap} {who}; join an existing one",
                "room",
            )
        sim = self.make_sim()
        if snapshot is not None:  # a Share link: only a new room is made from it
            if snapshot.kind == "start":
                sim.load(snapshot.keyframe["scenario"])
            else:
                recording = snapshot.recording.copy() if snapshot.recording else None
                sim.restore(snapshot.keyframe, recording)
        room = Room(name, sim, self.settings)
        room.made_by_watcher = by_watcher
        self._rooms[name] = room
        self._schedule_expiry(room)  # until someone joins
        log.info("room %s created", name)
        return room

    async def enter(self, name: str, client: Viewer, snapshot: Snapshot | None = None) -> Room:
        """`join`, once the physics is loaded (`physics_ready`). A viewer who comes before
        that gets a `preparing` message at once, so its page can say why it waits."""
        if not is_warm():
            check_room_name(name)  # a bad name is refused first, without the wait
            client.send_reply(await self.preparing())
        await self.physics_ready()
        return self.join(name, client, snapshot)

    def join(self, name: str, client: Viewer, snapshot: Snapshot | None = None) -> Room:
        """Add `client` to room `name` (made if need be); `physics_ready` must have run."""
        room = self.get_or_create(name, by_watcher=not client.can_control, snapshot=snapshot)
        if len(room.clients) >= self.settings.max_clients_per_room:
            raise Refusal(
                "forbidden",
                f"room: {name} is full ({self.settings.max_clients_per_room} clients)",
                "room",
            )
        if not room.clients:
            self._start_ticking(room)
        room.join(client)
        return room

    def leave(self, room: Room, client: Viewer) -> None:
        room.leave(client)
        if not room.clients:
            self.engine.remove(room.sim)  # nobody watches: it stops, and costs nothing
            self._schedule_expiry(room)

    def _start_ticking(self, room: Room) -> None:
        if room.sim not in self.engine:
            room.sim.wake()  # the time nobody watched is not owed
            self.engine.add(room.sim)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self.run(), name="sixdof-rooms")

    def _schedule_expiry(self, room: Room) -> None:
        if room.expiry is not None:
            room.expiry.cancel()
        loop = asyncio.get_running_loop()
        room.expiry = loop.call_later(self.settings.room_ttl, self.expire, room)

    def expire(self, room: Room) -> None:
        """Remove `room` now if it has no client (its `room_ttl` ran out, or its owner says so)."""
        if room.clients or self._rooms.get(room.name) is not room:
            return
        del self._rooms[room.name]
        self.engine.remove(room.sim)
        room.expiry = None
        room.stop()
        log.info("room %s removed (no clients for %g s)", room.name, self.settings.room_ttl)

    # ------------------------------------------------------------------ the tick
    async def run(self) -> None:
        """Tick every room at the frame rate until no room has clients (or cancelled)."""
        # time.monotonic, not loop.time: uvloop's loop clock has 1 ms resolution.
        period = 1.0 / self.settings.frame_rate
        deadline = time.monotonic()
        while len(self.engine):
            deadline += period
            delay = deadline - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            else:
                await asyncio.sleep(0)  # let sockets and messages in between late ticks
                if -delay > period:  # fell a whole frame behind: skip, do not burst
                    deadline = time.monotonic()
            start, start_cpu = time.monotonic(), time.thread_time()
            rooms = self.tick(start)
            busy, cpu = time.monotonic() - start, time.thread_time() - start_cpu
            for room in rooms:
                room.ticked_at = start
                room.tick_errors.append(start - deadline)
                room.tick_seconds.append(busy)
                room.tick_cpu_seconds.append(cpu)

    def tick(self, now: float) -> list[Room]:
        """Advance every room to wall time `now` with the engine, then publish each; the rooms."""
        rooms = list(self._rooms.values())
        try:
            errors = self.engine.advance(now)
        except Exception as exc:  # the engine isolates faults per simulation; this is a last guard
            log.exception("the rooms' tick failed")
            errors = {room.sim: exc for room in rooms}
        for room in rooms:
            try:
                room.publish(errors.get(room.sim))
            except Exception:
                log.exception("room %s: publishing failed", room.name)
        return rooms

    async def close(self) -> None:
        rooms, self._rooms = list(self._rooms.values()), {}
        for room in rooms:
            self.engine.remove(room.sim)
            room.stop()
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
            self._task = None
