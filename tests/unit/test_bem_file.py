"""Capytaine's NetCDF read into sixdof's axes (scenario/bem_file.py), and bad files refused by
the variable at fault. The files are written here as Capytaine lays them out (NetCDF 3 as
xarray writes it with scipy alone: names as characters, complex numbers as re/im)."""

from __future__ import annotations

import io
from collections.abc import Callable

import numpy as np
import pytest
from scipy.io import netcdf_file

from sixdof.scenario.bem_file import BemFileError, read_bem

DOFS = ["Surge", "Heave"]


def dataset(n: int = 12) -> dict[str, tuple[tuple[str, ...], np.ndarray]]:
    """A two-dof hull (surge, heave) with a surge-heave coupling, Capytaine's axes."""
    omega = np.linspace(0.2, 2.4, n)
    a = np.zeros((n, 2, 2))
    b = np.zeros((n, 2, 2))
    a[:, 0, 0], a[:, 1, 1], a[:, 0, 1] = 7e4 + 1e3 * omega, 1.3e5 + 2e3 * omega, 500.0
    a[:, 1, 0] = a[:, 0, 1]
    b[:, 0, 0] = 1e4 * omega**2 * np.exp(-omega)
    b[:, 1, 1] = 5e4 * omega**2 * np.exp(-omega)
    b[:, 0, 1] = b[:, 1, 0] = 300.0 * omega
    exc = np.zeros((2, n, 1, 2))  # re/im × omega × wave_direction × influenced
    exc[0, :, 0, 0], exc[1, :, 0, 1] = 1e5, -2e5
    return {
        "omega": (("omega",), omega),
        "radiating_dof": (("radiating_dof",), np.array(DOFS)),
        "influenced_dof": (("influenced_dof",), np.array(DOFS)),
        "wave_direction": (("wave_direction",), np.array([0.5])),
        "complex": (("complex",), np.array(["re", "im"])),
        "added_mass": (("omega", "influenced_dof", "radiating_dof"), a),
        "radiation_damping": (("omega", "influenced_dof", "radiating_dof"), b),
        "hydrostatic_stiffness": (("influenced_dof", "radiating_dof"), np.diag([0.0, 7.7e5])),
        "excitation_force": (("complex", "omega", "wave_direction", "influenced_dof"), exc),
        "rho": ((), np.array(1000.0)),
    }


def netcdf3(variables: dict[str, tuple[tuple[str, ...], np.ndarray]]) -> bytes:
    buf = io.BytesIO()
    f = netcdf_file(buf, "w")
    sizes: dict[str, int] = {}
    for dims, arr in variables.values():
        for d, size in zip(dims, np.shape(arr), strict=False):
            sizes[d] = size
    for d, size in sizes.items():
        f.createDimension(d, size)
    for key, (dims, arr) in variables.items():
        arr = np.asarray(arr)
        if arr.dtype.kind == "U":  # as xarray writes names with scipy: a character dimension
            width = max(len(s) for s in arr)
            f.createDimension(f"string{width}_{key}", width)
            chars = np.array([list(s.ljust(width, "\0")) for s in arr], "S1")
            f.createVariable(key, "S1", (*dims, f"string{width}_{key}"))[:] = chars
        else:
            f.createVariable(key, "f8", dims)[...] = arr
    f.flush()
    data = buf.getvalue()
    f.close()
    return data


def test_a_capytaine_file_is_read_in_sixdofs_axes() -> None:
    got = read_bem(netcdf3(dataset()))
    r = got.radiation
    assert r.present == (0, 2)
    src = dataset()
    # surge and heave keep their own signs (each flipped twice); their coupling changes sign
    assert r.added_mass[:, 0, 0] == pytest.approx(src["added_mass"][1][:, 0, 0])
    assert r.added_mass[:, 2, 2] == pytest.approx(src["added_mass"][1][:, 1, 1])
    assert r.added_mass[:, 0, 2] == pytest.approx(-src["added_mass"][1][:, 0, 1])
    assert r.damping[:, 2, 0] == pytest.approx(-src["radiation_damping"][1][:, 1, 0])
    assert np.count_nonzero(r.added_mass[:, [1, 3, 4, 5], :]) == 0
    assert got.stiffness is not None and got.stiffness[2, 2] == 7.7e5
    assert r.added_mass_inf is None
    assert got.rho == 1000.0
    # a wave toward Capytaine's β = 0.5 rad (toward port) travels toward −0.5 rad in NED;
    # the heave force (up in Capytaine's axes) is down-positive here
    assert got.wave_directions == pytest.approx([-0.5])
    assert got.excitation is not None
    assert got.excitation[3, 0, 0] == pytest.approx(1e5)
    assert got.excitation[3, 0, 2] == pytest.approx(2e5j)


def test_the_order_of_a_variables_dimensions_does_not_matter() -> None:
    src = dataset()
    _dims, b = src["radiation_damping"]
    src["radiation_damping"] = (
        ("radiating_dof", "omega", "influenced_dof"),
        np.transpose(b, (2, 0, 1)),
    )
    assert read_bem(netcdf3(src)).radiation.damping[:, 2, 0] == pytest.approx(-b[:, 1, 0])


def test_the_added_mass_at_infinite_frequency_is_taken_from_the_file() -> None:
    src = dataset()
    for key in ("omega",):
        src[key] = (("omega",), np.append(src[key][1], np.inf))
    for key in ("added_mass", "radiation_damping"):
        dims, arr = src[key]
        last = np.full((1, 2, 2), 0.0)
        if key == "added_mass":
            last[0] = [[6e4, 10.0], [10.0, 1.2e5]]
        src[key] = (dims, np.concatenate((arr, last)))
    dims, exc = src["excitation_force"]
    src["excitation_force"] = (dims, np.concatenate((exc, np.full((2, 1, 1, 2), np.nan)), axis=1))
    got = read_bem(netcdf3(src)).radiation
    assert got.added_mass_inf is not None
    assert got.added_mass_inf[2, 2] == 1.2e5 and got.added_mass_inf[0, 2] == -10.0
    assert len(got.omega) == 12 and np.isfinite(got.omega).all()


def edit(key: str, change: Callable[[np.ndarray], np.ndarray]) -> bytes:
    src = dataset()
    dims, arr = src[key]
    src[key] = (dims, change(arr.copy()))
    return netcdf3(src)


def drop(key: str) -> bytes:
    src = dataset()
    del src[key]
    return netcdf3(src)


def nan_at(arr: np.ndarray) -> np.ndarray:
    arr[3, 1, 1] = np.nan
    return arr


def negative(arr: np.ndarray) -> np.ndarray:
    arr[5, 1, 1] = -1e4
    return arr


@pytest.mark.parametrize(
    ("data", "variable", "words"),
    [
        (drop("radiation_damping"), "radiation_damping", "missing"),
        (edit("added_mass", nan_at), "added_mass", "not finite"),
        (edit("radiation_damping", negative), "radiation_damping", "negative damping in Heave"),
        (
            edit("radiating_dof", lambda a: np.array(["Surge", "x-shear"])),
            "radiating_dof",
            "x-shear",
        ),
        (netcdf3(dataset(n=5)), "omega", "at least 8"),
        (b"PK\x03\x04 a zip", "the BEM file", "not a NetCDF"),
    ],
)
def test_bad_files_are_refused_by_the_variable_at_fault(
    data: bytes, variable: str, words: str
) -> None:
    with pytest.raises(BemFileError, match=words) as caught:
        read_bem(data)
    assert caught.value.variable == variable


def _surge_noise(size: float) -> Callable[[np.ndarray], np.ndarray]:
    """Surge's damping replaced by noise of ±`size` × heave's largest (Capytaine's index 1)."""

    def change(arr: np.ndarray) -> np.ndarray:
        signs = np.where(np.arange(arr.shape[0]) % 2 == 0, 1.0, -1.0)
        arr[:, 0, 0] = size * np.abs(arr[:, 1, 1]).max() * signs
        return arr

    return change


def test_a_motion_that_makes_no_waves_may_have_noise_of_either_sign() -> None:
    """An axisymmetric hull's yaw, as Capytaine computes it: ±1e-6 of its kind's largest (the
    160-panel buoy's: ±7e-6 N m s against a roll's 5) is noise; ±1e-3 is a fault."""
    got = read_bem(edit("radiation_damping", _surge_noise(1e-6))).radiation
    assert np.abs(got.damping[:, 0, 0]).max() > 0
    with pytest.raises(BemFileError, match="negative damping in Surge"):
        read_bem(edit("radiation_damping", _surge_noise(1e-3)))


def test_the_server_asks_for_as_many_frequencies_as_a_fit_needs() -> None:
    from sixdof.scenario import bem_file
    from sixdof.server import bem

    assert bem.MIN_FREQUENCIES == bem_file.MIN_FREQUENCIES


def response(fit: dict, omega: float) -> np.ndarray:
    """The fitted memory's K(jω) = C (jω − A)⁻¹ B + D."""
    a, b, c, d = (np.asarray(fit[k]) for k in "ABCD")
    return c @ np.linalg.solve(1j * omega * np.eye(len(a)) - a, b) + d


def test_a_file_for_other_water_is_scaled_to_the_scenarios_density() -> None:
    """Potential flow's pressure is ρ ∂φ/∂t, φ the same in any water: a file computed for fresh
    water (1000 kg/m³) used in sea water (1025) has its added mass, damping, A∞ and wave force
    times 1.025, and its memory answers 1.025 times as much at every frequency, as the fit of
    the same file computed for sea water does."""
    from sixdof.scenario.kinds.radiation import RadiationFitModel, fit_in_water
    from sixdof.scenario.radiation_files import fit_of

    fresh = fit_of(netcdf3(dataset()), "hull.nc", {"excitation": "bem"}, None, rho=1025.0)
    assert fresh["density"] == 1000.0  # the file's water, whatever the scenario's
    sea = fit_in_water(RadiationFitModel.model_validate(fresh), 1025.0).model_dump()
    assert sea["density"] == 1025.0
    k = 1.025
    np.testing.assert_allclose(sea["infinite"], k * np.asarray(fresh["infinite"]), rtol=1e-12)
    for part, keys in (("samples", ("added_mass", "damping")), ("excitation", ("re", "im"))):
        for key in keys:
            np.testing.assert_allclose(
                sea[part][key], k * np.asarray(fresh[part][key]), rtol=1e-12, err_msg=key
            )
    salt = dataset()  # the same hull computed for sea water
    for key in ("added_mass", "radiation_damping", "excitation_force"):
        dims, values = salt[key]
        salt[key] = (dims, k * values)
    salt["rho"] = ((), np.array(1025.0))
    refit = fit_of(netcdf3(salt), "hull.nc", {"excitation": "bem"}, None)
    for omega in (0.3, 1.0, 2.0):
        np.testing.assert_allclose(
            response(sea, omega), k * response(fresh, omega), rtol=1e-12, atol=1e-9
        )
        np.testing.assert_allclose(
            response(refit, omega), response(sea, omega), rtol=1e-9, atol=1e-9
        )


def test_a_files_stiffness_is_not_used_in_other_water() -> None:
    """The stiffness holds the body's weight beside ρ g's terms, which no factor rescales: a
    fit from a fresh-water file keeps it as it is, and linear hydrostatics in sea water with it
    is refused, naming both densities."""
    from pydantic import ValidationError

    from sixdof.scenario import Scenario
    from sixdof.scenario.radiation_files import fit_of

    linear = {"hydrostatics": "linear"}
    fit = fit_of(netcdf3(dataset()), "hull.nc", linear, None, rho=1025.0)
    assert fit["stiffness"][2][2] == 7.7e5 and fit["density"] == 1000.0

    def scenario(density: float) -> Scenario:
        return Scenario.model_validate({
            "bodies": [{"Name": "Hull", "Mesh": "box", "Size": [2, 1, 1], "Mass": 800}],
            "elements": [{"kind": "radiation", "body": "Hull", "fit": fit, **linear}],
            "water": {"density": density},
        })  # fmt: skip

    scenario(1000.0)  # its own water: fine
    with pytest.raises(ValidationError) as refused:
        scenario(1025.0)
    text = str(refused.value)
    assert "hydrostatics linear" in text and "1000 kg/m³" in text and "here is 1025" in text
