"""Layer 1: pure numerics of the 6DBody rigid body. No I/O, no web, no files."""

from .integrators import (
    INTEGRATOR_NUMBERS,
    METHODS,
    IntegrationError,
    IntegratorSettings,
    RunStats,
    StepSizeError,
    check_step,
    integrate,
    stability_limit,
    step_fixed,
)
from .jacobians import input_jacobian, linearize, state_jacobian
from .model import STATE_NAMES, STATE_SIZE, derivative, make_state, outputs, rest_state
from .params import (
    MODELS,
    Bodies,
    BodyParams,
    ImpossibleInertiaWarning,
    ParameterError,
    inertia_entries,
    inertia_from_entries,
    inertia_from_radii,
)

__all__ = [
    "INTEGRATOR_NUMBERS",
    "METHODS",
    "MODELS",
    "STATE_NAMES",
    "STATE_SIZE",
    "Bodies",
    "BodyParams",
    "ImpossibleInertiaWarning",
    "IntegrationError",
    "IntegratorSettings",
    "ParameterError",
    "RunStats",
    "StepSizeError",
    "check_step",
    "derivative",
    "inertia_entries",
    "inertia_from_entries",
    "inertia_from_radii",
    "input_jacobian",
    "integrate",
    "linearize",
    "make_state",
    "outputs",
    "rest_state",
    "stability_limit",
    "state_jacobian",
    "step_fixed",
]
