"""A gateway reads a REST body in time, as `sixdof serve` does (issue 40, finding 20): a body
trickled slower than `body_timeout` plus 1 s per 16 KiB gets 408 and `Connection: close`,
before anything is sent to a worker."""

from __future__ import annotations

import asyncio
from typing import Any

from sixdof.cluster.relay import RoomRequests
from sixdof.server import Settings


def test_a_trickled_body_gets_408_at_the_gateway_before_any_worker_is_asked() -> None:
    sent: list[dict[str, Any]] = []
    reads = 0

    async def receive() -> dict[str, Any]:
        nonlocal reads
        reads += 1
        if reads == 1:
            return {"type": "http.request", "body": b"{", "more_body": True}
        await asyncio.Event().wait()  # the rest never comes
        raise AssertionError

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def not_here(*_: Any) -> None:
        raise AssertionError("a route of a room must not reach the gateway's own app")

    scope = {"type": "http", "method": "PUT", "path": "/api/rooms/lab/scenario",
             "query_string": b"", "headers": [(b"content-type", b"application/json")]}  # fmt: skip
    relay = RoomRequests(not_here, None, Settings(body_timeout=0.2))  # type: ignore[arg-type]
    asyncio.run(asyncio.wait_for(relay(scope, receive, send), 10))  # its rooms are never asked
    assert sent[0]["status"] == 408
    assert (b"connection", b"close") in sent[0]["headers"]
    assert b"body_timeout (0.2 s)" in sent[1]["body"]
