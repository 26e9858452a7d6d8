"""geometric and exact in a live simulation (simulation/free_engine.py) and as a ghost."""

from __future__ import annotations

import numpy as np
import pytest
from support.driving import ghost_ticks as ticks
from support.driving import racket

import sixdof
from sixdof.fields import FieldError
from sixdof.simulation import live_limits
from sixdof.simulation.ghost import Ghost


def test_live_geometric_is_the_headless_run_bit_for_bit() -> None:
    sim, clock = racket()
    sim.set_params(integrator="geometric", step=0.005)
    ticks(sim, None, clock, 120)  # paced rounds of varying size
    t = sim.t
    assert sim.status()["integrator"] == "geometric" and t == pytest.approx(2.0)
    run = sixdof.run("tennis_racket", integrator="geometric", step=0.005, output_times=[0, t])
    assert np.array_equal(sim.state_array(), run.states[-1])
    assert "geometric" in live_limits()["integrators"]  # type: ignore[operator]


def test_live_exact_follows_the_closed_form_and_pauses_when_pushed() -> None:
    sim, clock = racket()
    sim.set_params(integrator="exact")
    ticks(sim, None, clock, 300)
    exact = sixdof.run("tennis_racket", integrator="exact", output_times=[0, sim.t])
    assert np.abs(sim.state_array() - exact.states[-1]).max() < 1e-11  # pieces: rounding only
    sim.set_input(None, [0, 0, 0], [0, 0, 0.5])  # a moment: no longer torque-free
    ticks(sim, None, clock, 2)
    assert not sim.running and "torque-free" in str(sim.status()["paused_reason"])


def test_the_exact_ghost_shows_the_live_integrators_own_error() -> None:
    """Ghost exact beside live RK4 at 1 ms: the distance is RK4's error (1e-9 over 20 s in
    the issue), and it grows when the live step is coarser (fourth order: ×16 per doubling
    at most, well above rounding)."""
    sim, clock = racket()
    ticks(sim, None, clock, 30)
    ghost = Ghost(sim, {"integrator": "exact"})
    assert ghost.sim.integrator == "exact"
    ticks(sim, ghost, clock, 240)  # to t = 4.5 s: into the first flip
    fine = ghost.frame(sim.frame()["bodies"])["diff"][0]["angle"]
    assert 1e-13 < fine < 1e-7
    sim2, clock2 = racket()
    sim2.set_params(step=0.01)
    ticks(sim2, None, clock2, 30)
    ghost2 = Ghost(sim2, {"integrator": "exact"})
    ticks(sim2, ghost2, clock2, 240)
    coarse = ghost2.frame(sim2.frame()["bodies"])["diff"][0]["angle"]
    assert coarse > 100 * fine


def test_free_methods_refuse_what_they_cannot_step() -> None:
    sim, _ = racket()
    sim.set_params(integrator="geometric")
    sim.set_params("T", model="fhsim")
    sim.step(10)
    assert "fhsim" in str(sim.status()["paused_reason"])
    with pytest.raises(FieldError):
        sim.set_params(integrator="dopri5")


def test_a_geometric_room_replays_bit_for_bit() -> None:
    """Pushed, dragged and retuned at live tick times: the recording re-simulates onto every
    keyframe exactly (resimulate warns otherwise, an error here) and gives the history."""
    import json

    from sixdof.simulation.resimulation import Mismatch, last_run_table, resimulate

    sim, clock = racket(history_seconds=600)
    sim.set_params(integrator="geometric", step=0.002)
    body = sim.names[0]
    ticks(sim, None, clock, 30)
    sim.set_input(body, [0, 1, 0], [0, 0, 0.2])
    ticks(sim, None, clock, 30)
    for k in range(10):  # a drag: a damped spring toward a moving target
        spring = {"target": [0.5, 0.02 * k, -1], "stiffness": 20, "damping": 2, "max_force": 50}
        sim.set_input(body, channel="push", point=[0.1, 0, 0], spring=spring)
        ticks(sim, None, clock, 1)
    sim.set_input(body, channel="push")
    sim.set_params(body, Mass=2.5)
    ticks(sim, None, clock, 700)  # past a periodic keyframe
    data = json.loads(json.dumps(sim.recording.to_json()))
    assert any(s["keyframe"]["origin"] == "periodic" for s in data["segments"][1:])
    found: list[Mismatch] = []
    resimulate(data, found)
    assert found == []
    _, table = last_run_table(data)
    assert np.array_equal(table, sim.history.table())
