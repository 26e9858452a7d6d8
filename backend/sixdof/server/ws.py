"""The websocket endpoint: admission (Origin, room, token), then one receive loop per client.

Every client message is size-checked, rate-limited, validated (errors.py) and applied to the
room (rooms.py). Bad input gets an `error` reply and changes nothing; the connection stays
open except for an oversize message (close 1009) and a sustained flood (close 1008).
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import logging
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.websockets import WebSocket

from .clients import Client, RateLimiter
from .errors import Refusal, parse_client_message
from .protocol import Ack
from .rooms import Room, Rooms
from .settings import Settings

log = logging.getLogger("sixdof.server")

CLOSE_POLICY = 1008  # flood, room refused
CLOSE_TOO_BIG = 1009
CLOSE_WAIT = 2.0  # s to flush the last error before closing


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
    rooms: Rooms = ws.app.state.rooms
    if not origin_allowed(ws.headers, settings):
        log.warning(
            "refused websocket from Origin %r (allow it with --allow-origin)",
            ws.headers.get("origin"),
        )
        await ws.close(CLOSE_POLICY)  # before accept: the browser sees HTTP 403
        return
    await ws.accept()
    query = ws.query_params
    client = Client(
        ws,
        can_control=has_control(query.get("token"), settings),
        max_pending=settings.max_pending_replies,
    )
    client.start()
    try:
        room = rooms.join(query.get("room", "main"), client)
    except Refusal as refusal:
        await _close_with(client, refusal, CLOSE_POLICY)
        await client.stop()
        return
    try:
        await _receive_loop(ws, client, room, settings)
    finally:
        rooms.leave(room, client)
        await client.stop()


async def _receive_loop(ws: WebSocket, client: Client, room: Room, settings: Settings) -> None:
    limiter = RateLimiter(settings.rate_limit, settings.flood_window)
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
        client.send_reply(_handle(text, client, room))
        room.sync_hello()
        if client.overflowed:
            log.warning(
                "room %s: client %d does not read its replies, closed", room.name, client.id
            )
            return


def _handle(text: str | None, client: Client, room: Room) -> str:
    """Validate and apply one message; return the encoded ack or error. Never raises."""
    mid = None
    try:
        if text is None:
            raise Refusal("invalid", "message: send JSON text frames, not binary ones")
        msg = parse_client_message(text)  # one of protocol.CLIENT_MESSAGES
        mid = msg.id
        if not client.can_control:
            raise Refusal(
                "forbidden",
                "token: this server needs a token to control the "
                "simulation (/ws?room=…&token=…); without one you can watch",
                "token",
                mid,
            )
        room.apply(msg)
        return Ack(id=mid, of=msg.type).model_dump_json()
    except Refusal as refusal:
        return refusal.text()
    except Exception as exc:  # a bug must cost one reply, not the connection or the room
        log.exception("room %s: error handling a message", room.name)
        return Refusal("internal", f"server error: {type(exc).__name__}: {exc}", None, mid).text()
