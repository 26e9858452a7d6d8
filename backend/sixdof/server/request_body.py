"""Reading a REST request's body, bounded in size and in time.

The connection layer's header timeout (guard.py) ends once the headers are in; nothing
bounded the body after them, so a client announcing a body and sending a byte a second held
its request (and the route's task) for as long as it liked. Every route that reads a body
reads it here (PUT scenario, POST gyro): larger than its limit is refused with 413 before it
is read, and a body not in by its deadline gets 408 and the connection is closed.

The deadline is `body_timeout` s from the first byte the route waits for, plus 1 s for every
BODY_RATE bytes that have arrived: a slow but honest upload of a large body (a gyroscope
file of some MiB on a poor link) keeps going, a trickle earns nothing.
"""

from __future__ import annotations

import asyncio

from fastapi import HTTPException, Request

#: Bytes per s a sender must keep up to earn more time than `body_timeout` (128 kbit/s).
BODY_RATE = 16 * 1024


def _too_big(limit: int) -> HTTPException:
    return HTTPException(413, f"body: larger than the limit of {limit} bytes ({limit // 1024} KiB)")


def refuse_declared_over(request: Request, limit: int) -> None:
    """413 when the request's Content-Length says its body is over `limit` bytes: a check
    that costs nothing, made before any other (the address's budget too)."""
    declared = request.headers.get("content-length")
    if declared is not None and (
        not (declared.isascii() and declared.isdigit()) or int(declared) > limit
    ):
        raise _too_big(limit)


async def capped_body(request: Request, limit: int) -> bytes:
    """The request body, read only up to `limit` bytes (413 before parsing anything larger)
    and within the app's `body_timeout` (408, closing the connection)."""
    refuse_declared_over(request, limit)
    too_big = _too_big(limit)
    timeout: float = request.app.state.settings.body_timeout
    loop = asyncio.get_running_loop()
    start = loop.time()
    chunks: list[bytes] = []
    size = 0
    pieces = request.stream().__aiter__()
    while True:
        left = start + timeout + size / BODY_RATE - loop.time()
        try:
            chunk = await asyncio.wait_for(pieces.__anext__(), max(left, 0.0))
        except StopAsyncIteration:
            return b"".join(chunks)
        except asyncio.TimeoutError:
            raise HTTPException(
                408,
                f"body: {size} bytes arrived in {timeout + size / BODY_RATE:.3g} s; a body must "
                f"arrive within body_timeout ({timeout:g} s), plus 1 s for every "
                f"{BODY_RATE // 1024} KiB sent",
                # the rest of the body may still trickle in: nothing more is read on this one
                headers={"Connection": "close"},
            ) from None
        size += len(chunk)
        if size > limit:
            raise too_big
        chunks.append(chunk)
