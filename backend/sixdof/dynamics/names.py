"""The dynamics' vocabulary without its numerics: model and method names, the FhSim
integrator numbers, the quaternion-norm time constant and the inertia warning.

Apart from the numeric modules so that what only names them (the scenario models, the
server's protocol, the command line) imports no numpy: `sixdof serve` answers its first
request before any room loads the physics.
"""

from __future__ import annotations

from typing import Literal

Model = Literal["full", "fhsim"]
MODELS: tuple[Model, ...] = ("full", "fhsim")

Method = Literal["euler", "rk4", "dopri5", "radau", "geometric", "exact"]
METHODS: tuple[Method, ...] = ("euler", "rk4", "dopri5", "radau", "geometric", "exact")
#: The compiled kernel's fixed-step methods.
FIXED_STEP_METHODS: tuple[Method, ...] = ("euler", "rk4")
#: Methods with no step limit from the quaternion-norm term: Radau (implicit), `geometric`
#: (dynamics/splitting.py: |q| = 1 by construction, no τ term) and `exact`
#: (dynamics/exact.py: the closed-form torque-free solution, no steps at all).
UNLIMITED_METHODS: tuple[Method, ...] = ("radau", "geometric", "exact")

#: FhSim-style `IntegratorMethod` numbers (docs/fhsim.md explains the choice).
INTEGRATOR_NUMBERS: dict[int, Method] = {0: "euler", 1: "rk4", 2: "dopri5", 3: "radau"}

#: Method codes of the compiled kernel (the IntegratorMethod numbers of the fixed methods).
METHOD_CODES: dict[Method, int] = {"euler": 0, "rk4": 1}

NORM_TIME_CONSTANT = 0.01  # τ of the quaternion-norm restoring term, s


class ImpossibleInertiaWarning(UserWarning):
    """Principal moments that break the triangle inequality: no real body has them."""
