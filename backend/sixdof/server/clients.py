"""One websocket client: a latest-wins outbox with its sender task, and a rate limiter.

A room hands every client the same state frame. A client with a `Wire` (every client of
`sixdof serve`) gets it written to its socket at once, or skipped while its socket is
backed up (wire.py). Otherwise the client keeps only the newest frame (a slot, not a queue)
and its sender task writes it when the socket can take it; either way a slow browser skips
frames instead of slowing the room or growing a backlog. Replies (hello, ack, error) must
not be skipped: they wait in a short FIFO for the sender task; a client that lets it
overflow is cut off.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from typing import Literal, Protocol, TypeVar

from starlette.websockets import WebSocket

from .wire import Wire

log = logging.getLogger("sixdof.server")

_ids = itertools.count(1)


class RateLimiter:
    """Token bucket of `rate` messages per second (burst `rate`), plus a flood detector.

    `admit()` says "ok", "limited" (refuse this one message) or "flood": more than `rate`
    refusals within `window` seconds, i.e. a client that keeps sending at well over the limit.
    """

    def __init__(self, rate: float, window: float, clock: Callable[[], float] = time.monotonic):
        self.rate = rate
        self.window = window
        self.clock = clock
        self._tokens = rate
        self._last = clock()
        self._refusals: deque[float] = deque()

    def admit(self) -> Literal["ok", "limited", "flood"]:
        now = self.clock()
        self._tokens = min(self.rate, self._tokens + (now - self._last) * self.rate)
        self._last = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return "ok"
        self._refusals.append(now)
        while self._refusals and self._refusals[0] < now - self.window:
            self._refusals.popleft()
        return "flood" if len(self._refusals) > self.rate else "limited"


class _Paced(Protocol):
    last_message_at: float


V = TypeVar("V", bound=_Paced)


class Viewer(Protocol):
    """What a room sends to and asks of each of its clients: a websocket `Client` here, or a
    worker's `cluster.worker.BusViewer`, which puts it all on the bus for the gateways."""

    can_control: bool
    binary: bool
    wire: Wire | None
    last_message_at: float
    #: has had no frame since its last hello (it joined, the room changed, its frame dropped)
    lacks_frame: bool

    @property
    def frames_dropped(self) -> int: ...

    def offer(self, text: str | bytes, wire_frame: bytes | None, now: float) -> None: ...

    def send_hello(self, text: str, frame: bytes) -> None: ...

    def send_reply(self, text: str, kind: str = "reply") -> None: ...


#: A client that sent a message this recently (s) gets each frame before the others.
ACTIVE_SECONDS = 2.0


def frame_order(clients: Iterable[V], now: float) -> Sequence[V]:
    """`clients` in the order a frame goes out: who sent something in the last
    ACTIVE_SECONDS first, so the one who pushed sees the answer without waiting for the
    frame to reach every watcher."""
    recent = now - ACTIVE_SECONDS
    clients = tuple(clients)
    active = [c for c in clients if c.last_message_at > recent]
    if not active:
        return clients
    return active + [c for c in clients if c.last_message_at <= recent]


class Client:
    """A connected websocket: what it may do, and what is waiting to be sent to it."""

    def __init__(
        self,
        ws: WebSocket,
        *,
        can_control: bool,
        max_pending: int,
        wire: Wire | None = None,
        binary: bool = False,
    ) -> None:
        self.id = next(_ids)
        self.ws = ws
        self.binary = binary  # state frames in the binary layout (binary.py), not JSON
        self.last_message_at = -1e9  # time.monotonic() of its last message (frames go first)
        self.wire = wire  # frames straight to the socket; None: through the sender task
        self.can_control = can_control
        self.max_pending = max_pending
        self.frames_offered = 0
        self.frames_sent = 0
        self.lacks_frame = True  # a room whose frame has not changed sends it only to those
        self.overflowed = False  # too many replies waiting: the client does not read
        self._replies: deque[tuple[str, str]] = deque()  # (kind, text)
        self._latest: str | bytes | None = None
        self._sending = False  # the sender task is writing through ASGI
        self._close: tuple[int, str] | None = None
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.closed = asyncio.Event()

    # ------------------------------------------------------------------ producer side
    def offer_frame(self, text: str | bytes) -> None:
        """Put the newest state frame in the slot, replacing any frame not yet sent."""
        self.frames_offered += 1
        self._latest = text
        self.lacks_frame = False  # the slot's frame is always sent, after the replies
        self._wake.set()

    def offer(self, text: str | bytes, wire_frame: bytes | None, now: float) -> None:
        """The newest state frame: written to the socket at once when the client has a wire
        and nothing else is on its way (wire.py), else left in the slot for the sender task,
        which sends it after the replies before it (hello first, then frames)."""
        if self.wire is None or wire_frame is None or self._replies or self._sending:
            self.offer_frame(text)
            return
        self.frames_offered += 1
        self._latest = None  # an older frame still in the slot must not follow this one
        sent = self.wire.offer(wire_frame, now)
        self.frames_sent += sent
        self.lacks_frame = not sent  # dropped (the socket is backed up): owed when it repeats

    def send_hello(self, text: str, frame: bytes) -> None:
        """A hello for every client of a room (`frame`: its ready-made websocket frame):
        written at once when nothing of this client's is on its way, else queued behind its
        replies (the sender of a change sees its ack first)."""
        self.lacks_frame = True
        if self.wire is not None and not self._replies and not self._sending:
            if self.wire.write(frame):
                return
        self.send_reply(text, "hello")

    def send_reply(self, text: str, kind: str = "reply") -> None:
        """Queue a hello, ack or error, in order; a newer hello replaces one still waiting."""
        if kind == "hello":
            self.lacks_frame = True
            for i, (k, _) in enumerate(self._replies):
                if k == "hello":
                    del self._replies[i]
                    break
        if len(self._replies) >= self.max_pending:
            self.overflowed = True
            return
        self._replies.append((kind, text))
        self._wake.set()

    def close_after_replies(self, code: int, reason: str) -> None:
        """Send what is queued, then close the websocket with `code`."""
        self._close = (code, reason[:120])
        self._wake.set()

    @property
    def frames_dropped(self) -> int:
        return self.frames_offered - self.frames_sent

    # ------------------------------------------------------------------ sender task
    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"sixdof-client-{self.id}")

    async def stop(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass

    async def _send(self, message: str | bytes) -> None:
        if isinstance(message, bytes):
            await self.ws.send({"type": "websocket.send", "bytes": message})
        else:
            await self.ws.send({"type": "websocket.send", "text": message})

    async def _run(self) -> None:
        try:
            while True:
                await self._wake.wait()
                self._wake.clear()
                self._sending = True
                while self._replies:
                    _, text = self._replies.popleft()
                    await self._send(text)
                if self._close is not None:
                    code, reason = self._close
                    await self.ws.close(code, reason)
                    return
                frame, self._latest = self._latest, None
                if frame is not None:
                    await self._send(frame)
                    self.frames_sent += 1
                self._sending = False
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the peer went away mid-send: the receive loop will notice
            log.debug("client %d: sender stopped: %r", self.id, exc)
        finally:
            self.closed.set()
