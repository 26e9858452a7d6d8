"""The world of a live simulation: its bodies' parameters, state, inputs and simulated time,
and the changes a user makes to them.

Every change is checked and built first (changes.py), then swapped in with plain
assignments that cannot fail, so a refused change leaves everything as it was. Parameter
changes keep the pose: Pos, Quater, LocalVel and AngVel stay as they are, except that a
CGOffset change moves the reference point and keeps the CG's global position and velocity
(changes.py says exactly what is kept).

`version` bumps on every accepted set_params, on constant inputs (they are part of the
scenario) and on load: the server re-sends hello when it changes.

A world keeps no clock and no past: LiveSimulation (live.py) paces it in real time, steps
it with the engine and keeps its past on a timeline, and hears of every change through
`_log` and `_after_reset`.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..dynamics import Bodies, outputs
from ..dynamics.elements import System, carry_states
from ..dynamics.inputs import InputChannels
from ..dynamics.names import Method
from ..dynamics.quaternion import Array
from ..scenario import Scenario
from .changes import Plan, plan_elements, plan_input, plan_params, plan_reset, plan_water
from .timeline import Moment
from .validation import body_index, plain


class World:
    """A scenario's bodies with their state and inputs (see the module docstring)."""

    _w: Plan  # scenario, parameters, packed bodies, integrator and step (replaced whole)
    _x: Array  # (N, 13), the live state
    _z: Array  # (Z,), the elements' states (a controller's; elements.System.state_bounds)
    _inputs: InputChannels
    _names: list[str]
    _name_index: dict[str, int]
    _t_base: float
    _n_steps: int

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.version = 0
        self._rev = 0  # bumps on every change of state, inputs or parameters (output cache key)
        self._cache: tuple[int, Mapping[str, Array]] | None = None
        self._estimate: tuple[Plan, float] | None = None  # (the world, s per step)

    # ------------------------------------------------------------------ reading

    @property
    def t(self) -> float:
        """Simulated time, s: t at the last step-size change + steps since then × step."""
        return self._t_base + self._n_steps * self._w.step

    @property
    def integrator(self) -> Method:
        return self._w.method

    @property
    def step_size(self) -> float:
        return self._w.step

    @property
    def names(self) -> list[str]:
        return list(self._names)

    @property
    def bodies(self) -> Bodies:
        """The physics parameters of all bodies (replaced whole on a change)."""
        return self._w.bodies

    @property
    def system(self) -> System | None:
        """The elements acting on the bodies, packed for the kernels (None: free bodies)."""
        return self._w.system

    def element_records(self) -> Array:
        """What each element does now, (M, 12): point, force on its body, other end (NED, N),
        a joint's moment about its point (N·m);
        kernel.element_records. Empty without elements."""
        from ..dynamics import kernel

        with self.lock:
            if self._w.system is None:
                return np.zeros((0, 12))
            pk = kernel.packed(self._w.bodies, self._w.system)
            return kernel.element_records(
                pk, self._x, self._inputs.loads(), self.t, self._w.step, self._z
            )

    @property
    def scenario(self) -> Scenario:
        """The live scenario (a copy): current parameters, constant global inputs, integrator;
        its Pos/Quater/LocalVel/AngVel are the initial state `reset()` returns to."""
        with self.lock:
            return self._w.scenario.model_copy(deep=True)

    def element_states(self) -> Array:
        """The elements' states now, (Z,) (read-only: `commit` replaces them)."""
        return self._z

    def state_array(self) -> Array:
        """A copy of the state of all bodies, (N, 13): Pos, Quater, LocalVel, AngVel."""
        with self.lock:
            return self._x.copy()

    def applied_inputs(self) -> Array:
        """The total applied input now, (N, 6): global Force and Moment about the CG."""
        with self.lock:
            return self._inputs.total(self._x).copy()

    def inputs(self) -> dict[str, dict[str, dict[str, object]]]:
        """Per body its records: {"B": {"constant": {frame, Force, Moment, lever}, "push": …}};
        `lever`: point of application − CGOffset, body axes; None for a force at the CG."""
        with self.lock:
            return {
                name: {ch: self._inputs.record(ch, i) for ch in ("constant", "push")}
                for i, name in enumerate(self._names)
            }

    def outputs(self) -> Mapping[str, Array]:
        """dynamics.outputs at the current state and inputs, cached until something changes."""
        with self.lock:
            if self._cache is None or self._cache[0] != self._rev:
                u = self._inputs.total(self._x)
                outs = outputs(self._x, u, self._w.bodies, self._w.system, self.t, self._z)
                self._cache = (self._rev, outs)
            return self._cache[1]

    # ------------------------------------------------------------------ changing

    def set_input(
        self,
        body: str | None,
        force: Any = (0.0, 0.0, 0.0),
        moment: Any = (0.0, 0.0, 0.0),
        *,
        frame: str = "global",
        point: Any = None,
        channel: str = "constant",
        spring: Any = None,
    ) -> None:
        """Replace one input channel of a body (inputs.py has the equations).

        channel "constant" replaces the body's constant input; when global and at
        the CG (no point) it is the scenario's Force/Moment, otherwise those read
        zero and `inputs()` reports it. channel "push" is a transient input on
        top, cleared by zeros or a full reset. frame "body": the vectors are in
        body axes and turn with the body. point (body axes, relative to the
        reference point, m): the force acts there, adding the moment
        (point − CGOffset) × F about the CG. None force/moment mean zero.
        spring {target, stiffness, damping, max_force} (push channel only): instead of a
        given force, the point (the CG without one) is pulled toward the world target by
        F = stiffness (target − point) − damping × the point's velocity, at most max_force,
        evaluated at every integrator stage.
        """
        with self.lock:
            i = body_index(self._name_index, body)
            change = plan_input(self._w, i, force, moment, frame, point, channel, spring)
            if change.scenario is not None:  # a constant input is part of the scenario
                self._w = dataclasses.replace(self._w, scenario=change.scenario)
                self.version += 1
            change.apply(self._inputs)
            self._touch()
            self._log("set_input", {"body": body, **change.args})

    def set_params(self, body: str | None = None, **fields: Any) -> list[str]:
        """Change parameters while running, all or nothing; returns warnings (usually none).

        Body fields: Mass, InertiaRadi, Inertia (6 or None), CGOffset, Gravity,
        model; visual: Mesh, Material, MeshScale, Size, MeshOrigin; simulation:
        integrator ("euler"|"rk4"), step (s). InertiaRadi without Inertia clears
        a full tensor. On error nothing changes.
        """
        with self.lock:
            i = body_index(self._name_index, body)
            plan = plan_params(dataclasses.replace(self._w, x=self._x), i, fields)
            if plan.step != self._w.step:
                self._t_base, self._n_steps = self.t, 0
            self._z = carry_states(self._w.system, plan.system, self._z)
            self._w = plan
            self._x = plan.x
            if fields:
                self.version += 1
            self._touch()
            self._log("set_params", {"body": body, "fields": plain(fields)})
            return list(plan.notes)

    def set_params_each(self, **fields: Any) -> list[str]:
        """`set_params(fields)` on every body at once, the batch built once (a ghost of many
        bodies); logged as one set_params per body, as replay applies them."""
        with self.lock:
            plan = plan_params(dataclasses.replace(self._w, x=self._x), range(len(self._names)),
                               fields)  # fmt: skip
            if plan.step != self._w.step:
                self._t_base, self._n_steps = self.t, 0
            self._z = carry_states(self._w.system, plan.system, self._z)
            self._w = plan
            self._x = plan.x
            if fields:
                self.version += 1
            self._touch()
            for name in self._names:
                self._log("set_params", {"body": name, "fields": plain(fields)})
            return list(plan.notes)

    def set_elements(self, elements: Any) -> None:
        """Replace the list of elements (JSON as in the scenario), all or nothing. A new pivot
        without `at` holds its point where it is now (changes.plan_elements)."""
        with self.lock:
            plan = plan_elements(dataclasses.replace(self._w, x=self._x), elements)
            self._z = carry_states(self._w.system, plan.system, self._z)
            self._w = dataclasses.replace(plan, x=self._w.x)
            self.version += 1
            self._touch()
            self._log(
                "set_elements", {"elements": [e.model_dump() for e in plan.scenario.elements]}
            )

    def set_water(self, water: Any) -> None:
        """Replace the scenario's water (JSON as in the scenario, or None: no water entry), all
        or nothing; the state and t run on, buoyancy and dampers feel the new water from the
        next step (changes.plan_water)."""
        with self.lock:
            plan = plan_water(self._w, water)
            self._z = carry_states(self._w.system, plan.system, self._z)
            self._w = dataclasses.replace(plan, x=self._w.x)
            self.version += 1
            self._touch()
            spec = plan.scenario.water
            self._log("set_water", {"water": spec and spec.model_dump(mode="json")})

    def reset(self, body: str | None = None, state: Mapping[str, Any] | None = None) -> None:
        """Back to the scenario's initial state, or to a given one.

        body None: the whole simulation restarts (t = 0, history and push inputs
        cleared) and a given `state` applies to the first body. body "B": only
        that body's state is replaced (by `state`, or by its initial state) and
        time runs on. `state` holds any of Pos, Quater, LocalVel, AngVel; the
        others come from the scenario's initial state. Running or paused stays;
        paused_reason is cleared.
        """
        with self.lock:
            i = None if body is None else body_index(self._name_index, body)
            self._x = plan_reset(self._w.scenario, self._x, i, state)
            if body is None:
                self._t_base, self._n_steps = 0.0, 0
                self._inputs.clear("push")
                self._z = _initial_states(self._w.system)
            self._touch()
            self._after_reset(body, state)

    # ------------------------------------------------------------------ as one value

    def moment(self) -> Moment:
        """The whole world now as one value (what a keyframe keeps). Hold `lock`."""
        return Moment(self._w, self._x, self._inputs, self._t_base, self._n_steps, self._z)

    def become(self, moment: Moment) -> None:
        """Be the world of `moment`. Hold `lock`."""
        self._w, self._x, self._inputs = moment.plan, moment.x, moment.inputs
        self._z = _initial_states(moment.plan.system) if moment.z is None else moment.z
        self._names = [b.Name for b in moment.plan.scenario.bodies]
        self._name_index = {n: i for i, n in enumerate(self._names)}
        self._t_base, self._n_steps = moment.t_base, moment.n_steps
        self.version += 1
        self._touch()

    # ------------------------------------------------------------------ told to the run

    def _log(self, kind: str, args: dict[str, Any]) -> None:
        """A change of `kind` with `args` (JSON values) took effect. Hold `lock`."""
        raise NotImplementedError

    def _after_reset(self, body: str | None, state: Mapping[str, Any] | None) -> None:
        """`reset(body, state)` took effect. Hold `lock`."""
        raise NotImplementedError

    def step_estimate(self) -> float:
        """The estimated computing seconds of one step of the world as it is
        (simulation/cost.step_seconds), worked out once per world by the thread that changed
        it (`_touch`), so that a room's tick only reads it: for 64 floating hulls it takes
        milliseconds, which a shared tick must not spend."""
        w = self._w
        known = self._estimate
        if known is None or known[0] is not w:
            from .cost import step_seconds

            known = (w, step_seconds(w.scenario, w.method))
            self._estimate = known
        return known[1]

    def _touch(self) -> None:
        self._rev += 1
        if self._estimate is None or self._estimate[0] is not self._w:
            self.step_estimate()


def _initial_states(system: System | None) -> Array:
    """The elements' states at the start (none without elements)."""
    return np.zeros(0) if system is None else system.initial_states()
