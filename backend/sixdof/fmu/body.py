"""What the FMU computes, without FMI: a scenario's bodies stepped one communication step
at a time, with inputs, outputs and tunable parameters named as `sixdof run` names its CSV.

Variables (FMI 2.0 structured names, one scalar each):

- inputs `<Body>.Force[0..2]`, `<Body>.Moment[0..2]`: global frame, at the CG (FhSim's
  ports); their start values are the scenario's constant Force and Moment;
- outputs: every column of `sixdof run`'s CSV but Time (`<Body>.Pos[0]`, …,
  `<Body>.AngVel[2]`), computed by the headless runner's own table;
- tunable parameters `<Body>.Mass`, `<Body>.InertiaRadi[0..2]`, `<Body>.CGOffset[0..2]`:
  checked as the scenario checks them when the next step starts (a bad value fails that
  step with the field's message).

Stepping is `advance`, the one function that calls the dynamics.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass

import numpy as np

from ..dynamics import Bodies, IntegratorSettings, RunStats, integrate
from ..dynamics.elements import System
from ..dynamics.model import STATE_SIZE
from ..fields import FieldError
from ..headless.runner import RunResult, output_columns
from ..scenario import Scenario
from ..scenario.csv_columns import column_names

#: The tunable parameters of each body: (BodySpec field, width).
TUNABLES: tuple[tuple[str, int], ...] = (("Mass", 1), ("InertiaRadi", 3), ("CGOffset", 3))
#: The inputs of each body, global frame at the CG: (port, width).
INPUTS: tuple[tuple[str, int], ...] = (("Force", 3), ("Moment", 3))

#: An FMI 2.0 structured name's identifier (the standard's `Q-name` without quotes), matched
#: whole: `$` would let a final line break through.
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def check_fmu_elements(scenario: Scenario) -> None:
    """FieldError for a controller or a cable: its states (dynamics' element states) would
    start afresh at every communication step, `advance` integrating each step on its own."""
    for k, e in enumerate(scenario.elements):
        if e.kind in ("controller", "cable"):
            raise FieldError(
                f"elements[{k}]",
                "invalid",
                f"elements[{k}]: a {e.kind}'s states are not carried from one communication "
                "step of an FMU to the next; run it with `sixdof run`, or close the loop in "
                "the co-simulation with a controller FMU of its own",
            )


def check_fmu_names(scenario: Scenario) -> None:
    """FieldError when a body's Name cannot start an FMI structured variable name (a `-`
    is allowed in a scenario, not in an unquoted FMI name)."""
    for i, body in enumerate(scenario.bodies):
        if not _IDENT.fullmatch(body.Name):
            raise FieldError(
                f"bodies[{i}].Name",
                "invalid",
                f"bodies[{i}].Name: {body.Name!r} cannot name FMU variables "
                "(letters, digits and _ only, not starting with a digit)",
            )


def advance(
    bodies: Bodies,
    x: np.ndarray,
    u: np.ndarray,
    t: float,
    dt: float,
    settings: IntegratorSettings,
    system: System | None = None,
) -> np.ndarray:
    """The states (N, 13) at t + dt from `x` at t with constant loads `u` (N, 6) and the
    scenario's elements (`system`: springs, pivots, …, timed loads at their absolute time),
    with the scenario's integrator: fixed-step methods take ceil(dt / stepsize) equal steps,
    as `sixdof run` does between two output times; adaptive ones restart at each call.

    The one call into the dynamics (`dynamics.integrate`, what the headless runner calls)."""
    states, _ = integrate(bodies, x, u, np.array([t, t + dt]), settings, None, system)
    return np.ascontiguousarray(states[-1])


@dataclass
class Variable:
    """One scalar of the FMU: its name and where it lives."""

    name: str
    kind: str  # "input", "output", "parameter"
    body: int
    field: str  # Force/Moment (input), the output column index, or the BodySpec field
    index: int  # component, or the output column


class ScenarioModel:
    """The scenario's bodies as an FMU sees them: set inputs and parameters, `step(dt)`,
    read outputs."""

    def __init__(self, scenario: Scenario) -> None:
        check_fmu_names(scenario)
        check_fmu_elements(scenario)
        self.scenario = scenario
        self.settings = scenario.integration.settings()
        self.initial = np.ascontiguousarray(scenario.initial_states(), dtype=float)
        self.state = self.initial.copy()
        self.loads = np.ascontiguousarray(scenario.inputs(), dtype=float)
        self.params = {
            (i, name): np.atleast_1d(np.array(getattr(b, name), dtype=float))
            for i, b in enumerate(scenario.bodies)
            for name, _ in TUNABLES
        }
        self._bodies: Bodies | None = None
        self._system: System | None = None
        self.time = 0.0
        self.columns = output_columns(scenario)[1:]
        self._outputs = self._table()
        self.variables = self._variables()

    def _variables(self) -> list[Variable]:
        out: list[Variable] = []
        for i, body in enumerate(self.scenario.bodies):
            for port, width in INPUTS:
                names = column_names(body.Name, [(port, width)])
                out += [Variable(n, "input", i, port, k) for k, n in enumerate(names)]
        out += [Variable(n, "output", -1, "", k) for k, n in enumerate(self.columns)]
        for i, body in enumerate(self.scenario.bodies):
            for field, width in TUNABLES:
                names = column_names(body.Name, [(field, width)])
                out += [Variable(n, "parameter", i, field, k) for k, n in enumerate(names)]
        return out

    # ---------------------------------------------------------------- values

    def get(self, v: Variable) -> float:
        if v.kind == "output":
            return float(self._outputs[v.index])
        if v.kind == "input":
            return float(self.loads[v.body, (0 if v.field == "Force" else 3) + v.index])
        return float(self.params[v.body, v.field][v.index])

    def set(self, v: Variable, value: float) -> None:
        if v.kind == "input":
            self.loads[v.body, (0 if v.field == "Force" else 3) + v.index] = float(value)
        elif v.kind == "parameter":
            self.params[v.body, v.field][v.index] = float(value)
            self._bodies = None  # re-checked and packed at the next step
        else:
            raise ValueError(f"{v.name} is an output; it cannot be set")

    # ---------------------------------------------------------------- stepping

    def bodies(self) -> Bodies:
        """The bodies with the tunable parameters' current values; FieldError (naming the
        body's field, e.g. `bodies[0].Mass`) for a value the scenario would refuse."""
        if self._bodies is None:
            specs = []
            for i, body in enumerate(self.scenario.bodies):
                update = {}
                for field, width in TUNABLES:
                    value = self.params[i, field]
                    update[field] = float(value[0]) if width == 1 else tuple(value.tolist())
                data = body.model_dump()
                data.update(update)
                try:
                    with warnings.catch_warnings():  # impossible inertia: the user chose it
                        warnings.simplefilter("ignore")
                        specs.append(type(body).model_validate(data))
                except ValueError as exc:
                    raise FieldError(
                        f"bodies[{i}]", "invalid", f"{body.Name}: {_first_line(exc)}"
                    ) from None
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self._bodies = Bodies.of([s.params() for s in specs])
            # the elements act on the bodies as tuned; pivots hold the points where they were
            # at the start, as in `sixdof run`
            self._system = self.scenario.system(self._bodies, self.initial)
        return self._bodies

    def step(self, dt: float, t: float | None = None) -> None:
        """Advance every body from time t (default: where the last step ended) by dt s with
        the inputs held (FieldError for a bad tunable parameter, dynamics.IntegrationError
        when the state stops being finite)."""
        if dt <= 0.0:
            return
        start = self.time if t is None else t
        bodies = self.bodies()
        self.state = advance(bodies, self.state, self.loads, start, dt, self.settings,
                             self._system)  # fmt: skip
        self.time = start + dt
        self._outputs = self._table()

    def _table(self) -> np.ndarray:
        """The output columns of the current state, by the headless runner's own table."""
        x = self.state.reshape(1, -1, STATE_SIZE)
        row = RunResult(self.scenario, np.zeros(1), x, RunStats(), 0.0).table()
        return row[0, 1:]


def _first_line(exc: Exception) -> str:
    text = str(exc)
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    # pydantic: "1 validation error for BodySpec", then the field, then the message
    return " ".join(lines[1:3]) if len(lines) >= 3 else text
