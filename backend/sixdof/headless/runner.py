"""A headless run: Scenario → states at the TOutput times → the CSV table FhSim writes.

The run starts at t = 0 from each body's initial condition, with its constant
Force and Moment (global frame, at the CG), and integrates all bodies as one
batch with the scenario's integrator. Rows are the TOutput times exactly; the
run ends at the last one. Columns follow FhSim: `Time`, then for every body,
in file order, its output ports Pos (3, global position of the reference
point, m), Vel (3, global velocity R(q) v, m/s), Quater (4, scalar first),
LocalVel (3, body frame, m/s) and AngVel (3, body frame, rad/s), each named
`Body.Port[i]`.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from ..dynamics import RunStats, integrate
from ..dynamics.integrators import ProgressCallback
from ..dynamics.model import ANG_VEL, LOCAL_VEL, OUTPUT_PORTS, POS, QUATER
from ..dynamics.quaternion import rotate
from ..scenario import Scenario, toutput_rows
from ..scenario.csv_columns import column_names
from .csv_output import write_csv


def output_columns(scenario: Scenario) -> list[str]:
    """['Time', 'B.Pos[0]', …, 'B.AngVel[2]', 'C.Pos[0]', …] for the scenario's bodies."""
    columns = ["Time"]
    for body in scenario.bodies:
        columns += column_names(body.Name, OUTPUT_PORTS)
    return columns


@dataclass
class RunResult:
    """What a run produced: times (T,), states (T, N, 13), the integrator's statistics."""

    scenario: Scenario
    times: np.ndarray
    states: np.ndarray
    stats: RunStats
    wall_time: float  # s
    #: largest |x − x_fine| over every output and state component, x_fine the run again at
    #: AbsTol/10, RelTol/10 (`run_scenario(estimate_error=True)`, adaptive methods); None: not
    #: asked for
    error_estimate: float | None = None

    @property
    def columns(self) -> list[str]:
        return output_columns(self.scenario)

    def to_numpy(self) -> np.ndarray:
        """The CSV's numbers, shape (T, 1 + 16 N), columns named as `columns`."""
        return self.table()

    def arrays(self) -> dict[str, np.ndarray]:
        """Each output as its own array: {"Time": (T,), "B.Pos": (T, 3), "B.Quater": (T, 4),
        …} for every body and output port, in the CSV's order."""
        table = self.table()
        out = {"Time": table[:, 0]}
        col = 1
        for body in self.scenario.bodies:
            for port, width in OUTPUT_PORTS:
                out[f"{body.Name}.{port}"] = table[:, col : col + width]
                col += width
        return out

    def to_pandas(self) -> Any:
        """A pandas DataFrame with the CSV's columns and numbers (pandas is optional)."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError(
                "to_pandas needs pandas: pip install pandas (to_numpy and arrays do not)"
            ) from None
        return pd.DataFrame(self.table(), columns=self.columns)

    def to_csv(self, path: str | Path) -> int:
        """Write the CSV `sixdof run` writes (atomically); returns the rows written."""
        return write_csv(path, self.columns, self.table())

    @property
    def summary(self) -> str:
        """One line: what was simulated, with which integrator, at what cost."""
        method = self.scenario.integration.method
        st = self.stats
        cost = "closed form" if method == "exact" else f"{st.steps} steps"
        if method in ("dopri5", "radau"):
            cost += f", {st.rejected} rejected, {st.evaluations} derivative calls"
        if method == "radau":
            cost += f", {st.jacobians} Jacobians, {st.lu} LU decompositions"
        t_end = float(self.times[-1]) if self.times.size else 0.0
        speed = t_end / self.wall_time if self.wall_time > 0 else float("inf")
        n = len(self.scenario.bodies)
        line = (
            f"simulated {t_end:g} s of {n} bod{'y' if n == 1 else 'ies'} ({method}, {cost}) "
            f"in {self.wall_time:.3g} s wall time ({speed:.3g}× real time)"
        )
        if self.error_estimate is not None:
            line += (
                f"; estimated global error {self.error_estimate:.3g} (the run again at tol/10; "
                "typically 0.9 of the true error)"
            )
        return line

    def table(self) -> np.ndarray:
        """The CSV's numbers, shape (T, 1 + 16 N), columns as `columns`."""
        x = self.states
        vel_world = rotate(x[..., QUATER], x[..., LOCAL_VEL])  # (T, N, 3)
        per_body = np.concatenate(
            [x[..., POS], vel_world, x[..., QUATER], x[..., LOCAL_VEL], x[..., ANG_VEL]],
            axis=-1,
        )  # (T, N, 16)
        return np.column_stack([self.times, per_body.reshape(len(self.times), -1)])


#: Rough cost of one fixed step of one body in a headless run (rk4 ~0.1 µs here; euler less;
#: geometric ~6×, benchmarks/bench_integrators.py).
SECONDS_PER_BODY_STEP = 1e-7
#: Estimates longer than this are printed before a run starts.
LONG_RUN = 10.0


def cost_lines(scenario: Scenario) -> list[str]:
    """What a long or large run will cost, before it starts (nothing for a small one)."""
    rows, t_end = toutput_rows(scenario.integration.TOutput)
    n = len(scenario.bodies)
    bodies = f"{n} bod{'y' if n == 1 else 'ies'}"
    lines = []
    megabytes = rows * n * 240 / 1e6  # states and the CSV table, per body-row
    if megabytes > 100:
        lines.append(f"{rows:,} output rows × {bodies}: about {megabytes:,.0f} MB of memory")
    if scenario.integration.method in ("euler", "rk4", "geometric"):
        steps = math.ceil(t_end / scenario.integration.stepsize)
        per_step = SECONDS_PER_BODY_STEP * (6 if scenario.integration.method == "geometric" else 1)
        seconds = steps * n * per_step
        if seconds > LONG_RUN:
            lines.append(
                f"{steps:.3g} steps × {bodies}: roughly {seconds / 60:.1f} minutes "
                "(Ctrl-C stops it; no file is written then)"
            )
    return lines


def run_scenario(
    scenario: Scenario,
    *,
    t_end: float | None = None,
    progress: ProgressCallback | None = None,
    estimate_error: bool = False,
) -> RunResult:
    """Integrate `scenario` from t = 0 and return the states at its output times.

    `t_end` (s) drops the output times after it (for quick checks of long
    examples). Raises ValueError if no output time is left and
    dynamics.IntegrationError if the integration cannot go on. `estimate_error` (dopri5,
    radau): run again at AbsTol/10 and RelTol/10 and report the largest difference as
    the global error's estimate (`RunResult.error_estimate`, in the summary); it costs
    that second run, and is ValueError for the other methods.
    """
    adaptive = scenario.integration.method in ("dopri5", "radau")
    if estimate_error and not adaptive:
        raise ValueError(
            "estimate_error: for the adaptive methods dopri5 and radau (a fixed-step run's "
            "error is estimated by halving the step: run it again at step/2)"
        )
    times = scenario.integration.output_times()
    if t_end is not None:
        times = times[times <= t_end]
        if times.size == 0:
            raise ValueError(f"no output time at or before t_end = {t_end:g} s")
    # The run always starts at t = 0, even when the first output time is later.
    grid = times if times[0] == 0.0 else np.concatenate([[0.0], times])
    start = time.perf_counter()
    bodies = scenario.batch()
    states, stats = integrate(
        bodies,
        scenario.initial_states(),
        scenario.inputs(),
        grid,
        scenario.integration.settings(),
        progress,
        scenario.system(bodies),
    )
    wall = time.perf_counter() - start
    estimate = None
    if estimate_error:
        fine = scenario.integration.settings()
        fine = replace(fine, abstol=fine.abstol / 10.0, reltol=fine.reltol / 10.0)
        ref, _ = integrate(bodies, scenario.initial_states(), scenario.inputs(), grid, fine,
                           None, scenario.system(bodies))  # fmt: skip
        estimate = float(np.max(np.abs(states - ref)))
    if grid is not times:
        states = states[1:]
    return RunResult(scenario, times, states, stats, wall, estimate)
