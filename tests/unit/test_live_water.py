"""Water tuned live (issue 28): `set_water` replaces a running room's water all or nothing,
the state running on. A barge in denser water floats higher (draft m/(ρ L B)), waves appear,
a current carries a damped body along at its velocity, a bad value is refused naming its
field with nothing changed, and a recording with set_water re-simulates bit for bit."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest

from sixdof.dynamics import quaternion as quat
from sixdof.dynamics.water import wave_number
from sixdof.fields import FieldError
from sixdof.scenario.presets import PRESETS
from sixdof.simulation import LiveSimulation

_BARGE = PRESETS["floating_box"].scenario().bodies[0]
BARGE_BOX, BARGE_MASS = _BARGE.Size, _BARGE.Mass
BARGE_KG = float(PRESETS["floating_box"].values["kg"])  # its CG above the keel

RHO = 1025.0
G = 9.81
#: Linear damping that settles the barge in a few seconds (ζ ≈ 0.7 in heave, roll, pitch;
#: surge and sway τ = m / c ≈ 0.4 s): the preset alone is undamped and would heave for ever.
DAMPER = {"kind": "damper", "body": "Barge",
          "linear": [2000.0, 2000.0, 6000.0, 700.0, 2000.0, 300.0]}  # fmt: skip


def draft(density: float) -> float:
    """The box barge's draft, m/(ρ L B)."""
    return BARGE_MASS / (density * BARGE_BOX[0] * BARGE_BOX[1])


def pos_z(density: float, level: float = 0.0) -> float:
    """Pos z of the floating barge: its CG is KG above the keel, the keel `draft` below the
    still level (NED, z down)."""
    return level + draft(density) - BARGE_KG


def damped_barge(**water: Any) -> dict[str, Any]:
    """floating_box (heeled 0.1 rad, 5 cm low) with DAMPER, in water of `water`'s fields."""
    sc = PRESETS["floating_box"].scenario().model_dump(mode="json")
    sc["elements"].append(DAMPER)
    sc["water"] = {**sc["water"], **water}
    return sc


def run(sim: LiveSimulation, seconds: float) -> None:
    sim.step(round(seconds / sim.step_size))


def first_body(sim: LiveSimulation) -> dict[str, Any]:
    """The first body's entry of the state frame."""
    bodies: list[dict[str, Any]] = sim.frame()["bodies"]  # type: ignore[assignment]
    return bodies[0]


def velocity(sim: LiveSimulation) -> np.ndarray:
    x = sim.state_array()[0]
    return quat.to_rotmat(x[3:7] / np.linalg.norm(x[3:7])) @ x[7:10]


def test_denser_water_floats_the_barge_higher_and_the_state_runs_on() -> None:
    sim = LiveSimulation(damped_barge(), running=False)
    run(sim, 8.0)
    salt = sim.state_array()[0]
    assert abs(salt[2] - pos_z(RHO)) < 1e-3  # measured 1e-14 m
    t, version = sim.t, sim.version
    sim.set_water({"density": 1000.0})
    assert sim.t == t and np.array_equal(sim.state_array()[0], salt)  # kept, not restarted
    assert sim.version > version
    assert sim.scenario.water is not None and sim.scenario.water.density == 1000.0
    run(sim, 8.0)
    fresh = sim.state_array()[0]
    assert abs(fresh[2] - pos_z(1000.0)) < 1e-3  # measured 1e-14 m
    assert fresh[2] - salt[2] == pytest.approx(draft(1000.0) - draft(RHO), abs=1e-6)  # 10 mm
    # the water level moves the barge with it
    sim.set_water({"density": 1000.0, "level": -0.5})
    run(sim, 8.0)
    assert abs(sim.state_array()[0, 2] - pos_z(1000.0, -0.5)) < 1e-3


def test_waves_appear_at_the_body_with_the_airy_elevation() -> None:
    sim = LiveSimulation(damped_barge(), running=False)
    run(sim, 6.0)
    assert first_body(sim)["WaveElevation"] == 0.0
    still = sim.state_array()[0, 2]
    amplitude, period = 0.1, 3.0
    sim.set_water({"density": RHO, "waves": [{"amplitude": amplitude, "period": period}]})
    omega = 2 * math.pi / period
    k = wave_number(omega, G, None)
    elevations, heave = [], []
    for _ in range(300):  # 6 s, every 20 ms
        sim.step(20)
        body = first_body(sim)
        cg = np.array(body["CGPos"])
        expected = amplitude * math.cos(omega * sim.t - k * cg[0])  # travelling north
        assert body["WaveElevation"] == pytest.approx(expected, abs=1e-9)
        elevations.append(body["WaveElevation"])
        heave.append(body["Pos"][2] - still)
    assert max(elevations) == pytest.approx(amplitude, rel=0.01)
    assert min(elevations) == pytest.approx(-amplitude, rel=0.01)
    assert max(heave) - min(heave) > 0.05  # the barge rides the 3 s wave (measured 0.15 m)


def test_a_current_carries_a_damped_body_along_at_its_velocity() -> None:
    sim = LiveSimulation(damped_barge(), running=False)
    run(sim, 8.0)
    assert np.abs(velocity(sim)).max() < 1e-5  # still water: it settles and stays put
    current = (0.3, -0.2, 0.0)
    sim.set_water({"density": RHO, "current": list(current)})
    run(sim, 10.0)  # 24 τ
    assert np.allclose(velocity(sim), current, atol=1e-5)  # measured 8e-12 m/s
    sim.set_water(None)  # no water: the default still sea, so it stops again
    assert sim.scenario.water is None
    run(sim, 30.0)
    assert np.abs(velocity(sim)).max() < 1e-5


@pytest.mark.parametrize(
    ("water", "field", "words"),
    [
        ({"waves": [{"amplitude": 0.5, "period": 0.0}]}, "water.waves[0].period",
         "water.waves[0].period: must be in [0.1, 1000] s, got 0"),
        ({"waves": [{"amplitude": -1.0}]}, "water.waves[0].amplitude",
         "water.waves[0].amplitude: must be in [0, 100] m, got -1"),
        ({"density": 0.0}, "water.density", "water.density: must be in [1, 20000] kg/m³"),
        ({"current": [0.0, 200.0, 0.0]}, "water.current", "water.current[1]: must be in [-100"),
        ({"current": [0.0, 1.0]}, "water.current", "water.current"),
        ({"depth": 0.0}, "water.depth", "(0, 100000] m"),
        ({"density": 1000.0, "salt": 3}, "water.salt", "unknown field"),
        ("sea", "water", "water: expected an object or null, got str"),
    ],
)  # fmt: skip
def test_bad_water_is_refused_naming_the_field_and_changes_nothing(
    water: Any, field: str, words: str
) -> None:
    sim = LiveSimulation(damped_barge(), running=False)
    run(sim, 0.05)
    before, scenario, version = sim.state_array(), sim.scenario, sim.version
    with pytest.raises(FieldError) as err:
        sim.set_water(water)
    assert err.value.field == field
    assert words in err.value.message
    assert np.array_equal(sim.state_array(), before)
    assert sim.scenario == scenario and sim.version == version
    run(sim, 0.05)  # and it runs on as before


def test_the_message_is_refused_naming_the_field() -> None:
    from sixdof.server.errors import Refusal, parse_client_message
    from sixdof.server.protocol import SetWater

    text = json.dumps({"type": "set_water", "id": 3, "water": {"waves": [{"period": 5000}]}})
    with pytest.raises(Refusal) as err:
        parse_client_message(text)
    reply = json.loads(err.value.text())
    assert reply["field"] == "water.waves[0].period" and reply["id"] == 3
    assert reply["message"] == "water.waves[0].period: must be in [0.1, 1000] s, got 5000"
    msg = parse_client_message('{"type": "set_water", "water": null}')
    assert isinstance(msg, SetWater) and msg.water is None


def test_set_water_in_a_room_without_buoyancy_shows_in_its_hello() -> None:
    from sixdof.server.control import apply
    from sixdof.server.errors import parse_client_message
    from sixdof.server.rooms import Room
    from sixdof.server.settings import Settings

    room = Room("dry", LiveSimulation(PRESETS["hover"].scenario(), running=False), Settings())
    assert json.loads(room.hello(True))["scenario"]["water"] is None
    water = {"density": 1000.0, "current": [0.5, 0.0, 0.0],
             "waves": [{"amplitude": 0.2, "period": 5.0, "direction": 90.0}]}  # fmt: skip
    apply(room, parse_client_message(json.dumps({"type": "set_water", "water": water})))
    hello = json.loads(room.hello(True))
    assert hello["scenario"]["water"] == {**water, "level": 0.0, "depth": None}
    assert hello["limits"]["water"]["amplitude"] == [0.0, 100.0]
    assert hello["limits"]["water"]["density"] == [1.0, 2e4]


def _takes(change: Any, value: float) -> bool:
    """Whether `change(value)` is accepted (a FieldError: refused)."""
    try:
        change(value)
    except FieldError:
        return False
    return True


def test_hello_limits_are_what_the_server_accepts_and_say_which_ends_are_open() -> None:
    """Every end of hello.limits' water, element and step pairs is accepted by the server
    unless limits.exclusive names it, and just beyond an end is refused: depth 0 (the sea
    floor at the surface) is refused, so its pair [0, 1e5] is sent with its low end open;
    density 1, a wave of amplitude 0 or period 0.1 are taken. A page that checks values
    against hello (the Water folder) refuses what the server would."""
    from sixdof.server.control import apply
    from sixdof.server.errors import parse_client_message
    from sixdof.server.rooms import Room
    from sixdof.server.settings import Settings
    from sixdof.simulation.validation import live_step

    room = Room("ends", LiveSimulation(damped_barge(), running=False), Settings())
    limits = json.loads(room.hello(True))["limits"]
    assert limits["water"]["depth"] == [0.0, 1e5]
    assert limits["exclusive"] == {
        "water.depth": [True, False], "step.euler": [False, True], "step.rk4": [False, True]
    }  # fmt: skip
    sim = room.sim
    waves = {"amplitude", "period", "direction"}

    def water(field: str) -> Any:
        def change(x: float) -> None:
            value = [x, x, x] if field == "current" else x
            wave = {field: value}
            # a wave steeper than 1/7 is refused whatever its height or period: the ends of
            # each are taken with the other where the wave is gentle
            if field == "amplitude":
                wave["period"] = 1000.0
            elif field == "period":
                wave["amplitude"] = 1e-4
            sim.set_water({"waves": [wave]} if field in waves else {field: value})

        return change

    spring = {"kind": "spring", "body": "Barge", "to": [0, 0, -5]}
    ground = {"kind": "ground", "body": "Barge", "height": 5.0}
    damper = {"kind": "damper", "body": "Barge"}
    pid = {"kind": "controller", "body": "Barge"}
    cable = {"kind": "cable", "body": "Barge", "to": [30, 0, 20], "length": 40, "segments": 4,
             "mass_per_length": 20, "axial_stiffness": 1e7, "diameter": 0.05}  # fmt: skip
    hinge = {"kind": "joint", "type": "hinge", "body": "Barge"}  # joined where it is
    kinds = {"stiffness": spring, "damping": spring, "rest_length": spring,
             "linear": damper, "quadratic": damper,
             "height": ground, "restitution": ground, "friction": ground,
             "kp": pid, "ki": pid, "kd": pid,
             "pay_out_speed": cable, "pay_out_speed_b": cable, "rest": hinge,
             "limits": hinge}  # fmt: skip

    def element(field: str) -> Any:
        def change(x: float) -> None:
            e = kinds[field]
            if field == "limits":  # [lo, hi] with lo < hi: x and a radian inside the range
                sim.set_elements([{**e, field: [x, x + 1.0] if x < 0.0 else [x - 1.0, x]}])
                return
            sim.set_elements([{**e, field: [x] * 6 if e is damper or e is pid else x}])

        return change

    def step(method: str) -> Any:
        return lambda h: live_step(method, h)  # type: ignore[arg-type]

    pairs = [(f"water.{f}", water(f)) for f in limits["water"]]
    pairs += [(f"elements.{f}", element(f)) for f in limits["elements"]]
    pairs += [(f"step.{m}", step(m)) for m in limits["step"]]
    assert len(pairs) == 7 + 15 + 4
    for path, change in pairs:
        group, name = path.split(".")
        lo, hi = limits[group][name]
        open_lo, open_hi = limits["exclusive"].get(path, [False, False])
        assert _takes(change, lo) is not open_lo, path
        assert _takes(change, hi) is not open_hi, path
        assert _takes(change, (lo + hi) / 2), path
        below, above = lo - max(1e-9, abs(lo) * 1e-9), hi + max(1e-9, abs(hi) * 1e-9)
        assert not _takes(change, below), path
        # the largest step of geometric and exact (no stability limit) is the slider's end,
        # LIVE_STEP_MAX; the server takes larger ones (set_params' step up to 1 s)
        assert not _takes(change, above) or path in ("step.geometric", "step.exact"), path
    # and through the protocol: depth 0 is refused naming the field, the range open at 0
    msg = {"type": "set_water", "water": {"depth": 0}}
    with pytest.raises(Exception, match=r"water.depth: must be in \(0, 100000\] m"):
        apply(room, parse_client_message(json.dumps(msg)))


def test_set_water_is_recorded_and_replayed_bit_for_bit() -> None:
    from sixdof.simulation.resimulation import resimulate

    sim = LiveSimulation(damped_barge(), running=False, recording_bytes=8 << 20,
                         history_seconds=600)  # fmt: skip
    sim.step(700)
    sim.set_water({"density": 1000.0, "current": [0.2, 0.1, 0.0],
                   "waves": [{"amplitude": 0.05, "period": 2.5, "direction": 30.0}]})  # fmt: skip
    sim.step(900)
    sim.set_water({"density": 1025.0, "level": 0.1, "depth": 3.0,
                   "waves": [{"amplitude": 0.08, "period": 2.0, "direction": -45.0}]})  # fmt: skip
    sim.step(600)
    sim.set_water(None)
    sim.step(400)
    assert sim.recording is not None
    runs = resimulate(json.loads(json.dumps(sim.recording.to_json())))
    assert np.array_equal(runs[-1].table, sim.history.table())


def test_going_back_across_set_water_brings_the_old_water_back_and_the_same_future() -> None:
    from sixdof.simulation.replay import go_back

    sim = LiveSimulation(damped_barge(), running=False, recording_bytes=8 << 20,
                         history_seconds=600)  # fmt: skip
    sim.step(500)
    wavy = {"density": 1000.0, "waves": [{"amplitude": 0.05, "period": 2.0}]}
    sim.set_water(wavy)
    sim.step(500)
    ahead = sim.state_array()
    went = go_back(sim, 0.2)  # before the change: the sea water again
    assert went <= 0.2 and sim.scenario.water is not None
    assert sim.scenario.water.density == RHO and not sim.scenario.water.waves
    sim.undo_go_back()  # and back to the present, with its water
    assert sim.scenario.water is not None and sim.scenario.water.density == 1000.0
    assert np.array_equal(sim.state_array(), ahead)
    go_back(sim, 0.2)
    sim.step(round((0.5 - sim.t) / sim.step_size))
    sim.set_water(wavy)  # the same change at the same step: the same future, bit for bit
    sim.step(500)
    assert np.array_equal(sim.state_array(), ahead)
