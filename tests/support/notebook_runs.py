"""A live notebook run watched from a test (tests/unit/test_notebook.py, and the timing tier's
measure of its pacing)."""

from __future__ import annotations

import asyncio
from typing import Any


async def status_while_running(view: Any, seconds: float = 0.05) -> str:
    """The status line while a live run of `seconds` goes, once its pacing has a second of
    samples (or at its end), then waits for the run to end."""
    loop = view.run(seconds)
    for _ in range(200):
        await asyncio.sleep(0.02)
        if "real-time factor" in view.status.value and view.sim.rtf > 0.5:
            break
    seen = view.status.value
    await loop.task
    return seen
