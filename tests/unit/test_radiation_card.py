"""The Hydrodynamics card's numbers (scenario/radiation_card.py, issue 43), for the OES sphere
preset's memory: the file's A(ω), B(ω) it carries are the file's, the fitted model's are
within the fit's reported error of them, its K(t) is C e^{At} B and starts where the file's
damping says, (2/π)∫B dω."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import expm

from sixdof.dynamics.radiation_fit import TAIL
from sixdof.scenario.bem_file import read_bem
from sixdof.scenario.kinds.radiation import RadiationElement, RadiationFitModel
from sixdof.scenario.presets import FOLDER, PRESETS
from sixdof.scenario.radiation_card import card

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def sphere() -> tuple[RadiationFitModel, dict]:
    scenario = PRESETS["oes_sphere_1m"].scenario()
    (element,) = [
        e for e in scenario.elements if isinstance(e, RadiationElement) and e.body == "Sphere"
    ]
    assert element.fit is not None
    return element.fit, card(element.fit)


def test_the_samples_are_the_files(sphere: tuple[RadiationFitModel, dict]) -> None:
    _, c = sphere
    data = read_bem((FOLDER / "bem" / "oes_sphere.nc").read_bytes(), "oes_sphere.nc").radiation
    np.testing.assert_allclose(c["omega"], data.omega, rtol=1e-12)
    assert c["pairs"] == [[0, 0], [2, 2]]  # surge and heave: the file's, each on its own
    for (i, j), a, b in zip(c["pairs"], c["added_mass"], c["damping"], strict=True):
        np.testing.assert_allclose(a, data.added_mass[:, i, j], rtol=1e-6)  # 7 digits kept
        np.testing.assert_allclose(b, data.damping[:, i, j], rtol=1e-6, atol=1e-8)


def test_the_fit_is_within_its_reported_error(sphere: tuple[RadiationFitModel, dict]) -> None:
    fit, c = sphere
    assert 0 < c["error"] == fit.error < 0.05
    w, bound = np.array(c["omega"]), c["error"] * c["scale"]
    for p in range(len(c["pairs"])):
        assert np.abs(np.array(c["fit_damping"][p]) - c["damping"][p]).max() <= bound
        moved = w * (np.array(c["fit_added_mass"][p]) - c["added_mass"][p])
        assert np.abs(moved).max() <= bound
    # and not trivially: the fit differs from the file (its points are not the file's)
    assert np.abs(np.array(c["fit_damping"][1]) - c["damping"][1]).max() > 1e-4 * bound


def test_the_memory_is_c_exp_at_b(sphere: tuple[RadiationFitModel, dict]) -> None:
    fit, c = sphere
    a, b, cm = (np.array(m) for m in (fit.A, fit.B, fit.C))
    for k in (0, 7, 40):
        direct = cm @ expm(a * c["t"][k]) @ b
        for p, (i, j) in enumerate(c["pairs"]):
            assert c["fit_kernel"][p][k] == pytest.approx(direct[i, j], rel=1e-9, abs=1e-6)


def test_heave_memory_starts_at_the_integral_of_the_damping(
    sphere: tuple[RadiationFitModel, dict],
) -> None:
    """K(0) = (2/π)∫B dω: the file's B over its frequencies, then carried as ω⁻² up to
    TAIL × ω_max as the fit carries it (integrated exactly here, the fit by trapezoids)."""
    _, c = sphere
    heave = c["pairs"].index([2, 2])
    w, b = np.array([0.0, *c["omega"]]), np.array([0.0, *c["damping"][heave]])
    tail = b[-1] * w[-1] * (1 - 1 / TAIL)
    k0 = 2 / np.pi * (np.trapezoid(b, w) + tail)
    assert c["kernel"][heave][0] == pytest.approx(k0, rel=1e-3)
    assert abs(c["fit_kernel"][heave][0] - k0) <= c["error"] * k0


def test_in_other_water_the_card_shows_what_the_room_uses(
    sphere: tuple[RadiationFitModel, dict],
) -> None:
    """The sphere's fit (for fresh water) shown for a room of sea water: the file's samples,
    the fitted A(ω), B(ω), A∞ and K(t) all × 1.025 (the room's dynamics use the same scaled
    fit: fit_in_water); the fit's relative error unchanged."""
    from sixdof.scenario.kinds.radiation import fit_in_water

    fit, fresh = sphere
    assert fit.density == 1000.0
    sea = card(fit_in_water(fit, 1025.0))
    keys = ("added_mass", "damping", "fit_added_mass", "fit_damping", "infinite", "kernel")
    for key in (*keys, "fit_kernel", "scale"):
        np.testing.assert_allclose(
            sea[key], 1.025 * np.asarray(fresh[key]), rtol=1e-9, atol=1e-9, err_msg=key
        )
    assert sea["error"] == fresh["error"]
    assert fit_in_water(fit, 1000.0) is fit  # its own water: the same fit
