"""Layer 1: pure numerics of the 6DBody rigid body. No I/O, no web, no files."""

from .integrators import IntegrationError, IntegratorSettings, RunStats, integrate, step_fixed
from .jacobians import input_jacobian, linearize, state_jacobian
from .methods import (
    INTEGRATOR_NUMBERS,
    METHODS,
    Method,
    check_step,
    stability_limit,
)
from .model import STATE_NAMES, STATE_SIZE, derivative, make_state, outputs, rest_state
from .params import (
    MODELS,
    Bodies,
    BodyParams,
    ImpossibleInertiaWarning,
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
    "Method",
    "RunStats",
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
