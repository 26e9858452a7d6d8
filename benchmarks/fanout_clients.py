"""A lean websocket load client: N raw RFC 6455 connections on uvloop, counting frames.

Used by bench_fanout.py and bench_latency.py as a subprocess so that its CPU is its own and
is reported. Each connection does the opening handshake by hand and then only reads frame
headers to count frames and skip payloads (no JSON, no unmasking: server frames are not
masked), so the client costs a few µs per frame and is not the bottleneck. It answers the
server's pings (uvicorn closes a connection that leaves a ping unanswered for 20 s).

    python fanout_clients.py PORT ROOM N SECONDS     # prints one JSON line: Hz per client, CPU
    python fanout_clients.py PORT r0,r1,r2 N SECONDS # the N connections spread over rooms
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import resource
import struct
import sys
import time


class Counter(asyncio.Protocol):
    """One connection: handshake, then count frames between `start` and `stop`."""

    def __init__(self, room: str, window: list[float]) -> None:
        self.room = room
        self.window = window
        self.buffer = bytearray()
        self.upgraded = False
        self.frames = 0
        self.ready = asyncio.get_running_loop().create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's is not a subclass
        key = base64.b64encode(os.urandom(16)).decode()
        transport.write(
            f"GET /ws?room={self.room} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n".encode()
        )

    def data_received(self, data: bytes) -> None:
        buf = self.buffer
        buf += data
        if not self.upgraded:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                return
            if not buf.startswith(b"HTTP/1.1 101"):
                if not self.ready.done():
                    self.ready.set_exception(RuntimeError(bytes(buf[:200]).decode("latin-1")))
                return
            del buf[: end + 4]
            self.upgraded = True
            if not self.ready.done():
                self.ready.set_result(None)
        now = time.monotonic()
        counting = self.window[0] <= now < self.window[1]
        pos = 0
        n = len(buf)
        while n - pos >= 2:
            length = buf[pos + 1] & 0x7F
            head = 2
            if length == 126:
                if n - pos < 4:
                    break
                length = struct.unpack_from("!H", buf, pos + 2)[0]
                head = 4
            elif length == 127:
                if n - pos < 10:
                    break
                length = struct.unpack_from("!Q", buf, pos + 2)[0]
                head = 10
            if n - pos < head + length:
                break
            if (buf[pos] & 0x0F) == 0x9:  # a ping: pong as a client must (masked), or be cut off
                self.pong(bytes(buf[pos + head : pos + head + length]))
            elif counting:
                self.frames += 1
            pos += head + length
        del buf[:pos]

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.ready.done():  # closed before its handshake finished: say so, not hang
            self.ready.set_exception(ConnectionError(f"closed during the handshake: {exc}"))

    def pong(self, payload: bytes) -> None:
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.transport.write(bytes([0x8A, 0x80 | len(payload)]) + mask + masked)


async def run(
    port: int, room: str, n: int, seconds: float, warmup: float = 1.0, connect: float = 60.0
) -> dict:
    """Open n connections, wait at most `connect` s for their handshakes (a server past its
    capacity may never finish them all: those count as 0 Hz, and `connected` says how many
    did), then count frames for `seconds`."""
    loop = asyncio.get_running_loop()
    window = [float("inf"), float("inf")]
    counters = []
    rooms = room.split(",")
    for i in range(n):
        where = rooms[i % len(rooms)]
        _, proto = await loop.create_connection(
            lambda where=where: Counter(where, window),  # type: ignore[misc]
            "127.0.0.1",
            port,
        )
        counters.append(proto)
        if i % 50 == 49:
            await asyncio.sleep(0)  # let the server accept in between
    await asyncio.wait([c.ready for c in counters], timeout=connect)
    connected = sum(c.ready.done() and c.ready.exception() is None for c in counters)
    await asyncio.sleep(warmup)
    cpu0 = resource.getrusage(resource.RUSAGE_SELF)
    window[0] = time.monotonic()
    window[1] = window[0] + seconds
    await asyncio.sleep(seconds + 0.05)
    cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    for c in counters:
        c.transport.close()
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    return {
        "hz": [c.frames / seconds for c in counters],
        "connected": connected,
        "client_cpu_s": cpu,
        "window": window,
    }


def main() -> None:
    port, room, n, seconds = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    resource.setrlimit(resource.RLIMIT_NOFILE, (20000, 20000))
    print(json.dumps(asyncio.run(run(port, room, n, seconds))), flush=True)


if __name__ == "__main__":
    main()
