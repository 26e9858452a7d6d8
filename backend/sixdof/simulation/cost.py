"""What a world costs, known before it runs: the computing seconds of one step and of building
its elements, from the scenario's counts (bodies, triangles, waves, stages).

A room's tick can stop between steps but not inside one (a compiled call), so the one
thing that must be bounded before a world runs is its step: a scenario, elements or water
whose one step is estimated over MAX_STEP_SECONDS is refused, naming the counts that make
it so. Everything else is bounded while it runs: a room that owes more steps than its share
of a tick runs slower (`compute_limited`). Building a world (a buoyancy element's hull
tables, its hull tree) is charged to the client's budget up front by `change_seconds`.

The coefficients are upper bounds measured on the two-core development machine (see
benchmarks/bench_cost.py, which prints estimate against measured for each case): an
estimate that is too high refuses early, one too low would let a step through that holds a
tick, so they err high.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from ..fields import FieldError
from ..scenario import Scenario
from ..scenario.elements import hull_triangles
from ..scenario.water import WaterSpec

if TYPE_CHECKING:
    from threading import RLock

    from .recording import Recording

#: The most one step of a room may be estimated to cost, s: a tick (its share is
#: settings.tick_share, 8 ms by default) can stop only between steps.
MAX_STEP_SECONDS = 0.004

#: Derivative evaluations per step of each live method.
STAGES = {"euler": 1, "rk4": 4, "geometric": 2, "exact": 1}

#: Seconds per derivative evaluation: a body; an element other than buoyancy; a buoyancy
#: element's triangle in still water (an upper bound: its hull tree clips only the
#: waterline's); and per vertex and wave component in waves (each vertex's pressure sums
#: every wave), plus per triangle clipped.
BODY = 2e-7
ELEMENT = 2e-7
#: Seconds per multiply-add of an element's own linear system at each stage (a radiation
#: memory's, a linear_system controller's): n (n + 12) for n states.
STATE_WORK = 1e-9
#: Seconds per derivative evaluation per segment of a cable (its nodes' forces: ~0.5 µs a
#: segment measured, a 20-segment line 10 µs a stage; tests/unit/test_cable.py's runs).
CABLE_SEGMENT = 6e-7
TRIANGLE = 6e-8
VERTEX_WAVE = 6e-8
#: Seconds a look back spends per recorded frame it re-runs (the frame's history row, its
#: events, the pacing of its steps: 0.41-0.95 ms measured for 1-8 bodies, benchmarks/
#: bench_cost.py; the timing tier's 7 s look back took 1.14 ms a frame with its steps on a
#: quiet machine, 1.4 % over an estimate at 1 ms), and to start one (its keyframe's world
#: built, 2-5 ms).
REPLAY_FRAME = 1.2e-3
REPLAY_START = 5e-3
#: Seconds to build one buoyancy element's tables, per triangle; and its hull tree, per
#: triangle (still water only: in waves the pressure is not linear and no tree is built).
BUILD_TRIANGLE = 3e-6
TREE_TRIANGLE = 1.8e-5


def _buoyancy_counts(scenario: Scenario) -> list[int]:
    """The triangles of each buoyancy element's hull."""
    bodies = {b.Name: b for b in scenario.bodies}
    return [
        len(hull_triangles(bodies[e.body]))
        for e in scenario.elements
        if e.kind == "buoyancy" and e.body in bodies
    ]


def _state_counts(scenario: Scenario) -> list[int]:
    """The states of each element that carries a linear system of its own."""
    counts = []
    for e in scenario.elements:
        fit = getattr(e, "fit", None)
        matrix = fit.A if fit is not None else getattr(e, "A", None)
        if matrix:
            counts.append(len(matrix))
    return counts


def _waves(water: WaterSpec | None) -> int:
    return 0 if water is None else len(water.waves)


def step_seconds(scenario: Scenario, method: str | None = None) -> float:
    """The estimated computing seconds of one step of `scenario` (with `method`, default its
    own integrator)."""
    stages = STAGES.get(method or scenario.integration.method, 4)
    waves = _waves(scenario.water)
    per_stage = BODY * len(scenario.bodies)
    hulls = _buoyancy_counts(scenario)
    per_stage += ELEMENT * (len(scenario.elements) - len(hulls))
    per_stage += STATE_WORK * sum(n * (n + 12) for n in _state_counts(scenario))
    per_stage += CABLE_SEGMENT * sum(
        getattr(e, "segments", 0) for e in scenario.elements if e.kind == "cable"
    )
    for triangles in hulls:
        # a closed mesh has about half as many vertices as triangles
        per_stage += TRIANGLE * triangles + VERTEX_WAVE * waves * (triangles / 2 + 1)
    return stages * per_stage


def build_seconds(scenario: Scenario) -> float:
    """The estimated computing seconds of building `scenario`'s world (its hulls' tables)."""
    per_triangle = BUILD_TRIANGLE + (TREE_TRIANGLE if _waves(scenario.water) == 0 else 0.0)
    return per_triangle * sum(_buoyancy_counts(scenario))


def check_step(scenario: Scenario, field: str, method: str | None = None) -> float:
    """`step_seconds`, or FieldError naming `field` when it is over MAX_STEP_SECONDS."""
    seconds = step_seconds(scenario, method)
    if seconds > MAX_STEP_SECONDS:
        hulls = _buoyancy_counts(scenario)
        raise FieldError(
            field,
            "out_of_range",
            f"{field}: one step of this world would cost about {seconds * 1e3:.3g} ms of "
            f"computing ({len(scenario.bodies)} bodies, {len(hulls)} floating hulls of "
            f"{sum(hulls)} triangles, {_waves(scenario.water)} waves, "
            f"{STAGES.get(method or scenario.integration.method, 4)} stages a step); the most a "
            f"room "
            f"may cost is {MAX_STEP_SECONDS * 1e3:g} ms a step: fewer floating bodies or waves, "
            "or a simpler mesh",
        )
    return seconds


#: The field a refusal names, by the message that changes the world.
FIELDS = {"load_scenario": "scenario", "set_elements": "elements", "set_water": "water"}


def change_seconds(kind: str, scenario: Scenario | None, method: str | None = None) -> float:
    """The computing seconds a message of type `kind` that makes the world of `scenario`
    (None: it builds nothing) is estimated to cost before it runs: building that world;
    FieldError naming the message's field when the world would cost more than
    MAX_STEP_SECONDS a step (with `method`, a live room's integrator)."""
    if scenario is None:
        return 0.0
    check_step(scenario, FIELDS.get(kind, kind), method)
    return build_seconds(scenario)


def counts(scenario: Scenario) -> Sequence[int]:
    """Bodies, buoyancy hulls, their triangles, waves (for messages and benchmarks)."""
    hulls = _buoyancy_counts(scenario)
    return len(scenario.bodies), len(hulls), sum(hulls), _waves(scenario.water)


class Recorded(Protocol):
    """What a look back's estimate reads of a live simulation (simulation/live.py)."""

    lock: RLock
    frame_rate: float

    @property
    def recording(self) -> Recording | None: ...
    @property
    def t(self) -> float: ...
    @property
    def step_size(self) -> float: ...
    def step_estimate(self) -> float: ...


def lookback_seconds(sim: Recorded, t: float) -> float:
    """The estimated computing seconds of looking back at simulated time `t` of `sim`'s
    recording (a past frame, `go_back`): re-running from the keyframe before `t` to `t`, its
    steps at the world's step estimate and its frames at REPLAY_FRAME each, plus building the
    keyframe's world (recording.KEYFRAME_BODY_STEPS keeps a segment short). 0 when `t` is
    not in the recording: the look back itself says why."""
    with sim.lock:
        rec = sim.recording
        index = None if rec is None else rec.index_at(t)
        if rec is None or index is None:
            return 0.0
        span = max(min(t, sim.t) - rec.segments[index].t, 0.0)
        steps = span / sim.step_size + 1.0
        frames = span * sim.frame_rate + 1.0
        return REPLAY_START + frames * REPLAY_FRAME + steps * sim.step_estimate()
