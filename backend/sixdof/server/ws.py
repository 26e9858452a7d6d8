"""The websocket endpoint: admission (Origin, room, token), then one receive loop per client.

Every client message is size-checked and rate-limited, then read as strict JSON; only a
client that may control gets it validated against the protocol models (a scenario is the
costly part) and applied to the room (`control.handle`, which a cluster worker runs too).
Each message's computing time is charged to its address's budget (budget.py), and long
work (`step`) runs in slices of at most `slice_seconds` with the event loop free in
between, so no message holds other rooms' ticks.
Bad input gets an `error` reply and changes nothing; the connection stays open except for an
oversize message (close 1009) and a sustained flood (close 1008).
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import logging
import time
from collections.abc import Awaitable
from typing import Any, Protocol, runtime_checkable
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.websockets import WebSocket, WebSocketDisconnect

from .answers import ANSWER_COST, Answers
from .budget import CURRENT, Budgets, WorkBudget
from .clients import Client, RateLimiter
from .control import Gate, LiveRoom, Reply, handle
from .errors import Refusal, Stopping, read_client_message, validate_client_message
from .pools import metering
from .protocol import Ack, Answer, Auth
from .settings import Settings
from .snapshots import Snapshot, Snapshots

log = logging.getLogger("sixdof.server")

CLOSE_POLICY = 1008  # flood, room refused
CLOSE_TOO_BIG = 1009
CLOSE_GOING_AWAY = 1001  # the server stops
CLOSE_TRY_AGAIN = 1013  # the room could not be opened now (a cluster's store electing leaders)
CLOSE_WAIT = 2.0  # s to flush the last error before closing


class LiveRooms(Protocol):
    """The rooms of `app.state.rooms`: `registry.Rooms`, or a gateway's remote rooms."""

    async def enter(self, name: str, client: Client, snapshot: Snapshot | None) -> Any: ...

    def leave(self, room: Any, client: Client) -> None: ...


def origin_allowed(headers: Headers, settings: Settings) -> bool:
    """Browsers send Origin; allow the server's own host, listed origins, or no Origin at all
    (non-browser clients). This stops other web sites from driving a local server.

    "Own host" means Origin names the Host the request came to, and that host is an IP
    address, localhost or the bound host name: a site that re-points its own DNS name at
    127.0.0.1 (DNS rebinding) is same-origin to the browser but not to us.
    """
    origin = headers.get("origin")
    if origin is None:
        return True
    allowed = {o.rstrip("/").lower() for o in settings.allowed_origins}
    if "*" in allowed or origin.rstrip("/").lower() in allowed:
        return True
    host = headers.get("host", "").lower()
    if not host or urlsplit(origin).netloc.lower() != host:
        return False
    name = urlsplit(f"//{host}").hostname or ""
    return name in ("localhost", settings.host.lower()) or _is_ip(name)


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def bearer(authorization: str | None) -> str | None:
    """The token of an `Authorization: Bearer …` header, or None."""
    if authorization is None or not authorization.startswith("Bearer "):
        return None
    return authorization.removeprefix("Bearer ").strip() or None


def has_control(token: str | None, settings: Settings) -> bool:
    if settings.token is None:
        return True
    return token is not None and hmac.compare_digest(token.encode(), settings.token.encode())


async def _close_with(client: Client, refusal: Refusal, code: int) -> None:
    client.send_reply(refusal.text())
    client.close_after_replies(code, refusal.message)
    try:
        await asyncio.wait_for(client.closed.wait(), CLOSE_WAIT)
    except asyncio.TimeoutError:
        pass


async def websocket_endpoint(ws: WebSocket) -> None:
    settings: Settings = ws.app.state.settings
    rooms: LiveRooms = ws.app.state.rooms
    if not origin_allowed(ws.headers, settings):
        log.warning(
            "refused websocket from Origin %r (allow it with --allow-origin)",
            ws.headers.get("origin"),
        )
        await ws.close(CLOSE_POLICY)  # before accept: the browser sees HTTP 403
        return
    await ws.accept()
    query = ws.query_params
    token = query.get("token") or bearer(ws.headers.get("authorization"))
    frames = query.get("frames", "json")
    client = Client(
        ws,
        can_control=has_control(token, settings),
        max_pending=settings.max_pending_replies,
        wire=ws.scope.get("extensions", {}).get("sixdof.wire"),
        binary=frames == "binary",
    )
    client.start()
    try:
        if frames not in ("json", "binary"):
            raise Refusal(
                "invalid", f"frames: must be json or binary, got {frames[:32]!r}", "frames"
            )
        snapshot = None
        if "snapshot" in query:
            snapshots: Snapshots = ws.app.state.snapshots
            snapshot = await snapshots.fetch(query["snapshot"])
            if snapshot is None:
                raise Refusal(
                    "invalid",
                    "snapshot: no such snapshot (the server keeps the latest links, the "
                    "oldest dropped first, unless a lesson names them); ask for a new Share "
                    "link",
                    "snapshot",
                )
        room: LiveRoom = await rooms.enter(query.get("room", "main"), client, snapshot)
    except Refusal as refusal:
        await _close_with(client, refusal, CLOSE_POLICY)
        await client.stop()
        return
    except Stopping:  # the server stops while the physics is being prepared
        await client.stop()
        try:
            await ws.close(CLOSE_GOING_AWAY)
        except (WebSocketDisconnect, RuntimeError):  # uvicorn closed it first, stopping
            pass
        return
    except Exception as exc:
        # a store or bus that does not answer (a cluster whose NATS node was lost elects new
        # leaders for a few seconds): the viewer is told and the page reconnects; uncaught,
        # uvicorn drops the connection without a close frame or a word
        log.warning("a viewer of room %r was not let in: %s: %s",
                    query.get("room", "main"), type(exc).__name__, exc)  # fmt: skip
        not_now = Refusal("internal", f"the room could not be opened now ({type(exc).__name__}); "
                          "try again in a few seconds")  # fmt: skip
        await _close_with(client, not_now, CLOSE_TRY_AGAIN)
        await client.stop()
        return
    address = ws.client.host if ws.client else "unknown"
    budgets: Budgets = ws.app.state.budgets
    CURRENT.set((budgets, budgets.of(address)))  # this connection's look backs: its lane
    try:
        await _receive_loop(ws, client, room, settings, budgets.of(address))
    finally:
        rooms.leave(room, client)
        await client.stop()


async def _receive_loop(
    ws: WebSocket, client: Client, room: LiveRoom, settings: Settings, budget: WorkBudget
) -> None:
    limiter = RateLimiter(settings.rate_limit, settings.flood_window)
    gate = _gate(client, room, settings, budget)
    limit = settings.max_message_bytes
    while True:
        message = await ws.receive()
        if message["type"] == "websocket.disconnect":
            return
        text: str | None = message.get("text")
        data: bytes | None = message.get("bytes")
        size = len(text.encode()) if text is not None else len(data or b"")
        if size > limit:
            await _close_with(
                client,
                Refusal(
                    "too_large",
                    f"message: {size} bytes is over the "
                    f"limit of {limit} bytes ({limit // 1024} KiB)",
                ),
                CLOSE_TOO_BIG,
            )
            return
        verdict = limiter.admit()
        if verdict != "ok":
            rate = f"{settings.rate_limit:g}"
            refusal = Refusal(
                "rate_limited",
                f"message: more than {rate} messages per second; "
                f"this one was dropped (limit: {rate}/s)",
            )
            if verdict == "flood":
                log.warning("room %s: client %d flooding, closed", room.name, client.id)
                await _close_with(client, refusal, CLOSE_POLICY)
                return
            client.send_reply(refusal.text())
            continue
        client.last_message_at = time.monotonic()
        replies, spent = await handle(text, room, budget.left(), settings, gate)
        for reply in replies:
            client.send_reply(*reply)
        with metering() as hello:  # a changed world's hello is built off the loop
            await room.sync_hello()
        budget.charge(spent + hello.cpu)
        if client.overflowed:
            log.warning(
                "room %s: client %d does not read its replies, closed", room.name, client.id
            )
            return
        await asyncio.sleep(0)  # messages already queued wait for the other rooms' ticks


def _gate(client: Client, room: LiveRoom, settings: Settings, budget: WorkBudget) -> Gate:
    """This connection's checks before a message is validated: `auth` and `answer` answered
    here (a watcher may answer), and nothing else from a client without control (a worker
    trusts its gateway's)."""

    def gate(
        kind: str, obj: dict[str, Any], mid: str | int | None
    ) -> list[Reply] | Awaitable[list[Reply]] | None:
        if kind == "auth":
            return _authorise(validate_client_message(obj, kind, mid), client, room, settings)
        if kind == "answer":
            budget.charge(ANSWER_COST)
            return _answer(validate_client_message(obj, kind, mid), client, room)
        if not client.can_control:
            raise Refusal(
                "forbidden",
                "token: this server needs a token to control the simulation "
                '(/ws?room=…&token=…, or send {"type": "auth", "token": …} first); '
                "without one you can watch",
                "token",
                mid,
            )
        return None

    return gate


def _answer(
    msg: object, client: Client | str, room: LiveRoom
) -> list[Reply] | Awaitable[list[Reply]]:
    """Take an answer (`client`: this server's connection, or a gateway's viewer by the
    gateway's word: answering needs no control)."""
    assert isinstance(msg, Answer)
    answers: Answers | None = getattr(room, "answers", None)
    if answers is None:  # a gateway's room: its answers live on its worker, asked there
        assert isinstance(room, OwnerAnswers) and isinstance(client, Client)
        return room.answer_on_owner(client.id, msg)
    answers.answer(client.id if isinstance(client, Client) else client, msg.question, msg.text,
                   msg.id)  # fmt: skip
    return [(Ack(id=msg.id, of="answer").model_dump_json(), "reply")]


@runtime_checkable
class OwnerAnswers(Protocol):
    """A gateway's room (cluster/remote.py), whose worker keeps its answers."""

    def answer_on_owner(self, client: int, msg: Answer) -> Awaitable[list[Reply]]: ...


def take_answer(text: str, room: LiveRoom, answerer: str) -> list[str]:
    """On a worker: an `answer` a gateway sent for one of its viewers (`answerer`: the
    gateway's id and the viewer's), who may not control; anything else is refused."""
    mid = None
    try:
        obj, kind, mid = read_client_message(text)
        if kind != "answer":
            raise Refusal("forbidden", "token: without control, only answers are taken",
                          "type", mid)  # fmt: skip
        replies = _answer(validate_client_message(obj, kind, mid), answerer, room)
        assert isinstance(replies, list)
        return [reply for reply, _ in replies]
    except Refusal as refusal:
        return [refusal.text()]


def _authorise(msg: object, client: Client, room: LiveRoom, settings: Settings) -> list[Reply]:
    assert isinstance(msg, Auth)
    if not has_control(msg.token, settings):
        raise Refusal("forbidden", "token: wrong token; you can watch", "token", msg.id)
    client.can_control = True
    return [
        (Ack(id=msg.id, of="auth").model_dump_json(), "reply"),
        (room.hello(True), "hello"),
    ]
