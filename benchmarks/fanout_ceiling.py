"""The ceiling of fan-out on this machine: a websocket server that does nothing else.

It accepts websocket handshakes on uvloop and, 60 times a second, writes one prebuilt text
frame of the size of a sixdof state frame to every connection's transport (skipping one
whose buffer holds more than 64 KiB, as sixdof does). bench_fanout.py measures it beside
sixdof in the same run, so the ratio of their CPU per delivered frame is honest.

    python fanout_ceiling.py FRAME_BYTES      # prints "sixdof: serving http://127.0.0.1:PORT/"
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import sys
import time
from typing import ClassVar

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC11D65"


def text_frame(payload: bytes) -> bytes:
    n = len(payload)
    if n < 126:
        return bytes((0x81, n)) + payload
    if n < 1 << 16:
        return bytes((0x81, 126)) + n.to_bytes(2, "big") + payload
    return bytes((0x81, 127)) + n.to_bytes(8, "big") + payload


class Connection(asyncio.Protocol):
    clients: ClassVar[set[asyncio.Transport]] = set()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's is not a subclass
        self.buffer = b""

    def data_received(self, data: bytes) -> None:
        if self.transport in self.clients:
            return  # client frames are ignored
        self.buffer += data
        if b"\r\n\r\n" not in self.buffer:
            return
        keys = [
            line.split(b":", 1)[1].strip()
            for line in self.buffer.split(b"\r\n")
            if line.lower().startswith(b"sec-websocket-key:")
        ]
        if not keys:  # a plain request (the benchmark's health check)
            self.transport.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
            self.transport.close()
            return
        key = keys[0]
        accept = base64.b64encode(hashlib.sha1(key + GUID).digest())
        self.transport.write(
            b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
            b"Connection: Upgrade\r\nSec-WebSocket-Accept: " + accept + b"\r\n\r\n"
        )
        self.clients.add(self.transport)

    def connection_lost(self, exc: Exception | None) -> None:
        self.clients.discard(self.transport)


async def main(frame_bytes: int) -> None:
    loop = asyncio.get_running_loop()
    server = await loop.create_server(Connection, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    print(f"sixdof: serving http://127.0.0.1:{port}/", flush=True)
    payload = b'{"type":"state","seq":0,' + b'"x":"' + b"0" * max(0, frame_bytes - 32) + b'"}'
    period, deadline = 1 / 60, time.monotonic()
    while True:
        deadline += period
        await asyncio.sleep(max(0.0, deadline - time.monotonic()))
        frame = text_frame(payload)  # built once per tick, as sixdof does
        for transport in tuple(Connection.clients):
            if transport.get_write_buffer_size() <= 64 * 1024:
                transport.write(frame)


if __name__ == "__main__":
    import uvloop

    uvloop.install()
    asyncio.run(main(int(sys.argv[1])))
