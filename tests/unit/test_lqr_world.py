"""`sixdof.lqr` for a body with its elements (issue 44: "the decay rates of a linearised barge
under lqr's K equal the real parts of eig(A − B K) within 1 %"): a box barge floating on its
buoyancy, with linear damping, is linearised by the engine's own derivative about the input
that holds it, and the nonlinear barge under the designed `linear_system` rings down at the
closed loop's eigenvalues, each motion its own mode. The same linearisation of a bare body
gives the analytic design's gain.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from scipy.optimize import curve_fit

import sixdof
from sixdof.analysis.lqr import INPUTS, Lqr
from sixdof.analysis.lqr_mechanism import design
from sixdof.api import as_scenario
from sixdof.dynamics.quaternion import to_euler
from sixdof.fields import FieldError

DRAFT_Z = 0.1  # the barge's Pos z; its weight less its buoyancy there is held by u₀
Q = [1.0] * 6 + [10.0] * 6
R = [1e-4] * 6


def _barge(**pose: Any) -> dict[str, Any]:
    """An 820 kg, 2 × 1 × 1 m box floating in still water, damped in every axis."""
    body = {"Name": "Barge", "Mass": 820.0, "InertiaRadi": [0.408248, 0.645497, 0.645497],
            "Mesh": "box", "MeshOrigin": [0.0, 0.0, -0.3], "Size": [2.0, 1.0, 1.0],
            "Pos": [0.0, 0.0, DRAFT_Z], **pose}  # fmt: skip
    return {
        "bodies": [body],
        "elements": [
            {"kind": "buoyancy", "body": "Barge"},
            {"kind": "damper", "body": "Barge", "linear": [200, 300, 400, 50, 60, 30]},
        ],
        "water": {},
        "integration": {"method": "rk4", "stepsize": 0.002, "TOutput": "0:0.02:20"},
    }


def _ring(t: np.ndarray, sigma: float, omega: float, a: float, b: float) -> np.ndarray:
    return np.exp(sigma * t) * (a * np.cos(omega * t) + b * np.sin(omega * t))


@pytest.fixture(scope="module")
def barge_lqr() -> Lqr:
    return sixdof.lqr(_barge(), Q, R)


def _turned(axis: int, angle: float) -> list[float]:
    q = [float(np.cos(angle / 2)), 0.0, 0.0, 0.0]
    q[1 + axis] = float(np.sin(angle / 2))
    return q


MOTIONS = {  # a small push that excites one pair of the closed loop's modes, and what rings
    "surge": ({"Pos": [0.05, 0.0, DRAFT_Z]}, lambda x: x[:, 0]),
    "heave": ({"Pos": [0.0, 0.0, DRAFT_Z + 0.01]}, lambda x: x[:, 2] - DRAFT_Z),
    "roll": ({"Quater": _turned(0, 0.01)}, lambda x: [to_euler(q)[0] for q in x[:, 3:7]]),
    "pitch": ({"Quater": _turned(1, 0.01)}, lambda x: [to_euler(q)[1] for q in x[:, 3:7]]),
}


@pytest.mark.parametrize("motion", list(MOTIONS))
def test_the_barge_rings_down_at_the_closed_loops_eigenvalues(barge_lqr: Lqr, motion: str) -> None:
    """Fitted e^{σt}(a cos ωt + b sin ωt) after 3 s: σ and ω equal the nearest eigenvalue's
    real and imaginary parts within 1 % (measured 1e-7 to 1e-9 relative). Heave rings at
    √(ρ g A_w / m) damped, 4.94 rad/s: the buoyancy's stiffness is in the linearisation."""
    pose, read = MOTIONS[motion]
    scenario = _barge(**pose)
    scenario["elements"].append(barge_lqr.element)
    result = sixdof.run(scenario)
    t = np.asarray(result.arrays()["Time"])
    y = np.asarray(read(result.states[:, 0, :]), dtype=float)
    late = t > 3.0
    eig = barge_lqr.eigenvalues
    fits = []
    for lam in eig[eig.imag > 0.0]:  # the fit started at each pair: the best one is kept
        p, _ = curve_fit(_ring, t[late] - 3.0, y[late], p0=[lam.real, lam.imag, y[late][0], 0.0])
        residual = np.sqrt(np.mean((_ring(t[late] - 3.0, *p) - y[late]) ** 2))
        fits.append((residual, p))
    residual, (sigma, omega, _, _) = min(fits, key=lambda f: f[0])
    assert residual < 1e-3 * np.abs(y[late]).max()  # one mode rings, nothing else
    nearest = eig[np.argmin(np.abs(eig - complex(sigma, omega)))]
    assert sigma == pytest.approx(nearest.real, rel=0.01)
    assert omega == pytest.approx(nearest.imag, rel=0.01)
    if motion == "heave":  # the open loop's hydrostatic ring, which the controller keeps
        assert omega == pytest.approx(np.sqrt(1025.0 * 9.81 * 2.0 / 820.0), rel=0.02)


def test_the_barge_at_rest_is_held_by_its_u0(barge_lqr: Lqr) -> None:
    """u₀ is its weight less its buoyancy at the draft (2,011 N up: 0.6 m³ of sea at
    ρ = 1025 against 820 kg), and the unpushed barge stays where it was."""
    assert barge_lqr.u0[2] == pytest.approx(-(820.0 - 1025.0 * 0.6) * 9.81, rel=1e-3)
    assert np.abs(np.delete(barge_lqr.u0, 2)).max() < 1e-6
    scenario = _barge()
    scenario["elements"].append(barge_lqr.element)
    states = sixdof.run(scenario).states[:, 0, :]
    assert np.abs(states[:, 0:3] - [0.0, 0.0, DRAFT_Z]).max() < 1e-9
    assert np.all(barge_lqr.eigenvalues.real < 0.0)


def test_the_engines_linearisation_of_a_bare_body_is_the_analytic_ones() -> None:
    """The central differences of the compiled derivative (the path a body with elements
    takes) give the analytic design's K and eigenvalues for a bare body turned 10° in yaw
    (measured 5e-11 and 2e-12)."""
    yaw = np.radians(10.0)
    turned = [float(np.cos(yaw / 2)), 0.0, 0.0, float(np.sin(yaw / 2))]
    scenario = {"bodies": [{"Name": "B", "Mass": 1000.0, "InertiaRadi": [2.0, 4.0, 4.0],
                            "Quater": turned}]}  # fmt: skip
    analytic = sixdof.lqr(scenario, [1.0] * 6 + [1e3] * 6, [1e-4] * 6)
    k, eig, _, _, u0, _ = design(as_scenario(scenario), [1.0] * 6 + [1e3] * 6, [1e-4] * 6, "B",
                                 list(INPUTS), np.eye(6), hold=True)  # fmt: skip
    assert np.abs(k - analytic.K).max() < 1e-8 * np.abs(analytic.K).max()
    assert np.abs(np.sort_complex(eig) - np.sort_complex(analytic.eigenvalues)).max() < 1e-8
    assert u0 == pytest.approx(analytic.u0, abs=1e-6)


@pytest.mark.parametrize(
    "change, field",
    [
        ({"water": {"waves": [{"amplitude": 0.1, "period": 5.0}]}}, "water.waves"),
        (
            {
                "elements": [
                    {
                        "kind": "cable",
                        "body": "Barge",
                        "to": [5.0, 0.0, 3.0],
                        "length": 6.0,
                        "axial_stiffness": 1e6,
                    }
                ]
            },
            "elements",
        ),
    ],
)
def test_lqr_refuses_what_it_cannot_linearise_naming_the_field(change: dict, field: str) -> None:
    with pytest.raises(FieldError) as info:
        sixdof.lqr({**_barge(), **change}, Q, R)
    assert info.value.field == field


def test_lqr_of_a_body_among_others_asks_for_inputs() -> None:
    scenario = _barge()
    scenario["bodies"].append({"Name": "Other", "Mass": 1.0, "Pos": [5.0, 0.0, 0.0]})
    with pytest.raises(FieldError) as info:
        sixdof.lqr(scenario, Q, R)
    assert info.value.field == "bodies" and "2" in str(info.value)
