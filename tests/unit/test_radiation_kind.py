"""The `radiation` element: a hull's memory stepped with the body (dynamics/kinds/radiation.py),
its file fitted when a scenario file is read (scenario/kinds/radiation.py). The OES Task 10
sphere released 1 m above still water, against Cummins' convolution of the same B(ω) stepped
here on its own, with the buoyancy of the hull sixdof floats (the 960-facet sphere, which
displaces 1.6 % less than the sphere and rests 5.4 cm lower) from its exact cut volume."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

import sixdof
from sixdof.dynamics.radiation_fit import retardation
from sixdof.scenario import Scenario, ScenarioFileError, load_scenario_file
from sixdof.scenario.bem_file import read_bem
from sixdof.scenario.kinds.radiation import RadiationElement

RHO, G, R = 1000.0, 9.81, 5.0
MASS = RHO * 2 / 3 * np.pi * R**3
SHIPPED = resources.files("sixdof.scenario.presets") / "bem" / "oes_sphere.nc"


def sphere_scenario(folder: Path, drop: float = 1.0, radiation: bool = True) -> Path:
    shutil.copyfile(str(SHIPPED), folder / "oes_sphere.nc")
    elements: list[dict] = [{"kind": "buoyancy", "body": "Sphere"}]
    if radiation:
        elements.append({"kind": "radiation", "body": "Sphere", "file": "oes_sphere.nc"})
    scenario = {
        "name": "OES sphere",
        "bodies": [{"Name": "Sphere", "Mesh": "sphere", "Size": [10, 10, 10], "Mass": MASS,
                    "InertiaRadi": [2, 2, 2], "Pos": [0, 0, -drop]}],
        "elements": elements,
        "water": {"density": RHO},
        "integration": {"method": "rk4", "stepsize": 0.005, "TOutput": "0:0.005:20"},
    }  # fmt: skip
    path = folder / "sphere.json"
    path.write_text(json.dumps(scenario))
    return path


def submerged(hull: np.ndarray) -> Callable[[float], float]:
    """The hull's volume under the still water with its centre z below it (NED), exact for
    the polyhedron (dynamics/hull_cut, numpy: not the kernel's clipping)."""
    from sixdof.dynamics.hull_cut import cut

    return lambda z: float(cut(hull + np.array([0.0, 0.0, z]), 0.0).volume)


def cummins(
    volume: Callable[[float], float], a_inf: float, dt: float, n: int, drop: float
) -> np.ndarray:
    """Heave from `drop` above z = 0 by Cummins' convolution (K(t) from the file's B(ω),
    trapezoid) with the buoyancy ρ g `volume`(z), velocity Verlet with two passes for the
    memory's newest term."""
    r = read_bem(SHIPPED.read_bytes()).radiation
    kernel = retardation(r.omega, r.damping[:, 2:3, 2:3], np.arange(n) * dt)[:, 0, 0]
    z, v = np.zeros(n), np.zeros(n)
    z[0] = -drop
    weights: dict[int, float] = {}  # the passes at one step share z[k]: one cut each

    def accel(k: int, v_now: float) -> float:
        memory = 0.0
        if k:
            memory = dt * (kernel[1 : k + 1] @ v[:k][::-1] + 0.5 * kernel[0] * v_now)
            memory -= 0.5 * dt * kernel[k] * v[0]
        if k not in weights:
            weights[k] = MASS * G - RHO * G * volume(z[k])
        return (weights[k] - memory) / (MASS + a_inf)

    acc = accel(0, 0.0)
    for k in range(n - 1):
        half = v[k] + 0.5 * dt * acc
        z[k + 1] = z[k] + dt * half
        guess = half
        for _ in range(2):
            v[k + 1] = guess
            acc = accel(k + 1, guess)
            guess = half + 0.5 * dt * acc
        v[k + 1] = guess
    return z


def period_and_trough(t: np.ndarray, z: np.ndarray, rest: float) -> tuple[float, float]:
    """Heave measured up from `rest` (NED z down): the mean period of the first two
    up-crossings' spacing and the first trough's depth below rest (negative)."""
    h = rest - z  # up
    up = np.flatnonzero((h[:-1] < 0) & (h[1:] >= 0))
    crossings = t[up] - h[up] * (t[up + 1] - t[up]) / (h[up + 1] - h[up])
    first = np.flatnonzero(h < 0)[0]
    return float(np.mean(np.diff(crossings[:3]))), float(h[first : up[0] + 1].min())


def heave_of(path: Path) -> tuple[np.ndarray, np.ndarray, Scenario]:
    scenario = load_scenario_file(path)
    result = sixdof.run(scenario)
    return np.asarray(result.times), np.asarray(result.states[:, 0, 2]), scenario


@pytest.fixture(scope="module")
def released(tmp_path_factory: pytest.TempPathFactory) -> tuple[np.ndarray, np.ndarray, Scenario]:
    """The sphere with its radiation released from 1 m, run once for the tests that read it."""
    return heave_of(sphere_scenario(tmp_path_factory.mktemp("released")))


@pytest.mark.closed_form("radiation")
def test_the_sphere_released_from_1_m_decays_as_cummins_convolution(
    released: tuple[np.ndarray, np.ndarray, Scenario],
) -> None:
    from scipy.optimize import brentq

    from sixdof.scenario.shapes import hull_triangles

    t, z, scenario = released
    element = scenario.elements[1]
    assert isinstance(element, RadiationElement) and element.fit is not None
    assert element.fit.error <= 0.05 and len(element.fit.A) == 8
    volume = submerged(np.asarray(hull_triangles(scenario.bodies[0])))
    rest = brentq(lambda d: volume(d) - MASS / RHO, -1.0, 1.0)
    assert rest == pytest.approx(0.054, abs=0.001)
    ours = period_and_trough(t, z, rest)
    theirs = period_and_trough(
        t, cummins(volume, element.fit.infinite[2][2], 0.005, len(t), 1.0), rest
    )
    print(f"sixdof: period {ours[0]:.4f} s, first trough {ours[1]:.4f} m; Cummins: "
          f"{theirs[0]:.4f} s, {theirs[1]:.4f} m")  # fmt: skip
    assert ours[0] == pytest.approx(theirs[0], rel=0.02)
    assert ours[1] == pytest.approx(theirs[1], rel=0.02)


def test_the_work_done_on_the_water_balances_the_bodys_energy(
    tmp_path: Path, released: tuple[np.ndarray, np.ndarray, Scenario]
) -> None:
    """Without radiation the sphere bobs for ever (±1 m after 20 s); with it, it settles
    (ζ ≈ 0.09: a tenth of that)."""
    _, z, _ = heave_of(sphere_scenario(tmp_path, radiation=False))
    assert np.ptp(z[-1000:]) > 1.9  # the last 5 s: more than a period
    _, z, _ = released
    assert np.ptp(z[-1000:]) < 0.25


def test_a_radiation_without_its_folder_or_fit_is_refused(tmp_path: Path) -> None:
    from pydantic import ValidationError

    element = {"kind": "radiation", "body": "Sphere", "file": "oes_sphere.nc"}
    with pytest.raises(ValidationError, match="give file"):
        Scenario.model_validate(
            {"name": "x", "bodies": [{"Name": "Sphere"}], "elements": [element]}
        )
    path = sphere_scenario(tmp_path)
    (tmp_path / "oes_sphere.nc").write_bytes(b"CDF\x01 not really")
    with pytest.raises(ScenarioFileError, match=r"oes_sphere\.nc.*cannot be read as NetCDF"):
        load_scenario_file(path)


def test_fhsim_xml_names_the_file_or_carries_the_fit(tmp_path: Path) -> None:
    """`sixdof convert` writes the fit (and the file's name); an input file that gives the
    File alone is fitted as it is read, to the same numbers."""
    import re

    from sixdof.cli import main

    json_path = sphere_scenario(tmp_path)
    assert main(["convert", str(json_path), str(tmp_path / "sphere.xml")]) == 0
    written = (tmp_path / "sphere.xml").read_text()
    bare = re.sub(r'(SimObject="Element/Radiation" Name="\w+" File="oes_sphere.nc")[^/]*/>',
                  r"\1 />", written)  # fmt: skip
    assert bare != written
    (tmp_path / "bare.xml").write_text(bare)
    fitted = load_scenario_file(tmp_path / "bare.xml").elements[1]
    carried = load_scenario_file(tmp_path / "sphere.xml").elements[1]
    assert isinstance(fitted, RadiationElement) and fitted.file == "oes_sphere.nc"
    assert fitted.fit == carried.fit
