"""A joint's own spring, damper and stops along its coordinate (issue 41), against closed
forms: a hinge with stiffness swings at √(k/I), a damped one decays as the analytic damped
oscillator, a slider between two bodies rings at √(k/μ) keeping their momentum, a ball
joint's damper slows a spin as exp(−c t / I), a stop gives back the restitution asked for,
and the energy the springs and stops hold keeps TotalEnergy constant."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sixdof.dynamics import Bodies, BodyParams, make_state, outputs
from sixdof.dynamics import kernel as K
from sixdof.dynamics.elements import Joint, pack_system
from sixdof.dynamics.kinds.joint import position
from sixdof.dynamics.kinds.poses import Poses

G = 9.81


def _disc(gravity: float = 0.0) -> tuple[Bodies, np.ndarray]:
    """A 2 kg body at rest at the origin, I_yy = 2 × 0.3² = 0.18 kg·m² about its CG."""
    body = BodyParams.from_radii(2.0, (0.25, 0.3, 0.35), gravity=gravity)
    return Bodies.of([body]), np.array([make_state((0, 0, 0), (1, 0, 0, 0), (0, 0, 0), (0, 0, 0))])


def _angles(
    joint: Joint, bodies: Bodies, x: np.ndarray, h: float, n: int, every: int
) -> np.ndarray:
    """The joint's coordinate every `every` steps of RK4 h, n samples (the first at t = 0)."""
    pk = K.packed(bodies, pack_system(bodies, [joint]))
    u = np.zeros((len(x), 6))
    out = [position(joint, Poses.of(bodies, x))]
    for _ in range(n - 1):
        K.advance(pk, x, u, h, every, "rk4")
        out.append(position(joint, Poses.of(bodies, x)))
    return np.array(out)


def test_a_hinge_with_stiffness_swings_at_the_root_of_k_over_i() -> None:
    """Weightless, about its CG's y axis, kicked at 1.5 rad/s: I θ̈ = −k θ, so θ = (ω₀/ω)
    sin ω t with ω = √(k/I), far past small angles (the spring is linear in the angle)."""
    bodies, x = _disc()
    k, inertia, w0 = 4.5, 2.0 * 0.3**2, 1.5
    x[0, 11] = w0
    joint = Joint(0, "hinge", (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), stiffness=k)
    h, every = 1e-3, 10
    got = _angles(joint, bodies, x, h, 301, every)
    omega = math.sqrt(k / inertia)
    t = np.arange(len(got)) * h * every
    np.testing.assert_allclose(got, w0 / omega * np.sin(omega * t), atol=1e-9)
    assert w0 / omega > 0.2  # a large swing


def test_a_damped_hinge_decays_as_the_damped_oscillator() -> None:
    """A rod on a hinge at one end in gravity-free space, spring k about rest 0.2 rad and a
    damper c: θ − rest = e^(−ζω t)(A cos ω_d t + B sin ω_d t) from θ = 0 at rest."""
    bodies, x = _disc()
    # the hinge 0.4 m north of the CG: I about it = 0.18 + 2 × 0.4²
    inertia = 2.0 * 0.3**2 + 2.0 * 0.4**2
    x[0, 0] = 0.4
    k, c, rest = 3.0, 0.4, 0.2
    joint = Joint(0, "hinge", (-0.4, 0.0, 0.0), (0.0, 0.0, 0.0), stiffness=k, damping=c, rest=rest)
    h, every = 1e-3, 20
    got = _angles(joint, bodies, x, h, 251, every)
    omega = math.sqrt(k / inertia)
    zeta = c / (2.0 * math.sqrt(k * inertia))
    wd = omega * math.sqrt(1.0 - zeta**2)
    t = np.arange(len(got)) * h * every
    a = -rest
    b = zeta * omega * a / wd  # θ̇(0) = 0
    want = rest + np.exp(-zeta * omega * t) * (a * np.cos(wd * t) + b * np.sin(wd * t))
    np.testing.assert_allclose(got, want, atol=1e-9)
    assert abs(got[-1] - rest) < 0.2 * rest  # it did decay: e^(−ζω t) = e^(−2) at 5 s


def test_a_slider_spring_between_two_bodies_rings_at_the_reduced_mass() -> None:
    """Two bodies on one rail (east), a spring k between them pulled 0.1 m apart by their
    start velocities: ω = √(k/μ), μ = m₁m₂/(m₁+m₂); the momentum stays where it was."""
    a = BodyParams.from_radii(2.0, (0.2, 0.25, 0.3), gravity=G)
    b = BodyParams.from_radii(3.0, (0.2, 0.25, 0.3), gravity=G)
    bodies = Bodies.of([a, b])
    va, vb = 0.6, -0.4  # m/s east; total momentum 1.2 − 1.2 = 0
    x = np.array(
        [make_state((0, 0, 0), (1, 0, 0, 0), (0, va, 0), (0, 0, 0)),
         make_state((0, 0, 0), (1, 0, 0, 0), (0, vb, 0), (0, 0, 0))]
    )  # fmt: skip
    k = 30.0
    joint = Joint(0, "slider", (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), (0.0, 1.0, 0.0), other=1,
                  stiffness=k)  # fmt: skip
    mu = 2.0 * 3.0 / 5.0
    omega = math.sqrt(k / mu)
    got = _angles(joint, bodies, x, 1e-3, 201, 10)
    t = np.arange(len(got)) * 1e-2
    np.testing.assert_allclose(got, (va - vb) / omega * np.sin(omega * t), atol=1e-9)
    # gravity pulls both straight down, the rail holds them together: no sideways momentum
    assert abs(2.0 * x[0, 8] + 3.0 * x[1, 8]) < 1e-9


def test_a_ball_joint_s_damper_slows_a_spin_exponentially() -> None:
    """Held at its CG, spinning about a principal axis: I ω̇ = −c ω."""
    bodies, x = _disc()
    x[0, 12] = 3.0
    c, inertia = 0.2, 2.0 * 0.35**2
    joint = Joint(0, "ball", (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), damping=c)
    pk = K.packed(bodies, pack_system(bodies, [joint]))
    K.advance(pk, x, np.zeros((1, 6)), 1e-3, 2000, "rk4")
    assert x[0, 12] == pytest.approx(3.0 * math.exp(-c * 2.0 / inertia), rel=1e-10)


@pytest.mark.parametrize("restitution", [1.0, 0.5])
def test_a_stop_gives_back_the_restitution_asked_for(restitution: float) -> None:
    """Weightless, turning at 2 rad/s into a stop at 0.3 rad: it comes off turning back at
    e × 2 rad/s (the ground's clamped model, inverted exactly), and no farther than a few
    mrad past the stop (it rings at 141 rad/s)."""
    bodies, x = _disc()
    x[0, 11] = 2.0
    joint = Joint(0, "hinge", (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), limits=(-1.0, 0.3),
                  restitution=restitution)  # fmt: skip
    got = _angles(joint, bodies, x, 1e-4, 4001, 1)
    assert got.max() == pytest.approx(0.3 + 2.0 / math.sqrt(2e4), rel=0.05)
    assert x[0, 11] == pytest.approx(-2.0 * restitution, rel=2e-3)


@pytest.mark.parametrize(
    ("limits", "h", "tolerance"), [(None, 1e-4, 1e-9), ((-0.2, 1.0), 5e-5, 2e-5)]
)
def test_springs_and_stops_keep_the_total_energy(
    limits: tuple[float, float] | None, h: float, tolerance: float
) -> None:
    """A compound pendulum (7.8 J to swing through) on a hinge with a torsion spring about a
    rest off its start: TotalEnergy, with the spring's StoredEnergy, stays within 1e-9 J over
    0.5 s, its whole swing. With stops it hits (restitution 1) the stop's spring is as stiff
    as the ground's (141 rad/s) and RK4 keeps the energy to 1.2e-4 J at 1e-4 s, 7.5e-6 J at
    5e-5 s: converging as h⁴, the method's order, not a leak."""
    bodies, x = _disc(G)
    x[0, 0] = 0.4
    joint = Joint(0, "hinge", (-0.4, 0.0, 0.0), (0.0, 0.0, 0.0), stiffness=2.0, rest=0.5,
                  limits=limits, restitution=1.0)  # fmt: skip
    system = pack_system(bodies, [joint])
    pk = K.packed(bodies, system)
    u = np.zeros((1, 6))

    def total() -> tuple[float, float]:
        out = outputs(x, u, bodies, system)
        return float(out["TotalEnergy"][0]), float(out["StoredEnergy"][0])

    e0, stored0 = total()
    assert stored0 == pytest.approx(0.5 * 2.0 * 0.5**2)
    worst, lowest = 0.0, 0.0
    for _ in range(round(0.5 / (10 * h))):
        K.advance(pk, x, u, h, 10, "rk4")
        worst = max(worst, abs(total()[0] - e0))
        lowest = min(lowest, position(joint, Poses.of(bodies, x)))
    assert lowest < (-0.2 if limits else -1.0)  # it hit the lower stop, or swung far past
    assert worst < tolerance


SWING = {
    "bodies": [{"Name": "Door", "Mass": 2.0, "InertiaRadi": [0.25, 0.3, 0.35], "Pos": [0.4, 0, 0]}],
    "integration": {"method": "rk4", "stepsize": 0.001, "TOutput": "0:0.1:1"},
    "elements": [
        {"kind": "joint", "type": "hinge", "body": "Door", "point": [-0.4, 0, 0],
         "stiffness": 2.0, "rest": 0.5, "damping": 0.1, "limits": [-0.2, 1.0],
         "restitution": 0.7},
    ],
}  # fmt: skip


def test_a_joint_s_spring_damper_and_stops_come_from_json_and_xml() -> None:
    from sixdof.scenario import Scenario, scenario_from_json, scenario_from_xml, scenario_to_xml

    scenario = Scenario.model_validate(SWING)
    assert scenario_from_xml(scenario_to_xml(scenario)).elements == scenario.elements
    assert scenario_from_json(scenario.model_dump_json()).elements == scenario.elements
    system = scenario.system()
    assert system is not None
    (joint,) = system.elements
    assert isinstance(joint, Joint)
    assert (joint.stiffness, joint.rest, joint.damping) == (2.0, 0.5, 0.1)
    assert joint.limits == (-0.2, 1.0) and joint.restitution == 0.7


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"type": "ball", "stiffness": 1.0}, "no coordinate"),
        ({"type": "fixed", "limits": [0, 1]}, "no coordinate"),
        ({"type": "fixed", "damping": 1.0}, "nothing to damp"),
        ({"limits": [0.5, 0.5]}, "lo < hi"),
    ],
)
def test_a_spring_or_stop_a_joint_cannot_have_is_refused(
    change: dict[str, object], words: str
) -> None:
    from sixdof.scenario import Scenario

    element = {**SWING["elements"][0], "stiffness": 0.0, "limits": None, **change}  # type: ignore[index, dict-item]
    with pytest.raises(ValueError, match=words):  # pydantic's, naming the element
        Scenario.model_validate({**SWING, "elements": [element]}).system()


def test_a_live_joint_retuned_keeps_its_ends_and_its_coordinate_s_zero() -> None:
    """The panel sends the whole list with a joint's damping, stiffness, rest, limits or
    restitution changed: the room keeps the joint as built at the start (its relative turn,
    so the zero its rest and limits count from), with the new values; the swing then goes
    on about the same rest. A changed axis is another joint, built where the bodies are now."""
    from sixdof.scenario import Scenario
    from sixdof.simulation import LiveSimulation

    hinge = {"kind": "joint", "type": "hinge", "body": "P", "point": [0.0, 0.0, -0.5],
             "axis": [1.0, 0.0, 0.0], "stiffness": 4.0}  # fmt: skip
    body = {"Name": "P", "Mass": 2.0, "Gravity": 0.0, "InertiaRadi": [0.25, 0.3, 0.35],
            "AngVel": [1.0, 0.0, 0.0]}  # fmt: skip
    spec = {"name": "tuned", "bodies": [body], "elements": [hinge]}
    sim = LiveSimulation(Scenario.model_validate(spec))
    sim.step(300)  # swung off its start: a joint built now would count from here
    assert sim.system is not None
    built = sim.system.elements[0]
    assert isinstance(built, Joint)
    bodies = sim.bodies
    angle = position(built, Poses.of(bodies, sim.state_array()))
    assert abs(angle) > 0.03  # of its 0.08 rad swing
    listed = [e.model_dump() for e in sim.scenario.elements]
    tuned = {**listed[0], "damping": 0.3, "stiffness": 6.0, "rest": 0.1, "limits": [-1.0, 1.0],
             "restitution": 0.8}  # fmt: skip
    sim.set_elements([tuned])
    kept = sim.system.elements[0]
    assert kept == Joint(built.body, "hinge", built.point, built.to, built.axis, None, built.turn,
                         0.3, 6.0, 0.1, (-1.0, 1.0), 0.8)  # fmt: skip
    assert position(kept, Poses.of(bodies, sim.state_array())) == angle
    sim.set_elements([{**tuned, "axis": [1.0, 1e-3, 0.0]}])  # another joint: its zero is now
    assert sim.system.elements[0].turn != built.turn  # type: ignore[union-attr]
