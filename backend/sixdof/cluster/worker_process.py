"""`sixdof worker`'s process: its log lines written by a thread (server/log_thread.py), its
signals, and the worker (worker.py) on an event loop until SIGINT or SIGTERM."""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Sequence
from typing import Any

from ..server.log_thread import logs_off_loop
from ..server.settings import Settings
from .login import shown
from .worker import Worker


def run_worker(urls: Sequence[str], fields: dict[str, Any], replicas: int = 1) -> None:
    """`sixdof worker`: run until SIGINT or SIGTERM, then hand the rooms over (their leases
    are left to expire, so another worker resumes them from their snapshots)."""
    logging.basicConfig(level=logging.INFO, format="%(levelname)s: %(name)s: %(message)s")
    writer = logs_off_loop(("",))  # the root's lines written by a thread, as a server's are
    settings = Settings(**fields)

    async def main() -> None:
        worker = Worker(urls, settings, replicas=replicas)
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, worker.stop)
        print(f"sixdof: worker {worker.id} on {shown(worker.urls)}", flush=True)
        await worker.run()

    try:
        asyncio.run(main())
    finally:
        writer.stop()
