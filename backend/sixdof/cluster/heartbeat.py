"""A worker's heartbeat, written from a thread of its own with its own NATS connection.

On the worker's event loop the heartbeat waits behind everything else the loop does: a tick
of 500 rooms, a takeover of hundreds (~10 ms of CPU each), or simply a machine so loaded
that the process gets a fraction of a core (a benchmark measured 12 %). Silent for 1.5 s,
the worker counts as dead and its live rooms are taken over, then taken back: on the loop,
a 1,000-room benchmark on a loaded 2-core machine did exactly that. A thread gets the GIL
within ~5 ms of asking for it, so it beats on time whenever the process runs at all.

Alive is not enough: a loop stuck for good runs no room. The loop marks each of its rounds
(`loop_alive`); the thread stops beating when it has not seen one for LOOP_STALL s, and the
other workers take the rooms over.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable, Sequence

from . import bus
from .leases import Leases

log = logging.getLogger("sixdof.worker")

LOOP_STALL = 10.0  # s without a round of the worker's loop before it counts as stuck


class Heartbeat(threading.Thread):
    """Writes `leases`' heartbeat (with the count `rooms()`) every LEASE_RENEW s."""

    def __init__(self, urls: Sequence[str], leases: Leases, rooms: Callable[[], int]) -> None:
        super().__init__(name=f"sixdof-heartbeat-{leases.id}", daemon=True)
        self.urls = list(urls)
        self.leases = leases
        self.rooms = rooms
        self.loop_alive_at = time.monotonic()
        self._stop_event = threading.Event()

    def loop_alive(self) -> None:
        """Called by the worker's event loop at each of its rounds."""
        self.loop_alive_at = time.monotonic()

    def stop(self) -> None:
        self._stop_event.set()

    def run(self) -> None:
        asyncio.run(self._main())

    async def _main(self) -> None:
        name = f"sixdof-{self.leases.id}-heartbeat"
        try:
            nc = await bus.connect(self.urls, name)
        except ConnectionError as exc:
            log.error("worker %s: no heartbeat: %s", self.leases.id, exc)
            return
        try:
            kv = None
            while not self._stop_event.is_set():
                started = time.monotonic()
                if started - self.loop_alive_at > LOOP_STALL:
                    log.error("worker %s: its loop has been stuck for %.0f s: no heartbeat",
                              self.leases.id, started - self.loop_alive_at)  # fmt: skip
                else:
                    try:
                        if kv is None:
                            kv = await nc.jetstream(timeout=bus.JS_TIMEOUT).key_value(bus.LEASES)
                        await self.leases.beat(self.rooms(), kv)
                    except Exception as exc:  # noted by `beat`: no takeovers meanwhile
                        log.debug("worker %s: heartbeat not written: %r", self.leases.id, exc)
                while time.monotonic() - started < bus.LEASE_RENEW:
                    if self._stop_event.is_set():
                        break
                    await asyncio.sleep(0.05)
        finally:
            await nc.close()
