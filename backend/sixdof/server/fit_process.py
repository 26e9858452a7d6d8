"""The child process that fits gyroscope recordings (analysis/gyro_child.py), seen from the
server: started on first use, one job at a time, its pipes awaited by the event loop (which
only waits for them: the fit's compiled loops hold the child's GIL, not the server's).

It is killed when a job passes its deadline (`FitTimeout`), when the server stops (`stop_all`,
chained to uvicorn's SIGINT and SIGTERM handlers: uvicorn lets running requests finish before
it stops, and a fit would hold it that long), and when the app shuts down (`close`); it ends
itself when the server dies (gyro_child). One idle for IDLE_SECONDS is ended, giving back its
memory (numpy, scipy and the compiled code: ~200 MiB); the next fit starts another.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import struct
import subprocess
import sys
import threading
import weakref
from types import FrameType
from typing import Any, Protocol

HEADER = struct.Struct("!I")
#: Seconds a new child may take to load numpy, scipy and the compiled code (~3 s measured on
#: a loaded machine; a cold numba cache compiles for longer).
STARTUP_SECONDS = 120.0
#: A child without a job for this long is ended.
IDLE_SECONDS = 300.0
#: Most bytes of one answer (a fit's reply, its series thinned: ~30 KB to ~300 KB).
MAX_ANSWER = 16 * 1024 * 1024


class Killable(Protocol):
    """A child process's holder that the server's stop kills (a FitProcess, a BEM job)."""

    stopping: bool

    def kill(self) -> None: ...


_LIVE: weakref.WeakSet[Killable] = weakref.WeakSet()
_CHAINED: dict[int, Any] = {}  # signal → the handler ours runs after killing the children


class FitTimeout(Exception):
    """A job passed its deadline; the child was killed."""


class FitLost(Exception):
    """The child ended before it answered (killed, crashed, or the server is stopping)."""


class FitProcess:
    """One child process for fits; `busy` while a job (read, then fit) holds it."""

    def __init__(self) -> None:
        self._popen: subprocess.Popen[bytes] | None = None
        self._buffer = bytearray()
        self._idle: asyncio.TimerHandle | None = None
        self._retiring: asyncio.Task[None] | None = None
        self.busy = False
        self.stopping = False
        _LIVE.add(self)

    @property
    def pid(self) -> int | None:
        """The child's process id while it runs."""
        popen = self._popen
        return popen.pid if popen is not None and popen.poll() is None else None

    async def ask(
        self, request: dict[str, Any], payload: bytes | None, seconds: float
    ) -> tuple[dict[str, Any], bytes | None]:
        """Send `request` (and `payload` as a frame of its own); the answer and its payload
        frame, if it says it has one, within `seconds` of the child being ready (a new one
        first loads what a fit needs). FitTimeout past them, FitLost if the child ends
        first: either way the child is gone."""
        if self._idle is not None:
            self._idle.cancel()
            self._idle = None
        popen = await self._ready()
        frames = [json.dumps(request).encode(), *([payload] if payload is not None else [])]
        loop = asyncio.get_running_loop()
        try:
            head, more = await asyncio.wait_for(
                self._exchange(popen, b"".join(HEADER.pack(len(f)) + f for f in frames)),
                seconds,
            )
        except asyncio.TimeoutError:
            await self.discard()
            raise FitTimeout from None
        except (OSError, EOFError, ValueError):
            await self.discard()
            raise FitLost from None
        except asyncio.CancelledError:
            self.kill()
            raise
        self._idle = loop.call_later(IDLE_SECONDS, self._retire)
        return head, more

    async def _exchange(
        self, popen: subprocess.Popen[bytes], data: bytes
    ) -> tuple[dict[str, Any], bytes | None]:
        await self._write(popen, data)
        head = json.loads(await self._read_frame(popen))
        return head, (await self._read_frame(popen) if head.get("payload") else None)

    def kill(self) -> None:
        """Kill the child now (safe in a signal handler); `discard` reaps it."""
        popen = self._popen
        if popen is not None and popen.poll() is None:
            with contextlib.suppress(OSError):
                popen.kill()

    async def discard(self) -> None:
        """Kill the child, reap it and close its pipes; the next job starts another."""
        popen, self._popen = self._popen, None
        self._buffer.clear()
        if popen is None:
            return
        with contextlib.suppress(OSError):
            popen.kill()
        await asyncio.to_thread(popen.wait)  # a process of ~200 MiB takes ms to go
        for pipe in (popen.stdin, popen.stdout):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()

    async def close(self) -> None:
        """The app shuts down: no child is left behind."""
        self.stopping = True
        if self._idle is not None:
            self._idle.cancel()
        await self.discard()

    def _retire(self) -> None:
        self._idle = None
        if not self.busy:  # kept: a task nobody holds may be collected before it ends
            self._retiring = asyncio.get_running_loop().create_task(self.discard())

    async def _ready(self) -> subprocess.Popen[bytes]:
        """The running child, started (and waited for until it has loaded) if there is none."""
        popen = self._popen
        if popen is not None and popen.poll() is None:
            return popen
        await self.discard()
        command = [sys.executable, "-m", "sixdof.analysis.gyro_child", str(os.getpid())]
        popen = await asyncio.to_thread(
            subprocess.Popen, command, stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        self._popen = popen
        assert popen.stdin is not None and popen.stdout is not None
        os.set_blocking(popen.stdin.fileno(), False)
        os.set_blocking(popen.stdout.fileno(), False)
        _chain_signals()
        try:
            json.loads(await asyncio.wait_for(self._read_frame(popen), STARTUP_SECONDS))
        except (asyncio.TimeoutError, OSError, EOFError, ValueError):
            await self.discard()
            raise FitLost from None
        return popen

    async def _write(self, popen: subprocess.Popen[bytes], data: bytes) -> None:
        assert popen.stdin is not None
        fd, view, done = popen.stdin.fileno(), memoryview(data), 0
        while done < len(view):
            try:
                done += os.write(fd, view[done : done + 65536])
            except BlockingIOError:
                await _ready_for(fd, write=True)

    async def _read_frame(self, popen: subprocess.Popen[bytes]) -> bytes:
        await self._fill(popen, HEADER.size)
        (size,) = HEADER.unpack(self._buffer[: HEADER.size])
        if size > MAX_ANSWER:
            raise ValueError(f"an answer of {size} bytes")
        await self._fill(popen, HEADER.size + size)
        frame = bytes(self._buffer[HEADER.size : HEADER.size + size])
        del self._buffer[: HEADER.size + size]
        return frame

    async def _fill(self, popen: subprocess.Popen[bytes], size: int) -> None:
        assert popen.stdout is not None
        fd = popen.stdout.fileno()
        while len(self._buffer) < size:
            try:
                chunk = os.read(fd, 1 << 16)
            except BlockingIOError:
                await _ready_for(fd, write=False)
                continue
            if not chunk:
                raise EOFError
            self._buffer += chunk


async def _ready_for(fd: int, *, write: bool) -> None:
    """Wait until `fd` can be read (or written) without blocking."""
    loop = asyncio.get_running_loop()
    ready = loop.create_future()

    def wake() -> None:
        if not ready.done():
            ready.set_result(None)

    if write:
        loop.add_writer(fd, wake)
    else:
        loop.add_reader(fd, wake)
    try:
        await ready
    finally:
        if write:
            loop.remove_writer(fd)
        else:
            loop.remove_reader(fd)


def stop_all() -> None:
    """The server stops: every fit's child (and every `watch`ed one) is killed at once, so
    the requests waiting for them are answered (503) and the server does not wait for their
    fits."""
    for process in list(_LIVE):
        process.stopping = True
        process.kill()


def watch(holder: Killable) -> None:
    """Have `holder`'s child killed when the server stops, as a fit's is (`stop_all`)."""
    _LIVE.add(holder)
    _chain_signals()


def _chain_signals() -> None:
    """Run `stop_all` before the handlers of SIGINT and SIGTERM that are installed (uvicorn's,
    under `sixdof serve`), from the first child on; in the main thread only, and only over a
    handler that is a function (a server that does not handle them is none of ours)."""
    if threading.current_thread() is not threading.main_thread():
        return
    for signum in (signal.SIGINT, signal.SIGTERM):
        current = signal.getsignal(signum)
        if current is _on_signal or not callable(current):
            continue
        _CHAINED[signum] = current
        signal.signal(signum, _on_signal)


def _on_signal(signum: int, frame: FrameType | None) -> None:
    stop_all()
    then = _CHAINED.get(signum)
    if callable(then):
        then(signum, frame)
