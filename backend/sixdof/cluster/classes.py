"""The lecturer's view through a gateway: /api/class on any gateway reaches every room of
the cluster, not only those the gateway has viewers in. The rooms are the keys of the
leases bucket (one per owned room); each room's tile and each action go to the room's owner
as the REST requests `GET /api/rooms/<room>/tile` and `POST /api/rooms/<room>/act`
(server/classroom.py), all rooms at once, with the lecturer's own headers and query (the
token, the Origin), which the owner checks again as it checks any request. A lesson step is
read there from the cluster's store (records.py), so every worker loads the same step."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from fastapi import Request
from nats.errors import Error as NatsError
from nats.js.errors import NoKeysError
from nats.js.kv import KeyValue

from ..server.classroom import MAX_ROOMS
from . import bus
from .remote import HTTP_WAIT, RemoteRooms

#: s between two readings of which rooms there are (the class page asks 4 times a second).
NAMES_EVERY = 1.0


class Classes:
    """The gateway's `ClassRelay` (server/classroom.py) over the rooms of `rooms`' bus."""

    def __init__(self, rooms: RemoteRooms) -> None:
        self.rooms = rooms
        self.leases: KeyValue | None = None  # set once the gateway is on the bus
        self._keys: tuple[float, list[str]] = (-NAMES_EVERY, [])

    async def _names(self, prefix: str) -> list[str]:
        """The rooms owned now whose name starts with `prefix` (the bucket's keys are read
        at most once in NAMES_EVERY s: listing them makes a JetStream consumer)."""
        read_at, keys = self._keys
        if self.leases is not None and time.monotonic() - read_at >= NAMES_EVERY:
            try:
                keys = await self.leases.keys()
            except NoKeysError:
                keys = []
            self._keys = (time.monotonic(), keys)
        # `worker.<id>` are heartbeats: room names have no `.`
        return sorted(k for k in keys if "." not in k and k.startswith(prefix))[:MAX_ROOMS]

    async def _ask(
        self, request: Request, name: str, method: str, rest: str, body: bytes = b""
    ) -> tuple[int, Any]:
        """(status, JSON answer) of the room's owner for its route `rest`."""
        headers = [[k, v] for k, v in request.headers.items() if k != "content-length"]
        headers.append(["content-length", str(len(body))])
        head = {"method": method, "path": f"/api/rooms/{name}/{rest}",
                "query": request.url.query, "headers": headers,
                "client": request.client.host if request.client else "unknown"}  # fmt: skip
        try:
            reply = await self.rooms.request(
                bus.room_subject(name, "http"), bus.pack_http(head, body), HTTP_WAIT
            )
        except NatsError:  # no owner now (the room just closed), or it did not answer
            return 504, {"detail": f"room {name}: its worker did not answer"}
        answer, payload = bus.unpack_http(reply)
        try:
            return int(answer["status"]), json.loads(payload)
        except ValueError:
            return 502, {"detail": f"room {name}: its worker's answer was not JSON"}

    async def tiles(self, request: Request, prefix: str) -> list[dict[str, Any]]:
        names = await self._names(prefix)
        answers = await asyncio.gather(*(self._ask(request, n, "GET", "tile") for n in names))
        return [tile for status, tile in answers if status == 200]

    async def act(
        self, request: Request, names: list[str], message: dict[str, Any]
    ) -> dict[str, Any]:
        body = json.dumps({"message": message}).encode()
        answers = await asyncio.gather(
            *(self._ask(request, name, "POST", "act", body) for name in names)
        )
        results: dict[str, Any] = {}
        for name, (status, answer) in zip(names, answers, strict=True):
            if status == 200:
                results[name] = answer
            else:
                detail = answer.get("detail") if isinstance(answer, dict) else answer
                text = detail if isinstance(detail, str) else json.dumps(detail)
                results[name] = {"type": "error", "message": f"{text} ({status})"}
        return results
