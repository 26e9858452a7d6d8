"""A joint's measured residual (issue 41): its gap (m, rad) and its reaction force and moment,
per body in the outputs (frames, history, CSV) and per joint in the state frame's elements,
against statics' closed forms and a gap made on purpose."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sixdof.dynamics import Bodies, BodyParams, make_state, outputs
from sixdof.dynamics.elements import Joint, Spring, pack_system
from sixdof.dynamics.joint_outputs import joint_gaps, joint_outputs
from sixdof.dynamics.kinds.joint import gaps
from sixdof.dynamics.kinds.poses import Poses
from sixdof.scenario import Scenario
from sixdof.simulation import LiveSimulation

G = 9.81


def _welded(type_: str) -> tuple[Bodies, list[Joint], np.ndarray]:
    """A 2 kg body whose CG hangs 0.3 m north and 0.4 m below a world point it is joined
    to, at rest."""
    bodies = Bodies.of([BodyParams.from_radii(2.0, (0.3, 0.35, 0.4), gravity=G)])
    x = np.array([make_state((0.3, 0.0, 0.4), (1.0, 0.0, 0.0, 0.0), (0, 0, 0), (0, 0, 0))])
    return bodies, [Joint(0, type_, (-0.3, 0.0, -0.4), (0.0, 0.0, 0.0))], x


def test_a_weld_holds_the_weight_and_its_moment_about_the_joint() -> None:
    """At rest the weld's reaction is the weight's opposite, −m g, and the moment −r × m g
    about its point (r from the joint to the CG): statics, to rounding."""
    bodies, joints, x = _welded("fixed")
    out = joint_outputs(pack_system(bodies, joints), bodies, x, np.zeros((1, 6)))
    weight = np.array([0.0, 0.0, 2.0 * G])
    r = np.array([0.3, 0.0, 0.4])
    np.testing.assert_allclose(out["JointForce"][0], -weight, atol=1e-9)
    np.testing.assert_allclose(out["JointMoment"][0], -np.cross(r, weight), atol=1e-9)
    assert out["JointGap"][0] < 1e-15 and out["JointGapAngle"][0] < 1e-15


def test_a_ball_joint_transmits_no_moment_and_a_pendulum_released_feels_less_weight() -> None:
    """A compound pendulum released at rest with its CG level with the ball (r = 0.5 m
    north): the reaction's vertical part is m g (1 − m r² / I_o), the horizontal 0, and
    no moment about the ball (its point)."""
    m, radius, r = 2.0, 0.2, 0.5
    bodies = Bodies.of([BodyParams.from_radii(m, (radius, radius, radius), gravity=G)])
    x = np.array([make_state((r, 0.0, 0.0), (1.0, 0.0, 0.0, 0.0), (0, 0, 0), (0, 0, 0))])
    system = pack_system(bodies, [Joint(0, "ball", (-r, 0.0, 0.0), (0.0, 0.0, 0.0))])
    out = joint_outputs(system, bodies, x, np.zeros((1, 6)))
    i_o = m * radius**2 + m * r**2
    expected = -m * G * (1.0 - m * r**2 / i_o)  # up: negative z
    np.testing.assert_allclose(out["JointForce"][0], [0.0, 0.0, expected], atol=1e-9)
    np.testing.assert_allclose(out["JointMoment"][0], 0.0, atol=1e-12)


@pytest.mark.parametrize("type_", ["ball", "hinge", "slider", "fixed"])
def test_a_gap_made_on_purpose_is_measured(type_: str) -> None:
    """The body moved 1 mm east and turned 2 mrad about north (a slider's axis is down,
    the others' the default y, east): the gaps read where its point went and that turn
    (a ball holds no turn; a hinge about east is turned off its axis by the whole of it)."""
    bodies, joints, x = _welded(type_)
    axis = (0.0, 0.0, 1.0) if type_ == "slider" else (0.0, 1.0, 0.0)
    joints = [Joint(0, type_, (-0.3, 0.0, -0.4), (0.0, 0.0, 0.0), axis)]
    angle = 2e-3
    x[0, 1] += 1e-3
    x[0, 3:7] = (math.cos(angle / 2), math.sin(angle / 2), 0.0, 0.0)
    out = joint_outputs(pack_system(bodies, joints), bodies, x, np.zeros((1, 6)))
    c, s = math.cos(angle), math.sin(angle)
    turned = np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])
    apart = x[0, 0:3] + turned @ np.array([-0.3, 0.0, -0.4])  # the other end: the origin
    if type_ == "slider":
        along = turned @ np.array(axis)
        apart = apart - (apart @ along) * along
    assert out["JointGap"][0] == pytest.approx(float(np.linalg.norm(apart)), rel=1e-9)
    expected = 0.0 if type_ == "ball" else angle
    assert out["JointGapAngle"][0] == pytest.approx(expected, abs=1e-12, rel=1e-9)


def test_the_compiled_gaps_are_the_joints_own_definition() -> None:
    """kernel.joint_gaps (one compiled loop a frame) against kinds/joint.gaps (numpy, the
    definition) for every type between two bodies turned and moved off their joints, in a
    system whose elements are listed out of group order (a spring between)."""
    rng = np.random.default_rng(41)
    body = BodyParams.from_radii(1.0, (0.3, 0.35, 0.4), gravity=G)
    bodies = Bodies.of([body] * 3)
    q = rng.normal(size=(3, 4))
    x = np.array([make_state(rng.normal(size=3), tuple(q[i] / np.linalg.norm(q[i])),
                             (0, 0, 0), (0, 0, 0)) for i in range(3)])  # fmt: skip
    poses = Poses.of(bodies, x)
    elements: list[object] = []
    for k, type_ in enumerate(["ball", "hinge", "slider", "fixed"]):
        a, b = (1, 2) if k % 2 else (0, None)
        point, axis = tuple(rng.normal(size=3)), tuple(rng.normal(size=3))
        to = tuple(poses.world(a, point) if b is None else rng.normal(size=3))
        turn = tuple(rng.normal(size=4))
        elements.append(Joint(a, type_, point, to, axis, b, turn))
        elements.append(Spring(0, (0.0, 0.0, 0.0), (1.0, 0.0, 0.0), 10.0))
    x[:, 0:3] += rng.normal(scale=1e-3, size=(3, 3))  # off by a millimetre
    x[:, 3:7] += rng.normal(scale=1e-3, size=(3, 4))  # and a few milliradians
    system = pack_system(bodies, elements)  # type: ignore[arg-type]
    found = joint_gaps(system, bodies, x)
    poses = Poses.of(bodies, x)
    for j, e in enumerate(elements):
        expected = gaps(e, poses) if isinstance(e, Joint) else (0.0, 0.0)
        np.testing.assert_allclose(found[j], expected, rtol=1e-7, atol=1e-12, err_msg=str(e))


DOUBLE = {
    "bodies": [
        {"Name": "Upper", "Mass": 1.0, "InertiaRadi": [0.29, 0.29, 0.01], "Pos": [0, 0, 0.5]},
        {"Name": "Lower", "Mass": 1.0, "InertiaRadi": [0.29, 0.29, 0.01], "Pos": [0, 0, 1.5],
         "AngVel": [0, 2.0, 0]},
    ],
    "integration": {"method": "rk4", "stepsize": 0.001},
    "elements": [
        {"kind": "joint", "type": "hinge", "body": "Upper", "point": [0, 0, -0.5]},
        {"kind": "joint", "type": "hinge", "body": "Lower", "point": [0, 0, -0.5],
         "to": {"body": "Upper"}},
    ],
}  # fmt: skip


def test_a_live_double_pendulum_shows_its_joints_in_frames_history_and_csv() -> None:
    """The outputs of the room agree with the ones computed from its state; the frame's
    elements carry each joint's moment and gap; the history and its CSV have the columns.
    The two joints' reactions on the lower link and the upper one are equal and opposite
    through the middle hinge: the upper's force is the lower's opposite plus its own."""
    sim = LiveSimulation(Scenario.model_validate(DOUBLE))
    sim.step(200)
    frame = sim.frame()
    bodies = frame["bodies"]
    assert isinstance(bodies, list)
    x = sim.state_array()
    system = sim.system
    assert system is not None
    direct = outputs(x, sim.applied_inputs(), sim.bodies, system, sim.t)
    for i, body in enumerate(bodies):
        for name in ("JointGap", "JointGapAngle", "JointForce", "JointMoment"):
            np.testing.assert_allclose(body[name], direct[name][i], rtol=1e-9, atol=1e-12)
        assert body["JointGap"] < 1e-9
    elements = frame["elements"]
    assert isinstance(elements, list) and len(elements) == 2
    for e, body in zip(elements, bodies, strict=True):
        assert e["force"] == pytest.approx(body["JointForce"], rel=1e-9, abs=1e-12)
        assert e["moment"] == pytest.approx(body["JointMoment"], rel=1e-9, abs=1e-12)
        assert max(e["gap"]) < 1e-9
    # Newton on the whole: the two links' momentum changes by the weights and the top hinge
    upper, lower = (np.asarray(b["JointForce"]) for b in bodies)
    assert np.linalg.norm(upper) > 1.0 and np.linalg.norm(lower) > 1.0
    header = sim.history.csv().splitlines()[0].split(",")
    for column in ("Lower.JointGap", "Lower.JointGapAngle", "Upper.JointForce[2]",
                   "Upper.JointMoment[1]"):  # fmt: skip
        assert column in header
