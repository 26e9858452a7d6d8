"""`sixdof.run`: a headless run in one call, from whatever names the scenario.

>>> import sixdof
>>> r = sixdof.run("free_fall", t_end=1.0)
>>> round(float(r.arrays()["Ball.Pos"][-1, 2]), 4)   # ½ g t² down (NED z), m
4.905
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .analysis.lqr import Lqr
from .dynamics.stability import AxisStability
from .headless import RunResult, run_scenario
from .scenario.sources import ScenarioLike, as_scenario, with_overrides


def run(
    source: ScenarioLike,
    *,
    t_end: float | None = None,
    integrator: str | int | None = None,
    step: float | None = None,
    model: str | None = None,
    output_times: str | Sequence[float] | np.ndarray | None = None,
    estimate_error: bool = False,
    controller: Callable[[float, np.ndarray], tuple[Any, Any]] | None = None,
) -> RunResult:
    """Run a scenario headless, faster than real time, and return its result.

    `source`: a path to an FhSim XML input file (.xml) or Scenario JSON (.json), FhSim XML
    text, a `Scenario`, its JSON as a dict, or a preset name ("tennis_racket"). Overrides:
    `t_end` (s; outputs keep the scenario's spacing), `integrator` ("euler", "rk4",
    "dopri5", "radau" or FhSim's number 0-3), `step` (fixed step, s), `model` ("full" or
    "fhsim", every body), `output_times` (TOutput text or a list of times, s).

    The result has `.to_pandas()` (the CSV's columns), `.to_numpy()` (the CSV's numbers),
    `.arrays()` ({"Time": (T,), "B.Pos": (T, 3), …}), `.to_csv(path)` and `.summary`.
    A bad path or value raises a ValueError whose message names the field (and for files
    the line); `dynamics.IntegrationError` if the integration cannot go on.
    `estimate_error` (dopri5, radau): run again at tol/10 and put the largest difference in
    `.error_estimate` and the summary (an estimate of the global error, not a bound).
    `controller`: f(t, x) -> (force, moment), x (N, 13) the bodies' states, a global Force
    and Moment at the CG of every body ((3,) each) or of each ((N, 3)), called at every
    integrator stage (euler or rk4): for prototyping a controller, ~100× slower than a
    compiled run (headless/callback.py); a `controller` element runs compiled.
    """
    scenario = with_overrides(
        as_scenario(source),
        integrator=integrator,
        step=step,
        model=model,
        output_times=output_times,
        t_end=t_end,
    )
    if controller is not None:
        from .headless.callback import timed

        times, states, stats, wall = timed(scenario, controller)
        return RunResult(scenario, times, states, stats, wall, None)
    return run_scenario(scenario, estimate_error=estimate_error)


def stability(source: ScenarioLike, *, rate: float | None = None) -> dict[str, list[AxisStability]]:
    """For each body of the scenario, by Name: its three principal axes (ascending moment),
    each with the eigenvalues of the linearised spin about it (dynamics/stability.py).

    `rate` (rad/s): the spin rate to linearise at; default each body's initial |AngVel|.
    About the intermediate axis the pair is real, ±ω0 √((I2−I1)(I3−I2)/(I1 I3)): a wobble
    grows, doubling every `doubling_time` s; about the other two it is imaginary (`period`).
    """
    from .dynamics.stability import axis_stability

    scenario = as_scenario(source)
    out = {}
    for spec, params in zip(scenario.bodies, scenario.body_params(), strict=True):
        w = float(np.linalg.norm(spec.AngVel)) if rate is None else float(rate)
        out[spec.Name] = axis_stability(params.mass, params.inertia_cg, w, params.model)
    return out


def lqr(
    source: ScenarioLike,
    Q: ArrayLike,
    R: ArrayLike,
    *,
    body: str | None = None,
    inputs: list[str] | None = None,
    point: ArrayLike = (0.0, 0.0, 0.0),
    directions: ArrayLike = ((1.0, 0.0, 0.0),),
) -> Lqr:
    """A linear-quadratic regulator for `body` (default: the first) at its initial state,
    from the analytic linearisation (analysis/lqr.py): `.K` (6 × 12, on δx = (δp, δθ, δv,
    δω)), `.eigenvalues` (those of A − B K), `.A`, `.B`, and `.element`, the
    `linear_system` controller that applies u = u₀ − K δx (add it to the scenario's
    elements). Q: 12 × 12 or its diagonal, R: 6 × 6 or its diagonal.

    A body with elements (a barge on its buoyancy and dampers, in still water) is
    linearised by the engine's own derivative, elements and all, about the input u₀ that
    holds it still; Q then weighs its signals Pos, Roll, Pitch, Yaw, LocalVel, AngVel.

    Bodies held by joints (a pendulum on a cart): give `inputs`, the body's signals its
    controller reads (as many as the mechanism has states); the whole scenario is
    linearised by the engine on the motions its joints allow (analysis/lqr_mechanism.py),
    Q weighs those signals, R the forces along `directions` (global) at the body's `point`
    (body axes from its reference point), and `.K` acts on the signals.
    """
    from .analysis.lqr import lqr as design

    return design(as_scenario(source), Q, R, body, inputs, point, directions)
