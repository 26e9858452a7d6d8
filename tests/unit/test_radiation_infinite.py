"""A radiation memory's A∞ is an added mass (dynamics/kinds/radiation.py): it joins the mass
matrix, its Munk force −C_A(ν) ν acts in the `full` model and TotalEnergy holds its
½ νᵀ A∞ ν. A memory that does nothing (C = 0, D = 0) with A∞ = M_A must move a body exactly as
an `added_mass` of M_A does: a torque-free body tumbling with a full matrix keeps its Kirchhoff
impulse R (M + A∞) ν only with the Munk force, and its TotalEnergy only with the water's
share counted."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from sixdof.dynamics.quaternion import to_rotmat
from sixdof.scenario import Scenario
from sixdof.simulation import LiveSimulation

RNG = np.random.default_rng(28)
_A = RNG.normal(size=(6, 6))
WATER = _A @ _A.T + 2.0 * np.eye(6)  # symmetric, positive definite, every pair coupled
INERT = {"A": [[-1.0]], "B": [[0.0] * 6], "C": [[0.0]] * 6, "D": [[0.0] * 6] * 6}


def tumbling(element: dict[str, Any], model: str = "full") -> Scenario:
    """A 3 kg body without gravity, thrown and spun, with `element`."""
    return Scenario.model_validate(
        {
            "bodies": [
                {"Name": "Hull", "Mass": 3.0, "InertiaRadi": [0.5, 0.6, 0.7], "Gravity": 0.0,
                 "model": model, "LocalVel": [0.5, -0.2, 0.3], "AngVel": [0.7, 0.4, -0.9]}
            ],
            "elements": [{"body": "Hull", **element}],
            "integration": {"method": "rk4", "stepsize": 0.001},
        }
    )  # fmt: skip


def radiation(model: str = "full") -> Scenario:
    return tumbling({"kind": "radiation", "fit": {**INERT, "infinite": WATER.tolist()}}, model)


def added_mass(model: str = "full") -> Scenario:
    return tumbling({"kind": "added_mass", "matrix": WATER.tolist()}, model)


def frames(scenario: Scenario, steps: int = 500, count: int = 6) -> list[dict[str, Any]]:
    sim = LiveSimulation(scenario, running=False)
    out = [sim.frame()["bodies"][0]]
    for _ in range(count):
        sim.step(steps)
        out.append(sim.frame()["bodies"][0])
    return out


@pytest.mark.parametrize("model", ["full", "fhsim"])
def test_an_inert_memorys_infinite_added_mass_moves_the_body_as_an_added_mass_does(
    model: str,
) -> None:
    for memory, mass in zip(frames(radiation(model)), frames(added_mass(model)), strict=True):
        for key in ("Pos", "Quater", "LocalVel", "AngVel"):
            np.testing.assert_allclose(memory[key], mass[key], rtol=0, atol=1e-12, err_msg=key)
        assert memory["TotalEnergy"] == pytest.approx(mass["TotalEnergy"], rel=1e-12)


def test_a_tumbling_hull_keeps_its_kirchhoff_impulse_and_its_energy_with_the_water() -> None:
    bodies = frames(radiation())
    mass = np.diag([3.0, 3.0, 3.0, 3.0 * 0.5**2, 3.0 * 0.6**2, 3.0 * 0.7**2]) + WATER

    def impulse(body: dict[str, Any]) -> np.ndarray:
        nu = np.r_[body["LocalVel"], body["AngVel"]]
        return to_rotmat(np.asarray(body["Quater"])) @ (mass @ nu)[:3]

    p0, e0 = impulse(bodies[0]), bodies[0]["TotalEnergy"]
    # ½ νᵀ (M + A∞) ν, the water's share in TotalEnergy
    nu0 = np.r_[bodies[0]["LocalVel"], bodies[0]["AngVel"]]
    assert e0 == pytest.approx(0.5 * nu0 @ mass @ nu0, rel=1e-12)
    for body in bodies[1:]:
        # without the Munk force it is 1.18 N·s away from its 3.83 N·s after 0.5 s
        assert np.linalg.norm(impulse(body) - p0) < 1e-8 * np.linalg.norm(p0)
        assert body["TotalEnergy"] == pytest.approx(e0, rel=1e-8)
    moved = np.linalg.norm(np.asarray(bodies[-1]["Pos"]) - np.asarray(bodies[0]["Pos"]))
    assert moved > 0.1  # it did go somewhere
