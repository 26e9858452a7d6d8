"""Layer 3: a live simulation that advances a scenario in real time (pause, step, reset,
inputs and parameters that change while it runs, history for plots and CSV)."""

from ..fields import ERROR_CODES, FieldError
from .engine import Engine
from .history import History
from .limits import LIVE_INTEGRATORS, divergence_reason, live_limits, step_range
from .live import LiveSimulation
from .pacing import Pacer
from .validation import PARAM_FIELDS


def warm_up() -> float:
    """Compile (or load from numba's cache) every kernel the engine uses; seconds taken.

    Call it once at start-up so the first advance does not stall for the compilation.
    """
    from ..dynamics import kernel

    return kernel.warm_up()


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
    "live_limits",
    "step_range",
    "warm_up",
]
