"""Building the next world of a simulation without touching the current one.

The functions here check their request (validation.py checks each field, once) and
build everything first, returning a plan; the caller swaps it in with plain assignments
that cannot fail, so a refused request changes nothing (all or nothing).

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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from pydantic import ValidationError

from ..dynamics import Bodies, BodyParams
from ..dynamics import quaternion as quat
from ..dynamics.elements import System
from ..dynamics.inputs import InputChannels
from ..dynamics.names import Method
from ..dynamics.quaternion import Array
from ..fields import FieldError
from ..scenario import BodySpec, Scenario
from ..scenario.errors import field_error
from . import elements_gate
from .limits import DEFAULT_STEP, LIVE_INTEGRATORS
from .live_joints import live_system
from .validation import (
    BODY_FIELDS,
    FROM_SHAPE,
    SHAPE_FIELDS,
    check_params,
    input_update,
    live_step,
    plain,
    spring_update,
    state_update,
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
    system: System | None = None  # the scenario's elements packed for `bodies` (None: none)


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


def plan_params(current: Plan, index: int | Sequence[int], fields: Mapping[str, Any]) -> Plan:
    """The world after set_params(fields) on body `index` (or on each of several bodies,
    with the batch built once); raises FieldError."""
    body_fields, integration = check_params(fields, current.method, current.step)
    scenario, params, bodies, x = current.scenario, current.params, current.bodies, current.x
    reshaped = any(k in SHAPE_FIELDS for k in body_fields)
    notes: list[str] = []
    if body_fields:
        specs, params = list(scenario.bodies), list(params)
        for i in [index] if isinstance(index, int) else index:
            specs[i], new_params, found = _changed_body(specs[i], body_fields)
            notes += [n for n in found if n not in notes]
            old, params[i] = params[i], new_params
            if np.any(old.r_cg_body != new_params.r_cg_body):
                x = x.copy() if x is current.x else x
                rotmat = quat.to_rotmat(x[i, 3:7])
                x[i] = move_reference_point(x[i], rotmat, old.r_cg_body, new_params.r_cg_body)
        scenario = scenario.model_copy(update={"bodies": specs})
        if scenario.elements:
            _check_mass(scenario, body_fields)
        weighed = any(s.InertiaFrom != "given" for s in specs) and any(
            k in SHAPE_FIELDS for k in body_fields
        )
        if weighed or any(k in BODY_FIELDS for k in body_fields):
            bodies = Bodies.of(params)  # rebuilt only when the physics changed
    method, step = current.method, current.step
    if integration is not None:
        method, step = integration
        block = scenario.integration.model_copy(update={"method": method, "stepsize": step})
        scenario = scenario.model_copy(update={"integration": block})
        if scenario.elements:
            _check_fit(scenario)
    system = current.system
    if scenario.elements and (bodies is not current.bodies or reshaped):
        # a pivot's I_a, a ground's k, a hull's shape
        scenario, system = live_system(scenario, bodies, current.scenario, system, x)
    return Plan(scenario, params, bodies, x, method, step, tuple(notes), system)


def _check_fit(scenario: Scenario) -> None:
    """FieldError when the elements do not fit the scenario's bodies or integration."""
    from ..scenario.added_mass import check_added_mass
    from ..scenario.elements import check_elements

    integ = scenario.integration
    check_elements(scenario.elements, [b.Name for b in scenario.bodies], integ.method,
                   integ.stepsize)  # fmt: skip
    check_added_mass(scenario.elements, scenario.bodies)


#: Body fields that change M_RB, which a body's added mass joins.
MASS_FIELDS = ("Mass", "InertiaRadi", "Inertia", "CGOffset")


def _check_mass(scenario: Scenario, fields: Mapping[str, Any]) -> None:
    """FieldError naming the first of `fields` that changed M_RB (the scenario has them
    already) when a body's M + M_A is then no longer positive definite."""
    from ..scenario.added_mass import not_definite

    changed = [k for k in fields if k in MASS_FIELDS]
    found = not_definite(scenario.elements, scenario.bodies) if changed else None
    if found is not None:
        where, name, low = found
        raise FieldError(
            changed[0],
            "invalid",
            f"{changed[0]}: with it, M + M_A of body {name!r} (its rigid-body mass matrix "
            f"plus its added mass, {where}) would not be positive definite: its smallest "
            f"eigenvalue would be {low:.4g}",
        )


def plan_elements(current: Plan, elements: Any) -> Plan:
    """The world with this list of elements (JSON, replacing the current list; all or
    nothing). A pivot without `at` that is not in the current list is held where its point
    is now; one that is keeps being held where it started."""
    from pydantic import TypeAdapter

    from ..scenario.elements import ElementSpec, PivotElement, dynamics_elements

    if not isinstance(elements, list):
        raise FieldError("elements", "invalid",
                         f"elements: expected a list, got {type(elements).__name__}")  # fmt: skip
    try:
        specs = TypeAdapter(list[ElementSpec]).validate_python(elements)
    except ValidationError as exc:
        raise field_error(exc, prefix="elements") from None
    if len(specs) > 64:
        raise FieldError("elements", "out_of_range",
                         f"elements: at most 64 per scenario, got {len(specs)}")  # fmt: skip
    scenario = current.scenario
    held = {(e.body, e.point) for e in scenario.elements
            if isinstance(e, PivotElement) and e.at is None}  # fmt: skip
    fixed = []
    for e in specs:
        if isinstance(e, PivotElement) and e.at is None and (e.body, e.point) not in held:
            names = [b.Name for b in scenario.bodies]
            if e.body in names:
                found = dynamics_elements([e], scenario.bodies, current.x)[0]
                e = e.model_copy(update={"at": found.at})  # type: ignore[union-attr]
        fixed.append(e)
    scenario = scenario.model_copy(update={"elements": fixed})
    _check_fit(scenario)
    # a new joint joins its bodies where they are now, an old one keeps what it was built as
    scenario, system = live_system(scenario, current.bodies, current.scenario, current.system,
                                   current.x)  # fmt: skip
    return Plan(current.scenario.model_copy(update={"elements": scenario.elements}),
                current.params, current.bodies, current.x, current.method, current.step, (),
                system)  # fmt: skip


def plan_water(current: Plan, water: Any) -> Plan:
    """The world with this water (JSON or a WaterSpec; None: no water entry), replacing the
    scenario's whole water, all or nothing. The state is kept; the elements are packed again,
    for buoyancy and dampers read the water (density, level, current, waves) from their rows.
    Without water the elements act in the default still sea (scenario.elements says so)."""
    from ..scenario.water import WaterSpec

    spec: WaterSpec | None
    if water is None:
        spec = None
    elif isinstance(water, WaterSpec):
        spec = water.model_copy(deep=True)
    elif isinstance(water, Mapping):
        try:
            spec = WaterSpec.model_validate(water)
        except ValidationError as exc:
            raise field_error(exc, prefix="water") from None
    else:
        got = type(water).__name__
        raise FieldError("water", "invalid", f"water: expected an object or null, got {got}")
    scenario = current.scenario.model_copy(update={"water": spec})
    scenario, system = live_system(scenario, current.bodies, current.scenario, current.system,
                                   current.x)  # fmt: skip
    return Plan(scenario, current.params, current.bodies, current.x, current.method,
                current.step, (), system)  # fmt: skip


def _changed_body(
    spec: BodySpec, changes: Mapping[str, Any]
) -> tuple[BodySpec, BodyParams, list[str]]:
    """The body with `changes` (checked values) as a BodySpec and BodyParams, and any
    warnings. The spec is not validated again: its fields are, and the one check left,
    whether a body can have that mass and inertia, is the BodyParams' own. With InertiaFrom
    solid or shell, Mass (with Density), CGOffset, Inertia and MeshOrigin follow the shape;
    typing one of them is refused then, and a typed Mass stops following Density."""
    update = dict(changes)
    shaped = update.get("InertiaFrom", spec.InertiaFrom) != "given"
    if shaped:
        typed = [k for k in FROM_SHAPE if k in update]
        if typed:
            raise FieldError(
                typed[0], "invalid",
                f"{typed[0]}: follows the shape while InertiaFrom is "
                f"{update.get('InertiaFrom', spec.InertiaFrom)}; set InertiaFrom to given to "
                "type it",
            )  # fmt: skip
        if "Mass" in update and "Density" not in update:
            update["Density"] = None
    new_spec = spec.model_copy(update=update)
    if shaped:
        from ..scenario.body_mesh import shape_fields

        new_spec = new_spec.model_copy(update=shape_fields(new_spec))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        params = new_spec.params()
    return new_spec, params, sorted({str(w.message) for w in caught})


@dataclass(frozen=True)
class InputChange:
    """A checked set_input: how it changes a body's input records, and the scenario."""

    args: dict[str, Any]  # as the recording logs it (JSON values), the body aside
    scenario: Scenario | None  # with the new constant global input; None: unchanged
    apply: Callable[[InputChannels], None]


def plan_input(
    current: Plan,
    index: int,
    force: Any,
    moment: Any,
    frame: Any,
    point: Any,
    channel: Any,
    spring: Any,
) -> InputChange:
    """set_input on body `index` (World.set_input says what each argument means)."""
    f, m, frame_, p, channel_ = input_update(force, moment, frame, point, channel)
    r_cg = current.params[index].r_cg_body
    args = {"force": f.tolist(), "moment": m.tolist(), "frame": frame_,
            "point": None if p is None else p.tolist(), "channel": channel_}  # fmt: skip
    if spring is not None:
        target, k, c, cap = spring_update(spring, channel_)
        at = r_cg if p is None else p
        return InputChange(
            {**args, "spring": plain(spring)},
            None,
            lambda inputs: inputs.set_spring(index, target, at, at - r_cg, k, c, cap),
        )
    scenario = None
    if channel_ == "constant":  # global at the CG: the scenario's Force/Moment, else zeros
        at_cg = frame_ == "global" and p is None
        scenario = with_constant_input(current.scenario, index, f if at_cg else None, m)
    lever = None if p is None else p - r_cg
    return InputChange(
        args,
        scenario,
        lambda inputs: inputs.set(index, channel_, frame_, f, m, lever),  # type: ignore[arg-type]  # checked choices
    )


def plan_reset(scenario: Scenario, x: Array, index: int | None, state: Any) -> Array:
    """The state after a reset: every body at its initial state, `state`'s parts (any of
    Pos, Quater, LocalVel, AngVel) applying to the first (index None), or body `index` at
    its initial state with `state`'s parts and the others as they are."""
    initial = scenario.initial_states()
    if index is None:
        if state is not None:
            initial[0] = state_update(initial[0], state)
        return initial
    out = x.copy()
    out[index] = state_update(initial[index], state if state is not None else {})
    return out


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
    elements_gate.check(scenario.elements)
    params = scenario.body_params()
    bodies = Bodies.of(params)
    plan = Plan(scenario, params, bodies, scenario.initial_states(), method, step,
                system=scenario.system(bodies))  # fmt: skip
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
