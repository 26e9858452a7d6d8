"""Layer 1: pure numerics of the 6DBody rigid body. No I/O, no web, no files.

The names below load their module on first use (PEP 562), so importing one submodule, such
as the numpy-free `dynamics.names`, does not import numpy and every numeric module with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import exports

if TYPE_CHECKING:
    from .integrators import IntegrationError, IntegratorSettings, RunStats, integrate, step_fixed
    from .jacobians import input_jacobian, linearize, state_jacobian
    from .methods import check_step, stability_limit
    from .model import STATE_NAMES, STATE_SIZE, derivative, make_state, outputs, rest_state
    from .names import INTEGRATOR_NUMBERS, METHODS, MODELS, ImpossibleInertiaWarning, Method
    from .params import (
        Bodies,
        BodyParams,
        inertia_entries,
        inertia_from_entries,
        inertia_from_radii,
    )

__getattr__ = exports(
    __name__,
    {
        "integrators": (
            "IntegrationError",
            "IntegratorSettings",
            "RunStats",
            "integrate",
            "step_fixed",
        ),
        "jacobians": ("input_jacobian", "linearize", "state_jacobian"),
        "methods": ("check_step", "stability_limit"),
        "model": ("STATE_NAMES", "STATE_SIZE", "derivative", "make_state", "outputs", "rest_state"),
        "names": ("INTEGRATOR_NUMBERS", "METHODS", "MODELS", "ImpossibleInertiaWarning", "Method"),
        "params": (
            "Bodies",
            "BodyParams",
            "inertia_entries",
            "inertia_from_entries",
            "inertia_from_radii",
        ),
    },
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
