"""Layer 3: a live simulation that advances a scenario in real time (pause, step, reset,
inputs and parameters that change while it runs, history for plots and CSV)."""

from .errors import ERROR_CODES, SimulationError
from .history import History
from .hub import SimulationHub
from .inputs import InputChannels
from .limits import (
    LIVE_INTEGRATORS,
    MAX_ANG_VEL,
    MAX_LOCAL_VEL,
    MAX_POS,
    STEP_MIN,
    TIME_SCALE_RANGE,
    divergence_reason,
    live_limits,
    step_range,
)
from .live import LiveSimulation
from .pacing import Pacer
from .stepping import run_steps, run_steps_checked, warm_up
from .validation import PARAM_FIELDS

__all__ = [
    "ERROR_CODES",
    "LIVE_INTEGRATORS",
    "MAX_ANG_VEL",
    "MAX_LOCAL_VEL",
    "MAX_POS",
    "PARAM_FIELDS",
    "STEP_MIN",
    "TIME_SCALE_RANGE",
    "History",
    "InputChannels",
    "LiveSimulation",
    "Pacer",
    "SimulationError",
    "SimulationHub",
    "divergence_reason",
    "live_limits",
    "run_steps",
    "run_steps_checked",
    "step_range",
    "warm_up",
]
