"""Room leases in the `sixdof-leases` bucket, as one worker holds and watches them.

A lease is a key (the room) whose value is the owner's id; the owner renews it every
LEASE_RENEW s by compare-and-set. Every worker learns of every lease change from one
key-value watch (pushed to it by JetStream; nothing is listed or polled) and notes when it
saw each revision. A lease whose revision has not changed for LEASE_TIMEOUT s is stale: its
owner is gone, and the first worker to swap its own id in by compare-and-set runs the room.

"Not renewed" must mean the owner stopped, not that the bucket could not be written. While
a NATS node is lost the bucket's copies elect a new leader and take no writes for several
seconds (4-7 s measured): nobody renews, and every lease would look stale at once. So each
worker also writes a heartbeat key (`worker.<id>`) every LEASE_RENEW s; a failed write (or
a reconnection) means "the bucket is not taking writes", and staleness is only counted from
RECOVERY_GRACE s after writes succeed again (`ok_since`), which gives every owner time to
renew first. The heartbeat also checks the watch: it must come back through it within
WATCH_LAG s, or the watch (an ephemeral consumer, lost with its NATS node) is made anew.
Before a takeover the lease is read once more from the bucket's leader: a renewal the watch
has not delivered yet is never mistaken for silence.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass

from nats.js.errors import KeyNotFoundError, KeyWrongLastSequenceError
from nats.js.kv import KV_DEL, KV_PURGE, KeyValue

from . import bus

log = logging.getLogger("sixdof.worker")

HEARTBEAT = "worker."  # key prefix of the workers' heartbeats (a room name has no ".")
RECOVERY_GRACE = 1.5  # s after the bucket takes writes again before any lease counts stale
WATCH_LAG = 1.5  # s a heartbeat may take to come back through the watch


@dataclass
class Seen:
    """A lease as the watch last delivered it."""

    revision: int
    owner: str
    at: float  # time.monotonic() when this revision reached this worker


class Leases:
    """This worker's view of the lease bucket: `claim`, `renew`, `take`, and which leases
    are `stale`, kept current by a watch (`start`)."""

    def __init__(self, kv: KeyValue, worker_id: str) -> None:
        self.kv = kv
        self.id = worker_id
        self._me = worker_id.encode()
        self.seen: dict[str, Seen] = {}
        self.ok_since: float | None = None  # the bucket takes this worker's writes since
        self.watch_restarts = 0
        self._beat_key = HEARTBEAT + worker_id
        self._beats: deque[tuple[int, float]] = deque()  # written, not yet seen: revision, at
        self._watcher: KeyValue.KeyWatcher | None = None
        self._task: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ the watch
    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._watch_forever())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
        await self.restart_watch()

    async def _watch_forever(self) -> None:
        while True:
            try:
                # ">": every key's latest value first, then each change as it is written
                self._watcher = watcher = await self.kv.watch(">")
                async for entry in watcher:
                    if entry is not None:  # None: the end of the latest values
                        self._note(entry.key, entry.revision or 0, entry.value, entry.operation)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the bus is away: watch again once it answers
                log.warning("worker %s: lease watch failed (%s); again", self.id, exc)
                await asyncio.sleep(bus.RECONNECT_WAIT)

    async def restart_watch(self) -> None:
        """Make the watch anew (it then delivers every lease's latest revision again)."""
        watcher, self._watcher = self._watcher, None
        self._beats.clear()
        if watcher is not None:
            self.watch_restarts += 1
            try:
                await watcher.stop()  # ends its `async for`: _watch_forever starts another
            except Exception:  # its subscription died with the connection: nothing to stop
                pass

    def _note(self, key: str, revision: int, value: bytes | None, op: str | None) -> None:
        if key.startswith(HEARTBEAT):
            if key == self._beat_key:
                while self._beats and self._beats[0][0] <= revision:
                    self._beats.popleft()
            return
        if op in (KV_DEL, KV_PURGE):
            self.seen.pop(key, None)  # the room was closed: nobody's to take over
            return
        old = self.seen.get(key)
        if old is None or revision > old.revision:  # a replayed revision keeps its time
            self.seen[key] = Seen(revision, (value or b"").decode(errors="replace"),
                                  time.monotonic())  # fmt: skip

    def watch_lagging(self, now: float) -> bool:
        """Whether a heartbeat written WATCH_LAG s ago has not come back through the watch."""
        return bool(self._beats) and now - self._beats[0][1] > WATCH_LAG

    # ------------------------------------------------------------------ bucket health
    async def beat(self, rooms: int) -> None:
        """Write this worker's heartbeat (its room count): proof that the bucket takes
        writes. Raises what the bucket raised (after noting it down)."""
        try:
            revision = await self.kv.put(self._beat_key, str(rooms).encode())
        except Exception:
            self.failed()
            raise
        now = time.monotonic()
        self._beats.append((revision, now))
        if self.ok_since is None:
            self.ok_since = now
            log.info("worker %s: the lease bucket takes writes", self.id)

    def failed(self) -> None:
        """A write did not go through (a timeout, no leader, no connection)."""
        if self.ok_since is not None:
            log.warning("worker %s: the lease bucket takes no writes; no takeovers", self.id)
        self.ok_since = None

    def stale(self, now: float, running: Iterable[str]) -> list[tuple[str, Seen]]:
        """The leases of rooms not `running` here that have not been renewed for
        LEASE_TIMEOUT s while the bucket took writes."""
        if self.ok_since is None:
            return []
        healthy = self.ok_since + RECOVERY_GRACE
        skip = set(running)
        return [
            (name, seen)
            for name, seen in self.seen.items()
            if name not in skip and now - max(seen.at, healthy) >= bus.LEASE_TIMEOUT
        ]

    # ------------------------------------------------------------------ claiming
    async def _latest(self, name: str) -> KeyValue.Entry | None:
        try:
            return await self.kv.get(name)
        except KeyNotFoundError:  # never made, or deleted
            return None

    async def claim(self, name: str) -> int | None:
        """Make the lease of a room nobody owns: its revision, or None if someone has it."""
        try:
            return await self.kv.create(name, self._me)
        except KeyWrongLastSequenceError:
            entry = await self._latest(name)
            if entry is not None and entry.value == self._me:
                return int(entry.revision or 0)  # ours: an earlier answer was lost
            return None

    async def renew(self, name: str, revision: int) -> int | None:
        """Renew a lease this worker holds at `revision`: the new revision, or None if
        another worker holds it now. Raises if the bucket does not answer (nothing lost)."""
        try:
            return await self.kv.update(name, self._me, last=revision)
        except KeyWrongLastSequenceError:
            pass
        entry = await self._latest(name)
        if entry is None:  # deleted meanwhile (its bucket's TTL): made again, ours
            return await self.claim(name)
        if entry.value != self._me:
            return None
        # our own renewal went through but its answer was lost (a NATS node died): carry on
        return await self.kv.update(name, self._me, last=int(entry.revision or 0))

    async def take(self, name: str, seen: Seen) -> int | None:
        """Take over the stale lease `seen` of `name`: the revision if this worker won it;
        None if it was renewed after all (the watch lags: it is made anew), deleted, or
        another worker was first."""
        entry = await self._latest(name)
        if entry is None:
            self.seen.pop(name, None)
            return None
        revision = int(entry.revision or 0)
        if revision != seen.revision:
            log.warning("worker %s: the lease watch missed a renewal of %s", self.id, name)
            self._note(name, revision, entry.value, None)
            await self.restart_watch()
            return None
        try:
            return await self.kv.update(name, self._me, last=revision)
        except KeyWrongLastSequenceError:
            return None  # another worker was first
