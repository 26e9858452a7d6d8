"""A REST request that came over the bus, run through a worker's own app in-process."""

from __future__ import annotations

import asyncio
from typing import Any


async def call_asgi(
    app: Any, head: dict[str, Any], body: bytes, limit: int | None = None
) -> tuple[int, list[list[str]], bytes, bool]:
    """Run one HTTP request through the ASGI `app` in this process; (status, headers, body,
    whether the body went over `limit` bytes: then it is cut there and the app told the
    client left, which ends a streamed answer early).

    The client stays connected until the answer is complete: a streamed answer
    (history.csv) listens for the client's disconnect beside its stream, and a receive that
    said "gone" as soon as the request was read ended it after its first piece (through a
    gateway, history.csv was its header line)."""
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
    size = 0
    over = False
    done = asyncio.Event()  # the answer is complete (or over the limit): the client leaves

    async def receive() -> dict[str, Any]:
        if incoming:
            return incoming.pop()
        await done.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status, headers, size, over
        if message["type"] == "http.response.start":
            status = int(message["status"])
            headers = [[k.decode("latin-1"), v.decode("latin-1")] for k, v in message["headers"]]
        elif message["type"] == "http.response.body":
            piece = message.get("body", b"")
            if not over:
                size += len(piece)
                if limit is not None and size > limit:
                    over = True
                    done.set()
                else:
                    chunks.append(piece)
            if not message.get("more_body"):
                done.set()

    try:
        await app(scope, receive, send)
    finally:
        done.set()
    return status, headers, b"".join(chunks), over
