"""Pause, step, reset, load, divergence, the state payload, one batched call per physics step."""

import json

import numpy as np
import pytest

import sixdof.simulation.engine as engine_module
from sixdof.dynamics import step_fixed
from sixdof.fields import MAX_LOCAL_VEL, FieldError
from sixdof.scenario import BodySpec, Integration, Scenario
from sixdof.simulation import (
    LiveSimulation,
    divergence_reason,
    live_limits,
)

H = 0.01


class FakeClock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def two_bodies(**kw: object) -> Scenario:
    return Scenario(
        bodies=[
            BodySpec(Name="A", Pos=(1.0, 2.0, 3.0), LocalVel=(1.0, 0.0, 0.0), Gravity=0.0),
            BodySpec(Name="C", AngVel=(0.0, 0.0, 1.0), Gravity=9.81),
        ],
        integration=Integration(stepsize=H),
        **kw,
    )


def test_step_works_paused_and_counts_steps() -> None:
    sim = LiveSimulation(two_bodies(), clock=FakeClock(), running=False)
    assert sim.frame()["status"]["running"] is False
    x0 = sim.state_array()
    assert sim.step(3) == 3
    assert sim.t == pytest.approx(3 * H, abs=1e-15)
    assert sim.frame()["bodies"][0]["Pos"][0] == pytest.approx(1.0 + 3 * H, rel=1e-12)
    assert not np.array_equal(sim.state_array(), x0)
    assert sim.running is False


@pytest.mark.parametrize(
    ("n", "code"),
    [(0, "out_of_range"), (10**7, "out_of_range"), (1.5, "invalid"), (True, "invalid")],
)
def test_step_count_is_checked(n: object, code: str) -> None:
    sim = LiveSimulation(two_bodies(), clock=FakeClock())
    with pytest.raises(FieldError) as err:
        sim.step(n)  # type: ignore[arg-type]
    assert (err.value.field, err.value.code) == ("n", code)
    assert sim.t == 0.0


def test_reset_whole_simulation() -> None:
    sim = LiveSimulation(two_bodies(), clock=FakeClock())
    initial = sim.state_array()
    sim.set_input("A", (1.0, 0.0, 0.0))
    sim.step(20)
    sim.reset()
    assert sim.t == 0.0
    np.testing.assert_array_equal(sim.state_array(), initial)
    np.testing.assert_array_equal(sim.history.arrays()["Time"], [0.0])
    assert sim.frame()["bodies"][0]["Force"] == [1.0, 0.0, 0.0]  # constants stay


def test_reset_one_body_to_a_given_state_time_runs_on() -> None:
    sim = LiveSimulation(two_bodies(), clock=FakeClock())
    sim.step(10)
    other = sim.state_array()[1]
    sim.reset("A", {"Pos": [5.0, 0.0, 0.0], "Quater": [2.0, 0.0, 0.0, 0.0]})
    x = sim.state_array()
    np.testing.assert_array_equal(x[0, 0:3], [5.0, 0.0, 0.0])
    np.testing.assert_array_equal(x[0, 3:7], [2.0, 0.0, 0.0, 0.0])  # kept: the norm term acts
    np.testing.assert_array_equal(x[0, 7:10], [1.0, 0.0, 0.0])  # the scenario's initial LocalVel
    np.testing.assert_array_equal(x[1], other)
    assert sim.t == pytest.approx(10 * H)
    sim.reset("C")  # to its initial state
    np.testing.assert_array_equal(sim.state_array()[1], sim.scenario.initial_states()[1])
    sim.reset(None, {"AngVel": [0.0, 1.0, 0.0]})  # no body: the first, and t = 0
    assert sim.t == 0.0
    np.testing.assert_array_equal(sim.state_array()[0, 10:13], [0.0, 1.0, 0.0])


@pytest.mark.parametrize(
    ("body", "state", "field", "code"),
    [
        ("A", {"Pos": [2e6, 0.0, 0.0]}, "Pos", "out_of_range"),
        ("A", {"LocalVel": [0.0, 2e5, 0.0]}, "LocalVel", "out_of_range"),
        ("A", {"Quater": [0.0, 0.0, 0.0, 0.0]}, "Quater", "out_of_range"),
        ("A", {"AngVel": [0.0, 1.0]}, "AngVel", "invalid"),
        ("A", {"Vel": [0.0, 1.0, 0.0]}, "Vel", "invalid"),
        (None, {"Pos": [float("nan"), 0.0, 0.0]}, "Pos", "invalid"),
        ("Z", None, "body", "unknown_body"),
    ],
)
def test_refused_reset_changes_nothing(body: object, state: object, field: str, code: str) -> None:
    sim = LiveSimulation(two_bodies(), clock=FakeClock())
    sim.step(5)
    before = sim.state_array()
    with pytest.raises(FieldError) as err:
        sim.reset(body, state)  # type: ignore[arg-type]
    assert (err.value.field, err.value.code) == (field, code)
    np.testing.assert_array_equal(sim.state_array(), before)
    assert sim.t == pytest.approx(5 * H)


def test_divergence_pauses_and_keeps_the_last_good_state() -> None:
    # a = F/m = 1e6 m/s²: from 90.5 km/s, nine steps of 1 ms stay below the
    # 1e5 m/s limit (99.5 km/s), the tenth would cross it.
    scenario = Scenario(
        bodies=[
            BodySpec(
                Name="B", Mass=10.0, Force=(1e7, 0.0, 0.0), Gravity=0.0, LocalVel=(9.05e4, 0.0, 0.0)
            )
        ],
        integration=Integration(stepsize=1e-3),
    )
    clock = FakeClock()
    sim = LiveSimulation(scenario, clock=clock)
    x0 = sim.state_array()
    clock.t += 0.05  # owes 50 steps
    assert sim.advance() == 9
    assert sim.running is False
    assert "LocalVel" in sim.paused_reason and "1e+05 m/s" in sim.paused_reason
    assert sim.frame()["status"]["paused_reason"] == sim.paused_reason
    expected = x0
    for _ in range(9):
        expected = step_fixed(sim.bodies, expected, np.array([[1e7, 0, 0, 0, 0, 0]]), 1e-3)
    np.testing.assert_array_equal(sim.state_array(), expected)
    assert sim.state_array()[0, 7] <= MAX_LOCAL_VEL
    assert sim.t == pytest.approx(9e-3, abs=1e-15)
    clock.t += 1.0
    assert sim.advance() == 0  # stays paused
    sim.resume()  # clears the reason; the same push diverges again at once
    assert sim.paused_reason is None
    clock.t += 0.01
    assert sim.advance() == 0
    assert sim.paused_reason is not None
    sim.reset()
    assert sim.paused_reason is None
    np.testing.assert_array_equal(sim.state_array(), x0)


def test_divergence_reasons() -> None:
    x = np.zeros((2, 13))
    x[:, 3] = 1.0
    assert divergence_reason(x, ["P", "Q"]) is None
    y = x.copy()
    y[1, 8] = np.nan
    assert "'Q'" in divergence_reason(y, ["P", "Q"]) and "not finite" in divergence_reason(
        y, ["P", "Q"]
    )
    y = x.copy()
    y[0, 0:3] = [8e5, 8e5, 0.0]  # each component below 1e6, the norm above
    assert "|Pos|" in divergence_reason(y, ["P", "Q"])
    y = x.copy()
    y[0, 10:13] = 2e4
    assert "|AngVel|" in divergence_reason(y, ["P", "Q"])
    y = x.copy()
    y[0, 3] = 3.0
    assert "|Quater|" in divergence_reason(y, ["P", "Q"])


def test_frame_is_the_state_payload_in_plain_python() -> None:
    sim = LiveSimulation(two_bodies(), clock=FakeClock())
    sim.step(2)
    frame = sim.frame()
    assert json.loads(json.dumps(frame)) == frame  # plain floats, lists, None, bools
    assert set(frame) == {"t", "status", "bodies"}
    assert set(frame["status"]) == {
        "running",
        "time_scale",
        "rtf",
        "overruns",
        "paused_reason",
        "compute_limited",
        "forked_at",
        "recorded_from",
        "integrator",
        "step",
    }
    keys = {
        "Name",
        "Pos",
        "Quater",
        "Vel",
        "LocalVel",
        "AngVel",
        "Euler",
        "Force",
        "Moment",
        "KineticEnergy",
        "PotentialEnergy",
        "TotalEnergy",
        "LinearMomentum",
        "AngularMomentum",
        "CGPos",
        "CGVel",
        "AngVelGlobal",
        "TranslationalEnergy",
        "RotationalEnergy",
        "Draft",
        "Heel",
        "Trim",
        "WaveElevation",
        "StoredEnergy",
        "RadiatedEnergy",
        "JointGap",
        "JointGapAngle",
        "JointForce",
        "JointMoment",
        "CableForce",
        "CableTension",
        "CableSeabedLength",
        "Loads",
    }
    for entry in frame["bodies"]:
        assert set(entry) == keys
        assert type(entry["TotalEnergy"]) is float
        assert all(type(c) is float for c in entry["Quater"])
    assert [b["Name"] for b in frame["bodies"]] == ["A", "C"]
    # C spins at 1 rad/s with I = m r² = 0.25: KineticEnergy = ½ I ω²
    assert frame["bodies"][1]["KineticEnergy"] == pytest.approx(
        0.5 * 0.25 + 0.5 * (9.81 * 2 * H) ** 2, rel=1e-9
    )


def test_one_kernel_call_for_all_bodies_per_round(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    advance = engine_module.kernel.advance

    def counting(pk, x, u, h, n, method, t=0.0, z=None):  # type: ignore[no-untyped-def]
        calls.append((x.shape, u.shape, np.asarray(n).tolist()))
        return advance(pk, x, u, h, n, method, t, z)

    monkeypatch.setattr(engine_module.kernel, "advance", counting)
    scenario = two_bodies()
    scenario.bodies.append(BodySpec(Name="D"))
    sim = LiveSimulation(Scenario.model_validate(scenario.model_dump()), clock=FakeClock())
    sim.set_input("D", (1.0, 0.0, 0.0), frame="body")  # orientation-dependent inputs too
    assert sim.step(7) == 7  # in history-row batches of 2 steps (60 Hz rows at h = 10 ms)
    assert calls == [((3, 13), (3, engine_module.kernel.LOAD_SIZE), [k] * 3) for k in (2, 2, 2, 1)]


def test_load_replaces_everything_and_refuses_bad_scenarios() -> None:
    sim = LiveSimulation(two_bodies(), clock=FakeClock())
    sim.step(5)
    version = sim.version
    sim.load(
        {
            "bodies": [{"Name": "Solo", "Mass": 3.0}],
            "integration": {"method": "radau", "stepsize": 0.002},
        }
    )
    assert sim.names == ["Solo"]
    assert sim.t == 0.0
    assert sim.version == version + 1
    assert (sim.integrator, sim.step_size) == ("rk4", 0.002)  # radau is not a live integrator
    assert sim.scenario.integration.method == "rk4"
    assert len(sim.history.arrays()["Time"]) == 1
    before = sim.scenario.model_dump()
    with pytest.raises(FieldError) as err:
        sim.load({"bodies": [{"Name": "Solo", "Mass": -3.0}]})
    assert err.value.field == "bodies[0].Mass"
    assert err.value.code == "out_of_range"
    with pytest.raises(FieldError) as err:
        sim.load({"bodies": [{}], "integration": {"method": "euler", "stepsize": 0.021}})
    assert (err.value.field, err.value.code) == ("integration.stepsize", "unstable_step")
    assert "stability limit" in err.value.message
    with pytest.raises(FieldError) as err:  # fine headless, too small a step to run live
        sim.load({"bodies": [{}], "integration": {"method": "euler", "stepsize": 5e-6}})
    assert (err.value.field, err.value.code) == ("step", "out_of_range")
    assert sim.scenario.model_dump() == before
    assert sim.names == ["Solo"]


def test_live_limits_match_the_protocol() -> None:
    limits = live_limits()
    assert limits["Mass"] == [1e-6, 1e6]
    assert limits["CGOffset"] == [-1e3, 1e3]
    assert limits["Force"] == [-1e7, 1e7]
    assert limits["time_scale"] == [0.01, 100.0]
    assert limits["step"]["euler"] == [1e-5, pytest.approx(0.02)]
    assert limits["step"]["rk4"][1] == pytest.approx(0.02785, abs=1e-5)
    assert limits["integrators"] == ["euler", "rk4", "geometric", "exact"]
    # no stability limit of their own: the live cap (a finite end for the page's slider)
    assert limits["step"]["geometric"] == limits["step"]["exact"] == [1e-5, 0.05]
    assert limits["models"] == ["full", "fhsim"]
    json.dumps(limits)


def test_stepping_a_constant_global_input_matches_step_by_step() -> None:
    scenario = two_bodies()
    sim = LiveSimulation(scenario, clock=FakeClock())
    sim.set_input("A", (0.5, -1.0, 2.0), (0.1, 0.2, -0.3))  # constant and global: one call
    x = sim.state_array()
    u = sim.applied_inputs()
    sim.step(25)
    expected = x
    for _ in range(25):
        expected = step_fixed(sim.bodies, expected, u, H, "rk4")
    np.testing.assert_allclose(sim.state_array(), expected, rtol=1e-13, atol=1e-13)


def test_pause_with_a_reason_shows_it_until_resume() -> None:
    sim = LiveSimulation(two_bodies(), clock=FakeClock())
    sim.pause(reason="room fault: demo")
    assert not sim.running and sim.paused_reason == "room fault: demo"
    assert sim.frame()["status"]["paused_reason"] == "room fault: demo"
    sim.resume()
    assert sim.running and sim.paused_reason is None
