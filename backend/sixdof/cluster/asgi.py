"""A REST request that came over the bus, run through a worker's own app in-process."""

from __future__ import annotations

from typing import Any


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
