"""WAMIT's .1/.3/.hst read into sixdof's axes (scenario/wamit_file.py): the OES sphere's
Capytaine dataset written out as WAMIT would write it (non-dimensional by ρ, g and ULEN, its
e^{+iωt} phase, 7 significant digits) reads back as bem_file reads the NetCDF, and a scenario
naming the .1 fits the same memory; bad files are refused naming the line."""

from __future__ import annotations

import json
import math
import shutil
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from sixdof.scenario import ScenarioFileError, load_scenario_file
from sixdof.scenario.bem_file import BemCoefficients, BemFileError, _netcdf3, read_bem
from sixdof.scenario.kinds.radiation import RadiationElement
from sixdof.scenario.wamit_file import read_wamit

pytestmark = pytest.mark.unit

SHIPPED = resources.files("sixdof.scenario.presets") / "bem" / "oes_sphere.nc"
RHO, G = 1000.0, 9.81
ULEN = 2.5  # not 1: every power of L is exercised
#: The sphere's heave stiffness ρ g π R² (R = 5 m), Capytaine's axes (z up): the NetCDF has none.
C33 = RHO * G * math.pi * 25.0
MODE = {"Surge": 1, "Sway": 2, "Heave": 3, "Roll": 4, "Pitch": 5, "Yaw": 6}


def _power(base: int, i: int, j: int = 1) -> int:
    return base + (i > 3) + (j > 3)


def write_wamit(folder: Path, stem: str = "sphere", hst: bool = True) -> Path:
    """The shipped dataset (Capytaine's axes, e^{−iωt}) as WAMIT's files, written from the
    NetCDF's own variables: Abar = A/(ρ L^k), Bbar = B/(ρ L^k ω), X_W = conj(X)/(ρ g L^m)."""
    v = _netcdf3(SHIPPED.read_bytes())
    omega = np.asarray(v["omega"][1], float)
    modes = [MODE[str(d)] for d in v["radiating_dof"][1]]
    assert [MODE[str(d)] for d in v["influenced_dof"][1]] == modes
    a, b = v["added_mass"][1], v["radiation_damping"][1]
    lines = []
    for n, w in enumerate(omega):
        per = -1.0 if math.isinf(w) else 2 * math.pi / w
        for r, i in enumerate(modes):
            for c, j in enumerate(modes):
                scale = RHO * ULEN ** _power(3, i, j)
                if math.isinf(w):
                    lines.append(f"{per:14.7E} {i:5d} {j:5d} {a[n, r, c] / scale:14.6E}")
                else:
                    lines.append(
                        f"{per:14.7E} {i:5d} {j:5d} {a[n, r, c] / scale:14.6E} "
                        f"{b[n, r, c] / (scale * w):14.6E}"
                    )
    # WAMIT also writes the zero-frequency added mass, which sixdof does not use
    lines.append(f"{0.0:14.7E} {3:5d} {3:5d} {1.0:14.6E}")
    one = folder / f"{stem}.1"
    one.write_text("\n".join(lines) + "\n")
    dims, x = v["excitation_force"]
    x = np.moveaxis(np.asarray(x, float), dims.index("complex"), 0)
    force = x[0] + 1j * x[1]  # (omega, direction, dof)
    beta = np.degrees(np.asarray(v["wave_direction"][1], float))
    rows = []
    for n, w in enumerate(omega):
        if math.isinf(w):
            continue
        for h, bd in enumerate(beta):
            for r, i in enumerate(modes):
                xw = np.conj(force[n, h, r]) / (RHO * G * ULEN ** (2 if i <= 3 else 3))
                rows.append(
                    f"{2 * math.pi / w:14.7E} {bd:10.3f} {i:5d} {abs(xw):14.6E} "
                    f"{math.degrees(np.angle(xw)):12.4f} {xw.real:14.6E} {xw.imag:14.6E}"
                )
    (folder / f"{stem}.3").write_text("\n".join(rows) + "\n")
    if hst:
        # z up: heave's stiffness is +C33 in WAMIT's axes as in NED (both signs flip)
        (folder / f"{stem}.hst").write_text(f"    3    3 {C33 / (RHO * G * ULEN**2):14.6E}\n")
    return one


def wamit(folder: Path, stem: str = "sphere") -> BemCoefficients:
    def side(suffix: str) -> bytes | None:
        p = folder / f"{stem}{suffix}"
        return p.read_bytes() if p.exists() else None

    return read_wamit(
        (folder / f"{stem}.1").read_bytes(), f"{stem}.1", side(".3"), side(".hst"),
        length=ULEN, rho=RHO, g=G,
    )  # fmt: skip


def close(got: np.ndarray, want: np.ndarray) -> None:
    """Within 1e-6 of each value (WAMIT's 7 digits), with the same floor for values ~ 0."""
    scale = float(np.abs(want).max())
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6 * scale)


def test_wamit_files_read_as_the_netcdf(tmp_path: Path) -> None:
    write_wamit(tmp_path)
    got, want = wamit(tmp_path), read_bem(SHIPPED.read_bytes())
    g, w = got.radiation, want.radiation
    np.testing.assert_allclose(g.omega, w.omega, rtol=1e-7)
    assert g.present == w.present == (0, 2)
    close(g.added_mass, w.added_mass)
    close(g.damping, w.damping)
    assert w.added_mass_inf is not None and g.added_mass_inf is not None
    close(g.added_mass_inf, w.added_mass_inf)
    np.testing.assert_allclose(got.wave_directions, want.wave_directions, atol=1e-9)
    assert got.excitation is not None and want.excitation is not None
    close(np.abs(got.excitation), np.abs(want.excitation))
    big = np.abs(want.excitation) > 1e-3 * np.abs(want.excitation).max()
    phase = np.angle(got.excitation[big] / want.excitation[big])
    assert np.abs(phase).max() < 2e-6  # radians: the conjugate, not the same phasor
    assert got.rho == RHO and want.stiffness is None
    assert got.stiffness is not None
    want_c = np.zeros((6, 6))
    want_c[2, 2] = C33
    close(got.stiffness, want_c)


def sphere(folder: Path, file: str, **extra: object) -> Path:
    mass = RHO * 2 / 3 * np.pi * 125.0
    elements: list[dict] = [{"kind": "radiation", "body": "Sphere", "file": file, **extra}]
    if extra.get("hydrostatics") != "linear":
        elements.insert(0, {"kind": "buoyancy", "body": "Sphere"})
    scenario = {
        "name": "OES sphere",
        "bodies": [{"Name": "Sphere", "Mesh": "sphere", "Size": [10, 10, 10], "Mass": mass,
                    "InertiaRadi": [2, 2, 2]}],
        "elements": elements,
        "water": {"density": RHO},
        "integration": {"method": "rk4", "stepsize": 0.005, "TOutput": "0:0.005:1"},
    }  # fmt: skip
    path = folder / f"{Path(file).stem}.json"
    path.write_text(json.dumps(scenario))
    return path


def _fit(path: Path) -> RadiationElement:
    element = load_scenario_file(path).elements[-1]
    assert isinstance(element, RadiationElement) and element.fit is not None
    return element


def test_a_scenario_naming_the_1_fits_the_netcdfs_memory(tmp_path: Path) -> None:
    shutil.copyfile(str(SHIPPED), tmp_path / "oes_sphere.nc")
    write_wamit(tmp_path)
    extra = {"wamit_length": ULEN, "excitation": "bem", "hydrostatics": "linear"}
    nc = _fit(sphere(tmp_path, "oes_sphere.nc", excitation="bem")).fit
    one = _fit(sphere(tmp_path, "sphere.1", **extra)).fit
    assert nc is not None and one is not None
    assert len(one.A) == len(nc.A)
    assert abs(one.error - nc.error) < 1e-3
    np.testing.assert_allclose(one.infinite, nc.infinite, rtol=1e-5, atol=1.0)
    assert one.excitation is not None and nc.excitation is not None
    assert one.excitation.headings == nc.excitation.headings
    scale = np.abs(np.array(nc.excitation.re)).max()
    np.testing.assert_allclose(one.excitation.re, nc.excitation.re, atol=1e-5 * scale)
    np.testing.assert_allclose(one.excitation.im, nc.excitation.im, atol=1e-5 * scale)
    assert one.stiffness is not None and one.stiffness[2][2] == pytest.approx(C33, rel=1e-6)
    # ULEN is the user's to give: the default 1 m scales every coefficient differently
    wrong = _fit(sphere(tmp_path, "sphere.1")).fit
    assert wrong is not None and wrong.infinite[2][2] == pytest.approx(
        nc.infinite[2][2] / ULEN**3, rel=1e-5
    )


def test_the_3_is_optional_and_excitation_bem_then_refused(tmp_path: Path) -> None:
    write_wamit(tmp_path, hst=False)
    (tmp_path / "sphere.3").unlink()
    assert wamit(tmp_path).excitation is None
    _fit(sphere(tmp_path, "sphere.1", wamit_length=ULEN))
    with pytest.raises(ScenarioFileError, match=r"sphere\.1.*no \.3 beside it"):
        load_scenario_file(sphere(tmp_path, "sphere.1", excitation="bem"))


def _edit(path: Path, line: int, text: str | None) -> None:
    lines = path.read_text().splitlines()
    if text is None:
        del lines[line - 1]
    else:
        lines[line - 1] = text
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize(
    ("suffix", "line", "text", "words"),
    [
        (".1", 5, "  6.283185E+00 3 3 abc 1.0", r"sphere\.1 line 5: .* not a row of numbers"),
        (".1", 7, "  6.283185E+00 3 3 1.0", r"sphere\.1 line 7: expected PER I J A B"),
        (".1", 9, "  6.283185E+00 3 3 nan 1.0", r"sphere\.1 line 9: holds NaN"),
        (".1", 2, "  6.283185E+00 3 7 1.0 1.0", r"sphere\.1 line 2: mode 7 is not a rigid"),
        (".3", 4, "  1.0 0.0 3 1 0 1 0", r"sphere\.3 line 4: period 1 s is not one of"),
        (".3", 3, "  1.0 0.0 3 1 0", r"sphere\.3 line 3: expected PER BETA I Mod Pha Re Im"),
        (".hst", 1, "3 3 x", r"sphere\.hst line 1: .* not a row of numbers"),
    ],
)
def test_a_line_that_does_not_parse_is_refused_by_number(
    tmp_path: Path, suffix: str, line: int, text: str, words: str
) -> None:
    write_wamit(tmp_path)
    _edit(tmp_path / f"sphere{suffix}", line, text)
    with pytest.raises(BemFileError, match=words):
        wamit(tmp_path)


def test_too_few_frequencies_refused(tmp_path: Path) -> None:
    write_wamit(tmp_path)
    one = tmp_path / "sphere.1"
    kept = [ln for ln in one.read_text().splitlines() if float(ln.split()[0]) <= 0][:4]
    periods = sorted({ln.split()[0] for ln in one.read_text().splitlines()} - {"-1.0000000E+00"})
    few = [ln for ln in one.read_text().splitlines() if ln.split()[0] in periods[1:8]]
    one.write_text("\n".join(few + kept) + "\n")
    (tmp_path / "sphere.3").unlink()
    with pytest.raises(BemFileError, match=r"omega: 7 frequencies; at least 8"):
        wamit(tmp_path)


def test_negative_damping_refused(tmp_path: Path) -> None:
    write_wamit(tmp_path)
    one = tmp_path / "sphere.1"
    lines = one.read_text().splitlines()
    k = next(i for i, ln in enumerate(lines) if ln.split()[1:] and float(ln.split()[0]) < 5)
    k += [ln.split()[1:3] for ln in lines[k : k + 4]].index(["3", "3"])
    per, i, j, a, b = lines[k].split()
    lines[k] = f"{per} {i} {j} {a} {-float(b)}"  # its whole damping, below zero
    one.write_text("\n".join(lines) + "\n")
    with pytest.raises(BemFileError, match="negative damping in Heave"):
        wamit(tmp_path)


def test_a_missing_1_and_a_bad_length_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ScenarioFileError, match=r"sphere\.1 cannot be opened: no such file"):
        load_scenario_file(sphere(tmp_path, "sphere.1"))
    write_wamit(tmp_path)
    with pytest.raises(ScenarioFileError, match="wamit_length"):
        load_scenario_file(sphere(tmp_path, "sphere.1", wamit_length=-1.0))


def test_fhsim_xml_reads_the_1_with_its_3_and_wamit_length(tmp_path: Path) -> None:
    """An input file naming the .1 alone (with WamitLength, excitation bem) is fitted as it is
    read, the .3 beside it read too, to what the scenario file gives."""
    import re

    from sixdof.cli import main

    write_wamit(tmp_path)
    path = sphere(tmp_path, "sphere.1", wamit_length=ULEN, excitation="bem")
    assert main(["convert", str(path), str(tmp_path / "sphere.xml")]) == 0
    written = (tmp_path / "sphere.xml").read_text()
    assert 'WamitLength="2.5"' in written
    bare = re.sub(r'( A="[^"]*"| [BCD]="[^"]*"| Infinite="[^"]*"| Error="[^"]*"'
                  r'| Sample\w+="[^"]*")', "", written)  # fmt: skip
    assert bare != written and 'File="sphere.1"' in bare
    (tmp_path / "bare.xml").write_text(bare)
    fitted = _fit(tmp_path / "bare.xml").fit
    want = _fit(path).fit
    assert fitted is not None and want is not None and fitted.excitation is not None
    assert fitted.infinite == want.infinite and fitted.excitation == want.excitation
