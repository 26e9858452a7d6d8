"""What a cable measures (issue 44): the force at each end equals what the kernels put on
the bodies, the energy a live room sums (StoredEnergy) is conserved without drag and seabed,
a cable between two bodies conserves their momentum with its nodes', and the live history's
CSV names its columns."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sixdof.dynamics import Bodies, BodyParams, make_state
from sixdof.dynamics import kernel as K
from sixdof.dynamics.cable_lines import cable_outputs, lines, seabed_length
from sixdof.dynamics.elements import Cable
from sixdof.dynamics.kinds.poses import Poses
from sixdof.scenario import Scenario
from sixdof.simulation import LiveSimulation

pytestmark = pytest.mark.unit


def _pair(
    gravity: float, damping: float = 0.0
) -> tuple[K.PackedBodies, Cable, np.ndarray, np.ndarray]:
    """Two bodies (10 kg, 30 kg) joined by a 10 m cable of 8 segments, moving apart and
    turning, its nodes plucked across the line and moving."""
    n = 8
    s = np.linspace(0.0, 1.0, n + 1)[1:-1]
    nodes = np.zeros((n - 1, 6))
    nodes[:, 0] = 10.2 * s
    nodes[:, 1] = 0.3 * np.sin(math.pi * s)
    nodes[:, 5] = 0.5 * np.cos(math.pi * s)
    cable = Cable(0, (0.1, 0.0, 0.2), (-0.2, 0.1, 0.0), 10.0, n, 2.0, 1e5, 0.02, other=1,
                  density=0.0, axial_damping=damping, nodes=tuple(map(tuple, nodes)))  # fmt: skip
    bodies = Bodies.of([BodyParams.from_radii(m, (0.3, 0.4, 0.5), gravity=gravity)
                        for m in (10.0, 30.0)])  # fmt: skip
    pk = K.pack(bodies, [cable])
    x = np.array([
        make_state((-0.1, 0.0, -0.2), (1, 0, 0, 0), (-1.0, 0.2, 0.0), (0.0, 0.3, 0.1)),
        make_state((10.4, 0.0, 0.0), (1, 0, 0, 0), (0.5, 0.0, 0.1), (0.2, 0.0, 0.0)),
    ])  # fmt: skip
    return pk, cable, x, K.element_states(pk, None)


def test_the_force_at_each_end_is_what_the_kernel_puts_on_each_body() -> None:
    pk, _, x, z = _pair(gravity=9.81, damping=50.0)
    # at rest in rotation: a body's d(LocalVel)/dt is then its force over its mass
    x[:, 10:13] = 0.0
    xdot = K.derivative(pk, x, np.zeros((2, 6)), 0.0, z)
    line = lines(pk.system, pk.bodies, x, z)[0]
    assert line is not None and float(line.tension.min()) > 0.0  # taut, damping acting
    for i, force in ((0, line.force_a), (1, line.force_b)):
        m = float(pk.bodies.mass[i])
        weighed = force + np.array([0, 0, m * 9.81])
        np.testing.assert_allclose(weighed, m * xdot[i, 7:10], rtol=1e-12, atol=1e-9)
    rec = K.element_records(pk, x, np.zeros((2, 6)), 0.0, 1e-3, z)
    np.testing.assert_allclose(line.force_a, rec[0, 3:6], rtol=1e-12)
    np.testing.assert_allclose(line.nodes[0], rec[0, 0:3], atol=1e-12)
    np.testing.assert_allclose(line.nodes[-1], rec[0, 6:9], atol=1e-12)
    out = cable_outputs(pk.system, pk.bodies, x, z)
    np.testing.assert_allclose(out["CableForce"], [line.force_a, line.force_b])
    assert out["CableTension"].tolist() == [line.tension.max()] * 2
    assert out["CableSeabedLength"].tolist() == [0.0, 0.0]


def test_a_cable_between_two_bodies_conserves_their_momentum_with_its_nodes() -> None:
    pk, cable, x, z = _pair(gravity=0.0)
    n, seg = cable.segments, cable.length / cable.segments

    def momentum() -> np.ndarray:
        outs = [pk.bodies.mass[i] * Poses.of(pk.bodies, x).rot[i] @ x[i, 7:10] for i in (0, 1)]
        nodes = cable.mass_per_length * seg * z[1:].reshape(n - 1, 6)[:, 3:].sum(axis=0)
        return np.sum(outs, axis=0) + nodes

    p0 = momentum()
    scale = float(np.abs(pk.bodies.mass[:, None] * x[:, 7:10]).sum())
    tension = []
    for k in range(200):
        K.advance(pk, x, np.zeros((2, 6)), 1e-4, 50, "rk4", k * 5e-3, z)
        found = lines(pk.system, pk.bodies, x, z)[0]
        assert found is not None
        tension.append(float(found.tension.max()))
    assert max(tension) > 100.0  # the line pulled the bodies (and went slack between)
    assert np.abs(momentum() - p0).max() / scale < 1e-9, (momentum() - p0) / scale


def _swing(stepsize: float) -> Scenario:
    """A 10 kg bob on a 10 m cable of 10 segments from a world point, launched sideways: in
    water (its buoyancy) but without drag and seabed."""
    cable = {"kind": "cable", "body": "Bob", "to": [0.0, 0.0, 0.0], "length": 10.0,
             "segments": 10, "mass_per_length": 1.0, "axial_stiffness": 1e5,
             "diameter": 0.01, "drag_normal": 0.0, "drag_tangential": 0.0}  # fmt: skip
    bob = {"Name": "Bob", "Mass": 10.0, "InertiaRadi": [0.1, 0.1, 0.1], "Pos": [0.0, 0.0, 10.02],
           "LocalVel": [2.0, 0.0, 0.0]}  # fmt: skip
    return Scenario.model_validate({"bodies": [bob], "elements": [cable],
                                    "integration": {"stepsize": stepsize}})  # fmt: skip


def test_a_live_rooms_total_energy_holds_the_cables_and_is_conserved() -> None:
    sim = LiveSimulation(_swing(1e-4), running=False)
    scale = 0.5 * 10.0 * 2.0**2 + 10.0 * 9.81 * 10.0
    outs = sim.outputs()
    e0 = float(outs["TotalEnergy"][0])
    stored0 = float(outs["StoredEnergy"][0])
    # the line's own potential: 10 kg of line (less its buoyancy) around 5 m down, ~−470 J
    assert -600.0 < stored0 < -300.0, stored0
    drift = []
    for _ in range(10):
        sim.step(10_000)
        drift.append(float(sim.outputs()["TotalEnergy"][0]) - e0)
    assert sim.t == pytest.approx(10.0)
    assert abs(float(sim.outputs()["Pos"][0, 0])) > 0.1  # it swung
    assert float(sim.outputs()["StoredEnergy"][0]) != stored0
    assert max(map(abs, drift)) / scale < 1e-6, drift
    # the same sum without the cable's energy drifts by the nodes' share
    assert float(sim.outputs()["CableTension"][0]) > 0.0


def test_the_live_history_csv_names_the_cable_columns() -> None:
    sim = LiveSimulation(_swing(1e-3), running=False)
    sim.step(100)
    header = sim.history.csv().splitlines()[0].split(",")
    for name in ("Bob.CableForce[0]", "Bob.CableForce[1]", "Bob.CableForce[2]",
                 "Bob.CableTension", "Bob.CableSeabedLength"):  # fmt: skip
        assert name in header, name
    rows = np.loadtxt(sim.history.csv().splitlines()[1:], delimiter=",")
    vertical = rows[:, header.index("Bob.CableForce[2]")]
    assert (vertical < 0.0).all()  # the line holds the bob up (NED: up is −z)
    np.testing.assert_allclose(
        rows[-1, header.index("Bob.CableTension")], float(sim.outputs()["CableTension"][0])
    )


def test_the_seabed_length_uses_the_worlds_gravity() -> None:
    """Half gravity: the line weighs half, the seabed's spring sinks half as far, carrying
    the same length (MoorDyn's contact: each node's share is its bed force over its weight)."""
    n = 10
    nodes = np.zeros((n - 1, 6))
    nodes[:, 0] = np.linspace(1.0, 9.0, n - 1)
    nodes[:, 2] = 20.0
    lengths = []
    for g in (9.81, 4.905):
        cable = Cable(0, (0.0, 0.0, 0.0), (10.0, 0.0, 20.0), 10.0, n, 5.0, 1e6, 0.05, depth=20.0,
                      nodes=tuple(map(tuple, nodes)))  # fmt: skip
        w = (5.0 - 1025.0 * math.pi * 0.05**2 / 4) * g
        sink = w / cable.kappa() * 0.5  # half of the node's weight carried by the bed
        z = np.concatenate([[10.0], (nodes + np.array([0, 0, sink, 0, 0, 0])).ravel()])
        got = seabed_length(cable, z, np.array([0.0, 0.0, 20.0]), np.array([10.0, 0.0, 20.0]), g)
        lengths.append(got)
    # nine inner nodes half carried (4.5 m) and both ends (1 m)
    assert lengths == pytest.approx([5.5, 5.5], rel=1e-9)
