"""`sixdof worker`: owns rooms and runs their simulations, for the gateways on the bus.

A worker holds an ordinary app of `sixdof serve` (rooms, engine, REST) without listening
on any port. Each room it owns has one `BusViewer` as its client: what the room would send
a websocket (frames, hellos, errors) goes on the room's subjects instead, once per tick,
however many viewers the gateways hold. Control messages and REST requests arrive as NATS
requests and are carried out exactly as `sixdof serve` carries them out.

Ownership is a lease in the `sixdof-leases` bucket (bus.py), renewed every 0.5 s; every
second the owner writes the room's keyframe to `sixdof-snapshots`. Every worker watches the
leases: one not renewed for 1.5 s belongs to a dead worker, and the first worker to swap
its own id in (compare-and-set) resumes the room from the last snapshot.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import secrets
import signal
import time
from dataclasses import dataclass, field
from typing import Any

import nats
from nats.aio.client import Client as Nats
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from nats.js.errors import KeyNotFoundError, KeyWrongLastSequenceError, NoKeysError
from nats.js.kv import KeyValue

from ..server.app import create_app
from ..server.control import handle
from ..server.errors import Refusal
from ..server.registry import Rooms
from ..server.rooms import Room
from ..server.settings import Settings
from ..server.snapshots import Snapshot
from ..server.wire import Wire
from ..simulation.recording import Recording, RecordingFormatError
from . import bus
from .shares import RECORDING_BYTES, encode_share, fetch_share

log = logging.getLogger("sixdof.worker")

_viewer_ids = itertools.count(1)
SNAPSHOT_MAX_BYTES = 900 * 1024  # NATS's default max_payload is 1 MiB


class BusViewer:
    """A room's client that publishes what it is sent on the room's subjects (JSON frames,
    or binary ones), for every gateway at once."""

    def __init__(self, worker: Worker, room: str, binary: bool) -> None:
        self.id = next(_viewer_ids)
        self.worker = worker
        self.can_control = True  # the gateways know who may; the hello says it per viewer
        self.binary = binary
        self.wire: Wire | None = None
        self.last_message_at = -1e9
        self._state = bus.room_subject(room, "bin" if binary else "state")
        self._hello = bus.room_subject(room, "hello")
        self._event = bus.room_subject(room, "event")

    @property
    def frames_dropped(self) -> int:
        return 0

    def offer(self, text: str | bytes, wire_frame: bytes | None, now: float) -> None:
        self.worker.publish(self._state, text if isinstance(text, bytes) else text.encode())

    def send_hello(self, text: str, frame: bytes) -> None:
        if not self.binary:  # the gateways make every variant from the JSON viewer's hello
            self.worker.publish(self._hello, text.encode())

    def send_reply(self, text: str, kind: str = "reply") -> None:
        if self.binary:
            return  # the JSON viewer sends the same, once
        subject = self._hello if kind == "hello" else self._event
        self.worker.publish(subject, text.encode())


@dataclass
class Owned:
    """A room this worker owns: its lease revision, subscriptions and its gateways."""

    room: Room
    revision: int
    viewers: dict[bool, BusViewer]
    subs: list[Subscription] = field(default_factory=list)
    gateways: dict[str, float] = field(default_factory=dict)  # id → last presence
    empty_since: float | None = None
    renewed_at: float = 0.0
    snapshot_at: float = 0.0


class Worker:
    """Rooms on the bus at `url`; `run()` until `stop()`."""

    def __init__(self, url: str, settings: Settings, worker_id: str | None = None) -> None:
        self.url = url
        self.settings = settings
        self.id = worker_id or f"w-{secrets.token_hex(4)}"
        self.app = create_app(settings)
        self.rooms: Rooms = self.app.state.rooms
        self.owned: dict[str, Owned] = {}
        self._seen: dict[str, tuple[int, float]] = {}  # others' leases: revision, seen at
        self._stop = asyncio.Event()
        self._tasks: set[asyncio.Task[Any]] = set()
        self.nc: Nats | None = None
        self.leases: KeyValue | None = None
        self.snapshots: KeyValue | None = None
        self.shares: KeyValue | None = None

    # ------------------------------------------------------------------ bus
    def publish(self, subject: str, data: bytes) -> None:
        """Publish from synchronous code (a room's tick): nats-py only buffers it."""
        if self.nc is None or self.nc.is_closed:
            return
        task = asyncio.get_running_loop().create_task(self.nc.publish(subject, data))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def connect(self) -> None:
        self.nc = await nats.connect(
            self.url, name=f"sixdof-{self.id}", max_reconnect_attempts=-1, reconnect_time_wait=0.5
        )
        self.leases, self.snapshots, self.shares = await bus.open_buckets(self.nc.jetstream())
        await self.nc.subscribe(bus.OPEN, queue=bus.WORKERS, cb=self._on_open)
        await self.nc.subscribe(bus.PRESENCE, cb=self._on_presence)

    async def run(self) -> None:
        await self.rooms.physics_ready()  # a worker is there to run physics: load it now
        await self.connect()
        log.info("worker %s on %s", self.id, self.url)
        try:
            while not self._stop.is_set():
                try:
                    await self._maintain()
                except Exception:  # the bus may be away for a moment; try again next round
                    log.exception("worker %s: maintenance failed", self.id)
                try:
                    await asyncio.wait_for(self._stop.wait(), 0.2)
                except asyncio.TimeoutError:
                    pass
        finally:
            for name in list(self.owned):
                await self._close(name, forget=False)
            if self.nc is not None:
                await self.nc.drain()
            await self.rooms.close()

    def stop(self) -> None:
        self._stop.set()

    # ------------------------------------------------------------------ ownership
    async def _publish_share(self, sid: str) -> None:
        """Put the snapshot this worker's app just made for a Share link where every
        gateway and worker finds it."""
        assert self.shares is not None
        snapshot = self.app.state.snapshots.get(sid)
        if snapshot is not None:
            await self.shares.put(sid, encode_share(snapshot))

    async def _on_open(self, msg: Msg) -> None:
        """sixdof.open: claim the room's lease; answer whether this worker now owns it."""
        assert self.leases is not None
        request = bus.decode(msg.data)
        name, by_watcher = request["room"], bool(request.get("by_watcher"))
        shared = None
        if request.get("share") and self.shares is not None:  # a Share link: a new room of it
            shared = await fetch_share(self.shares, str(request["share"]),
                                       self.settings.recording_bytes)  # fmt: skip
        if name in self.owned:
            await msg.respond(bus.encode({"owner": self.id}))
            return
        try:
            revision = await self.leases.create(name, self.id.encode())
        except KeyWrongLastSequenceError:
            await msg.respond(bus.encode({"owner": None}))  # someone has it, maybe a dead one
            return
        try:
            await self._own(name, revision, await self._snapshot(name), by_watcher, shared)
        except Refusal as refusal:
            await self.leases.delete(name)
            await msg.respond(bus.encode({"refused": refusal.text()}))
            return
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
        room = self.rooms.get_or_create(name, by_watcher=by_watcher, snapshot=shared)
        if snapshot is not None:
            keyframe = snapshot["keyframe"]
            recording = None
            if snapshot.get("recording") and room.sim.recording is not None:
                try:
                    recording = Recording.from_json(
                        snapshot["recording"], max_bytes=room.sim.recording.max_bytes
                    )
                except (RecordingFormatError, KeyError, TypeError, ValueError) as exc:
                    log.warning("room %s: the snapshot's recording is unreadable: %s", name, exc)
            # paused there (resumed below if it was running), its recent past on the timeline
            room.sim.restore(keyframe, recording)
            room.sim.set_time_scale(float(keyframe.get("time_scale", 1.0)))
            if keyframe.get("running", True):
                room.sim.resume()
            room.seq = int(snapshot.get("seq", 0))
        viewer = BusViewer(self, name, binary=False)
        owned = Owned(room, revision, {False: viewer}, renewed_at=time.monotonic())
        owned.empty_since = time.monotonic()  # until a gateway says it has viewers
        self.owned[name] = owned
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
            for bucket in (self.snapshots, self.leases):
                try:
                    await bucket.delete(name)
                except Exception:
                    log.exception("worker %s: could not drop %s", self.id, name)
        log.info("worker %s left room %s", self.id, name)

    async def _maintain(self) -> None:
        """Renew leases, write snapshots, close rooms nobody watches, take over dead ones."""
        assert self.leases is not None and self.snapshots is not None
        now = time.monotonic()
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
                continue
            if now - owned.renewed_at >= bus.LEASE_RENEW:
                try:
                    owned.revision = await self.leases.update(
                        name, self.id.encode(), last=owned.revision
                    )
                    owned.renewed_at = now
                except KeyWrongLastSequenceError:  # another worker took it: we were gone
                    log.warning("worker %s lost the lease of %s", self.id, name)
                    await self._close(name, forget=False)
                    continue
            if now - owned.snapshot_at >= bus.SNAPSHOT_EVERY:
                await self.snapshots.put(name, snapshot_of(owned.room))
                owned.snapshot_at = now
        await self._take_over(now)

    async def _take_over(self, now: float) -> None:
        assert self.leases is not None
        try:
            names = await self.leases.keys()
        except NoKeysError:
            names = []
        for name in names:
            if name in self.owned:
                continue
            try:
                entry = await self.leases.get(name)
            except KeyNotFoundError:
                continue
            revision = int(entry.revision or 0)
            seen = self._seen.get(name)
            if seen is None or seen[0] != revision:
                self._seen[name] = (revision, now)
                continue
            if now - seen[1] < bus.LEASE_TIMEOUT:
                continue
            try:
                revision = await self.leases.update(name, self.id.encode(), last=revision)
            except KeyWrongLastSequenceError:
                continue  # another worker was first
            self._seen.pop(name, None)
            log.warning("worker %s takes over room %s (its owner stopped renewing)", self.id, name)
            await self._own(name, revision, await self._snapshot(name))
            self.owned[name].empty_since = None  # its gateways say so within a second
            self.owned[name].gateways = {"(takeover)": now}
        self._seen = {k: v for k, v in self._seen.items() if k in names}

    # ------------------------------------------------------------------ requests
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
        owned.gateways[data["gateway"]] = time.monotonic()
        owned.empty_since = None
        if data.get("binary"):
            self._binary_viewer(name, owned)
        await msg.respond(bus.encode({"hello": owned.room.hello(True, False)}))

    async def _on_cmd(self, msg: Msg) -> None:
        """A viewer's control message, already authorised and validated by its gateway:
        validated again here (the bus is not the client) and carried out."""
        name = msg.subject.split(".")[1]
        owned = self.owned.get(name)
        if owned is None:
            return
        started = time.perf_counter()
        data = bus.decode(msg.data)
        replies, _ = await handle(data["text"], owned.room, float(data["left"]), self.settings)
        texts = [text for text, _ in replies]
        owned.room.sync_hello()
        spent = time.perf_counter() - started
        await msg.respond(bus.encode({"replies": texts, "spent": spent}))

    async def _on_http(self, msg: Msg) -> None:
        """A REST request under /api/rooms/<room>/: run by this worker's own app."""
        head, body = bus.unpack_http(msg.data)
        status, headers, payload = await call_asgi(self.app, head, body)
        if status == 200 and head["method"] == "POST" and head["path"].endswith("/share"):
            await self._publish_share(bus.decode(payload)["id"])
        await msg.respond(bus.pack_http({"status": status, "headers": headers}, payload))


def snapshot_of(room: Room) -> bytes:
    """The room as another worker resumes it: its keyframe (scenario, state, inputs, time),
    its frame counter, and as much of its recording's latest segments as keeps the message
    under NATS's default 1 MB limit (the keyframe itself is at most ~100 kB)."""
    sim = room.sim
    snapshot: dict[str, Any] = {"keyframe": sim.keyframe("snapshot"), "seq": room.seq}
    if sim.recording is not None:
        snapshot["recording"] = sim.recording.tail_json(RECORDING_BYTES)
    data = bus.encode(snapshot)
    if len(data) > SNAPSHOT_MAX_BYTES:  # a recording with huge events: the state alone
        del snapshot["recording"]
        data = bus.encode(snapshot)
    return data


async def call_asgi(
    app: Any, head: dict[str, Any], body: bytes
) -> tuple[int, list[list[str]], bytes]:
    """Run one HTTP request through the ASGI `app` in this process; (status, headers, body)."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": head["method"],
        "scheme": "http",
        "path": head["path"],
        "raw_path": head["path"].encode(),
        "query_string": head.get("query", "").encode(),
        "root_path": "",
        "headers": [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in head["headers"]],
        "client": (head.get("client", "127.0.0.1"), 0),
        "server": ("sixdof-worker", 0),
    }
    incoming = [{"type": "http.request", "body": body, "more_body": False}]
    status = 500
    headers: list[list[str]] = []
    chunks: list[bytes] = []

    async def receive() -> dict[str, Any]:
        return incoming.pop() if incoming else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status, headers
        if message["type"] == "http.response.start":
            status = int(message["status"])
            headers = [[k.decode("latin-1"), v.decode("latin-1")] for k, v in message["headers"]]
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await app(scope, receive, send)
    return status, headers, b"".join(chunks)


def run_worker(url: str, fields: dict[str, Any]) -> None:
    """`sixdof worker`: run until SIGINT or SIGTERM, then hand the rooms over (their leases
    are left to expire, so another worker resumes them from their snapshots)."""
    logging.basicConfig(level=logging.INFO, format="%(levelname)s: %(name)s: %(message)s")
    settings = Settings(**fields)

    async def main() -> None:
        worker = Worker(url, settings)
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, worker.stop)
        print(f"sixdof: worker {worker.id} on {url}", flush=True)
        await worker.run()

    asyncio.run(main())
