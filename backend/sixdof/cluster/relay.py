"""A gateway's REST under /api/rooms/<room>/: each request goes to the room's worker, run
there by the worker's own copy of the app, once this gateway has checked it against the
route it names (routes.py): a path that is no route is 404 and a method the route does not
take 405, the room's name, the Origin and the token are checked, and a body is capped,
all before any worker is asked anything (or a room opened)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any
from urllib.parse import parse_qsl

import orjson
from nats.errors import MaxPayloadError, NoRespondersError
from nats.errors import TimeoutError as NatsTimeout
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from ..server.errors import Refusal
from ..server.request_body import BODY_RATE
from ..server.rooms import check_room_name
from ..server.settings import Settings
from ..server.ws import bearer, has_control, origin_allowed
from . import bus
from .remote import HTTP_WAIT, RemoteRooms
from .routes import ROUTES, allowed, split

log = logging.getLogger("sixdof.gateway")

# as `sixdof serve` words them (server/rest.py)
NO_TOKEN = orjson.dumps(
    {"detail": "this server needs a token for this: ?token=… or Authorization: Bearer …"}
)
NO_ORIGIN = orjson.dumps({"detail": "this Origin may not change rooms (see --allow-origin)"})


class RoomRequests:
    """ASGI middleware: a REST request under /api/rooms/<room>/ goes to the room's owner,
    if it is one of a room's routes and this gateway lets it through."""

    def __init__(self, app: ASGIApp, rooms: RemoteRooms, settings: Settings) -> None:
        self.app = app
        self.rooms = rooms
        self.settings = settings
        self.max_body = settings.max_message_bytes

    def _has_token(self, scope: Scope, headers: Headers) -> bool:
        """The token (query or bearer), as `serve` checks it; the owner checks it again."""
        query = dict(_query(scope))
        return has_control(query.get("token") or bearer(headers.get("authorization")),
                           self.settings)  # fmt: skip

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        parts = split(scope.get("path", "")) if scope["type"] == "http" else None
        if parts is None:
            await self.app(scope, receive, send)
            return
        room, rest = parts
        method: str = scope["method"]
        methods = allowed(rest)
        if not methods:  # no such route: no worker is asked, no room opened
            await _respond(send, 404, b'{"detail":"Not Found"}')
            return
        try:  # one subject token, or nothing goes on the bus: `*`, `>`, `.`, a space would
            check_room_name(room)  # make `room.<room>.http` a wildcard, another room's, or
        except Refusal as refusal:  # a broken NATS protocol line
            error = {"loc": ["path", "room"], "msg": refusal.message, "type": refusal.code}
            await _respond(send, 422, orjson.dumps({"detail": [error]}))
            return
        route = ROUTES.get((method, rest))
        if route is None:
            allow = [(b"allow", ", ".join(methods).encode())]
            await _respond(send, 405, b'{"detail":"Method Not Allowed"}', allow)
            return
        # refused here, before reading a byte of the body or asking any worker
        headers = Headers(scope=scope)
        if method != "GET" and not origin_allowed(headers, self.settings):
            await _respond(send, 403, NO_ORIGIN)
            return
        control = self._has_token(scope, headers)
        if route.needs_token(scope.get("query_string", b"").decode("latin-1")) and not control:
            await _respond(send, 403, NO_TOKEN)
            return
        body = b""
        loop = asyncio.get_running_loop()
        start, timeout = loop.time(), self.settings.body_timeout
        while route.body:  # read at most max_body: a bigger request is refused unparsed
            left = start + timeout + len(body) / BODY_RATE - loop.time()
            try:  # in time too, as `sixdof serve`'s reader (server/request_body.py)
                message = await asyncio.wait_for(receive(), max(left, 0.0))
            except asyncio.TimeoutError:
                detail = (f'{{"detail":"body: only {len(body)} bytes arrived; a body must '
                          f'arrive within body_timeout ({timeout:g} s), plus 1 s for every '
                          f'{BODY_RATE // 1024} KiB sent"}}')  # fmt: skip
                await _respond(send, 408, detail.encode(), [(b"connection", b"close")])
                return
            body += message.get("body", b"")
            if len(body) > self.max_body:
                await _respond(send, 413, b'{"detail":"body: larger than the limit"}')
                return
            if not message.get("more_body"):
                break
        head = {
            "method": method,
            "path": scope["path"],
            "query": scope.get("query_string", b"").decode("latin-1"),
            "headers": [[k.decode("latin-1"), v.decode("latin-1")] for k, v in scope["headers"]],
            "client": (scope.get("client") or ("unknown", 0))[0],
        }
        subject, request = bus.room_subject(room, "http"), bus.pack_http(head, body)
        try:
            if route.opens:  # a new scenario makes the room, as in `serve`
                reply = await self.rooms.with_owner(room, subject, request, HTTP_WAIT, control)
            else:
                reply = await self.rooms.request(subject, request, HTTP_WAIT)
        except NoRespondersError:
            await _respond(send, 404, b'{"detail":"room: no such room"}')
            return
        except MaxPayloadError:  # a NATS configured below max_message_bytes
            assert self.rooms.nc is not None
            reason = (f"body: {len(body)} bytes, more than the bus to the workers carries "
                      f"(NATS max_payload, {self.rooms.nc.max_payload} bytes)")  # fmt: skip
            await _respond(send, 413, orjson.dumps({"detail": reason}))
            return
        except NatsTimeout:
            await _respond(send, 504, b'{"detail":"room: its worker did not answer"}')
            return
        except Refusal as refusal:
            await _respond(send, 503, orjson.dumps({"detail": refusal.message}))
            return
        answer, payload = bus.unpack_http(reply)
        headers_out = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in answer["headers"]]
        more = answer.get("more")
        if more is None:
            await send({"type": "http.response.start", "status": answer["status"],
                        "headers": headers_out})  # fmt: skip
            await send({"type": "http.response.body", "body": payload})
            return
        await self._in_pieces(send, answer["status"], headers_out, payload, more)

    async def _in_pieces(
        self,
        send: Send,
        status: int,
        headers: list[tuple[bytes, bytes]],
        first: bytes,
        more: dict[str, Any],
    ) -> None:
        """A large answer (bus.py: `more`): its first piece came with the head; each next one
        is asked of its worker while the last is written to the client (one piece held at a
        time). Its length is told up front, so a client whose answer breaks off (its worker
        lost) sees it cut short."""
        size, subject = int(more["size"]), str(more["subject"])
        cap = self.settings.max_answer_bytes
        if size > cap or not subject.startswith(bus.ANSWERS + "."):
            detail = f"answer: {size} bytes, more than this gateway relays ({cap})"
            await _respond(send, 502, orjson.dumps({"detail": detail}))
            return
        headers = [(k, v) for k, v in headers
                   if k.lower() not in (b"content-length", b"transfer-encoding")]  # fmt: skip
        headers.append((b"content-length", str(size).encode()))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": first, "more_body": len(first) < size})
        offset = len(first)
        while offset < size:
            ask = bus.encode({"id": more["id"], "offset": offset})
            try:
                piece = await self.rooms.request(subject, ask, HTTP_WAIT)
            except (NoRespondersError, NatsTimeout):
                piece = b""
            if not piece or offset + len(piece) > size:
                log.warning("gateway %s: an answer of %d bytes broke off at %d", self.rooms.id,
                            size, offset)  # fmt: skip
                return  # uvicorn closes the connection: the client sees it short
            offset += len(piece)
            await send({"type": "http.response.body", "body": piece,
                        "more_body": offset < size})  # fmt: skip


def _query(scope: Scope) -> list[tuple[str, str]]:
    return parse_qsl(scope.get("query_string", b"").decode("latin-1"))


async def _respond(
    send: Send, status: int, body: bytes, extra: list[tuple[bytes, bytes]] | None = None
) -> None:
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    headers += extra or []
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
