"""The worker threads of a server: where rooms' physics and clients' costly requests run, so
that the event loop only does I/O and bookkeeping (ticking.py says why).

`PHYSICS` ticks rooms; `REQUESTS` carries out clients' costly requests (a scenario loaded,
elements set, a step, a look back), all rooms together: the cap on such work running at
once, more waiting their turn (each was charged to its address before it queued), and the
rooms' ticks, in their own pool, never wait behind it.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")

#: Threads that tick rooms: one per room that is ticking at once (a thread waiting on a
#: compiled kernel costs no CPU); more rooms than this wait for a free thread.
PHYSICS_THREADS = 64
#: Threads that carry out clients' costly requests, all rooms together.
REQUEST_THREADS = max(2, min(4, os.cpu_count() or 2))

PHYSICS = ThreadPoolExecutor(PHYSICS_THREADS, thread_name_prefix="sixdof-tick")
REQUESTS = ThreadPoolExecutor(REQUEST_THREADS, thread_name_prefix="sixdof-request")


async def off_loop(fn: Callable[..., T], *args: object) -> T:
    """`fn(*args)` in the requests' pool, awaited: the event loop stays free meanwhile."""
    return await asyncio.get_running_loop().run_in_executor(REQUESTS, fn, *args)
