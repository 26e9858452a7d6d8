"""The registry of a server's rooms: made on first join, each ticked by its own task while
it has clients, removed `room_ttl` s after its last client leaves.

A room's task (ticking.py) advances its simulation in a worker thread at the frame rate and
offers each frame to every client's latest-wins slot (clients.py), so the clock never waits
for a socket and no room waits for another's physics. A fault in one room is caught and
logged there (rooms.py); the others carry on.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Generic, TypeVar

from ..simulation import free_is_warm, is_warm
from .clients import Viewer
from .errors import Refusal
from .physics_loading import PROGRESS_EVERY, PhysicsLoading
from .pools import off_loop
from .rooms import Room, check_room_name
from .settings import Settings
from .snapshots import Snapshot
from .ticking import SharedTick, tick_room

if TYPE_CHECKING:
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


class Rooms(ByName[Room], PhysicsLoading):
    """The registry of live rooms: created on first join, removed `room_ttl` s after the last
    client leaves. One task ticks them all (`run`) while there is at least one room. The
    physics they run on is loaded with the first (physics_loading.py)."""

    def __init__(self, settings: Settings, make_sim: Callable[[], LiveSimulation]) -> None:
        ByName.__init__(self)
        PhysicsLoading.__init__(self)
        self.settings = settings
        self.make_sim = make_sim
        self.shared = SharedTick(settings, self._start_ticking)  # the rooms that tick together

    def _may_start_free(self, name: str, snapshot: Snapshot | None) -> bool:
        """Whether room `name` (as it is, or as it would be made) has no elements."""
        room = self._rooms.get(name)
        if room is not None:
            return room.sim.system is None
        if snapshot is not None:
            scenario = snapshot.keyframe.get("scenario")
            return isinstance(scenario, dict) and not scenario.get("elements")
        from .presets import default_scenario

        return not (self.settings.scenario or default_scenario()).elements

    def get_or_create(
        self,
        name: str,
        *,
        by_watcher: bool = False,
        snapshot: Snapshot | None = None,
        sim: LiveSimulation | None = None,
    ) -> Room:
        """The room `name`, made if there is none (from `sim`, when made already: `enter`
        makes it off the event loop). Rooms made by watchers (`by_watcher`) are capped apart
        (max_watcher_rooms), so watchers cannot use up the rooms of the people who hold the
        token. A new room does not tick until a client joins."""
        check_room_name(name)
        room = self._rooms.get(name)
        if room is not None:
            return room
        self.check_cap(by_watcher)
        room = Room(name, sim or self.new_sim(snapshot), self.settings)
        room.made_by_watcher = by_watcher
        self._rooms[name] = room
        self._schedule_expiry(room)  # until someone joins
        log.info("room %s created", name)
        return room

    def check_cap(self, by_watcher: bool) -> None:
        """Refusal when the rooms of this kind (`by_watcher`: made without the token) are at
        their cap."""
        made = sum(r.made_by_watcher == by_watcher for r in self._rooms.values())
        cap = self.settings.max_watcher_rooms if by_watcher else self.settings.max_rooms
        if made >= cap:
            who = "rooms made without the token" if by_watcher else "rooms"
            raise Refusal(
                "forbidden",
                f"room: the server holds its maximum of {cap} {who}; join an existing one",
                "room",
            )

    def new_sim(self, snapshot: Snapshot | None = None) -> LiveSimulation:
        """A room's simulation: the server's scenario, or a Share link's (`snapshot`). Its
        world is built here (a fleet's hulls: a few hundred ms), so call it off the loop."""
        sim = self.make_sim()
        if snapshot is not None:  # a Share link: only a new room is made from it
            if snapshot.kind == "start":
                sim.load(snapshot.keyframe["scenario"])
            else:
                recording = snapshot.recording.copy() if snapshot.recording else None
                sim.restore(snapshot.keyframe, recording)
        return sim

    async def enter(self, name: str, client: Viewer, snapshot: Snapshot | None = None) -> Room:
        """`join`, once the physics is loaded (`physics_ready`). A viewer who comes before
        that gets a `preparing` message at once, so its page can say why it waits. A new
        room's simulation is made in the requests' pool, not on the loop."""
        free = not is_warm() and self._may_start_free(name, snapshot)
        physics = self.free_physics_ready if free else self.physics_ready
        if not (free_is_warm() if free else is_warm()):
            check_room_name(name)  # a bad name is refused first, without the wait
            client.send_reply(await self.preparing())
            ready = asyncio.ensure_future(physics())
            while not ready.done():
                await asyncio.wait({ready}, timeout=PROGRESS_EVERY)
                if not ready.done() and (await self._started())[1]:
                    # compiling: each second, how far it is (loading from the cache takes
                    # ~0.6 s: its one `preparing` says so)
                    client.send_reply(await self.preparing())
            ready.result()
        await physics()
        sim = None
        if self._rooms.get(name) is None:
            check_room_name(name)
            self.check_cap(not client.can_control)  # refused before anything is built
            sim = await off_loop(self.new_sim, snapshot)
        return self.join(name, client, snapshot, sim)

    def join(
        self,
        name: str,
        client: Viewer,
        snapshot: Snapshot | None = None,
        sim: LiveSimulation | None = None,
    ) -> Room:
        """Add `client` to room `name` (made if need be, from `sim` if given); `physics_ready`
        must have run."""
        room = self.get_or_create(
            name, by_watcher=not client.can_control, snapshot=snapshot, sim=sim
        )
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
        if not room.clients:  # nobody watches: its ticks stop, and it costs nothing
            self.shared.remove(room)
            self._schedule_expiry(room)

    def _start_ticking(self, room: Room) -> None:
        """Tick `room`: alone if it is costly (`room.solo`), else in the shared tick."""
        if room.solo:
            if room.ticker is None or room.ticker.done():
                self.shared.remove(room)

                def ticking() -> bool:
                    return room.solo and bool(room.clients) and self._rooms.get(room.name) is room

                def ended(_: object) -> None:  # it became cheap again: back to the shared tick
                    if room.clients and self._rooms.get(room.name) is room:
                        self._start_ticking(room)

                room.ticker = asyncio.get_running_loop().create_task(
                    tick_room(room, self.settings.frame_rate, ticking),
                    name=f"sixdof-room-{room.name}",
                )
                room.ticker.add_done_callback(ended)
        elif room.ticker is None or room.ticker.done():
            self.shared.add(room)

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
        self.shared.remove(room)
        room.expiry = None
        room.stop()
        log.info("room %s removed (no clients for %g s)", room.name, self.settings.room_ttl)

    async def close(self) -> None:
        await self.stop_preparing()
        rooms, self._rooms = list(self._rooms.values()), {}
        await self.shared.close()
        tickers = [room.ticker for room in rooms if room.ticker is not None]
        for room in rooms:
            room.stop()
        for ticker in tickers:
            try:
                await ticker
            except asyncio.CancelledError:
                pass
