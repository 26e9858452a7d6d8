"""The store in cluster mode: the records of `sixdof.store` (Share links, saved scenarios,
lessons, uploaded meshes) on the bus, in JetStream, behind the same `Store` interface as the
embedded SQLite one. Every gateway and worker of a cluster opens it (`sixdof gateway` and
`sixdof worker` use it instead of `--data`), so a lesson saved through one gateway, a mesh
uploaded through another and a Share link made by a worker are the same records everywhere,
kept on the NATS servers' disks (file storage) with `--nats-replicas` copies: a worker
restarted, or one NATS node of three lost, loses none.

Two buckets:

- KV `sixdof-records`: `<kind>.<key>` -> the record's metadata (its key, pool, size,
  pinned, when it was made, the object holding its value); `txn.<id>` -> a batch being
  carried out (below).
- object store `sixdof-values`: the values, each under a name of its own, so a write that
  replaces a record points the metadata at a new object, and one cut short leaves the old
  record whole (and at worst an object nobody names).

A batch (`apply`: a lesson with its pins) is a redo journal: its values are uploaded and
its pins checked (StoreMissing before anything is visible), then every metadata write of the
batch goes into one `txn.<id>` entry (one KV write: atomic), they are made, and the entry is
deleted. A process stopped part way leaves the entry; the next store opened on the bus makes
its writes: all of the batch or none.

Every call blocks, as SQLite's do: the store runs its own event loop and NATS connection in
a thread of its own, so it may be called from the requests' pool or briefly from the
server's event loop (a mesh read while a scenario is validated) without deadlocking it. A
JetStream call refused while a bucket elects a new leader (a NATS node lost: 4-7 s) is tried
again for up to STORE_WAIT s.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
import secrets
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import Future
from typing import Any, TypeVar

from nats.aio.client import Client as Nats
from nats.errors import Error as NatsError
from nats.js import api
from nats.js.errors import APIError, KeyNotFoundError, NotFoundError
from nats.js.kv import KeyValue
from nats.js.object_store import ObjectStore

from ..store import Caps, Change, Delete, Pin, Put, RecordInfo, StoreError, StoreFull, StoreMissing
from . import bus
from .login import shown

T = TypeVar("T")

RECORDS = "sixdof-records"
VALUES = "sixdof-values"
TXN = "txn"
#: s a call keeps trying while the bus has no leader for a bucket (a NATS node lost).
STORE_WAIT = 20.0
#: s a listing waits for the next of its entries before it gives up and tries again.
LIST_WAIT = 5.0
#: s a listing that found nothing waits on for entries nats.py had already received: its
#: watcher can say its first pass is done before handing them over (it checks the entries
#: its callback has run for, which a loaded event loop may not have run yet: a pool of three
#: records listed as none in a fresh-clone run).
LIST_SETTLE = 0.25
_PLAIN = re.compile(r"[A-Za-z0-9_-]{1,128}")

#: the clock records are stamped with (a test stands it still)
wall_clock = time.time


def _full(exc: APIError) -> bool:
    text = str(exc).lower()
    return "insufficient" in text or "maximum bytes" in text or "resources" in text


async def read_listing(watcher: Any) -> dict[str, bytes]:
    """A KV watcher's first pass (key -> value; deletions left out by the watcher): its entries
    up to its end-of-pass marker (None), and when there were none, those handed over within
    LIST_SETTLE after it (the marker can come first: LIST_SETTLE)."""
    found: dict[str, bytes] = {}
    while (entry := await watcher.updates(timeout=LIST_WAIT)) is not None:
        if entry.value:
            found[entry.key] = entry.value
    if found:
        return found
    while True:  # until LIST_SETTLE passes without one
        try:
            entry = await watcher.updates(timeout=LIST_SETTLE)
        except asyncio.TimeoutError:
            return found
        if entry is not None and entry.value:
            found[entry.key] = entry.value


class NatsStore:
    """The Store of a cluster's records on the bus at `urls` (see the module's docstring).
    `replicas`: the buckets' copies, if this process is the first to make them."""

    def __init__(self, urls: Sequence[str], replicas: int = 1, name: str = "sixdof-store") -> None:
        self.location = f"NATS JetStream ({RECORDS}, {VALUES}) at {shown(list(urls))}"
        self._caps: dict[tuple[str, str], Caps] = {}
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name=name, daemon=True)
        self._thread.start()
        self._nc: Nats | None = None
        self._kv: KeyValue | None = None
        self._obs: ObjectStore | None = None
        self._last_created = 0.0
        try:
            self._call(self._open(list(urls), replicas, name), bus.CONNECT_WAIT + STORE_WAIT)
        except BaseException:
            self._end_loop()
            raise

    # ------------------------------------------------------------------ plumbing
    def _call(self, work: Awaitable[T], timeout: float | None = None) -> T:
        future: Future[T] = asyncio.run_coroutine_threadsafe(work, self._loop)  # type: ignore[arg-type]
        return future.result(timeout)

    def _end_loop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5.0)
        if not self._thread.is_alive():
            self._loop.close()

    async def _retry(self, what: str, work: Callable[..., Awaitable[T]], *args: Any) -> T:
        """`await work(*args)`, tried again while the bus cannot answer, for STORE_WAIT s."""
        deadline = time.monotonic() + STORE_WAIT
        while True:
            try:
                return await work(*args)
            except NotFoundError:
                raise
            except APIError as exc:
                if _full(exc):
                    raise StoreFull(
                        f"{self.location}: the bus's storage is full ({exc}): nothing new is "
                        "saved until space is freed; what is saved stays, and the rooms go on"
                    ) from None
                error: Exception = exc
            except (NatsError, asyncio.TimeoutError, OSError) as exc:
                error = exc
            if time.monotonic() > deadline:
                raise StoreError(f"{self.location}: {what}: {error!r}")
            await asyncio.sleep(0.25)

    async def _open(self, urls: list[str], replicas: int, name: str) -> None:
        self._nc = nc = await bus.connect(urls, name)
        js = nc.jetstream(timeout=bus.JS_TIMEOUT)

        async def records() -> KeyValue:
            try:
                return await js.create_key_value(bucket=RECORDS, history=1, replicas=replicas,
                                                 storage=api.StorageType.FILE)  # fmt: skip
            except APIError as exc:
                if exc.err_code != 10058:  # 10058: it exists already
                    raise
                return await js.key_value(RECORDS)

        async def values() -> ObjectStore:
            config = api.ObjectStoreConfig(replicas=replicas, storage=api.StorageType.FILE)
            try:
                return await js.create_object_store(VALUES, config=config)
            except APIError as exc:
                if exc.err_code != 10058:
                    raise
                return await js.object_store(VALUES)

        self._kv = await self._retry(f"making bucket {RECORDS}", records)
        self._obs = await self._retry(f"making object store {VALUES}", values)
        for key, entry in (await self._list(TXN)).items():  # batches cut short: made now
            plan = json.loads(entry)
            await self._carry_out(plan["plan"], plan["drop"])
            await self._retry("ending a batch", self._kv_delete, key)

    @staticmethod
    def _mkey(kind: str, key: str) -> str:
        """A record's key in the metadata bucket (a key NATS does not take: hex)."""
        return f"{kind}.{key}" if _PLAIN.fullmatch(key) else f"{kind}.={key.encode().hex()}"

    async def _meta(self, mkey: str) -> dict[str, Any] | None:
        assert self._kv is not None
        kv = self._kv
        try:
            entry = await self._retry("reading", kv.get, mkey)
        except KeyNotFoundError:
            return None
        return json.loads(entry.value) if entry.value else None

    async def _kv_delete(self, mkey: str) -> None:
        assert self._kv is not None
        try:
            await self._kv.delete(mkey)
        except KeyNotFoundError:
            pass

    async def _list(self, kind: str) -> dict[str, bytes]:
        """Every current entry under `kind.` (metadata key -> value), read in one pass."""
        assert self._kv is not None
        kv = self._kv

        async def scan() -> dict[str, bytes]:
            watcher = await kv.watch(f"{kind}.>", ignore_deletes=True)
            try:
                return await read_listing(watcher)
            finally:
                await watcher.stop()

        return await self._retry(f"listing {kind}", scan)

    async def _records(self, kind: str, pool: str | None) -> list[dict[str, Any]]:
        """The metadata of `kind`'s records (of `pool`), oldest first."""
        metas = [json.loads(v) for v in (await self._list(kind)).values()]
        chosen = [m for m in metas if pool is None or m["pool"] == pool]
        return sorted(chosen, key=lambda m: (m["created"], m["object"]))

    # ------------------------------------------------------------------ writes
    def _created(self) -> float:
        """A record's creation time, later than every other this store made: pools evict
        oldest first, and two puts within one tick of the clock, or a clock set back, would
        otherwise be ordered by their objects' random names (SQLite orders by a sequence).
        Across processes the order is the machines' clocks'."""
        self._last_created = max(wall_clock(), math.nextafter(self._last_created, math.inf))
        return self._last_created

    async def _apply(self, changes: Sequence[Change]) -> int:
        """Make `changes` (see the module's docstring); the number of records touched."""
        assert self._obs is not None
        obs = self._obs
        before: dict[str, dict[str, Any] | None] = {}
        plan: dict[str, dict[str, Any] | None] = {}
        uploaded: list[str] = []
        trims: set[tuple[str, str]] = set()
        try:
            for change in changes:
                mkey = self._mkey(change.kind, change.key)
                if mkey not in before:
                    before[mkey] = await self._meta(mkey)
                state = plan[mkey] if mkey in plan else before[mkey]
                if isinstance(change, Put):
                    name = f"{mkey}.{secrets.token_hex(8)}"
                    await self._retry("writing", obs.put, name, change.value)
                    uploaded.append(name)
                    plan[mkey] = {"key": change.key, "pool": change.pool, "object": name,
                                  "nbytes": len(change.value), "pinned": change.pinned,
                                  "created": self._created()}  # fmt: skip
                    if not change.pinned and (change.kind, change.pool) in self._caps:
                        trims.add((change.kind, change.pool))
                elif isinstance(change, Pin):
                    if state is None:
                        if change.pinned:  # a lesson must not be kept without what it names
                            raise StoreMissing(change.kind, change.key)
                        continue
                    plan[mkey] = {**state, "pinned": change.pinned}
                elif state is not None:
                    plan[mkey] = None
        except BaseException:
            for name in uploaded:  # nobody names them: gone again
                await self._drop_object(name)
            raise
        kept = {m["object"] for m in plan.values() if m is not None}
        # the objects of records replaced or deleted, and of a record put twice in the batch
        drop = [old["object"] for mkey, old in before.items()
                if old is not None and mkey in plan and old["object"] not in kept]  # fmt: skip
        drop += [name for name in uploaded if name not in kept]
        if len(plan) > 1:  # more than one write: through the journal, all or none
            assert self._kv is not None
            kv, tkey = self._kv, f"{TXN}.{secrets.token_hex(8)}"
            journal = json.dumps({"plan": plan, "drop": drop}).encode()
            await self._retry("writing a batch", kv.put, tkey, journal)
            await self._carry_out(plan, drop)
            await self._retry("ending a batch", self._kv_delete, tkey)
        else:
            await self._carry_out(plan, drop)
        for kind, pool in trims:
            await self._trim(kind, pool, self._caps[(kind, pool)])
        return len(plan)

    async def _carry_out(self, plan: dict[str, Any], drop: list[str]) -> None:
        """A batch's metadata writes (redone whole after a crash: each is idempotent), then
        the objects nobody names any more."""
        assert self._kv is not None
        kv = self._kv
        for mkey, meta in plan.items():
            if meta is None:
                await self._retry("deleting", self._kv_delete, mkey)
            else:
                await self._retry("writing", kv.put, mkey, json.dumps(meta).encode())
        for name in drop:
            await self._drop_object(name)

    async def _drop_object(self, name: str) -> None:
        assert self._obs is not None
        try:
            await self._obs.delete(name)
        except (NatsError, asyncio.TimeoutError):  # not there, or the bus is away: litter only
            pass

    async def _trim(self, kind: str, pool: str, caps: Caps) -> None:
        """Drop the pool's oldest unpinned records while it is over a cap (the newest stays:
        a record larger than the cap alone is kept, as SQLite's store keeps it)."""
        unpinned = [m for m in await self._records(kind, pool) if not m["pinned"]]
        count, total = 0, 0
        for i in range(len(unpinned) - 1, -1, -1):
            count += 1
            total += int(unpinned[i]["nbytes"])
            if count > 1 and (count > caps.max_count or total > caps.max_bytes):
                cut = i + 1
                break
        else:
            cut = 0
        for meta in unpinned[:cut]:
            await self._retry("trimming", self._kv_delete, self._mkey(kind, meta["key"]))
            await self._drop_object(meta["object"])

    # ------------------------------------------------------------------ reads
    async def _get(self, kind: str, key: str) -> bytes | None:
        assert self._obs is not None
        obs = self._obs
        for _ in range(3):  # a record replaced meanwhile: its new object
            meta = await self._meta(self._mkey(kind, key))
            if meta is None:
                return None
            try:
                result = await self._retry("reading", obs.get, meta["object"])
            except NotFoundError:
                continue
            return bytes(result.data or b"")
        return None

    # ------------------------------------------------------------------ the Store
    def limit(self, kind: str, pool: str, caps: Caps) -> None:
        self._caps[(kind, pool)] = caps

    def put(
        self, kind: str, key: str, value: bytes, *, pool: str = "", pinned: bool = False
    ) -> None:
        self.apply([Put(kind, key, value, pool, pinned)])

    def apply(self, changes: Sequence[Change]) -> None:
        self._call(self._apply(changes))

    def get(self, kind: str, key: str) -> bytes | None:
        return self._call(self._get(kind, key))

    def info(self, kind: str, pool: str | None = None) -> list[RecordInfo]:
        metas = self._call(self._records(kind, pool))
        return [RecordInfo(kind, m["key"], m["pool"], int(m["nbytes"]), bool(m["pinned"]),
                           float(m["created"])) for m in metas]  # fmt: skip

    def delete(self, kind: str, key: str) -> bool:
        return bool(self._call(self._apply([Delete(kind, key)])))

    def pin(self, kind: str, key: str, pinned: bool) -> bool:
        try:
            return bool(self._call(self._apply([Pin(kind, key, pinned)])))
        except StoreMissing:
            return False

    def usage(self, kind: str, pool: str | None = None) -> tuple[int, int]:
        metas = self._call(self._records(kind, pool))
        return len(metas), sum(int(m["nbytes"]) for m in metas)

    def close(self) -> None:
        nc = self._nc
        if nc is not None and not nc.is_closed:
            try:
                self._call(nc.close(), 10.0)
            except Exception:  # closing: nothing left to save
                pass
        self._end_loop()
