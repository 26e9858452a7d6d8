"""Elements in a live simulation: they step with the engine, change live all or nothing,
are recorded and replayed, and show in the state frame."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy.special import ellipk

from sixdof.dynamics import quaternion as quat
from sixdof.fields import FieldError
from sixdof.simulation import LiveSimulation
from sixdof.simulation.engine import Engine

MASS, RADII, D, THETA0 = 2.0, (0.25, 0.2, 0.3), 0.5, 1.0


def pendulum(**extra: object) -> dict:
    """A compound pendulum: held 0.5 m above its CG, released at 1 rad about body x."""
    return {
        "name": "pendulum",
        "bodies": [
            {
                "Name": "P",
                "Mass": MASS,
                "InertiaRadi": list(RADII),
                "Quater": [math.cos(THETA0 / 2), math.sin(THETA0 / 2), 0.0, 0.0],
            }
        ],
        "elements": [{"kind": "pivot", "body": "P", "point": [0.0, 0.0, -D]}],
        **extra,
    }


def period_exact() -> float:
    i_o = MASS * (RADII[0] ** 2 + D * D)
    return 4 * ellipk(math.sin(THETA0 / 2) ** 2) * math.sqrt(i_o / (MASS * 9.81 * D))


def swing_period(times: np.ndarray, roll_rate: np.ndarray) -> float:
    """Twice the mean interval between sign changes of the roll rate (linear in between)."""
    s = np.flatnonzero(np.diff(np.sign(roll_rate)) != 0)
    zero = times[s] - roll_rate[s] * (times[s + 1] - times[s]) / (roll_rate[s + 1] - roll_rate[s])
    return float(2 * np.mean(np.diff(zero)))


def run_frames(sim: LiveSimulation, seconds: float, every: int = 1) -> tuple[np.ndarray, ...]:
    times, rates, frames = [], [], []
    for _ in range(round(seconds / sim.step_size / every)):
        sim.step(every)
        frame = sim.frame()
        times.append(frame["t"])
        rates.append(frame["bodies"][0]["AngVel"][0])
        frames.append(frame)
    return np.array(times), np.array(rates), frames


def test_a_live_pendulum_swings_with_the_closed_form_period_and_its_pivot_stays() -> None:
    sim = LiveSimulation(pendulum(), running=False)
    times, rates, frames = run_frames(sim, 3.2, every=5)
    assert swing_period(times, rates) == pytest.approx(period_exact(), rel=1e-5)
    held = np.array(frames[0]["elements"][0]["point"])
    for frame in frames:
        body = frame["bodies"][0]
        q = np.array(body["Quater"])
        point = np.array(body["Pos"]) + quat.to_rotmat(q / np.linalg.norm(q)) @ [0, 0, -D]
        assert np.abs(point - held).max() < 1e-9
    # the pivot's reaction at rest-free swing: vertical force balance at the bottom is
    # m g + m ω² d (upward, NED z < 0), checked where the roll angle crosses zero
    bottom = int(np.argmax(np.abs(rates)))
    w = rates[bottom]
    force = frames[bottom]["elements"][0]["force"]
    assert force[2] == pytest.approx(-(MASS * 9.81 + MASS * w * w * D), rel=1e-3)


def test_adding_a_spring_live_shortens_the_period_and_a_refusal_changes_nothing() -> None:
    sim = LiveSimulation(pendulum(), running=False)
    t0, r0, _ = run_frames(sim, 3.2, every=5)
    free = swing_period(t0, r0)
    before = sim.state_array()
    with pytest.raises(FieldError) as err:
        sim.set_elements([{"kind": "spring", "body": "P", "stiffness": -5}])
    assert err.value.field.endswith("stiffness") and "[0, 1e+09]" in err.value.message
    with pytest.raises(FieldError) as err:
        sim.set_elements([{"kind": "spring", "body": "Q", "stiffness": 5}])
    assert err.value.code == "unknown_body"
    assert np.array_equal(sim.state_array(), before)
    assert len(sim.scenario.elements) == 1
    version = sim.version
    sim.reset()
    sim.set_elements([
        *(e.model_dump() for e in sim.scenario.elements),
        {"kind": "spring", "body": "P", "point": [0.0, 0.0, 0.0], "to": [0.0, 0.0, 0.0],
         "stiffness": 40.0},
    ])  # fmt: skip
    assert sim.version > version
    t1, r1, frames = run_frames(sim, 3.2, every=5)
    stiff = swing_period(t1, r1)
    assert stiff < 0.9 * free
    assert len(frames[-1]["elements"]) == 2


def test_elements_are_recorded_and_replayed_bit_for_bit() -> None:
    from sixdof.simulation.resimulation import resimulate

    sim = LiveSimulation(pendulum(), running=False, recording_bytes=8 << 20, history_seconds=600)
    sim.step(300)
    sim.set_elements([
        {"kind": "pivot", "body": "P", "point": [0.0, 0.0, -D]},
        {"kind": "damper", "body": "P", "linear": [0, 0, 0, 0.3, 0.3, 0.3]},
    ])  # fmt: skip
    sim.step(700)
    assert sim.recording is not None
    runs = resimulate(json.loads(json.dumps(sim.recording.to_json())))
    assert np.array_equal(runs[-1].table, sim.history.table())


def test_rooms_with_elements_step_in_one_engine_with_the_same_bits_as_alone() -> None:
    from support.fakes import FakeClock

    scenarios = [
        pendulum(),
        {"bodies": [{"Name": "F", "AngVel": [0.3, 2.0, 0.1]}]},
        {
            "bodies": [{"Name": "A", "Pos": [0, 0, 0]}, {"Name": "B", "Pos": [0, 1.5, 0],
                                                        "Mass": 3.0}],
            "elements": [
                {"kind": "spring", "body": "A", "to": {"body": "B"}, "stiffness": 30.0,
                 "rest_length": 1.0},
                {"kind": "load", "body": "A", "force": [0, 2, 0], "signal": "sine",
                 "frequency": 0.7},
            ],
        },
    ]  # fmt: skip
    clock = FakeClock()
    alone = [LiveSimulation(s, clock=clock) for s in scenarios]
    held = [LiveSimulation(s, clock=clock) for s in scenarios]
    engine = Engine(clock=clock, sims=held)
    for _ in range(40):
        clock.t += 1 / 60
        for sim in alone:
            sim.advance(clock.t)
        assert engine.advance(clock.t) == {}
    for a, b in zip(alone, held, strict=True):
        assert a.t == b.t and a.t > 0.6
        assert np.array_equal(a.state_array(), b.state_array())
        assert a.frame() == b.frame()
    # the spring's forces are equal and opposite: the pair's momentum is the sine load's
    # impulse ∫ 2 sin(2π f t) dt along y, and stays zero along x
    x = held[2].state_array()
    outs = held[2].outputs()
    impulse_y = 2.0 * (1 - math.cos(2 * math.pi * 0.7 * held[2].t)) / (2 * math.pi * 0.7)
    assert outs["LinearMomentum"][:, 1].sum() == pytest.approx(impulse_y, abs=1e-9)
    assert outs["LinearMomentum"][:, 0].sum() == pytest.approx(0.0, abs=1e-9)
    assert np.all(np.isfinite(x))
