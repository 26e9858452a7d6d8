"""A gateway's rooms: each relays what its worker publishes to this gateway's viewers and
forwards their control messages to the worker, with the proof that they may control
(proof.py); `RemoteRooms` opens rooms on workers and tells them, every second, which rooms
have viewers here."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from typing import Any

import orjson
from nats.aio.client import Client as Nats
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from nats.errors import NoRespondersError
from nats.errors import TimeoutError as NatsTimeout

from ..server.clients import Client, frame_order
from ..server.errors import Refusal
from ..server.registry import ByName
from ..server.rooms import check_room_name
from ..server.settings import Settings
from ..server.snapshots import Snapshot
from ..server.wire import wire_frame
from . import bus
from .proof import Signer

JOIN_WAIT = 30.0  # s a viewer waits for a worker to open or take over its room
# s for an owner's answer to a join: a room without owner gets "no responders" at once, so
# this only waits on a busy worker or on this gateway's own loop under a storm of viewers
JOIN_ANSWER = 5.0
COMMAND_WAIT = 15.0  # s for a worker's reply to a control message (a step may take ~1 s)
HTTP_WAIT = 30.0  # s for a forwarded REST request (a history export)


class RemoteRoom:
    """A room on a worker, as this gateway's viewers see it."""

    def __init__(self, rooms: RemoteRooms, name: str) -> None:
        self.rooms = rooms
        self.name = name
        self.viewers: set[Client] = set()
        self.subs: list[Subscription] = []
        self._hello: str | None = None  # the owner's hello (can_control true, JSON frames)
        self._variants: dict[tuple[bool, bool], tuple[str, bytes]] = {}
        self._frames: dict[bool, Subscription | None] = {}  # by binary: the frames' subscription
        #: by binary: the newest frame, for a viewer who joins while the room is still (a room
        #: whose frame has not changed sends it once a second: StillFrames.repeats)
        self.last_frame: dict[bool, str | bytes] = {}
        self.signer = Signer(rooms.settings.token)  # one sender of commands (proof.py)

    # ------------------------------------------------------------------ what the bus brings
    async def subscribe(self, nc: Nats) -> None:
        for kind, handler in (("state", self._on_state), ("bin", self._on_state),
                              ("hello", self._on_hello), ("event", self._on_event)):  # fmt: skip
            sub = await nc.subscribe(bus.room_subject(self.name, kind), cb=handler)
            self.subs.append(sub)
            if kind in ("state", "bin"):
                self._frames[kind == "bin"] = sub

    async def unsubscribe(self) -> None:
        for sub in self.subs:
            try:
                await sub.unsubscribe()
            except Exception:  # the connection may be closing already
                pass
        self.subs.clear()

    async def _on_state(self, msg: Msg) -> None:
        binary = msg.subject.endswith(".bin")
        sub = self._frames.get(binary)
        if sub is not None and sub.pending_msgs > 0:
            return  # latest-wins: a newer frame is already waiting (this gateway fell behind)
        payload: str | bytes = msg.data if binary else msg.data.decode()
        self.last_frame[binary] = payload
        viewers = [c for c in self.viewers if c.binary == binary]
        if not viewers:
            return
        frame = wire_frame(payload) if any(c.wire is not None for c in viewers) else None
        now = time.monotonic()
        for client in frame_order(viewers, now):
            client.offer(payload, frame, now)

    async def _on_hello(self, msg: Msg) -> None:
        self.set_hello(msg.data.decode())
        for client in tuple(self.viewers):
            client.send_hello(*self._variant(client.can_control, client.binary))

    async def _on_event(self, msg: Msg) -> None:
        text = msg.data.decode()
        for client in tuple(self.viewers):
            client.send_reply(text)

    def set_hello(self, text: str) -> None:
        self._hello = text
        self._variants.clear()
        self.last_frame.clear()  # frames before a hello show the world before it

    def _variant(self, can_control: bool, binary: bool) -> tuple[str, bytes]:
        key = (can_control, binary)
        if key not in self._variants:
            assert self._hello is not None
            hello = orjson.loads(self._hello)
            hello["can_control"], hello["frames"] = can_control, "binary" if binary else "json"
            text = orjson.dumps(hello).decode()
            self._variants[key] = (text, wire_frame(text))
        return self._variants[key]

    def stats(self) -> dict[str, Any]:
        """What this gateway knows of the room (/api/rooms; the room's own stats come from
        its worker at /api/rooms/<room>/stats)."""
        return {"room": self.name, "clients": len(self.viewers), "gateway": self.rooms.id}

    # ------------------------------------------------------------------ control.LiveRoom
    def hello(self, can_control: bool, binary: bool = False) -> str:
        return self._variant(can_control, binary)[0]

    async def sync_hello(self) -> None:
        """Nothing to do: a changed room's hello comes from its worker on the bus."""

    async def carry_out(self, msg: Any, left: float, settings: Settings) -> tuple[list[str], float]:
        """Forward a control message (authorised and validated here) to the room's owner,
        with the proof that its sender may control, which the owner checks itself."""
        text = msg.model_dump_json(exclude_unset=True)
        proof = self.signer.proof("cmd", self.name, text)
        request = bus.encode({"text": text, "left": left, "proof": proof})
        try:
            reply = await self.rooms.request(bus.room_subject(self.name, "cmd"), request,
                                             COMMAND_WAIT)  # fmt: skip
        except (NoRespondersError, NatsTimeout):
            raise Refusal(
                "internal",
                f"room: {self.name} is moving to another worker; send it again in a moment",
                None,
                msg.id,
            ) from None
        data = bus.decode(reply)
        return list(data["replies"]), float(data["spent"])

    async def answer_on_owner(self, client: int, msg: Any) -> list[tuple[str, str]]:
        """A viewer's answer (no control needed) taken by the room's owner, which keeps
        the room's answers: sent with who answered (this gateway and the viewer) and no
        proof, so the owner takes nothing else from it."""
        text = msg.model_dump_json(exclude_unset=True)
        request = bus.encode({"text": text, "answerer": f"{self.rooms.id}:{client}"})
        try:
            reply = await self.rooms.request(bus.room_subject(self.name, "cmd"), request,
                                             COMMAND_WAIT)  # fmt: skip
        except (NoRespondersError, NatsTimeout):
            raise Refusal("internal", f"room: {self.name} is moving to another worker; "
                          "answer again in a moment", None, msg.id) from None  # fmt: skip
        return [(str(text), "reply") for text in bus.decode(reply)["replies"]]


class RemoteRooms(ByName[RemoteRoom]):
    """The rooms this gateway has viewers in (`ws.LiveRooms`), and its presence messages."""

    def __init__(self, settings: Settings, gateway_id: str) -> None:
        super().__init__()
        self.settings = settings
        self.id = gateway_id
        self.nc: Nats | None = None
        self._opening: dict[str, asyncio.Lock] = {}
        # viewers waiting for their room to open: each is told once why, if a worker is
        # still preparing its physics (`preparing`)
        self._waiting: dict[str, dict[Client, bool]] = {}
        self._presence: asyncio.Task[None] | None = None
        self._closing: set[asyncio.Task[None]] = set()
        self._opens = Signer(settings.token)  # proofs of the rooms opened for controllers

    async def connect(self, urls: Sequence[str]) -> None:
        """Connect to the servers `urls` of one NATS cluster (failing over between them:
        nats-py subscribes again after a reconnection, and the rooms' frames go on)."""
        self.nc = await bus.connect(urls, f"sixdof-{self.id}", self._reconnected)
        self._presence = asyncio.get_running_loop().create_task(self._announce())

    async def _reconnected(self) -> None:
        """Tell the workers at once which rooms have viewers here (presence lapses after
        3.5 s: a long reconnection must not let them close a watched room)."""
        self._send_presence()

    async def close(self) -> None:
        if self._presence is not None:
            self._presence.cancel()
        for room in list(self._rooms.values()):
            await room.unsubscribe()
        if self.nc is not None:
            await self.nc.drain()

    async def request(self, subject: str, data: bytes, timeout: float) -> bytes:
        assert self.nc is not None
        msg = await self.nc.request(subject, data, timeout=timeout)
        return bytes(msg.data)

    async def enter(self, name: str, client: Client, snapshot: Snapshot | None) -> RemoteRoom:
        # a room name is one subject token ([A-Za-z0-9_-]): `*`, `>`, `.` or a space would
        # make `room.<name>.…` a wildcard or another room's subject; refused before the bus
        check_room_name(name)
        share = snapshot.id if snapshot is not None else None  # for a room that is new
        lock = self._opening.setdefault(name, asyncio.Lock())
        waiting = self._waiting.setdefault(name, {})
        waiting[client] = False
        try:
            async with lock:  # one join per room and gateway, however many viewers arrive
                room = self._rooms.get(name)
                if room is None:
                    room = RemoteRoom(self, name)
                    assert self.nc is not None
                    await room.subscribe(self.nc)  # before the join: no frame is missed
                    try:
                        hello = await self._join(name, client.binary, client.can_control,
                                                 share, self._tell_waiting(name))  # fmt: skip
                        room.set_hello(hello)
                    except BaseException:
                        await room.unsubscribe()
                        raise
                    self._rooms[name] = room
                elif client.binary and not any(c.binary for c in room.viewers):
                    await self._join(name, True, client.can_control)  # binary frames start
        finally:
            waiting.pop(client, None)
            if not waiting and self._waiting.get(name) is waiting:
                del self._waiting[name]
        room.viewers.add(client)
        client.send_reply(room.hello(client.can_control, client.binary), "hello")
        last = room.last_frame.get(client.binary)
        if last is not None:
            client.offer(last, wire_frame(last) if client.wire is not None else None,
                         time.monotonic())  # fmt: skip
        return room

    def leave(self, room: RemoteRoom, client: Client) -> None:
        room.viewers.discard(client)
        if not room.viewers and self._rooms.get(room.name) is room:
            del self._rooms[room.name]
            lock = self._opening.get(room.name)
            if lock is not None and not lock.locked():
                del self._opening[room.name]  # one lock per room in use, not per name ever seen
            task = asyncio.get_running_loop().create_task(room.unsubscribe())
            self._closing.add(task)
            task.add_done_callback(self._closing.discard)

    def _tell_waiting(self, name: str) -> Callable[[str], None]:
        """What sends a worker's `preparing` message to the viewers waiting for room
        `name`, once each (those who come while it prepares are told too)."""

        def tell(text: str) -> None:
            waiting = self._waiting.get(name, {})
            for client, told in list(waiting.items()):
                if not told:
                    client.send_reply(text)
                    waiting[client] = True

        return tell

    async def _join(
        self,
        name: str,
        binary: bool,
        control: bool,
        share: str | None = None,
        on_preparing: Callable[[str], None] | None = None,
    ) -> str:
        """The room's hello from its owner, asking some worker to open it if nobody has
        (`control`: for a viewer with the token; a watcher's rooms are capped apart; `share`:
        a Share link's snapshot id, which a room opened now is made from; `on_preparing`:
        given a worker's `preparing` message while no worker has its physics ready)."""
        ask = bus.encode({"gateway": self.id, "binary": binary})
        subject = bus.room_subject(name, "join")
        reply = await self.with_owner(name, subject, ask, JOIN_ANSWER, control, share, on_preparing)
        return str(bus.decode(reply)["hello"])

    async def with_owner(
        self,
        name: str,
        subject: str,
        data: bytes,
        timeout: float,
        control: bool = False,
        share: str | None = None,
        on_preparing: Callable[[str], None] | None = None,
    ) -> bytes:
        """Request `subject` of room `name`'s owner, asking some worker to open the room
        first if nobody owns it (or to take it over, once a dead owner's lease runs out);
        `control`: for someone who may control (proved to the worker: proof.py), else the
        room counts as a watcher's.
        With no worker ready to open it, `on_preparing` gets the `preparing` message of a
        worker still loading its physics, and the wait goes on while one says so (a compile
        takes ~10 s, much longer on a loaded machine)."""
        deadline = time.monotonic() + JOIN_WAIT
        ask_preparing = 0.0
        while True:
            try:
                return await self.request(subject, data, timeout)
            except NoRespondersError:
                pass
            except NatsTimeout:
                if subject.endswith(".http"):
                    raise  # a slow answer, not a missing owner
            try:
                proof = self._opens.proof("open", name) if control else None
                ask = bus.encode({"room": name, "share": share, "proof": proof})
                opened = bus.decode(await self.request(bus.OPEN, ask, 2.0))
                if "refused" in opened:  # the worker's own refusal (a room cap): as it said
                    error = bus.decode(opened["refused"].encode())
                    raise Refusal(error["code"], error["message"], error.get("field"))
                if opened.get("owner"):
                    continue  # owned now: ask it
            except NoRespondersError:  # no worker with its physics loaded: one preparing?
                if time.monotonic() >= ask_preparing:  # each second: viewers who came since
                    ask_preparing = time.monotonic() + 1.0
                    if await self._preparing(on_preparing):  # waited for while it prepares
                        deadline = max(deadline, time.monotonic() + JOIN_WAIT)
            except NatsTimeout:
                pass  # no worker up (yet)
            if time.monotonic() > deadline:
                raise Refusal(
                    "internal",
                    f"room: no worker opened {name} within {JOIN_WAIT:g} s "
                    "(is a `sixdof worker` running on the bus?)",
                    "room",
                )
            await asyncio.sleep(0.1)  # a dead owner's lease expires within 1.5 s

    async def _preparing(self, on_preparing: Callable[[str], None] | None) -> bool:
        """Ask `sixdof.preparing`; pass a worker's answer to `on_preparing`. Whether one
        answered (a worker is loading its physics)."""
        try:
            reply = bus.decode(await self.request(bus.PREPARING, b"{}", 2.0))
        except (NoRespondersError, NatsTimeout):
            return False
        if on_preparing is not None:
            on_preparing(str(reply["preparing"]))
        return True

    async def _announce(self) -> None:
        """Tell the workers, every second, which rooms have viewers here (and want binary)."""
        while True:
            await asyncio.sleep(bus.PRESENCE_EVERY)
            self._send_presence()

    def _send_presence(self) -> None:
        rooms = {
            name: {"viewers": len(r.viewers), "binary": any(c.binary for c in r.viewers)}
            for name, r in self._rooms.items()
        }
        # not while reconnecting: nats-py would buffer it, and a stale one is of no use
        if self.nc is not None and self.nc.is_connected:
            task = asyncio.get_running_loop().create_task(
                self.nc.publish(bus.PRESENCE, bus.encode({"gateway": self.id, "rooms": rooms}))
            )
            self._closing.add(task)  # held until done (the loop keeps weak references)
            task.add_done_callback(self._closing.discard)
