"""set_params while running: every field, no jump in pose, all or nothing on error."""

import math

import numpy as np
import pytest

from sixdof.dynamics import outputs, step_fixed
from sixdof.dynamics import quaternion as quat
from sixdof.fields import FieldError
from sixdof.scenario import BodySpec, Integration, Scenario
from sixdof.simulation import LiveSimulation

H = 0.01


def make_sim(step: float = H, **body: object) -> LiveSimulation:
    spec = {"Name": "B", "Gravity": 0.0, **body}
    scenario = Scenario(bodies=[BodySpec(**spec)], integration=Integration(stepsize=step))
    return LiveSimulation(scenario, clock=lambda: 0.0)


def moving(**body: object) -> LiveSimulation:
    """A body already tumbling and moving, so a jump in pose would show."""
    q = quat.from_euler(0.3, -0.2, 1.1)
    kw = {
        "Pos": (1.0, -2.0, 0.5),
        "Quater": tuple(q),
        "LocalVel": (0.7, -0.3, 0.2),
        "AngVel": (0.4, -1.1, 0.9),
        "InertiaRadi": (0.4, 0.5, 0.6),
    }
    kw.update(body)
    sim = make_sim(**kw)
    sim.step(5)
    return sim


def test_mass_changes_acceleration_not_pose() -> None:
    sim = make_sim(Force=(2.0, 0.0, 0.0))
    sim.step(10)
    before = sim.state_array()
    version = sim.version
    sim.set_params("B", Mass=4.0)
    np.testing.assert_array_equal(sim.state_array(), before)
    assert sim.version == version + 1
    assert sim.scenario.bodies[0].Mass == 4.0
    v0 = sim.frame()["bodies"][0]["Vel"][0]
    sim.step(10)
    assert sim.frame()["bodies"][0]["Vel"][0] - v0 == pytest.approx(2.0 / 4.0 * 10 * H, rel=1e-9)


def test_inertia_radii_and_tensor_change_angular_acceleration() -> None:
    sim = make_sim(Moment=(0.0, 0.0, 3.0), Mass=2.0, InertiaRadi=(0.5, 0.5, 0.5))
    sim.set_params("B", InertiaRadi=(0.5, 0.5, 1.5))
    sim.step(10)
    izz = 2.0 * 1.5**2
    assert sim.frame()["bodies"][0]["AngVel"][2] == pytest.approx(3.0 / izz * 10 * H, rel=1e-9)
    w_before = sim.frame()["bodies"][0]["AngVel"][2]
    sim.set_params("B", Inertia=(1.0, 2.0, 6.0, 0.0, 0.0, 0.0))
    assert sim.scenario.bodies[0].Inertia == (1.0, 2.0, 6.0, 0.0, 0.0, 0.0)
    sim.step(10)
    w_after = sim.frame()["bodies"][0]["AngVel"][2]
    assert w_after - w_before == pytest.approx(3.0 / 6.0 * 10 * H, rel=1e-9)
    # radii again: they must take effect, so the full tensor is cleared
    sim.set_params("B", InertiaRadi=(0.5, 0.5, 0.5))
    assert sim.scenario.bodies[0].Inertia is None
    sim.step(10)
    w_last = sim.frame()["bodies"][0]["AngVel"][2]
    assert w_last - w_after == pytest.approx(3.0 / (2.0 * 0.25) * 10 * H, rel=1e-9)


@pytest.mark.parametrize(
    "fields",
    [
        {"Mass": 3.0},
        {"InertiaRadi": (0.2, 0.9, 0.4)},
        {"Inertia": (1.0, 2.0, 2.5, 0.1, 0.0, -0.2)},
        {"Gravity": 3.0},
        {"model": "fhsim"},
        {"integrator": "euler"},
        {"step": 0.005},
    ],
)
def test_parameter_change_keeps_the_state(fields: dict) -> None:
    sim = moving()
    before = sim.state_array()
    t = sim.t
    sim.set_params("B", **fields)
    np.testing.assert_array_equal(sim.state_array(), before)
    assert sim.t == t


def test_cg_offset_moves_the_reference_point_and_keeps_the_cg() -> None:
    sim = moving(Gravity=9.81, CGOffset=(0.1, 0.0, -0.2), Mass=3.0)
    before = sim.state_array()
    names = ("CGPos", "LinearMomentum")
    out_before = outputs(before, np.zeros((1, 6)), sim.bodies)
    sim.set_params("B", CGOffset=(-0.3, 0.25, 0.4))
    after = sim.state_array()
    out_after = outputs(after, np.zeros((1, 6)), sim.bodies)
    for name in names:
        np.testing.assert_allclose(out_after[name], out_before[name], rtol=0, atol=1e-12)
    np.testing.assert_array_equal(after[:, 3:7], before[:, 3:7])  # Quater
    np.testing.assert_array_equal(after[:, 10:13], before[:, 10:13])  # AngVel
    r = quat.to_rotmat(before[0, 3:7])
    d = np.array([0.1, 0.0, -0.2]) - np.array([-0.3, 0.25, 0.4])
    np.testing.assert_allclose(after[0, 0:3], before[0, 0:3] + r @ d, atol=1e-12)
    assert np.linalg.norm(after[0, 0:3] - before[0, 0:3]) > 0.5  # the reference point did move
    # from here the CG falls freely: p_cg(t) = p_cg0 + v_cg0 t + ½ g t² e_z
    cg0 = out_after["CGPos"][0]
    vcg0 = out_after["LinearMomentum"][0] / 3.0
    sim.step(50)
    t = 50 * H
    cg = outputs(sim.state_array(), np.zeros((1, 6)), sim.bodies)["CGPos"][0]
    expected = cg0 + vcg0 * t + 0.5 * np.array([0.0, 0.0, 9.81]) * t**2
    # RK4 at h = 0.01 s keeps |q| to about 1e-6 (h/τ = 1), which bounds the agreement;
    # keeping LocalVel instead of the CG velocity would be off by |ω × d| t ≈ 0.4 m
    np.testing.assert_allclose(cg, expected, atol=2e-5)


def test_gravity_change_mid_fall() -> None:
    sim = make_sim(Gravity=9.81)
    sim.step(10)
    sim.set_params("B", Gravity=0.0)
    vz = sim.frame()["bodies"][0]["Vel"][2]
    assert vz == pytest.approx(9.81 * 10 * H, rel=1e-9)
    sim.step(10)
    assert sim.frame()["bodies"][0]["Vel"][2] == pytest.approx(vz, rel=1e-12)
    sim.set_params("B", Gravity=-5.0)
    sim.step(10)
    assert sim.frame()["bodies"][0]["Vel"][2] == pytest.approx(vz - 5.0 * 10 * H, rel=1e-9)


def test_model_switch_full_flies_straight_fhsim_circles() -> None:
    # DESIGN.md section 2: LocalVel (5,0,0), AngVel (0,0,2), no force: straight in
    # `full`, a circle of radius 2.5 m in `fhsim` (global velocity turns at 2 rad/s).
    sim = make_sim(LocalVel=(5.0, 0.0, 0.0), AngVel=(0.0, 0.0, 2.0))
    sim.step(20)
    # RK4 at h = 0.01 s: |q| drifts by ~1e-6 (h/τ = 1), so agreement is to ~1e-5
    np.testing.assert_allclose(sim.frame()["bodies"][0]["Vel"], [5.0, 0.0, 0.0], atol=1e-4)
    sim.set_params("B", model="fhsim")
    assert sim.scenario.bodies[0].model == "fhsim"
    sim.step(40)
    angle = 2.0 * 40 * H
    expected = [5.0 * math.cos(angle), 5.0 * math.sin(angle), 0.0]
    np.testing.assert_allclose(sim.frame()["bodies"][0]["Vel"], expected, atol=1e-4)


def test_integrator_and_step_change() -> None:
    sim = moving()
    x0 = sim.state_array()
    bodies = sim.bodies
    sim.set_params(None, integrator="euler", step=0.004)
    assert (sim.integrator, sim.step_size) == ("euler", 0.004)
    assert sim.frame()["status"]["integrator"] == "euler"
    assert sim.frame()["status"]["step"] == 0.004
    assert sim.scenario.integration.method == "euler"
    assert sim.scenario.integration.stepsize == 0.004
    t0 = sim.t
    sim.step(3)
    expected = x0
    for _ in range(3):
        expected = step_fixed(bodies, expected, np.zeros((1, 6)), 0.004, "euler")
    np.testing.assert_allclose(sim.state_array(), expected, rtol=0, atol=1e-14)
    assert sim.t == pytest.approx(t0 + 3 * 0.004, abs=1e-15)
    rk4 = step_fixed(bodies, x0, np.zeros((1, 6)), 0.004, "rk4")
    assert np.abs(rk4 - step_fixed(bodies, x0, np.zeros((1, 6)), 0.004, "euler")).max() > 1e-6


def test_visual_parameters_are_stored_and_bump_version_only() -> None:
    sim = moving()
    before = sim.state_array()
    bodies = sim.bodies
    version = sim.version
    sim.set_params(
        "B",
        Mesh="fhBox.mesh",
        Material="Simple/Red",
        MeshScale=(2.0, 1.0, 0.5),
        Size=(0.3, 0.3, 0.3),
        MeshOrigin=(0.0, 0.1, -0.2),
    )
    spec = sim.scenario.bodies[0]
    assert spec.Mesh == "fhBox.mesh"
    assert spec.Material == "Simple/Red"
    assert spec.MeshScale == (2.0, 1.0, 0.5)
    assert spec.Size == (0.3, 0.3, 0.3)
    assert spec.MeshOrigin == (0.0, 0.1, -0.2)
    assert sim.version == version + 1
    np.testing.assert_array_equal(sim.state_array(), before)
    assert sim.bodies is bodies  # the packed batch is not rebuilt for a visual change


@pytest.mark.parametrize(
    ("fields", "field", "code", "fragments"),
    [
        ({"Mass": -1}, "Mass", "out_of_range", ["[1e-06, 1e+06] kg", "got -1"]),
        ({"Mass": 2e6}, "Mass", "out_of_range", ["[1e-06, 1e+06] kg"]),
        ({"Mass": "heavy"}, "Mass", "invalid", ["expected a number"]),
        ({"Mass": math.nan}, "Mass", "invalid", ["finite"]),
        ({"InertiaRadi": (1.0, 2.0)}, "InertiaRadi", "invalid", ["expected 3 numbers"]),
        ({"InertiaRadi": (0.0, 1.0, 1.0)}, "InertiaRadi", "out_of_range", ["[0.0001, 1000] m"]),
        (
            {"Inertia": (1.0, 1.0, 1.0, 2.0, 0.0, 0.0)},
            "Inertia",
            "out_of_range",
            ["positive definite"],
        ),
        ({"CGOffset": (0.0, 0.0, 2000.0)}, "CGOffset", "out_of_range", ["[-1000, 1000] m"]),
        ({"Gravity": 1000.0}, "Gravity", "out_of_range", ["[-100, 100]"]),
        ({"model": "newton"}, "model", "invalid", ["['full', 'fhsim']"]),
        ({"MeshScale": (0.0, 1.0, 1.0)}, "MeshScale", "out_of_range", ["(0, 1e+06]"]),
        ({"Mesh": ""}, "Mesh", "invalid", ["1 to 128 characters"]),
        (
            {"integrator": "dopri5"},
            "integrator",
            "invalid",
            ["['euler', 'rk4', 'geometric', 'exact']"],
        ),
        ({"step": 0.03}, "step", "unstable_step", ["rk4", "0.02785"]),
        ({"integrator": "euler", "step": 0.025}, "step", "unstable_step", ["euler", "0.02"]),
        ({"step": 1e-6}, "step", "out_of_range", ["[1e-05, 0.02785) s"]),
        ({"Colour": "red"}, "Colour", "invalid", ["not a parameter", "Mass"]),
        # all or nothing: the valid field must not be applied either
        ({"Mass": 2.0, "Gravity": 1000.0}, "Gravity", "out_of_range", ["[-100, 100]"]),
        (
            {"CGOffset": (0.5, 0.0, 0.0), "Inertia": (1.0, 1.0, 1.0, 2.0, 0.0, 0.0)},
            "Inertia",
            "out_of_range",
            ["positive definite"],
        ),
        ({"Mass": 2.0, "step": 1.0}, "step", "unstable_step", ["stability limit"]),
    ],
)
def test_refused_parameters_change_nothing(
    fields: dict, field: str, code: str, fragments: list[str]
) -> None:
    sim = moving(Gravity=9.81)
    before = sim.state_array()
    scenario = sim.scenario.model_dump()
    version = sim.version
    bodies = sim.bodies
    with pytest.raises(FieldError) as err:
        sim.set_params("B", **fields)
    assert (err.value.field, err.value.code) == (field, code)
    assert err.value.message.startswith(f"{field}: ")
    for fragment in fragments:
        assert fragment in err.value.message
    np.testing.assert_array_equal(sim.state_array(), before)
    assert np.all(np.isfinite(sim.state_array()))
    assert sim.scenario.model_dump() == scenario
    assert sim.version == version
    assert sim.bodies is bodies
    assert (sim.integrator, sim.step_size) == ("rk4", H)


def test_unknown_body_is_refused() -> None:
    sim = moving()
    with pytest.raises(FieldError) as err:
        sim.set_params("Nope", Mass=2.0)
    assert (err.value.field, err.value.code) == ("body", "unknown_body")
    assert "'B'" in err.value.message
    assert sim.scenario.bodies[0].Mass == 1.0


def test_second_body_is_addressed_by_name() -> None:
    scenario = Scenario(
        bodies=[BodySpec(Name="A", Gravity=0.0), BodySpec(Name="C", Gravity=0.0)],
        integration=Integration(stepsize=H),
    )
    sim = LiveSimulation(scenario, clock=lambda: 0.0)
    sim.set_params("C", Mass=5.0)
    sim.set_params(None, Mass=2.0)  # no body: the first
    assert [b.Mass for b in sim.scenario.bodies] == [2.0, 5.0]
