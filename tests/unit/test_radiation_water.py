"""A radiation element's linear water (issue 43): the waves' excitation from the BEM file and
linear hydrostatics (scenario/radiation_water.py, dynamics/linear_hydrostatics.py). The OES
Task 10 sphere in regular waves against Capytaine's frequency-domain RAO; the file's
Froude–Krylov force against sixdof's own pressure over the same hull; the hull's stiffness
against the box's closed form."""

from __future__ import annotations

import json
import shutil
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pydantic import ValidationError

import sixdof
from sixdof.dynamics.linear_hydrostatics import draft, linear_hydrostatics, weight
from sixdof.dynamics.water import Water, Wave, hull_load, pressure
from sixdof.scenario import Scenario, load_scenario_file
from sixdof.scenario.bem_file import _netcdf3, coefficients, read_bem
from sixdof.scenario.kinds.radiation import RadiationElement
from sixdof.scenario.model import BodySpec
from sixdof.scenario.radiation_water import linear_of
from sixdof.scenario.shapes import hull_triangles

RHO, G, R = 1000.0, 9.81, 5.0
MASS = RHO * 2 / 3 * np.pi * R**3
SHIPPED = resources.files("sixdof.scenario.presets") / "bem" / "oes_sphere.nc"
#: Frequencies on the file's grid (rad/s): periods 10.5, 7.9, 5.2 and 3.1 s.
OMEGAS = (0.6, 0.8, 1.2, 2.0)


def sphere(folder: Path, radiation: dict[str, Any], period: float | None, drop: float = 0.0,
           buoyancy: bool = False, end: float = 20.0) -> Path:  # fmt: skip
    shutil.copyfile(str(SHIPPED), folder / "oes_sphere.nc")
    elements: list[dict[str, Any]] = [{"kind": "buoyancy", "body": "Sphere"}] if buoyancy else []
    elements.append({"kind": "radiation", "body": "Sphere", "file": "oes_sphere.nc", **radiation})
    waves = [] if period is None else [{"amplitude": 0.05, "period": period}]
    scenario = {
        "name": "OES sphere",
        "bodies": [{"Name": "Sphere", "Mesh": "sphere", "Size": [10, 10, 10], "Mass": MASS,
                    "InertiaRadi": [2, 2, 2], "Pos": [0, 0, -drop]}],
        "elements": elements,
        "water": {"density": RHO, "waves": waves},
        "integration": {"method": "rk4", "stepsize": 0.01, "TOutput": f"0:0.01:{end:.2f}"},
    }  # fmt: skip
    path = folder / "sphere.json"
    path.write_text(json.dumps(scenario))
    return path


def test_the_files_froude_krylov_force_is_sixdofs_own_pressure_over_the_hull() -> None:
    """The reader's axes, headings and phase (Capytaine's Re(a X e^{−iωt})) checked against
    the undisturbed waves' pressure integrated over the same hull held at rest (a 1 cm wave):
    surge and heave, amplitude and phase, within 3 % of the largest (the faceted hull's)."""
    v = _netcdf3(SHIPPED.read_bytes())
    v["excitation_force"] = v.pop("Froude_Krylov_force")
    v.pop("diffraction_force")
    fk = coefficients(v)
    assert fk.excitation is not None
    body = BodySpec.model_validate({"Name": "S", "Mesh": "sphere", "Size": [10, 10, 10]})
    tri = np.asarray(hull_triangles(body))
    z0 = draft(tri, MASS, RHO, 0.0)
    world, at = tri + np.array([0.0, 0.0, z0]), np.array([0.0, 0.0, z0])
    still = hull_load(world, pressure(Water(RHO), G, 0.0, world), at)[0]
    for omega in OMEGAS:
        a, period = 0.01, 2 * np.pi / omega
        wet = Water(RHO, waves=(Wave(a, period, 0.0),))
        ts = np.linspace(0.0, period, 64, endpoint=False)
        force = np.array([hull_load(world, pressure(wet, G, t, world), at)[0] - still for t in ts])
        ours = 2 * np.mean(force * np.exp(1j * omega * ts)[:, None], axis=0) / a
        k = int(np.argmin(np.abs(fk.radiation.omega - omega)))
        theirs = fk.excitation[k, 0]
        scale = np.abs(theirs[[0, 2]]).max()
        print(f"ω {omega}: ours {np.round(ours[[0, 2]])}, the file's {np.round(theirs[[0, 2]])}")
        assert np.abs(ours[[0, 2]] - theirs[[0, 2]]).max() <= 0.03 * scale


@pytest.mark.closed_form("radiation")
@pytest.mark.parametrize("omega", OMEGAS)
def test_the_sphere_heaves_in_regular_waves_as_capytaines_rao(tmp_path: Path, omega: float) -> None:
    """Linear hydrostatics and the file's excitation: the steady heave amplitude over the
    last three periods (after 12 periods and 40 s: the transient is down to e^{−5}) equals
    |(−ω² (m + A(ω)) − iω B(ω) + C)⁻¹ F_exc(ω)| within 3 %, C the hull's (the faceted
    sphere's waterplane, 0.9 % under π R²)."""
    period = 2 * np.pi / omega
    path = sphere(tmp_path, {"excitation": "bem", "hydrostatics": "linear"}, period,
                  end=12 * period + 40)  # fmt: skip
    scenario = load_scenario_file(path)
    result = sixdof.run(scenario)
    t, z = np.asarray(result.times), np.asarray(result.states[:, 0, 2])
    steady = 0.5 * np.ptp(z[t > t[-1] - 3 * period]) / 0.05
    bem = read_bem(SHIPPED.read_bytes())
    assert bem.excitation is not None and scenario.water is not None
    k = int(np.argmin(np.abs(bem.radiation.omega - omega)))
    assert bem.radiation.omega[k] == pytest.approx(omega)
    added, damping = bem.radiation.added_mass[k, 2, 2], bem.radiation.damping[k, 2, 2]
    element = scenario.elements[0]
    assert isinstance(element, RadiationElement)
    stiffness = linear_of(element, scenario.water.dynamics(), scenario.bodies[0])
    c33 = stiffness.stiffness[2, 2]
    assert c33 == pytest.approx(RHO * G * np.pi * R**2, rel=0.01)
    rao = abs(bem.excitation[k, 0, 2] / (-(omega**2) * (MASS + added) - 1j * omega * damping + c33))
    print(f"T = {period:.2f} s: heave {steady:.4f} m/m against the RAO {rao:.4f} m/m")
    assert steady == pytest.approx(rao, rel=0.03)


def test_the_hulls_stiffness_is_the_boxs_closed_form() -> None:
    """A 20 × 8 × 4 m box of 320 t floats 2 m deep with its centre (the reference point) on
    the waterline and B 1 m below it: C33 = ρ g L B, C44 = ρ g (L B³/12 − ∇ · 1 m), C55 =
    ρ g (B L³/12 − ∇ · 1 m) about the reference point, the buoyancy's alone. Capytaine's
    stiffness (the weight's −m g z_G in it, z_G up) gives the same once the weight's is
    taken off."""
    length, beam, height, mass = 20.0, 8.0, 4.0, 320e3
    body = BodySpec.model_validate(
        {"Name": "Box", "Mesh": "box", "Size": [length, beam, height], "Mass": mass}
    )
    tri = np.asarray(hull_triangles(body))
    h = linear_hydrostatics(tri, mass, np.zeros(3), RHO, G, 0.0)
    volume = mass / RHO
    assert h.volume == pytest.approx(volume) and h.z_b == pytest.approx(1.0)
    assert h.z0 == pytest.approx(0.0, abs=1e-9)
    assert h.w0 == pytest.approx([0, 0, -RHO * G * volume, 0, 0, 0], abs=1e-6)
    c = h.stiffness
    assert c[2, 2] == pytest.approx(RHO * G * length * beam, rel=1e-6)
    assert c[3, 3] == pytest.approx(RHO * G * (length * beam**3 / 12 - volume), rel=1e-4)
    assert c[4, 4] == pytest.approx(RHO * G * (beam * length**3 / 12 - volume), rel=1e-4)
    r_cg = np.array([0.0, 0.0, 0.5])  # a CG 0.5 m below the reference point: z_G = −0.5 up
    capytaine = c.copy()
    capytaine[3, 3] -= mass * G * -0.5
    capytaine[4, 4] -= mass * G * -0.5
    from_file = linear_hydrostatics(tri, mass, r_cg, RHO, G, 0.0, capytaine)
    assert from_file.from_file and not h.from_file
    assert np.allclose(from_file.stiffness, c, atol=1e-6 * c[2, 2])
    turned = weight(r_cg, mass, G, 1e-4, 0.0) - weight(r_cg, mass, G, -1e-4, 0.0)
    assert -turned[3] / 2e-4 == pytest.approx(mass * G * 0.5, rel=1e-6)


def test_linear_and_nonlinear_hydrostatics_part_when_released_from_5_m(tmp_path: Path) -> None:
    """Released 1 m up the two models agree (first trough −0.91 m both); from 5 m, the whole
    sphere in the air, they part: the linear model is the 1 m motion scaled (the same period,
    troughs in proportion to the height above rest: 4.392 s both times), the clipped hull falls
    free first and swings slower (4.41 s from 1 m, 4.60 s from 5 m) to a shallower trough."""
    rest = draft(np.asarray(hull_triangles(BodySpec.model_validate(
        {"Name": "S", "Mesh": "sphere", "Size": [10, 10, 10]}))), MASS, RHO, 0.0)  # fmt: skip
    troughs, periods = {}, {}
    for drop in (1.0, 5.0):
        for linear in (True, False):
            spec = {"hydrostatics": "linear"} if linear else {}
            path = sphere(tmp_path, spec, None, drop=drop, buoyancy=not linear, end=10.0)
            result = sixdof.run(load_scenario_file(path))
            t, up = np.asarray(result.times), rest - np.asarray(result.states[:, 0, 2])
            first = np.flatnonzero(up < 0)[0]
            troughs[drop, linear] = float(up[first : first + 300].min())
            down = np.flatnonzero((up[:-1] >= 0) & (up[1:] < 0))  # going down through rest
            at = t[down] + up[down] / (up[down] - up[down + 1]) * (t[down + 1] - t[down])
            periods[drop, linear] = float(at[1] - at[0])
    assert troughs[1.0, True] == pytest.approx(troughs[1.0, False], rel=0.02)
    assert troughs[5.0, False] > troughs[5.0, True] + 0.1
    above = (5.0 + rest) / (1.0 + rest)  # the heights above rest (z down), as the troughs
    assert troughs[5.0, True] / troughs[1.0, True] == pytest.approx(above, rel=0.01)
    assert periods[5.0, True] == pytest.approx(periods[1.0, True], rel=2e-3)
    assert periods[5.0, False] > 1.03 * periods[1.0, False]


def test_what_the_linear_water_asks_of_a_scenario_is_refused_by_name(tmp_path: Path) -> None:
    load = load_scenario_file
    with pytest.raises(Exception, match=r"hydrostatics linear is Sphere's buoyancy"):
        load(sphere(tmp_path, {"hydrostatics": "linear"}, None, buoyancy=True))
    with pytest.raises(Exception, match=r"hydrostatics linear in waves.*excitation bem"):
        load(sphere(tmp_path, {"hydrostatics": "linear"}, 6.0))
    with pytest.raises(Exception, match=r"0.8 s wave .* outside the BEM file's frequencies"):
        load(sphere(tmp_path, {"excitation": "bem"}, 0.8, buoyancy=True))
    data = json.loads(sphere(tmp_path, {"excitation": "bem"}, 6.0, buoyancy=True).read_text())
    data["water"]["waves"][0]["direction"] = 90
    (tmp_path / "beam.json").write_text(json.dumps(data))
    with pytest.raises(Exception, match=r"travelling 90° from Sphere's heading.*--heading"):
        load(tmp_path / "beam.json")
    fitted = load(sphere(tmp_path, {}, None, buoyancy=True)).model_dump(mode="json")
    fitted["elements"][1]["excitation"] = "bem"  # a fit made without the file's excitation
    with pytest.raises(ValidationError, match="excitation bem needs the file's"):
        Scenario.model_validate(fitted)


def test_excitation_bem_leaves_the_buoyancy_in_still_water(tmp_path: Path) -> None:
    """The waves' force is then the file's alone (the clipped hull's pressure would count its
    Froude–Krylov part twice): with the nonlinear hull too the heave is the RAO's within 3 %
    at 7.9 s."""
    omega = 0.8
    period = 2 * np.pi / omega
    scenario = load_scenario_file(sphere(tmp_path, {"excitation": "bem"}, period,
                                         buoyancy=True, end=12 * period + 40))  # fmt: skip
    system = scenario.system()
    assert system is not None
    from sixdof.dynamics.kinds.buoyancy import EB_NWAVES

    assert system.rows[0][EB_NWAVES] == 0.0
    result = sixdof.run(scenario)
    t, z = np.asarray(result.times), np.asarray(result.states[:, 0, 2])
    steady = 0.5 * np.ptp(z[t > t[-1] - 3 * period]) / 0.05
    assert steady == pytest.approx(1.048, rel=0.03)  # the RAO at 0.8 rad/s (test above)


def test_fhsim_xml_reads_the_file_again_for_its_linear_parts(tmp_path: Path) -> None:
    """XML carries the memory, not the excitation table: an element with excitation bem is
    fitted from its File again as it is read, to the same fit."""
    from sixdof.cli import main

    path = sphere(tmp_path, {"excitation": "bem"}, 6.0, buoyancy=True)
    assert main(["convert", str(path), str(tmp_path / "sphere.xml")]) == 0
    written = load_scenario_file(path).elements[1]
    read = load_scenario_file(tmp_path / "sphere.xml").elements[1]
    assert isinstance(read, RadiationElement) and read.excitation == "bem"
    assert isinstance(written, RadiationElement) and read.fit == written.fit
