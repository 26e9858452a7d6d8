"""Building the next world of a simulation without touching the current one.

Both functions here validate and build everything first and return a plan; the
caller swaps it in with plain assignments that cannot fail, so a refused
request changes nothing (all or nothing).

What a parameter change keeps continuous:

- Mass, InertiaRadi/Inertia, Gravity, model: the state (Pos, Quater, LocalVel,
  AngVel) as it is, so the pose does not jump; velocities are kept, not
  momenta (a heavier body keeps its speed, a new inertia its AngVel).
- integrator, step: the state; simulated time runs on with the new step.
- Visual parameters (Mesh, Material, MeshScale, Size, MeshOrigin): only stored.

CGOffset: the CG stays where it is in the body and the reference point o moves
(DESIGN.md section 3). The CG's global position p + R r_g and its velocity
R (v + ω × r_g) are kept, with Quater and AngVel, so with d = r_old − r_new

    Pos ← Pos + R d,        LocalVel ← LocalVel + ω × d.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from pydantic import ValidationError

from ..dynamics import Bodies, BodyParams
from ..dynamics import quaternion as quat
from ..dynamics.inputs import InputChannels
from ..dynamics.names import Method
from ..dynamics.quaternion import Array
from ..fields import FieldError
from ..scenario import Scenario
from ..scenario.errors import field_error
from .limits import DEFAULT_STEP, LIVE_INTEGRATORS
from .validation import (
    BODY_FIELDS,
    SIMULATION_FIELDS,
    VISUAL_FIELDS,
    body_update,
    integration_update,
    live_step,
)


@dataclass(frozen=True)
class Plan:
    """A complete next world: scenario, per-body parameters and their batch, state, integrator."""

    scenario: Scenario
    params: list[BodyParams]
    bodies: Bodies
    x: Array  # (N, 13), the state when planned (the simulation's own copy moves on)
    method: Method
    step: float
    notes: tuple[str, ...] = ()  # warnings worth showing (e.g. an impossible inertia)


def move_reference_point(x: Array, rotmat: Array, r_old: Array, r_new: Array) -> Array:
    """A body state (13,) about a new reference point, with the CG's pose and velocity kept.

    r_old, r_new: CG relative to the old and new reference point, body axes (m);
    rotmat: R(q) of the state (3, 3). Returns a new array.
    """
    d = np.asarray(r_old, float) - np.asarray(r_new, float)
    out = np.array(x, dtype=float)
    out[0:3] += rotmat @ d  # p + R r_old = p' + R r_new
    out[7:10] += np.cross(out[10:13], d)  # v + ω × r_old = v' + ω × r_new
    return out


def plan_params(current: Plan, index: int, fields: Mapping[str, Any]) -> Plan:
    """The world after set_params(fields) on body `index`; raises FieldError."""
    body_fields = {k: v for k, v in fields.items() if k in BODY_FIELDS + VISUAL_FIELDS}
    sim_fields = {k: v for k, v in fields.items() if k in SIMULATION_FIELDS}
    scenario, params, bodies, x = current.scenario, current.params, current.bodies, current.x
    notes: list[str] = []
    if body_fields:
        spec, new_params, notes = body_update(scenario.bodies[index], body_fields)
        specs = list(scenario.bodies)
        specs[index] = spec
        scenario = scenario.model_copy(update={"bodies": specs})
        old = params[index]
        params = list(params)
        params[index] = new_params
        if any(k in BODY_FIELDS for k in body_fields):
            bodies = Bodies.of(params)  # rebuilt only when the physics changed
        if np.any(old.r_cg_body != new_params.r_cg_body):
            x = x.copy()
            rotmat = quat.to_rotmat(x[index, 3:7])
            x[index] = move_reference_point(x[index], rotmat, old.r_cg_body, new_params.r_cg_body)
    method, step = current.method, current.step
    if sim_fields:
        method, step = integration_update(method, step, sim_fields)
        integration = scenario.integration.model_copy(update={"method": method, "stepsize": step})
        scenario = scenario.model_copy(update={"integration": integration})
    return Plan(scenario, params, bodies, x, method, step, tuple(notes))


def plan_load(scenario: Scenario | Mapping[str, Any]) -> tuple[Plan, InputChannels]:
    """The world of a new scenario (validated if given as JSON) and its constant inputs.

    A scenario for a non-live integrator (dopri5, radau) runs live with rk4, at
    its stepsize when rk4 can take it in real time, else at 1 ms; the returned
    scenario says so in its integration block.
    """
    if not isinstance(scenario, Scenario):
        if not isinstance(scenario, Mapping):
            raise FieldError(
                "scenario",
                "invalid",
                f"scenario: expected a Scenario or its JSON object, got {type(scenario).__name__}",
            )
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # an impossible inertia: FhSim runs it too
                scenario = Scenario.model_validate(scenario)
        except ValidationError as exc:
            raise field_error(exc) from None
    integ = scenario.integration
    method: Method = integ.method if integ.method in LIVE_INTEGRATORS else "rk4"
    try:
        step = live_step(method, integ.stepsize)
    except FieldError:
        if integ.method in LIVE_INTEGRATORS:
            raise
        step = DEFAULT_STEP
    integration = integ.model_copy(update={"method": method, "stepsize": step})
    scenario = scenario.model_copy(update={"integration": integration}, deep=True)
    params = scenario.body_params()
    plan = Plan(scenario, params, Bodies.of(params), scenario.initial_states(), method, step)
    return plan, InputChannels.from_global(scenario.inputs())


def with_constant_input(
    scenario: Scenario, index: int, force: Array | None, moment: Array
) -> Scenario:
    """A copy of `scenario` whose body `index` has the constant global Force/Moment given.

    force None: the body's constant input is not a global one at the CG (it is in
    body axes or acts at a point), so the scenario's Force and Moment read zero.
    """
    zero = (0.0, 0.0, 0.0)
    update = {
        "Force": zero if force is None else tuple(force.tolist()),
        "Moment": zero if force is None else tuple(moment.tolist()),
    }
    specs = list(scenario.bodies)
    specs[index] = specs[index].model_copy(update=update)
    return scenario.model_copy(update={"bodies": specs})
