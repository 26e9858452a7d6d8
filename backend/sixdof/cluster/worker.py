"""`sixdof worker`: owns rooms and runs their simulations, for the gateways on the bus.

A worker holds an ordinary app of `sixdof serve` (rooms, engine, REST) without listening
on any port. Each room it owns has one `BusViewer` (viewer.py) as its client: what the room
would send a websocket (frames, hellos, errors) goes on the room's subjects instead, once
per tick, however many viewers the gateways hold. Control messages and REST requests arrive
as NATS requests and are carried out exactly as `sixdof serve` carries them out; what a
message says of its sender (that it may control, its budget) is checked here, not taken
on the gateway's word (proof.py).

Ownership is a lease in the `sixdof-leases` bucket (leases.py): the room's key holds its
owner's id, and each worker rewrites its own heartbeat key every 0.5 s; every second the
owner writes each room's keyframe to `sixdof-snapshots`. Every worker watches the bucket:
a worker silent for 1.5 s is dead, and for each of its rooms the first worker to swap its
own id in (compare-and-set) resumes the room from its last snapshot.

The worker is on the bus before its physics is loaded (a cold numba cache compiles ~10 s):
meanwhile it answers `sixdof.preparing`, not `sixdof.open`, and takes over no room.

Its event loop (every room's tick) is watched by the loop probe of `sixdof serve`
(server/loop_probe.py); `GET /api/rooms/<room>/probe?since=N` through any gateway is answered
by the owner's app as every REST request is, with its id (`server`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Sequence
from typing import Any

from nats.aio.client import Client as Nats
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from nats.errors import MaxPayloadError
from nats.js.errors import KeyNotFoundError
from nats.js.kv import KeyValue

from ..meshstore import use_store
from ..server.app import create_app
from ..server.control import handle
from ..server.errors import Refusal
from ..server.loop_probe import LoopProbe
from ..server.pools import metering, off_loop
from ..server.registry import Rooms
from ..server.settings import Settings
from ..server.snapshots import Snapshot
from ..server.ws import take_answer
from ..store.meshes import StoredMeshes
from . import bus
from .answers import LargeAnswers, error
from .asgi import call_asgi
from .failover import Failover, Owned
from .heartbeat import Heartbeat
from .leases import Leases
from .login import login, shown
from .proof import Checker, budget, forbidden
from .records import NatsStore
from .shares import encode_share, find_share
from .urls import parse_urls
from .viewer import BusViewer, resume, snapshot_of

log = logging.getLogger("sixdof.worker")

SNAPSHOT_BATCH = 64  # snapshots encoded between two yields to the event loop


class Worker(Failover):
    """Rooms on the bus at `urls` (the servers of one NATS cluster); `run()` until `stop()`.
    `replicas`: the copies of each bucket, if this worker is the first to make it."""

    def __init__(
        self,
        urls: str | Sequence[str],
        settings: Settings,
        worker_id: str | None = None,
        replicas: int = 1,
    ) -> None:
        self.urls = parse_urls(urls)
        self.settings = settings
        self.replicas = replicas
        self.id = worker_id or f"w-{secrets.token_hex(4)}"
        # the cluster's records (links, lessons, meshes: cluster/records.py), not --data's
        self.records = NatsStore(self.urls, replicas, f"sixdof-{self.id}-store")
        self.app = create_app(settings, self.records)
        self.rooms: Rooms = self.app.state.rooms
        self.app.state.server_id = self.id  # in its probe's readings
        # the app's own probe: its lifespan never runs here, so `run()` starts it
        self.probe: LoopProbe = self.app.state.probe
        self.owned: dict[str, Owned] = {}
        self.ready = False  # the physics is loaded: rooms may be opened and taken over
        self._stop = asyncio.Event()
        self._renew_now = asyncio.Event()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._outbox: list[tuple[str, bytes]] = []  # published by the next _send_outbox
        self._preparing: Subscription | None = None
        self._starting: set[str] = set()  # rooms being opened or taken over right now
        self._owning = asyncio.Lock()  # one room set up at a time (_resume)
        self.nc: Nats | None = None
        self.leases: Leases | None = None
        self.heartbeat: Heartbeat | None = None
        self.snapshots: KeyValue | None = None
        self.shares: KeyValue | None = None
        self.answers = LargeAnswers(self.id)  # REST answers sent in pieces
        self.proofs = Checker(settings.token)  # who may control, checked here (proof.py)
        self._refused_logged = -1e9

    # ------------------------------------------------------------------ bus
    def publish(self, subject: str, data: bytes) -> None:
        """Publish from synchronous code (a room's tick). A tick's messages (one frame per
        room: hundreds) go out from one task, not one task each. Nothing is kept while the
        connection is down: a frame is stale by the time it is back, and hundreds of rooms'
        frames would overflow nats-py's reconnect buffer."""
        if self.nc is None or not self.nc.is_connected:
            return
        if not self._outbox:
            self._spawn(self._send_outbox())
        self._outbox.append((subject, data))

    async def _send_outbox(self) -> None:
        batch, self._outbox = self._outbox, []
        nc = self.nc
        if nc is None:
            return
        for subject, data in batch:  # nats-py appends each to its buffer: no wait
            try:
                await nc.publish(subject, data)
            except MaxPayloadError:  # a hello or frame of a huge room: the others still go
                log.warning("worker %s: %s: %d bytes, more than NATS carries (max_payload "
                            "%d)", self.id, subject, len(data), nc.max_payload)  # fmt: skip

    def _spawn(self, work: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def connect(self) -> None:
        self.nc = await bus.connect(self.urls, f"sixdof-{self.id}", self._on_reconnect)
        leases, self.snapshots, self.shares = await bus.open_buckets(self.nc, self.replicas)
        self.leases = Leases(leases, self.id)
        self.leases.start()
        self.heartbeat = Heartbeat(self.urls, self.leases, lambda: len(self.owned))
        self.heartbeat.start()
        # answered until the physics is ready, then `sixdof.open` is (_load_physics)
        self._preparing = await self.nc.subscribe(
            bus.PREPARING, queue=bus.WORKERS, cb=self._on_preparing
        )
        await self.nc.subscribe(bus.PRESENCE, cb=self._on_presence)
        await self.nc.subscribe(self.answers.subject, cb=self._on_more)

    async def _on_reconnect(self) -> None:
        """nats-py has subscribed again; the lease watch is made anew, and every lease this
        worker holds is read at once (a worker cut off for long finds its rooms taken)."""
        if self.leases is None:
            return  # still connecting: nothing to check yet
        self.leases.failed()  # until a heartbeat goes through again
        await self.leases.restart_watch()
        self._renew_now.set()

    async def run(self) -> None:
        self.probe.start()
        # what the app's lifespan (which never runs here) does: meshes from the records
        meshes_before = use_store(StoredMeshes(self.records))
        await self.connect()
        log.info("worker %s on %s (%s)", self.id, shown(self.urls), login(self.urls).how)
        loops = [
            asyncio.get_running_loop().create_task(work)
            for work in (self._load_physics(), self._lease_loop(), self._snapshot_loop())
        ]
        try:
            await self._stop.wait()
        finally:
            for task in loops:
                task.cancel()
            if self.owned and self.nc is not None and self.nc.is_connected:
                await self._write_snapshots()  # the next owner resumes them from now
            for name in list(self.owned):
                await self._close(name, forget=False)
            if self.heartbeat is not None:  # stopped before its key is deleted (leases.stop)
                self.heartbeat.stop()
                await asyncio.to_thread(self.heartbeat.join, 5.0)
            if self.leases is not None:
                await self.leases.stop()
            if self.nc is not None:
                await self.nc.drain()
            await self.rooms.close()
            self.probe.stop()
            use_store(meshes_before)
            await off_loop(self.records.close)

    def stop(self) -> None:
        self._stop.set()

    async def _load_physics(self) -> None:
        """Load (or compile) the physics, then open rooms: `sixdof.open` is answered from
        now on, `sixdof.preparing` no more (subscribed first: always one of them answers)."""
        assert self.nc is not None
        preparing = json.loads(await self.rooms.preparing())
        if preparing["cold"]:
            log.warning("worker %s: numba's cache is cold: compiling the physics (~10 s; "
                        "`sixdof warm` fills the cache)", self.id)  # fmt: skip
        started = time.monotonic()
        # a cold cache compiles in a child process, as `sixdof serve` does: numba's compiler
        # holds the GIL for seconds at a time, which in a thread here stalled the bus's replies
        self.rooms.prepare_in_background()
        await self.rooms.physics_ready()
        await self.nc.subscribe(bus.OPEN, queue=bus.WORKERS, cb=self._on_open)
        self.ready = True
        if self._preparing is not None:
            await self._preparing.unsubscribe()
        log.info("worker %s: physics ready in %.1f s", self.id, time.monotonic() - started)

    # ------------------------------------------------------------------ ownership
    async def _on_preparing(self, msg: Msg) -> None:
        """sixdof.preparing: asked when no worker with its physics loaded answers
        sixdof.open; the `preparing` message for the gateway to pass on."""
        await msg.respond(bus.encode({"preparing": await self.rooms.preparing()}))

    async def _on_open(self, msg: Msg) -> None:
        """sixdof.open: claim the room's lease; answer whether this worker now owns it. The
        room is a watcher's (capped apart) unless the request proves it is for someone who
        may control: a request's word is not taken for it (proof.py)."""
        assert self.leases is not None
        request = bus.decode(msg.data)
        name = str(request["room"])
        by_watcher = self.proofs.check(request.get("proof"), "open", name) is not None
        shared = None
        if request.get("share") and self.shares is not None:  # a Share link: a new room of it
            shared = await find_share(self.shares, self.app.state.snapshots, str(request["share"]))
        if name in self.owned:
            await msg.respond(bus.encode({"owner": self.id}))
            return
        if name in self._starting:
            await msg.respond(bus.encode({"owner": None}))  # in a moment: asked again
            return
        self._starting.add(name)
        try:
            revision = await self.leases.claim(name)
            if revision is None:
                await msg.respond(bus.encode({"owner": None}))  # someone has it, maybe dead
                return
            try:
                await self._own(name, revision, await self._snapshot(name), by_watcher, shared)
            except Refusal as refusal:
                await self.leases.kv.delete(name)
                await msg.respond(bus.encode({"refused": refusal.text()}))
                return
        finally:
            self._starting.discard(name)
        await msg.respond(bus.encode({"owner": self.id}))

    async def _snapshot(self, name: str) -> dict[str, Any] | None:
        assert self.snapshots is not None
        try:
            entry = await self.snapshots.get(name)
        except KeyNotFoundError:
            return None
        return bus.decode(entry.value) if entry.value else None

    async def _own(
        self,
        name: str,
        revision: int,
        snapshot: dict[str, Any] | None,
        by_watcher: bool = False,
        shared: Snapshot | None = None,
    ) -> None:
        """Start running room `name` (from its failover `snapshot`, if any; else, if new,
        from a Share link's `shared` snapshot) and answer on its subjects. A room opened for
        a viewer without the token counts against max_watcher_rooms."""
        assert self.nc is not None
        sim = None
        if self.rooms.get(name) is None:  # built in the requests' pool, not on the loop
            self.rooms.check_cap(by_watcher)
            sim = await off_loop(self.rooms.new_sim, shared)
        room = self.rooms.get_or_create(name, by_watcher=by_watcher, snapshot=shared, sim=sim)
        if snapshot is not None:  # a takeover: its world rebuilt there too
            await off_loop(resume, room, snapshot)
        viewer = BusViewer(self, name, binary=False)
        owned = Owned(room, revision, {False: viewer}, empty_since=time.monotonic())
        self.owned[name] = owned  # empty until a gateway says it has viewers
        self.rooms.join(name, viewer)
        for kind, handler in (("join", self._on_join), ("cmd", self._on_cmd),
                              ("http", self._on_http)):  # fmt: skip
            owned.subs.append(await self.nc.subscribe(bus.room_subject(name, kind), cb=handler))
        log.info("worker %s owns room %s%s", self.id, name, " (resumed)" if snapshot else "")

    async def _close(self, name: str, forget: bool) -> None:
        """Stop running `name`; with `forget`, drop its lease and snapshot too (nobody
        watches it any more), else leave them for another worker."""
        owned = self.owned.pop(name, None)
        if owned is None:
            return
        for sub in owned.subs:
            try:
                await sub.unsubscribe()
            except Exception:  # the connection may be closing already
                pass
        for viewer in owned.viewers.values():
            self.rooms.leave(owned.room, viewer)
        if forget:  # nobody watched it for room_ttl already: gone now, a new viewer starts anew
            self.rooms.expire(owned.room)
        if forget and self.leases is not None and self.snapshots is not None:
            for bucket in (self.snapshots, self.leases.kv):
                try:
                    await bucket.delete(name)
                except Exception as exc:  # the bucket's TTL drops them in time anyway
                    log.warning("worker %s: could not drop %s: %r", self.id, name, exc)
        log.info("worker %s left room %s", self.id, name)

    # ------------------------------------------------------------------ the loops
    async def _snapshot_loop(self) -> None:
        """Every SNAPSHOT_EVERY s, each room's snapshot."""
        while True:
            started = time.monotonic()
            await self._write_snapshots()
            await asyncio.sleep(max(0.05, bus.SNAPSHOT_EVERY - (time.monotonic() - started)))

    async def _write_snapshots(self) -> None:
        """Each room's snapshot, written concurrently (a NATS node lost does not hold the
        others up), encoded in batches between yields to the event loop."""
        assert self.snapshots is not None
        snapshots = self.snapshots

        async def put(name: str, data: bytes) -> None:
            try:
                await snapshots.put(name, data)
            except Exception as exc:  # the bucket is electing a leader: next round
                log.debug("worker %s: snapshot of %s not written: %r", self.id, name, exc)

        writes = []
        for i, (name, owned) in enumerate(list(self.owned.items())):
            if self.owned.get(name) is owned:
                writes.append(put(name, snapshot_of(owned.room)))
            if i % SNAPSHOT_BATCH == SNAPSHOT_BATCH - 1:
                await asyncio.sleep(0)
        await asyncio.gather(*writes)

    # ------------------------------------------------------------------ requests
    async def _publish_share(self, sid: str) -> None:
        """Put the snapshot this worker's app just made for a Share link where every
        gateway and worker finds it."""
        assert self.shares is not None
        snapshot = await self.app.state.snapshots.fetch(sid)
        if snapshot is not None:
            await self.shares.put(sid, encode_share(snapshot))

    async def _on_presence(self, msg: Msg) -> None:
        data = bus.decode(msg.data)
        now = time.monotonic()
        for name, info in data.get("rooms", {}).items():
            owned = self.owned.get(name)
            if owned is not None:
                owned.gateways[data["gateway"]] = now
                if info.get("binary"):
                    self._binary_viewer(name, owned)

    def _binary_viewer(self, name: str, owned: Owned) -> None:
        if True not in owned.viewers:
            owned.viewers[True] = BusViewer(self, name, binary=True)
            self.rooms.join(name, owned.viewers[True])

    async def _on_join(self, msg: Msg) -> None:
        name = msg.subject.split(".")[1]
        owned = self.owned.get(name)
        if owned is None:
            return  # no answer: the gateway asks sixdof.open
        data = bus.decode(msg.data)
        if data.get("binary"):
            self._binary_viewer(name, owned)
        owned.joined_by(data["gateway"])
        await msg.respond(bus.encode({"hello": owned.room.hello(True, False)}))

    async def _on_cmd(self, msg: Msg) -> None:
        """A viewer's control message, authorised and validated by its gateway: carried out
        if its proof shows its sender may control (proof.py), validated again here (the bus
        is not the client), within at most one address's budget."""
        name = msg.subject.split(".")[1]
        owned = self.owned.get(name)
        if owned is None:
            return
        started = time.thread_time()
        try:
            data = bus.decode(msg.data)
            text = str(data["text"])
        except (ValueError, KeyError, TypeError):
            data, text = {}, ""
        if isinstance(data.get("answerer"), str):  # a viewer's answer: no control needed
            texts = take_answer(text, owned.room, data["answerer"][:80])
            await msg.respond(bus.encode({"replies": texts, "spent": 0.0}))
            return
        why = self.proofs.check(data.get("proof"), "cmd", name, text)
        if why is not None:
            if time.monotonic() > self._refused_logged + 10.0:  # a flood: one line in 10 s
                self._refused_logged = time.monotonic()
                log.warning("worker %s: room %s: a command refused: %s", self.id, name, why)
            await msg.respond(bus.encode({"replies": [forbidden(text, why)], "spent": 0.0}))
            return
        left = budget(data.get("left"), self.settings.work_burst)
        read = time.thread_time() - started  # no await since: the proof's check is this message's
        replies, spent = await handle(text, owned.room, left, self.settings)
        texts = [reply for reply, _ in replies]
        with metering() as hello:
            await owned.room.sync_hello()
        await msg.respond(bus.encode({"replies": texts, "spent": read + spent + hello.cpu}))

    async def _on_http(self, msg: Msg) -> None:
        """A REST request under /api/rooms/<room>/: run by this worker's own app. An answer
        larger than one NATS message goes in pieces (bus.py: `more`, `_on_more`)."""
        head, body = bus.unpack_http(msg.data)
        cap = self.settings.max_answer_bytes
        status, headers, payload, over = await call_asgi(self.app, head, body, cap)
        if over:  # cut off at the cap: refused whole rather than sent in part
            log.warning("worker %s: %s %s: more than %d bytes, refused", self.id,
                        head["method"], head["path"], cap)  # fmt: skip
            await msg.respond(error(413, (
                f"answer: more than {cap} bytes, the most a gateway relays (max_answer_bytes; "
                "`sixdof serve` serves it whole)"
            )))  # fmt: skip
            return
        if status == 200 and head["method"] == "POST" and head["path"].endswith("/share"):
            await self._publish_share(bus.decode(payload)["id"])
        assert self.nc is not None
        await self.answers.respond(msg, self.nc.max_payload, status, headers, payload)

    async def _on_more(self, msg: Msg) -> None:
        assert self.nc is not None
        await self.answers.on_more(msg, self.nc.max_payload)
