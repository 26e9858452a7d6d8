"""Room leases in the `sixdof-leases` bucket, as one worker holds and watches them.

Two kinds of keys:

- `<room>` → the id of the worker that owns the room: written when a worker claims the room
  (`create`, fails if anyone has it) or takes it over (compare-and-set on the revision it
  saw, so exactly one worker wins), deleted when the room closes. Not rewritten otherwise.
- `worker.<id>` (a room name has no ".") → the worker's heartbeat, rewritten every
  LEASE_RENEW s. A worker is alive while its heartbeat changes; the leases of one whose
  heartbeat has not changed for LEASE_TIMEOUT s are stale, and taken over room by room.

Every worker learns of every change from one key-value watch (JetStream pushes them;
nothing is listed or polled), and notes when each revision reached it. Liveness is per
worker, not per room: the watch carries 2 heartbeats a second per worker however many
rooms there are (a renewal per room and half-second, tried first, made 2,000 updates a
second at 1,000 rooms: more than a worker could read, so its view lagged and it took live
rooms over).

"Not renewed" must mean the worker stopped, not that the bucket could not be written. While
a NATS node is lost the bucket's copies elect a new leader and take no writes for several
seconds (4-7 s measured): nobody's heartbeat changes. So a failed write of one's own
heartbeat (or a reconnection) means "the bucket is not taking writes", and silence is only
counted from RECOVERY_GRACE s after writes succeed again (`ok_since`). The heartbeat also
checks the watch: it must come back through it within WATCH_LAG s, or the watch (an
ephemeral consumer, lost with its NATS node) is made anew. Before a worker is declared dead
its heartbeat is read once more from the bucket's leader: a beat the watch has not
delivered yet is never mistaken for silence.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from dataclasses import dataclass

from nats.js.errors import KeyNotFoundError, KeyWrongLastSequenceError
from nats.js.kv import KV_DEL, KV_PURGE, KeyValue

from . import bus

log = logging.getLogger("sixdof.worker")

HEARTBEAT = "worker."  # key prefix of the workers' heartbeats (a room name has no ".")
RECOVERY_GRACE = 1.5  # s after the bucket takes writes again before any worker counts dead
# s a heartbeat may take to come back through the watch before it is made anew: a lag
# delays no takeover (dead workers are confirmed from the leader) but a new watch replays
# every key, which a loaded worker should not do every few seconds
WATCH_LAG = 3.0


@dataclass
class Seen:
    """A key as the watch last delivered it."""

    revision: int
    value: str  # a lease: the owner's id
    at: float  # time.monotonic() when this revision reached this worker


class Leases:
    """This worker's view of the lease bucket: `claim` and `take` rooms, `beat`, and which
    workers are `dead`, kept current by a watch (`start`)."""

    def __init__(self, kv: KeyValue, worker_id: str) -> None:
        self.kv = kv
        self.id = worker_id
        self._me = worker_id.encode()
        self.rooms: dict[str, Seen] = {}  # room → its lease
        self.beats: dict[str, Seen] = {}  # worker id → its heartbeat
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
        """Stop watching, and delete this worker's heartbeat: the others take its rooms
        over at once instead of after LEASE_TIMEOUT (a graceful stop)."""
        if self._task is not None:
            self._task.cancel()
        await self.restart_watch()
        try:
            await self.kv.delete(self._beat_key)
        except Exception as exc:  # the bus is away: the heartbeat goes silent instead
            log.warning("worker %s: heartbeat not deleted: %r", self.id, exc)

    async def _watch_forever(self) -> None:
        failures = 0
        while True:
            try:
                # ">": every key's latest value first, then each change as it is written
                self._watcher = watcher = await self.kv.watch(">")
                failures = 0
                async for entry in watcher:
                    if entry is not None:  # None: the end of the latest values
                        self._note(entry.key, entry.revision or 0, entry.value, entry.operation)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the bus is away: watch again once it answers
                log.warning("worker %s: lease watch failed (%r); again", self.id, exc)
                failures += 1  # 0.25, 0.5, 1, 2 s: a bus electing leaders is not hurried
                await asyncio.sleep(min(2.0, bus.RECONNECT_WAIT * 2 ** (failures - 1)))

    async def restart_watch(self) -> None:
        """Make the watch anew (it then delivers every key's latest revision again)."""
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
            table, key = self.beats, key[len(HEARTBEAT) :]
            if key == self.id:
                while self._beats and self._beats[0][0] <= revision:
                    self._beats.popleft()
        else:
            table = self.rooms
        if op in (KV_DEL, KV_PURGE):
            table.pop(key, None)  # a room closed, a worker stopped
            return
        old = table.get(key)
        if old is None or revision > old.revision:  # a replayed revision keeps its time
            table[key] = Seen(revision, (value or b"").decode(errors="replace"), time.monotonic())

    def watch_lagging(self, now: float) -> bool:
        """Whether a heartbeat written WATCH_LAG s ago has not come back through the watch."""
        return bool(self._beats) and now - self._beats[0][1] > WATCH_LAG

    # ------------------------------------------------------------------ liveness
    async def beat(self, rooms: int, kv: KeyValue | None = None) -> None:
        """Write this worker's heartbeat (its room count): it is alive, and the bucket takes
        writes. Raises what the bucket raised (after noting it down). `kv`: the bucket on
        another connection (heartbeat.py's thread: what it changes here is thread-safe, a
        deque's append and one attribute's assignment)."""
        try:
            revision = await (kv or self.kv).put(self._beat_key, str(rooms).encode())
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

    def dead(self, now: float) -> dict[str, Seen | None]:
        """The other workers that own rooms and have not beaten for LEASE_TIMEOUT s while
        the bucket took writes (→ their heartbeat as seen; None: none seen, it stopped)."""
        if self.ok_since is None:
            return {}
        healthy = self.ok_since + RECOVERY_GRACE
        found: dict[str, Seen | None] = {}
        for lease in self.rooms.values():
            owner = lease.value
            if owner == self.id or owner in found:
                continue
            beat = self.beats.get(owner)
            # a worker never heard of: silent since its lease reached us
            last = beat.at if beat is not None else lease.at
            if now - max(last, healthy) >= bus.LEASE_TIMEOUT:
                found[owner] = beat
        return found

    async def confirm_dead(self, owner: str, beat: Seen | None) -> bool:
        """Read `owner`'s heartbeat from the bucket's leader: still the one `dead` saw?
        (If not, the watch lags: it is made anew.)"""
        try:
            entry = await self.kv.get(HEARTBEAT + owner)
            revision = int(entry.revision or 0)
        except KeyNotFoundError:
            revision = 0  # stopped (deleted its heartbeat), or never beat
        if revision == (beat.revision if beat is not None else 0):
            return True
        log.warning("worker %s: the lease watch missed a heartbeat of %s", self.id, owner)
        self._note(HEARTBEAT + owner, revision, b"", None)
        await self.restart_watch()
        return False

    def rooms_of(self, owner: str) -> list[tuple[str, Seen]]:
        return [(name, lease) for name, lease in self.rooms.items() if lease.value == owner]

    # ------------------------------------------------------------------ claiming
    async def claim(self, name: str) -> int | None:
        """Make the lease of a room nobody owns: its revision, or None if someone has it."""
        try:
            return await self.kv.create(name, self._me)
        except KeyWrongLastSequenceError:
            try:
                entry = await self.kv.get(name)
            except KeyNotFoundError:
                return None
            if entry.value == self._me:
                return int(entry.revision or 0)  # ours: an earlier answer was lost
            return None

    async def take(self, name: str, lease: Seen) -> int | None:
        """Take over room `name` from its dead owner (`lease` as seen): the new revision,
        or None if the lease changed since (another worker was first)."""
        try:
            return await self.kv.update(name, self._me, last=lease.revision)
        except KeyWrongLastSequenceError:
            return None

    async def holds(self, name: str) -> bool | None:
        """Whether this worker still holds the lease of `name`, read from the bucket (after
        a reconnection: was it cut off long enough to lose it?); None: no answer."""
        try:
            entry = await self.kv.get(name)
        except KeyNotFoundError:
            return False
        except Exception:
            return None
        return entry.value == self._me

    def lost(self, name: str, revision: int) -> bool:
        """Whether the watch shows room `name`, which this worker holds at `revision`, in
        another worker's hands since."""
        lease = self.rooms.get(name)
        return lease is not None and lease.revision > revision and lease.value != self.id
