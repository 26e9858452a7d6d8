"""`sixdof.run(..., controller=f)`: a run whose bodies a Python callable drives, called at
every integrator stage (the user's own controller, for prototyping).

    (force, moment) = f(t, x)      x (N, 13): Pos, Quater, LocalVel, AngVel of every body

adds a global Force and Moment at each body's CG (a (3,) pair acts on every body, an
(N, 3) pair on each its own) to the scenario's inputs and elements. The stages are
`integrators.rk_step`'s on the state (x, the elements' states z, t), each from the compiled
derivative (`kernel.derivative`), so the run keeps the method's order; but every stage is a
call into Python and back, ~100× slower than the compiled run. Scenarios with pivots or
joints are refused: their constraints are held between steps by the compiled kernels only.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ..dynamics import RunStats, kernel
from ..dynamics.elements import Joint, Pivot
from ..dynamics.integrators import rk_step
from ..dynamics.layout import L_F_GLOBAL, L_M_GLOBAL
from ..dynamics.methods import TABLEAUS, check_step
from ..dynamics.quaternion import Array
from ..fields import FieldError
from ..scenario import Scenario

Controller = Callable[[float, Array], tuple[Any, Any]]


def run_controlled(scenario: Scenario, controller: Controller) -> tuple[Array, Array, RunStats]:
    """(output times, states there (T, N, 13), cost) of `scenario` driven by `controller`."""
    method = scenario.integration.method
    if method not in ("euler", "rk4"):
        raise FieldError("integrator", "invalid", f"integrator: a controller runs with euler or "
                         f"rk4, not {method}")  # fmt: skip
    h_max = check_step(method, scenario.integration.stepsize)
    bodies = scenario.batch()
    system = scenario.system(bodies)
    if system is not None and any(isinstance(e, Pivot | Joint) for e in system.elements):
        raise FieldError(
            "elements",
            "invalid",
            "elements: a controller callable runs without pivots and joints (their "
            "constraints are the compiled kernels')",
        )
    pk = kernel.packed(bodies, system)
    n = len(bodies)
    base = kernel.load_rows(scenario.inputs(), n)
    z0 = kernel.element_states(pk, None)
    nz = z0.size
    evaluations = 0

    def rhs(y: Array) -> Array:
        nonlocal evaluations
        evaluations += 1
        x = y[: 13 * n].reshape(n, 13)
        t = float(y[-1])
        force, moment = controller(t, x.copy())
        loads = base.copy()
        loads[:, L_F_GLOBAL : L_F_GLOBAL + 3] += np.broadcast_to(np.asarray(force, float), (n, 3))
        loads[:, L_M_GLOBAL : L_M_GLOBAL + 3] += np.broadcast_to(np.asarray(moment, float), (n, 3))
        dz = np.empty(nz)
        xd = kernel.derivative(pk, x, loads, t, y[13 * n : 13 * n + nz], dz)
        return np.concatenate([xd.ravel(), dz, [1.0]])  # ṫ = 1: t rides along

    times = scenario.integration.output_times()
    out = np.empty((times.size, n, 13))
    y = np.concatenate([scenario.initial_states().ravel(), z0, [0.0]])
    steps = 0
    for j, target in enumerate(times):
        span = float(target) - float(y[-1])
        if span > 0.0:
            count = max(1, math.ceil(span / h_max - 1e-9))
            for _ in range(count):
                y = rk_step(rhs, y, span / count, TABLEAUS[method])
            y[-1] = target  # no drift of t from summed steps
            steps += count
        out[j] = y[: 13 * n].reshape(n, 13)
        if not np.all(np.isfinite(out[j])):
            raise FieldError("controller", "invalid", f"controller: the state is not finite at "
                             f"t = {target:g} s")  # fmt: skip
    return times, out, RunStats(steps=steps, evaluations=evaluations)


def timed(scenario: Scenario, controller: Controller) -> tuple[Array, Array, RunStats, float]:
    """`run_controlled` and its wall time, s."""
    start = time.perf_counter()
    times, states, stats = run_controlled(scenario, controller)
    return times, states, stats, time.perf_counter() - start
