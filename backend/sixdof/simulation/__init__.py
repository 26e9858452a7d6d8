"""Layer 3: a live simulation that advances a scenario in real time (pause, step, reset,
inputs and parameters that change while it runs, history for plots and CSV)."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from ..fields import ERROR_CODES, FieldError
from ..lazy import exports

if TYPE_CHECKING:
    from .engine import Engine
    from .history import History
    from .limits import LIVE_INTEGRATORS, divergence_reason, live_limits, step_range
    from .live import LiveSimulation
    from .pacing import Pacer
    from .validation import PARAM_FIELDS

# The names below load their module on first use (PEP 562): the server's start-up path
# imports numpy-free modules of this package (recording, limits' numbers) without the engine.
__getattr__ = exports(
    __name__,
    {
        "engine": ("Engine",),
        "history": ("History",),
        "limits": ("LIVE_INTEGRATORS", "divergence_reason", "live_limits", "step_range"),
        "live": ("LiveSimulation",),
        "pacing": ("Pacer",),
        "validation": ("PARAM_FIELDS",),
    },
)

_warming = threading.Lock()
_warm = False


def warm_up() -> float:
    """Compile (or load from numba's cache) every kernel the engine uses; seconds taken
    (0 once done: later calls, from any thread, return at once).

    Call it before the first advance so that does not stall for the compilation.
    """
    global _warm
    with _warming:
        if _warm:
            return 0.0
        from ..dynamics import kernel

        seconds = kernel.warm_up()
        _warm = True
        return seconds


def is_warm() -> bool:
    """Whether `warm_up` has run: the kernels are loaded and compiled."""
    return _warm


_free = False


def warm_up_free() -> float:
    """Load the free bodies' kernels alone (dynamics/kernel_warm.FREE), from numba's cache
    where a compile put them; seconds taken (0 once done, or once `warm_up` ran). A server's
    cold start runs rooms of free bodies on them while the elements' compile
    (server/registry.py; simulation/elements_gate.py holds the rest back meanwhile)."""
    global _free
    with _warming:
        if _warm or _free:
            return 0.0
        from ..dynamics import kernel

        seconds = kernel.warm_up(["free"])
        _free = True
        return seconds


def free_is_warm() -> bool:
    """Whether the free bodies' kernels are loaded (`warm_up_free`, or `warm_up`)."""
    return _warm or _free


__all__ = [
    "ERROR_CODES",
    "LIVE_INTEGRATORS",
    "PARAM_FIELDS",
    "Engine",
    "FieldError",
    "History",
    "LiveSimulation",
    "Pacer",
    "divergence_reason",
    "free_is_warm",
    "is_warm",
    "live_limits",
    "step_range",
    "warm_up",
    "warm_up_free",
]
