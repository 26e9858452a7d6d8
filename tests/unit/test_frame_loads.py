"""What the page draws physics with: the state frame's Loads, CG velocity, ω in the world
and the kinetic energy's two parts, checked against the outputs they must add up to."""

from __future__ import annotations

import numpy as np

from sixdof.dynamics import quaternion as quat
from sixdof.scenario import BodySpec, Integration, Scenario
from sixdof.simulation import LiveSimulation


def make_sim(**spec: object) -> LiveSimulation:
    body = BodySpec(
        **{
            "Name": "B",
            "Mass": 3.0,
            "InertiaRadi": (0.5, 0.6, 0.7),
            "CGOffset": (0.2, -0.1, 0.05),
            "AngVel": (0.7, -1.3, 2.1),
            "LocalVel": (1.0, 0.5, -0.2),
            "Quater": tuple(quat.from_euler(0.3, -0.4, 1.1).tolist()),
            **spec,
        }
    )
    return LiveSimulation(
        Scenario(bodies=[body], integration=Integration(stepsize=0.001)), clock=lambda: 0.0
    )


def entry(sim: LiveSimulation) -> dict:
    return sim.frame()["bodies"][0]


def test_the_loads_add_up_to_the_applied_force_and_moment() -> None:
    """A body-frame force at a point (constant), and a drag spring at another point (push):
    Σ F = Force and Σ (couple + (At − CG) × F) = Moment, each at the frame's own state."""
    sim = make_sim()
    sim.set_input("B", (2.0, -1.0, 4.0), (0.3, 0.0, -0.2), frame="body", point=(0.5, 0.1, -0.3))
    sim.set_input(
        "B",
        channel="push",
        point=(-0.4, 0.2, 0.1),
        spring={"target": (3.0, 1.0, -2.0), "stiffness": 40.0, "damping": 5.0, "max_force": 1e4},
    )
    for _ in range(3):
        sim.step(57)
        b = entry(sim)
        loads = b["Loads"]
        assert [x["source"] for x in loads] == ["constant", "spring"]
        cg = np.array(b["CGPos"])
        total_f = sum(np.array(x["Force"]) for x in loads)
        total_m = sum(
            np.array(x["Moment"]) + np.cross(np.array(x["At"]) - cg, x["Force"]) for x in loads
        )
        # CGPos turns r_g with R(q), the kernel with R(q/|q|): they differ by |q|² − 1 ≈ 1e-9
        np.testing.assert_allclose(total_f, b["Force"], rtol=1e-8, atol=1e-12)
        np.testing.assert_allclose(total_m, b["Moment"], rtol=1e-8, atol=1e-12)
        # the spring acts at the grabbed point: Pos + R r
        r = quat.to_rotmat(quat.normalize(b["Quater"]))
        np.testing.assert_allclose(
            loads[1]["At"], np.array(b["Pos"]) + r @ [-0.4, 0.2, 0.1], atol=1e-12
        )
        # the body-frame constant turns with the body
        np.testing.assert_allclose(loads[0]["Force"], r @ [2.0, -1.0, 4.0], atol=1e-12)


def test_zero_inputs_draw_nothing_and_a_global_force_acts_at_the_cg() -> None:
    sim = make_sim()
    assert entry(sim)["Loads"] == []
    sim.set_input("B", (0.0, 5.0, 0.0))
    (load,) = entry(sim)["Loads"]
    assert load["source"] == "constant"
    assert load["At"] == entry(sim)["CGPos"]


def test_kinetic_energy_splits_into_translation_and_rotation_about_the_cg() -> None:
    sim = make_sim(Inertia=(0.8, 0.9, 1.1, 0.1, -0.05, 0.2))
    sim.step(123)
    b = entry(sim)
    m = 3.0
    parts = b["TranslationalEnergy"] + b["RotationalEnergy"]
    assert abs(parts - b["KineticEnergy"]) < 1e-13 * b["KineticEnergy"]
    np.testing.assert_allclose(np.array(b["CGVel"]) * m, b["LinearMomentum"], rtol=1e-13)
    v_cg = np.array(b["CGVel"])
    # CGVel is turned by R(q), the energy is R-free: they agree to |q|² − 1 ≈ 1e-9
    assert abs(b["TranslationalEnergy"] - 0.5 * m * v_cg @ v_cg) < 1e-8 * b["TranslationalEnergy"]
    # ω in the world: R ω_body; L = R I ω_body, so ½ ω_world · L is the rotational energy
    r = quat.to_rotmat(quat.normalize(b["Quater"]))  # |q| stays within 1e-9 of 1 here
    np.testing.assert_allclose(b["AngVelGlobal"], r @ np.array(b["AngVel"]), atol=1e-8)
    rot = 0.5 * np.dot(b["AngVelGlobal"], b["AngularMomentum"])
    assert abs(b["RotationalEnergy"] - rot) < 1e-8 * rot
    # the CG's velocity is the reference point's plus ω × (R r_g)
    expected = np.array(b["Vel"]) + np.cross(b["AngVelGlobal"], r @ [0.2, -0.1, 0.05])
    np.testing.assert_allclose(v_cg, expected, atol=1e-9)
