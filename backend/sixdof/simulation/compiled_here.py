"""How many kernels this process compiled itself: numba's "numba:compile" events, counted
from when the physics is loaded. A kernel loaded from numba's cache is no such event, so a
server whose cache was whole counts 0, and a room of free bodies that runs while a cold
start's child compiles the elements' kernels must keep it at 0 (server/registry.py):
/api/health reports it."""

from __future__ import annotations

import threading

_count = 0
_listening = False
_lock = threading.Lock()


def listen() -> None:
    """Start counting (imports numba: call it where the physics loads)."""
    global _listening
    with _lock:
        if _listening:
            return
        from numba.core import event

        class _Counter(event.Listener):
            def on_start(self, ev: event.Event) -> None:
                global _count
                with _lock:
                    _count += 1

            def on_end(self, ev: event.Event) -> None:
                pass

        event.register("numba:compile", _Counter())
        _listening = True


def count() -> int:
    """Kernels compiled in this process since `listen` (0 before)."""
    return _count
