"""A worker's part in failover: its heartbeat, the rooms it lost, the rooms of dead
workers it takes over (the lease rules are leases.py's).

`Failover` is a part of `Worker` (worker.py), kept apart: the worker runs rooms and answers
requests, this keeps the worker's holdings in line with the lease bucket.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import Any

from nats.aio.subscription import Subscription

from ..server.rooms import Room
from ..server.settings import Settings
from . import bus
from .heartbeat import Heartbeat
from .leases import Leases, Seen
from .viewer import BusViewer

log = logging.getLogger("sixdof.worker")

MAINTAIN_EVERY = 0.1  # s between rounds of the lease loop (a dead worker's rooms wait this)


@dataclass
class Owned:
    """A room this worker owns: its lease revision, subscriptions and its gateways."""

    room: Room
    revision: int
    viewers: dict[bool, BusViewer]
    subs: list[Subscription] = field(default_factory=list)
    gateways: dict[str, float] = field(default_factory=dict)  # id → last presence
    empty_since: float | None = None

    def joined_by(self, gateway: str) -> None:
        """A viewer joined through `gateway`: the room is not empty, and its bus viewers send
        the next tick's frame whatever it shows (that gateway may hold none of a still room's,
        which repeats its frame once a second: still_frames.StillFrames.repeats)."""
        self.gateways[gateway] = time.monotonic()
        self.empty_since = None
        for viewer in self.viewers.values():
            viewer.lacks_frame = True


class Failover:
    """The lease side of a `Worker`: `_lease_loop` runs beside its rooms (and the heartbeat
    in its own thread, heartbeat.py)."""

    id: str
    settings: Settings
    owned: dict[str, Owned]
    leases: Leases | None
    heartbeat: Heartbeat | None
    ready: bool
    _renew_now: asyncio.Event
    _starting: set[str]
    _owning: asyncio.Lock

    async def _own(self, name: str, revision: int, snapshot: dict[str, Any] | None) -> None:
        raise NotImplementedError

    async def _close(self, name: str, forget: bool) -> None:
        raise NotImplementedError

    async def _snapshot(self, name: str) -> dict[str, Any] | None:
        raise NotImplementedError

    async def _lease_loop(self) -> None:
        """Every round: close rooms nobody watches and those the watch shows in other hands,
        and take over the rooms of workers gone silent."""
        assert self.leases is not None
        leases = self.leases
        while True:
            try:
                now = time.monotonic()
                if self.heartbeat is not None:
                    self.heartbeat.loop_alive()
                await self._close_unwatched(now)
                if self._renew_now.is_set():  # reconnected: were we cut off long?
                    self._renew_now.clear()
                    await self._recheck()
                for name, owned in list(self.owned.items()):
                    if leases.lost(name, owned.revision):  # taken while we were stalled
                        log.warning("worker %s lost the lease of %s", self.id, name)
                        await self._close(name, forget=False)
                if leases.watch_lagging(now):
                    log.warning("worker %s: the lease watch lags; watching anew", self.id)
                    await leases.restart_watch()
                if self.ready:
                    await self._take_over(now)
                    await self._adopt(now)
            except asyncio.CancelledError:
                raise
            except Exception:  # a bug, not the bus (each call below handles that): go on
                log.exception("worker %s: lease round failed", self.id)
            try:
                await asyncio.wait_for(self._renew_now.wait(), MAINTAIN_EVERY)
            except asyncio.TimeoutError:
                pass

    async def _close_unwatched(self, now: float) -> None:
        for name, owned in list(self.owned.items()):
            owned.gateways = {
                g: at for g, at in owned.gateways.items() if now - at < bus.PRESENCE_TIMEOUT
            }
            if owned.gateways:
                owned.empty_since = None
            elif owned.empty_since is None:
                owned.empty_since = now
            elif now - owned.empty_since > self.settings.room_ttl:
                await self._close(name, forget=True)

    async def _recheck(self) -> None:
        """Read every lease this worker holds from the bucket; close the rooms it lost."""
        assert self.leases is not None
        held = list(self.owned.items())
        answers = await asyncio.gather(*(self.leases.holds(name) for name, _ in held))
        for (name, owned), holds in zip(held, answers, strict=True):
            if holds is False and self.owned.get(name) is owned:
                log.warning("worker %s lost the lease of %s", self.id, name)
                await self._close(name, forget=False)

    async def _take_over(self, now: float) -> None:
        """The rooms of every worker gone silent, all at once (one per compare-and-set:
        of several workers trying, one wins each room)."""
        assert self.leases is not None
        for owner, beat in self.leases.dead(now).items():
            try:
                if not await self.leases.confirm_dead(owner, beat):
                    continue
            except Exception as exc:  # the bus did not answer: tried again next round
                log.warning("worker %s: could not read %s's heartbeat: %r", self.id, owner, exc)
                continue
            rooms = [(n, lease) for n, lease in self.leases.rooms_of(owner) if n not in self.owned]
            log.warning("worker %s: worker %s is silent; taking over its %d rooms",
                        self.id, owner, len(rooms))  # fmt: skip
            await asyncio.gather(*(self._take(name, lease, now) for name, lease in rooms))

    async def _take(self, name: str, lease: Seen, now: float) -> None:
        assert self.leases is not None
        if name in self._starting:
            return
        self._starting.add(name)
        try:
            revision = await self.leases.take(name, lease)
            if revision is None or name in self.owned:
                return
            log.info("worker %s takes over room %s (its owner stopped)", self.id, name)
            await self._resume(name, revision, now)
        except Exception as exc:  # no answer: tried again (`_adopt`, or the owner stays dead)
            log.warning("worker %s: takeover of %s failed: %r", self.id, name, exc)
        finally:
            self._starting.discard(name)

    async def _resume(self, name: str, revision: int, now: float) -> None:
        """Run room `name`, whose lease this worker just won, from its last snapshot. One
        room at a time, a loop turn between two: hundreds taken over at once (~10 ms of
        CPU each) must not stop the ticks of the rooms this worker already runs."""
        snapshot = await self._snapshot(name)
        async with self._owning:
            if name in self.owned:
                return
            await self._own(name, revision, snapshot)
            owned = self.owned[name]
            owned.empty_since = None  # its gateways say so within a second
            owned.gateways = {"(takeover)": now}
            await asyncio.sleep(0)

    async def _adopt(self, now: float) -> None:
        """Run the rooms whose lease is this worker's but that it does not run: a takeover
        whose snapshot read timed out after the lease was won (nobody else would)."""
        assert self.leases is not None
        orphans = [
            name
            for name, lease in self.leases.rooms.items()
            if lease.value == self.id and name not in self.owned and name not in self._starting
        ]
        for name in orphans:
            self._starting.add(name)
            try:
                lease = self.leases.rooms.get(name)
                if lease is not None:
                    log.warning("worker %s resumes room %s (its lease is ours)", self.id, name)
                    await self._resume(name, lease.revision, now)
            except Exception as exc:
                log.warning("worker %s: resuming %s failed: %r", self.id, name, exc)
            finally:
                self._starting.discard(name)
