"""Inputs of the live simulation: constant and push channels, body frame, force at a point."""

import math

import numpy as np
import pytest

from sixdof.dynamics import quaternion as quat
from sixdof.dynamics.inputs import InputChannels
from sixdof.fields import FieldError
from sixdof.scenario import BodySpec, Integration, Scenario
from sixdof.simulation import LiveSimulation

H = 0.01


def make_sim(*bodies: dict, step: float = H) -> LiveSimulation:
    specs = [BodySpec(**{"Name": "B", "Gravity": 0.0, **b}) for b in (bodies or ({},))]
    scenario = Scenario(bodies=specs, integration=Integration(stepsize=step))
    return LiveSimulation(scenario, clock=lambda: 0.0)


def body(sim: LiveSimulation, i: int = 0) -> dict:
    return sim.frame()["bodies"][i]


def test_constant_global_force_gives_f_over_m() -> None:
    force = np.array([3.0, -2.0, 1.0])
    sim = make_sim({"Mass": 2.0})
    sim.set_input("B", force)
    sim.step(37)
    t = 37 * H
    a = force / 2.0
    np.testing.assert_allclose(body(sim)["Vel"], a * t, rtol=0, atol=1e-9)
    np.testing.assert_allclose(body(sim)["Pos"], 0.5 * a * t**2, rtol=0, atol=1e-9)
    np.testing.assert_allclose(body(sim)["Force"], force, rtol=0, atol=0)
    # a global constant at the CG is the scenario's own Force/Moment
    assert sim.scenario.bodies[0].Force == (3.0, -2.0, 1.0)


def test_body_frame_force_turns_with_the_body() -> None:
    # Spin about z at ω = 2 rad/s (symmetric inertia: ω stays constant, no moment)
    # and push with F_b = (1, 0, 0) in body axes. The kernel evaluates R(q) F_b at every
    # RK4 stage, so Vel follows the continuous force: Vel = ∫ R(ω t) F_b dt / m
    # = (sin ωT, 1 − cos ωT, 0) / ω, to RK4's accuracy: 3.4e-6 m/s at h = 10 ms, 1.7e-7 at
    # 5 ms (fourth order; a force held over each step misses it by ~5e-3 m/s here).
    w = 2.0
    sim = make_sim({"Mass": 1.0, "AngVel": (0.0, 0.0, w)})
    sim.set_input("B", (1.0, 0.0, 0.0), frame="body")
    assert sim.scenario.bodies[0].Force == (0.0, 0.0, 0.0)  # not a global constant
    n = 80
    sim.step(n)
    t_end = n * H
    expected = np.array([math.sin(w * t_end), 1.0 - math.cos(w * t_end), 0.0]) / w
    np.testing.assert_allclose(body(sim)["Vel"], expected, rtol=0, atol=1e-5)
    # a force that did not turn would give (0.8, 0, 0)
    assert body(sim)["Vel"][1] > 0.5
    # the reported applied force is R(q/|q|) F_b at the current orientation
    r = quat.to_rotmat(quat.normalize(body(sim)["Quater"]))
    np.testing.assert_allclose(body(sim)["Force"], r @ [1.0, 0.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(
        body(sim)["Force"], [math.cos(w * n * H), math.sin(w * n * H), 0], atol=1e-4
    )
    record = sim.inputs()["B"]["constant"]
    assert record == {
        "frame": "body",
        "Force": [1.0, 0.0, 0.0],
        "Moment": [0.0, 0.0, 0.0],
        "lever": None,
    }


def test_force_at_a_point_gives_the_moment_about_the_cg() -> None:
    sim = make_sim({"CGOffset": (0.0, 0.0, 0.5)})
    sim.set_input("B", (0.0, 2.0, 0.0), point=(1.0, 0.0, 0.0))
    # lever = point − CGOffset = (1, 0, −0.5); (1, 0, −0.5) × (0, 2, 0) = (1, 0, 2)
    np.testing.assert_allclose(body(sim)["Moment"], [1.0, 0.0, 2.0], atol=1e-15)
    np.testing.assert_allclose(body(sim)["Force"], [0.0, 2.0, 0.0], atol=1e-15)
    assert sim.inputs()["B"]["constant"]["lever"] == [1.0, 0.0, -0.5]
    # moving the reference point keeps the material point: same lever, same moment
    sim.set_params("B", CGOffset=(0.0, 0.0, -0.3))
    np.testing.assert_allclose(body(sim)["Moment"], [1.0, 0.0, 2.0], atol=1e-12)


def test_body_force_at_point_equals_force_plus_moment_while_tumbling() -> None:
    # The moment of a body-fixed force at a body-fixed point is ℓ × F_b in body axes,
    # so "F_b at point" and "F_b plus moment ℓ × F_b" give the same motion.
    start = {
        "AngVel": (0.5, -1.0, 2.0),
        "InertiaRadi": (0.4, 0.5, 0.6),
        "CGOffset": (0.1, 0.2, -0.1),
    }
    sim = make_sim({"Name": "P", **start}, {"Name": "M", **start})
    f = np.array([0.3, -0.7, 1.2])
    point = np.array([0.5, -0.4, 0.8])
    lever = point - np.array(start["CGOffset"])
    sim.set_input("P", f, frame="body", point=point)
    sim.set_input("M", f, np.cross(lever, f), frame="body")
    sim.step(60)
    x = sim.state_array()
    np.testing.assert_allclose(x[0], x[1], rtol=0, atol=1e-9)
    assert np.linalg.norm(x[0, 10:13] - start["AngVel"]) > 0.05  # the moment did act


def test_push_adds_on_top_and_is_cleared() -> None:
    sim = make_sim({"Mass": 1.0})
    sim.set_input("B", (1.0, 0.0, 0.0))
    version = sim.version
    sim.set_input("B", (0.0, 0.0, -5.0), (0.0, 1.0, 0.0), channel="push")
    assert sim.version == version  # transient: not part of the scenario
    np.testing.assert_allclose(body(sim)["Force"], [1.0, 0.0, -5.0])
    np.testing.assert_allclose(body(sim)["Moment"], [0.0, 1.0, 0.0])
    assert sim.scenario.bodies[0].Force == (1.0, 0.0, 0.0)
    sim.step(10)
    np.testing.assert_allclose(body(sim)["Vel"], [10 * H, 0.0, -50 * H], atol=1e-12)
    sim.set_input("B", None, None, channel="push")  # zeros clear it
    np.testing.assert_allclose(body(sim)["Force"], [1.0, 0.0, 0.0])
    sim.set_input("B", (0.0, 3.0, 0.0), channel="push", frame="body")
    sim.reset()  # a full reset clears pushes, keeps constants
    np.testing.assert_allclose(body(sim)["Force"], [1.0, 0.0, 0.0])
    assert sim.inputs()["B"]["push"]["Force"] == [0.0, 0.0, 0.0]


def test_constant_input_replaces_and_bumps_version() -> None:
    sim = make_sim()
    version = sim.version
    sim.set_input("B", (1.0, 2.0, 3.0), (4.0, 5.0, 6.0))
    assert sim.version == version + 1
    spec = sim.scenario.bodies[0]
    assert (spec.Force, spec.Moment) == ((1.0, 2.0, 3.0), (4.0, 5.0, 6.0))
    sim.set_input(None, moment=(0.0, 0.0, 1.0))  # replaces: the force is gone
    spec = sim.scenario.bodies[0]
    assert (spec.Force, spec.Moment) == ((0.0, 0.0, 0.0), (0.0, 0.0, 1.0))
    sim.set_input("B", (1.0, 0.0, 0.0), point=(0.0, 1.0, 0.0))  # at a point: kept aside
    assert sim.scenario.bodies[0].Force == (0.0, 0.0, 0.0)
    np.testing.assert_allclose(body(sim)["Moment"], [0.0, 0.0, -1.0], atol=1e-15)


@pytest.mark.parametrize(
    ("kwargs", "field", "code", "fragment"),
    [
        ({"force": (1.0, 2.0)}, "Force", "invalid", "expected 3 numbers"),
        ({"force": (1e8, 0.0, 0.0)}, "Force", "out_of_range", "[-1e+07, 1e+07] N"),
        ({"moment": (0.0, math.nan, 0.0)}, "Moment", "invalid", "finite"),
        ({"frame": "local"}, "frame", "invalid", "['global', 'body']"),
        ({"channel": "held"}, "channel", "invalid", "['constant', 'push']"),
        ({"point": (0.0, 0.0, 5000.0)}, "point", "out_of_range", "[-1000, 1000] m"),
        ({"body": "X"}, "body", "unknown_body", "'B'"),
    ],
)
def test_refused_inputs_change_nothing(kwargs: dict, field: str, code: str, fragment: str) -> None:
    sim = make_sim()
    sim.set_input("B", (1.0, 0.0, 0.0))
    before = sim.inputs()
    version = sim.version
    args = {"body": "B", "force": (2.0, 0.0, 0.0), **kwargs}
    with pytest.raises(FieldError) as err:
        sim.set_input(args.pop("body"), **args)
    assert (err.value.field, err.value.code) == (field, code)
    assert fragment in err.value.message
    assert sim.inputs() == before
    assert sim.version == version
    assert sim.scenario.bodies[0].Force == (1.0, 0.0, 0.0)


def total_numpy(inputs: InputChannels, x: np.ndarray) -> np.ndarray:
    """The numpy oracle of the loads: u = (F_n, M_n) of the records at the states x."""
    q = x[:, 3:7]
    rotmat = quat.to_rotmat(q / np.sqrt(np.einsum("ni,ni->n", q, q))[:, None])  # (N, 3, 3)
    body = inputs.is_body[..., None]
    force_n = np.where(body, np.einsum("nij,cnj->cni", rotmat, inputs.force), inputs.force)
    moment_n = np.where(body, np.einsum("nij,cnj->cni", rotmat, inputs.moment), inputs.moment)
    lever_n = np.einsum("nij,cnj->cni", rotmat, inputs.lever_body)
    moment_n = moment_n + np.cross(lever_n, force_n)
    return np.concatenate([force_n.sum(axis=0), moment_n.sum(axis=0)], axis=-1)


def test_compiled_loads_match_numpy() -> None:
    rng = np.random.default_rng(7)
    n = 6
    inputs = InputChannels(n)
    for i in range(n):
        for channel in ("constant", "push"):
            frame = "body" if rng.random() < 0.5 else "global"
            lever = rng.normal(size=3) if rng.random() < 0.7 else None
            inputs.set(i, channel, frame, rng.normal(size=3), rng.normal(size=3), lever)
    x = rng.normal(size=(n, 13))  # non-unit quaternions: both normalise
    assert inputs.state_dependent
    np.testing.assert_allclose(inputs.total(x), total_numpy(inputs, x), rtol=0, atol=1e-13)
    q = quat.normalize(x[0, 3:7])
    r = quat.to_rotmat(q)
    f_n = (r @ inputs.force[0, 0] if inputs.is_body[0, 0] else inputs.force[0, 0]) + (
        r @ inputs.force[1, 0] if inputs.is_body[1, 0] else inputs.force[1, 0]
    )
    np.testing.assert_allclose(inputs.total(x)[0, 0:3], f_n, atol=1e-13)


def test_a_spring_pulls_its_point_to_the_target_and_is_capped() -> None:
    # CG on the spring, no gravity, damped: the body settles with its CG on the target
    sim = make_sim({"Mass": 2.0})
    target = [1.0, -2.0, 0.5]
    sim.set_input(
        "B", channel="push", spring={"target": target, "stiffness": 50.0, "damping": 15.0}
    )
    record = sim.inputs()["B"]["push"]["spring"]
    assert record["target"] == target and record["stiffness"] == 50.0
    assert body(sim)["Force"] == pytest.approx([50.0, -100.0, 25.0])  # k (target − CG) at rest
    sim.step(1000)  # 10 s: ω0 = 5 rad/s, ζ = 0.75
    assert body(sim)["Pos"] == pytest.approx(target, abs=1e-6)
    assert body(sim)["Vel"] == pytest.approx([0.0, 0.0, 0.0], abs=1e-6)
    # capped: far away, the pull is max_force along the line to the target
    sim.set_input("B", channel="push", spring={"target": [100.0, 0.0, 0.0], "stiffness": 50.0,
                                                "max_force": 3.0})  # fmt: skip
    force = np.array(body(sim)["Force"])
    assert np.linalg.norm(force) == pytest.approx(3.0) and force[0] > 2.99
    # at a point off the CG: the moment about the CG is (R ℓ) × F
    pull = {"target": [100.0, 0.5, 0.0], "stiffness": 1.0, "max_force": 2.0}
    sim.set_input("B", channel="push", point=(0.0, 0.5, 0.0), spring=pull)
    r = quat.to_rotmat(quat.normalize(body(sim)["Quater"]))
    lever = r @ np.array([0.0, 0.5, 0.0])
    np.testing.assert_allclose(body(sim)["Moment"], np.cross(lever, body(sim)["Force"]), atol=1e-12)
    # zeros clear it, and so does a plain push
    sim.set_input("B", channel="push")
    assert sim.inputs()["B"]["push"]["spring"] is None
    assert body(sim)["Force"] == pytest.approx([0.0, 0.0, 0.0])


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"channel": "constant", "spring": {"target": [0, 0, 0], "stiffness": 1.0}}, "spring"),
        ({"channel": "push", "spring": {"target": [0, 0, 0]}}, "spring"),
        ({"channel": "push", "spring": {"target": [0, 0, 0], "stiffness": -1.0}}, "stiffness"),
        ({"channel": "push", "spring": {"target": [2e6, 0, 0], "stiffness": 1.0}}, "target"),
    ],
)
def test_a_bad_spring_is_refused_and_changes_nothing(kwargs: dict, field: str) -> None:
    sim = make_sim({})
    before = sim.inputs()
    with pytest.raises(FieldError) as err:
        sim.set_input("B", **kwargs)
    assert err.value.field == field
    assert sim.inputs() == before
