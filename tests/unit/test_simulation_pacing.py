"""Real-time pacing of the live simulation, driven by a fake clock (no sleeps)."""

import math

import pytest
from support.fakes import FakeClock

from sixdof.fields import FieldError
from sixdof.scenario import BodySpec, Integration, Scenario
from sixdof.simulation import LiveSimulation, Pacer


def make_sim(clock: FakeClock, step: float = 0.01, **kw: object) -> LiveSimulation:
    scenario = Scenario(
        bodies=[BodySpec(Name="B", Gravity=0.0, LocalVel=(1.0, 0.0, 0.0))],
        integration=Integration(method="rk4", stepsize=step),
    )
    return LiveSimulation(scenario, clock=clock, **kw)


@pytest.mark.parametrize(("scale", "step"), [(0.01, 1e-3), (0.25, 0.01), (1.0, 0.01), (4.0, 0.01)])
def test_simulated_time_follows_wall_clock_times_scale(scale: float, step: float) -> None:
    clock = FakeClock()
    sim = make_sim(clock, step)
    sim.set_time_scale(scale)
    for _ in range(60):
        clock.t += 1.0 / 60.0
        sim.advance()
    assert abs(sim.t - scale * 1.0) <= step
    assert sim.overruns == 0
    # the body moves at 1 m/s along x: its position says the same simulated time
    assert sim.frame()["bodies"][0]["Pos"][0] == pytest.approx(sim.t, rel=1e-9)
    assert sim.rtf == pytest.approx(1.0, abs=step / scale + 1e-9)


def test_budget_keeps_rounding_remainders() -> None:
    # 1000 advances of 1 ms at h = 1 ms must take exactly 1000 steps, and 3000
    # advances of 1/3 ms must take 1000 too: the budget carries the remainder.
    clock = FakeClock()
    pacer = Pacer(clock)
    steps = 0
    for _ in range(1000):
        clock.t += 1e-3
        n = pacer.plan(clock.t, 1e-3)
        pacer.done(n, n, 1e-3, cut_short=False)
        steps += n
    assert steps == 1000
    steps = 0
    for _ in range(3000):
        clock.t += 1e-3 / 3.0
        n = pacer.plan(clock.t, 1e-3)
        pacer.done(n, n, 1e-3, cut_short=False)
        steps += n
    assert steps in (999, 1000)
    assert pacer.overruns == 0


def test_lag_within_max_catch_up_is_caught_up() -> None:
    clock = FakeClock()
    sim = make_sim(clock, max_catch_up=0.1)
    clock.t += 0.08  # a hiccup shorter than the bound
    taken = sim.advance()
    assert taken == 8
    assert sim.t == pytest.approx(0.08, abs=1e-12)
    assert sim.overruns == 0


def test_lag_beyond_max_catch_up_is_dropped_and_counted() -> None:
    clock = FakeClock()
    sim = make_sim(clock, max_catch_up=0.1)
    clock.t += 0.5
    sim.advance()
    assert abs(sim.t - 0.1) <= 0.01  # caught up by 0.1 s of wall time only
    assert sim.overruns == 1
    assert sim.dropped_time == pytest.approx(0.4, abs=1e-12)
    for _ in range(12):  # back to normal frames: no new overruns, nothing owed
        clock.t += 0.05
        sim.advance()
    assert sim.overruns == 1
    assert abs(sim.t - (0.1 + 0.6)) <= 0.01
    # rtf over the last second: 0.7 s simulated for 1.1 s of wall time, minus the
    # window's cut; it must say the run fell behind
    assert sim.rtf < 0.95
    for _ in range(25):
        clock.t += 0.05
        sim.advance()
    assert sim.rtf == pytest.approx(1.0, abs=0.02)  # the window has forgotten the lag


def test_compute_beyond_max_compute_is_dropped_and_not_owed() -> None:
    clock = FakeClock()
    sim = make_sim(clock, step=1e-3, max_catch_up=0.1, max_compute=0.05)
    start = clock.t
    clock.tick = 0.03  # every read of the clock costs 30 ms of "computing"
    taken = sim.advance(now=start + 0.1)  # owes 100 steps
    assert 0 < taken < 100
    assert sim.overruns == 1
    assert sim.t == pytest.approx(taken * 1e-3, abs=1e-12)
    assert sim.dropped_time == pytest.approx((100 - taken) * 1e-3, abs=1e-12)
    clock.tick = 0.0
    assert sim.advance(now=start + 0.11) == 10  # only the new 10 ms, no leftover debt
    assert sim.overruns == 1


def test_paused_advance_takes_no_steps_and_resume_owes_nothing() -> None:
    clock = FakeClock()
    sim = make_sim(clock)
    for _ in range(4):
        clock.t += 0.05
        sim.advance()
    sim.pause()
    t_paused = sim.t
    clock.t += 1.0
    assert sim.advance() == 0
    assert sim.t == t_paused
    assert sim.rtf == 0.0
    assert sim.frame()["status"]["running"] is False
    clock.t += 5.0  # no advance calls at all while paused
    sim.resume()
    for _ in range(10):
        clock.t += 0.05
        sim.advance()
    assert sim.t == pytest.approx(t_paused + 0.5, abs=0.01)
    assert sim.overruns == 0


@pytest.mark.parametrize("scale", [0.01, 100.0, 1.0])
def test_time_scale_limits_accept(scale: float) -> None:
    sim = make_sim(FakeClock())
    sim.set_time_scale(scale)
    assert sim.time_scale == scale
    assert sim.frame()["status"]["time_scale"] == scale


@pytest.mark.parametrize(
    ("value", "code"),
    [
        (0.0099, "out_of_range"),
        (100.5, "out_of_range"),
        (0.0, "out_of_range"),
        (-1.0, "out_of_range"),
        (math.nan, "invalid"),
        (math.inf, "invalid"),
        ("2", "invalid"),
        (True, "invalid"),
    ],
)
def test_time_scale_limits_refuse(value: object, code: str) -> None:
    sim = make_sim(FakeClock())
    sim.set_time_scale(2.0)
    with pytest.raises(FieldError) as err:
        sim.set_time_scale(value)  # type: ignore[arg-type]
    assert err.value.field == "time_scale"
    assert err.value.code == code
    assert err.value.message.startswith("time_scale: ")
    if code == "out_of_range":
        assert "[0.01, 100]" in err.value.message
    assert sim.time_scale == 2.0
