"""State frames written straight to the socket: one websocket frame per room and tick.

Through ASGI every frame to every client costs a task wake-up, Starlette's `send`, the
websocket library's framing and a transport write (about 20 µs per client and frame).
A room's state frame is the same bytes for every client, so the room builds the complete
websocket frame once (`text_frame`) and each client's `Wire` writes those bytes to its
transport (about 1–3 µs). The connection's own protocol object (guard.GuardedWebSocket)
hands its `Wire` to the app in the ASGI scope (`scope["extensions"]["sixdof.wire"]`), so a
server without it (a test client) falls back to the ASGI path.

Latest-wins: a client whose transport still holds more than `max_buffer` bytes skips the
frame; one that stays that way for `stuck_seconds` is cut off. Replies (hello, ack, error)
keep going through ASGI; both paths write whole frames, so they interleave safely.
"""

from __future__ import annotations

import asyncio
import struct
import time
from typing import Any, Protocol

from websockets.protocol import State

#: Bytes a client may have waiting in its transport before frames are skipped for it.
MAX_BUFFER = 64 * 1024
#: A client that could take no frame for this long is disconnected.
STUCK_SECONDS = 30.0


def text_frame(payload: bytes) -> bytes:
    """An unmasked, unfragmented websocket text frame (RFC 6455 §5.2) holding `payload`."""
    return _frame(0x81, payload)


def wire_frame(message: str | bytes) -> bytes:
    """A text frame for a str (UTF-8), a binary frame for bytes."""
    if isinstance(message, str):
        return _frame(0x81, message.encode())
    return _frame(0x82, message)


def _frame(first: int, payload: bytes) -> bytes:
    n = len(payload)
    if n < 126:
        header = bytes((first, n))
    elif n < 1 << 16:
        header = struct.pack("!BBH", first, 126, n)
    else:
        header = struct.pack("!BBQ", first, 127, n)
    return header + payload


class WebSocketConnection(Protocol):
    """What a Wire needs of uvicorn's websocket protocol object."""

    transport: asyncio.Transport
    conn: Any  # websockets' ServerProtocol
    handshake_complete: bool
    close_sent: bool


class Wire:
    """Writes ready-made frames to one websocket connection's transport."""

    __slots__ = ("_connection", "stuck_since")

    def __init__(self, connection: WebSocketConnection) -> None:
        self._connection = connection
        self.stuck_since: float | None = None

    @property
    def open(self) -> bool:
        c = self._connection
        return (
            c.handshake_complete
            and not c.close_sent
            and c.conn.state is State.OPEN
            and not c.transport.is_closing()
        )

    def write(self, frame: bytes) -> bool:
        """Write `frame` now if the connection is open and not backed up; True if written
        (a message that must not be skipped goes the slow way when this says False)."""
        if not self.open or self._connection.transport.get_write_buffer_size() > MAX_BUFFER:
            return False
        self._connection.transport.write(frame)
        return True

    def offer(self, frame: bytes, now: float | None = None) -> bool:
        """Write `frame` unless the connection is closing or still has `MAX_BUFFER` bytes
        waiting; True if written. A client stuck for STUCK_SECONDS is disconnected.

        The hot path of the fan-out (once per client and tick): the cheap checks only. A
        connection in this room has completed its handshake; once either side closes,
        `close_sent` or the transport says so."""
        c = self._connection
        transport = c.transport
        if c.close_sent or transport.is_closing():
            return False
        if transport.get_write_buffer_size() > MAX_BUFFER:
            now = time.monotonic() if now is None else now
            if self.stuck_since is None:
                self.stuck_since = now
            elif now - self.stuck_since > STUCK_SECONDS:
                transport.abort()
            return False
        self.stuck_since = None
        transport.write(frame)
        return True
