"""Live simulations on a clock moved by hand, driven by every kind of change: what the
recording, replay, ghost and free-method tests share (tests/unit and tests/live alike)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sixdof.scenario import Scenario
from sixdof.scenario.presets import PRESETS
from sixdof.simulation import LiveSimulation

if TYPE_CHECKING:
    from sixdof.simulation.ghost import Ghost


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def ticks(sim: LiveSimulation, clock: Clock, n: int, dt: float = 1 / 60) -> None:
    for _ in range(n):
        clock.t += dt
        sim.advance(clock.t)


def driven(recording_bytes: int = 8 << 20, history_precision: str = "float64") -> LiveSimulation:
    """A tennis racket pushed, dragged, retuned, switched and reset, at live tick times."""
    clock = Clock()
    sim = LiveSimulation(PRESETS["tennis_racket"].scenario(), clock=clock,
                         recording_bytes=recording_bytes, history_seconds=600,
                         history_precision=history_precision)  # fmt: skip
    body = sim.names[0]
    ticks(sim, clock, 30)
    sim.set_input(body, [0, 1, 0], [0, 0, 0.2])  # constant inputs
    ticks(sim, clock, 30)
    for k in range(20):  # a drag: the spring's target moves every frame
        spring = {"target": [0.5, 0.02 * k, -1], "stiffness": 20, "damping": 2, "max_force": 50}
        sim.set_input(body, channel="push", point=[0.1, 0, 0], spring=spring)
        ticks(sim, clock, 1, 0.013)
    sim.set_input(body, channel="push")  # released
    sim.set_params(body, Mass=2.5)
    sim.step(500)
    sim.set_params(step=0.0005)
    ticks(sim, clock, 700)  # past a periodic keyframe
    sim.set_params(body, model="fhsim")
    sim.set_params(integrator="euler")
    sim.set_time_scale(0.5)
    sim.pause()
    sim.step(40)
    sim.resume()
    ticks(sim, clock, 30)
    sim.reset(body, {"AngVel": [0, 3, 0.1]})
    ticks(sim, clock, 30)
    return sim


def racket(**options: object) -> tuple[LiveSimulation, Clock]:
    """The tennis racket live on a clock moved by hand."""
    clock = Clock()
    sim = LiveSimulation(PRESETS["tennis_racket"].scenario(), clock=clock,
                         recording_bytes=8 << 20, **options)  # type: ignore[arg-type]  # fmt: skip
    return sim, clock


def ghost_ticks(sim: LiveSimulation, ghost: Ghost | None, clock: Clock, n: int) -> None:
    """`n` ticks of 1/60 s, the ghost following the room after each."""
    for _ in range(n):
        clock.t += 1 / 60
        sim.advance()
        if ghost is not None:
            ghost.follow()


CROWD = Scenario.model_validate(
    {"name": "crowd", "bodies": [{"Name": f"B{i}", "Pos": [i, 0, 0.1 * i]} for i in range(8)]}
)


def crowd() -> LiveSimulation:
    """Eight bodies pushed, retuned and stepped 7 s: one recorded segment from t = 0."""
    sim = LiveSimulation(CROWD, running=False, recording_bytes=8 << 20)
    sim.set_input("B1", [1.0, 0.0, 0.0], [0.0, 0.0, 0.2])
    sim.step(4000)  # segments of 200,000 / 8 = 25,000 steps: force shorter ones by time
    sim.set_params("B2", Mass=3.0)
    sim.step(3000)
    return sim
