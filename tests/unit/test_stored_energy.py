"""StoredEnergy (dynamics.stored) and TotalEnergy with elements: what springs, the ground's
contact springs, still water and an added mass hold, so that an undamped system's total is
constant. Each case also shows that KineticEnergy + PotentialEnergy alone is not, so the
checks would fail without the stored part."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from sixdof.dynamics import kernel as K
from sixdof.dynamics import make_state, outputs
from sixdof.dynamics.stored import stored_energy
from sixdof.scenario import Scenario

G = 9.81
RHO = 1025.0


def _scenario(
    bodies: list[dict[str, Any]], elements: list[dict[str, Any]], **extra: Any
) -> Scenario:
    return Scenario.model_validate({"bodies": bodies, "elements": elements, **extra})


def _energies(
    sc: Scenario, h: float, t_end: float, every: int = 10
) -> tuple[np.ndarray, np.ndarray]:
    """(Σ TotalEnergy, Σ KineticEnergy + PotentialEnergy) over the bodies, sampled every
    `every` RK4 steps of h from the scenario's initial state."""
    bodies, system = sc.batch(), sc.system()
    pk = K.pack(bodies, system if system is not None else ())
    x = np.ascontiguousarray(sc.initial_states(), dtype=float)
    u = np.zeros((len(x), 6))
    total, bare = [], []
    t = 0.0
    for _ in range(round(t_end / (h * every))):
        out = outputs(x, u, bodies, system, t)
        total.append(float(out["TotalEnergy"].sum()))
        bare.append(float((out["KineticEnergy"] + out["PotentialEnergy"]).sum()))
        K.advance(pk, x, u, h, every, "rk4", t=t)
        t += h * every
    return np.array(total), np.array(bare)


def _spread(e: np.ndarray) -> float:
    return float(e.max() - e.min())


def test_two_masses_on_a_spring_keep_their_total() -> None:
    bodies = [
        {"Name": "A", "Mass": 2.0, "Gravity": 0.0, "Pos": [0.0, 0.0, 0.0],
         "LocalVel": [0.3, 0.1, 0.0], "AngVel": [0.0, 0.5, 0.2]},
        {"Name": "B", "Mass": 3.0, "Gravity": 0.0, "Pos": [1.5, 0.0, 0.0],
         "LocalVel": [-0.2, 0.0, 0.1]},
    ]  # fmt: skip
    spring = {"kind": "spring", "body": "A", "point": [0.2, 0.0, 0.1], "stiffness": 80.0,
              "rest_length": 1.0, "to": {"body": "B", "point": [-0.2, 0.1, 0.0]}}  # fmt: skip
    total, bare = _energies(_scenario(bodies, [spring]), 1e-3, 4.0)
    assert _spread(bare) > 0.05 * abs(total[0])  # the spring's energy comes and goes
    assert _spread(total) < 1e-9 * abs(total[0])  # measured ~1e-12


def test_a_pendulum_on_a_world_spring_under_gravity_keeps_its_total() -> None:
    bodies = [{"Name": "P", "Mass": 1.5, "Pos": [0.3, 0.0, 1.2], "LocalVel": [0.0, 0.4, 0.0]}]
    spring = {"kind": "spring", "body": "P", "point": [0.0, 0.0, -0.1], "to": [0.0, 0.0, 0.0],
              "stiffness": 60.0, "rest_length": 0.8}  # fmt: skip
    total, bare = _energies(_scenario(bodies, [spring]), 1e-3, 3.0)
    assert _spread(bare) > 0.1 * abs(total[0])
    assert _spread(total) < 1e-8 * abs(total[0])


def test_an_elastic_bounce_keeps_its_total() -> None:
    """Restitution 1 and no friction: the ground is an undamped contact spring, whose ½ k δ²
    carries the whole energy at the bottom of the bounce."""
    r = 0.1
    bodies = [{"Name": "Ball", "Mass": 1.0, "InertiaRadi": [math.sqrt(0.4) * r] * 3,
               "Mesh": "fhSphere.mesh", "Size": [2 * r] * 3,
               "Pos": [0.0, 0.0, -0.3 - r]}]  # fmt: skip
    ground = {"kind": "ground", "body": "Ball", "restitution": 1.0, "friction": 0.0}
    total, bare = _energies(_scenario(bodies, [ground]), 2e-4, 0.6, every=5)
    assert _spread(bare) > 0.5 * G * 0.3  # the drop's energy is all in the contact at the bottom
    # RK4 through the contact's kinks (the force starts at δ = 0 with a corner): measured
    # 1.3e-4 J, 3e-5 of the total, against 1.5 J the bare sum swings by
    assert _spread(total) < 1e-4 * total[0]


def test_hydrostatic_potential_of_a_submerged_box_is_rho_g_v_depth() -> None:
    """Fully under water, ρ g ∫ (z − level) dV = ρ g V (z_centre − level)."""
    sc = _scenario([{"Name": "B", "Mesh": "box.stl", "Size": [1.2, 0.8, 0.5],
                     "Quater": [0.9, 0.3, -0.2, 0.25], "Pos": [0.0, 0.0, 4.0]}],
                   [{"kind": "buoyancy", "body": "B"}], water={"level": 1.0})  # fmt: skip
    q = np.array([0.9, 0.3, -0.2, 0.25])
    x = make_state((0.0, 0.0, 4.0), q / np.linalg.norm(q), (0, 0, 0), (0, 0, 0))[None]
    got = stored_energy(sc.system(), sc.batch(), x)[0]
    assert got == pytest.approx(RHO * G * (1.2 * 0.8 * 0.5) * (4.0 - 1.0), rel=1e-12)


def test_a_floating_box_heaving_and_rolling_keeps_its_total() -> None:
    """Undamped in still water: gravity's and the water's potentials trade with the kinetic
    energy, and their sum stays."""
    mass = 0.4 * RHO * 2.0
    body = {"Name": "B", "Mesh": "box.stl", "Size": [2.0, 1.0, 1.0], "Mass": mass,
            "InertiaRadi": [0.35, 0.5, 0.5], "MeshOrigin": [0.0, 0.0, -0.3],
            "Pos": [0.0, 0.0, 0.2 - 0.3 + 0.05],
            "Quater": [math.cos(0.05), math.sin(0.05), 0, 0]}  # fmt: skip
    total, bare = _energies(_scenario([body], [{"kind": "buoyancy", "body": "B"}]), 1e-3, 3.0)
    assert _spread(bare) > 50.0  # J: the water's potential is most of the exchange
    assert _spread(total) < 1e-10 * _spread(bare)  # measured 1e-13


def test_added_mass_energy_is_in_the_total() -> None:
    """Torque-free with a full added-mass matrix: ½ νᵀ (M_RB + M_A) ν is constant (the
    Kirchhoff energy); the rigid body's own kinetic energy is not."""
    rng = np.random.default_rng(3)
    a = rng.normal(size=(6, 6))
    ma = a @ a.T + 2.0 * np.eye(6)
    body = {"Name": "B", "Mass": 3.0, "InertiaRadi": [0.5, 0.6, 0.7], "Gravity": 0.0,
            "LocalVel": [0.5, -0.2, 0.3], "AngVel": [0.7, 0.4, -0.9]}  # fmt: skip
    sc = _scenario([body], [{"kind": "added_mass", "body": "B", "matrix": ma.tolist()}])
    total, bare = _energies(sc, 1e-3, 3.0)
    assert _spread(bare) > 1e-3 * abs(total[0])
    assert _spread(total) < 1e-8 * abs(total[0])


def test_a_live_room_sends_the_same_total() -> None:
    """The engine's per-room outputs (batched, elements concatenated) equal model.outputs
    with the room's own system."""
    from sixdof.simulation import LiveSimulation

    bodies = [{"Name": "A", "Mass": 2.0, "Gravity": 0.0}, {"Name": "B", "Mass": 1.0,
               "Gravity": 0.0, "Pos": [1.2, 0.0, 0.0], "LocalVel": [0.3, 0.0, 0.0]}]  # fmt: skip
    spring = {
        "kind": "spring",
        "body": "A",
        "stiffness": 50.0,
        "rest_length": 1.0,
        "to": {"body": "B"},
    }
    sim = LiveSimulation(_scenario(bodies, [spring]), running=False)
    sim.step(300)
    frame = {b["Name"]: b for b in sim.frame()["bodies"]}
    x = sim.state()
    out = outputs(x, np.zeros((2, 6)), sim.bodies, sim.system, sim.t)
    assert frame["A"]["StoredEnergy"] == pytest.approx(float(out["StoredEnergy"][0]), rel=1e-12)
    assert frame["A"]["StoredEnergy"] > 0.0 and frame["B"]["StoredEnergy"] == 0.0
    assert frame["A"]["TotalEnergy"] == pytest.approx(float(out["TotalEnergy"][0]), rel=1e-12)
