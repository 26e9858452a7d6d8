"""The Engine: many live simulations in one compiled call, bit-identical to each alone.

Every test drives two copies of the same simulations with the same fake clock: one set
through `sim.advance(now)` (each its own engine of one), one through one shared
`engine.advance(now)`, and compares states, time, frames and history exactly (the kernel
is deterministic, so equal means equal bits).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from support.fakes import FakeClock
from support.paths import TESTS

from sixdof.scenario import BodySpec, Integration, Scenario
from sixdof.simulation import Engine, LiveSimulation


def scenario(i: int) -> Scenario:
    """Rooms that differ in step, method, mass, CG offset, gravity and body count."""
    bodies = [
        BodySpec(
            Name="A",
            Mass=1.0 + i,
            CGOffset=(0.02 * (i % 3), 0.0, -0.01 * (i % 2)),
            LocalVel=(1.0, 0.2 * i, 0.0),
            AngVel=(0.3, 2.0 - 0.1 * i, 0.5),
            Force=(0.0, 0.5 * i, 0.0),
        )
    ]
    if i % 2:
        bodies.append(BodySpec(Name="B", Mass=2.0, Gravity=0.0, AngVel=(0.0, 0.0, 1.0)))
    method = "euler" if i % 3 == 0 else "rk4"
    return Scenario(
        bodies=bodies, integration=Integration(method=method, stepsize=1e-3 * (1 + i % 3))
    )


def pair(n: int) -> tuple[FakeClock, list[LiveSimulation], list[LiveSimulation], Engine]:
    """n simulations stepped alone and n copies held by a engine, on one clock."""
    clock = FakeClock()
    alone = [LiveSimulation(scenario(i), clock=clock) for i in range(n)]
    held = [LiveSimulation(scenario(i), clock=clock) for i in range(n)]
    engine = Engine(clock=clock)
    for sim in held:
        engine.add(sim)
    return clock, alone, held, engine


def tick(clock: FakeClock, alone: list[LiveSimulation], engine: Engine, dt: float) -> None:
    clock.t += dt
    now = clock.t
    for sim in alone:
        sim.advance(now)
    assert engine.advance(now) == {}


def assert_same(alone: list[LiveSimulation], held: list[LiveSimulation]) -> None:
    for a, b in zip(alone, held, strict=True):
        assert np.array_equal(a.state_array(), b.state_array())
        assert a.t == b.t
        assert (a.running, a.paused_reason, a.overruns) == (b.running, b.paused_reason, b.overruns)
        assert a.frame() == b.frame()  # outputs of the shared call, sliced, equal to its own
        assert a.history.csv() == b.history.csv()


def test_engine_matches_each_simulation_stepped_alone_bit_for_bit() -> None:
    clock, alone, held, engine = pair(6)
    for sims in (alone, held):
        sims[2].set_time_scale(5.0)  # 5 × 16.7 ms per tick: more steps than one chunk of 32
        sims[4].set_time_scale(0.3)
        sims[3].pause()
    for _ in range(40):
        tick(clock, alone, engine, 1 / 60)
    assert engine.last_stepped == 5  # every running simulation, in one shared call
    tick(clock, alone, engine, 0.09)  # a late tick: catch-up of several chunks in one advance
    assert_same(alone, held)
    assert held[0].t > 0.6 and held[3].t == 0.0  # it ran; the paused one did not step
    # per-room pacing: simulated time = time scale × wall time (to within one step)
    wall = 40 / 60 + 0.09
    for sim, scale in ((held[1], 1.0), (held[2], 5.0), (held[4], 0.3)):
        assert abs(sim.t - scale * wall) <= sim.step_size + 1e-12


def test_changes_between_ticks_rebuild_the_batch_and_stay_identical() -> None:
    clock, alone, held, engine = pair(4)
    for _ in range(10):
        tick(clock, alone, engine, 1 / 60)
    first = engine.batch
    assert first is not None and len(first.pk) == 6  # 1 + 2 + 1 + 2 bodies
    for sims in (alone, held):
        sims[1].set_params("A", Mass=7.5, CGOffset=(0.1, 0.0, 0.0))
        sims[2].set_params(step=5e-4, integrator="euler")
        sims[3].load(scenario(2))  # 2 bodies → 1
        sims[0].set_input("A", (1.0, 2.0, 3.0), (0.1, 0.0, 0.0))
        sims[0].reset()
    for _ in range(15):
        tick(clock, alone, engine, 1 / 60)
    assert_same(alone, held)
    batch = engine.batch
    assert batch is not None and batch is not first and len(batch.pk) == 5
    assert batch.pk.params[1, 0] == 7.5  # the new mass is in the packed rows
    assert batch.h_rows[3] == 5e-4 and batch.code_rows[3] == 0


def test_a_diverging_room_pauses_alone_at_its_last_good_state() -> None:
    clock, alone, held, engine = pair(3)
    for sims in (alone, held):
        sims[1].set_params("A", Mass=1e-6, Gravity=0.0)
        sims[1].set_input("A", (0.5, 0.0, 0.0))  # 5e5 m/s²: |LocalVel| > 1e5 m/s at ~0.2 s
    for _ in range(30):
        tick(clock, alone, engine, 1 / 60)
    assert_same(alone, held)
    bad = held[1]
    assert not bad.running and bad.paused_reason.startswith("diverged: body 'A'")
    assert 0.15 < bad.t < 0.25  # it ran until it diverged, then stopped
    assert np.all(np.isfinite(bad.state_array()))  # the last good state, not the blown-up one
    assert held[0].running and held[2].running and held[0].t == pytest.approx(0.5, abs=2e-3)


def test_orientation_dependent_inputs_step_in_the_shared_call() -> None:
    """A body-frame force at a point is evaluated inside the kernel, so it batches too."""
    clock, alone, held, engine = pair(3)
    for sims in (alone, held):
        sims[0].set_input("A", (0.0, 0.0, -5.0), frame="body", point=(0.2, 0.0, 0.0))
    for _ in range(12):
        tick(clock, alone, engine, 1 / 60)
    assert engine.last_stepped == 3
    assert_same(alone, held)
    assert np.any(held[0].state_array()[0, 10:13] != alone[1].state_array()[0, 10:13])


def test_an_exception_is_returned_for_its_simulation_only() -> None:
    clock, _, held, engine = pair(3)

    def broken(now: float) -> int:
        raise RuntimeError("physics on fire")

    held[1].owed = broken  # type: ignore[method-assign]  # a fault in one simulation's pacing
    clock.t += 0.1
    errors = engine.advance(clock.t)
    assert list(errors) == [held[1]] and "on fire" in str(errors[held[1]])
    assert held[0].t > 0.09 and held[2].t > 0.09


def test_the_compute_deadline_cuts_a_long_catch_up_and_counts_an_overrun() -> None:
    clock = FakeClock(tick=1e-3)  # every clock read costs 1 ms of "computing"
    sim = LiveSimulation(scenario(1), clock=clock, max_catch_up=1.0, max_compute=5e-3)
    sim.set_time_scale(10.0)
    engine = Engine(clock=clock)
    engine.add(sim)
    clock.t += 0.5  # owes 5 s of simulated time: 2500 steps of 2 ms
    engine.advance(clock.t)
    assert sim.overruns == 1
    # rounds of 32, 64, … steps, one clock read (1 ms) each: cut after a few rounds
    assert 0.0 < sim.t < 2.5
    # what was owed: 5 s, plus 10 × the few ms of clock reads since the simulation began
    assert 5.0 <= sim.t + sim.dropped_time < 5.1


FRESH_PROCESS = """
import sys
sys.path[:0] = [{tests!r}, {unit!r}]
from test_simulation_engine import pair, tick
from sixdof.dynamics import kernel_compiled
from sixdof.simulation import warm_up

warm_up()
names = [name for name in dir(kernel_compiled) if name.startswith("_")]
dispatchers = [getattr(kernel_compiled, name) for name in names]
dispatchers = [d for d in dispatchers if hasattr(d, "signatures")]
before = [len(d.signatures) for d in dispatchers]
clock, alone, held, engine = pair(4)
for sims in (alone, held):
    sims[0].set_input("A", (0.0, 1.0, 0.0), frame="body", point=(0.1, 0.0, 0.0))
    sims[1].set_params(integrator="euler", step=1e-4)
    sims[2].set_time_scale(50.0)  # many steps per tick: several rounds
    sims[3].step(500)
for _ in range(5):
    tick(clock, alone, engine, 1 / 60)
after = [len(d.signatures) for d in dispatchers]
print(sum(before), sum(after), [d.__name__ for d, a, b in zip(dispatchers, after, before) if a > b])
"""


def test_nothing_compiles_after_warm_up() -> None:
    """Every compiled signature the live paths use exists after warm_up: no compile mid-frame.

    In a fresh interpreter, so that no earlier test has compiled anything already.
    """
    code = FRESH_PROCESS.format(tests=str(TESTS), unit=str(Path(__file__).parent))
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    n_before, n_after, grown = run.stdout.split(maxsplit=2)
    assert int(n_before) >= 8  # warm_up compiled (or loaded) the kernels and their helpers
    assert (int(n_after), grown.strip()) == (int(n_before), "[]")
