"""`sixdof bem`: a scenario's floating body through Capytaine (analysis/bem_run.py), against
the shipped OES sphere (a finer, axially symmetric mesh of the same sphere:
scripts/bem_oes_sphere.py)."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import numpy as np
import pytest
from support.worlds import FLOATING_SPHERE

from sixdof.cli import main
from sixdof.scenario.bem_file import BemCoefficients, read_bem

SPHERE = {**FLOATING_SPHERE, "name": "OES sphere"}


def shipped() -> BemCoefficients:
    return read_bem(
        (resources.files("sixdof.scenario.presets") / "bem" / "oes_sphere.nc").read_bytes()
    )


@pytest.fixture(scope="module")
def computed_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("bem")
    (folder / "sphere.json").write_text(json.dumps(SPHERE))
    out = folder / "sphere.nc"
    assert (
        main(
            ["bem", str(folder / "sphere.json"), "-o", str(out), "--omega", "0.4:1.9:8", "--quiet"]
        )
        == 0
    )
    # nothing half-written beside it
    assert sorted(p.name for p in folder.iterdir()) == ["sphere.json", "sphere.nc"]
    return out


@pytest.fixture(scope="module")
def computed(computed_file: Path) -> BemCoefficients:
    return read_bem(computed_file.read_bytes())


def test_the_pages_job_is_fitted_in_its_rooms_water(computed_file: Path) -> None:
    """The page's job (analysis/bem_child) fits the file it wrote: the fit says the water it
    was computed for (the room's, fresh water here), where a fit taken for the default sea
    water would be scaled 2.5 % heavier when built."""
    from sixdof.analysis.bem_run import job_for
    from sixdof.scenario import Scenario
    from sixdof.scenario.radiation_files import fit_of

    job = job_for(Scenario.model_validate(SPHERE), omega=(0.4, 1.9, 8))
    assert job.rho == 1000.0
    fit = fit_of(computed_file.read_bytes(), computed_file.name)
    assert fit["density"] == job.rho
    file_inf = read_bem(computed_file.read_bytes()).radiation.added_mass_inf
    assert file_inf is not None
    assert fit["infinite"][2][2] == pytest.approx(file_inf[2, 2], rel=1e-12)


def test_the_sphere_floating_at_its_draft_has_capytaines_coefficients(
    computed: BemCoefficients,
) -> None:
    """The 960-facet sphere sixdof floats, half under water, against the symmetric 5,000-panel
    one: the faceting costs a few per cent (the heave's added mass 0.5 %)."""
    got, ref = computed.radiation, shipped().radiation
    assert got.present == (0, 1, 2, 3, 4, 5)
    assert got.omega == pytest.approx(np.linspace(0.4, 1.9, 8))
    for k, a_tol, b_tol in ((2, 0.01, 0.06), (0, 0.06, 0.07)):
        assert got.added_mass[:, k, k] == pytest.approx(
            np.interp(got.omega, ref.omega, ref.added_mass[:, k, k]), rel=a_tol
        )
        assert got.damping[:, k, k] == pytest.approx(
            np.interp(got.omega, ref.omega, ref.damping[:, k, k]), rel=b_tol
        )
    assert got.added_mass_inf is not None and ref.added_mass_inf is not None
    assert got.added_mass_inf[2, 2] == pytest.approx(ref.added_mass_inf[2, 2], rel=0.02)
    # the water plane's stiffness, ρ g π R², and the waves' heave force falling with ω
    assert computed.stiffness is not None
    assert computed.stiffness[2, 2] == pytest.approx(1000 * 9.81 * np.pi * 25, rel=0.01)
    assert computed.excitation is not None and computed.wave_directions == pytest.approx([0.0])
    assert np.all(np.diff(np.abs(computed.excitation[:, 0, 2])) < 0)


@pytest.mark.parametrize(
    ("change", "args", "words"),
    [
        (
            lambda s: s.update(elements=[]),
            [],
            "--body: name the floating body (floating bodies: none)",
        ),
        (lambda s: None, ["--body", "Nobody"], "--body: no body 'Nobody'"),
        (lambda s: None, ["--omega", "2:1:10"], "--omega: want 0 < first < last"),
        (lambda s: None, ["--omega", "fast"], "--omega: expected FIRST:LAST:COUNT"),
        (lambda s: s["bodies"][0].update(Gravity=0), [], "water waves need gravity"),
    ],
)
def test_a_job_that_cannot_run_is_refused_naming_the_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change, args: list[str], words: str
) -> None:
    scenario = json.loads(json.dumps(SPHERE))
    change(scenario)
    (tmp_path / "s.json").write_text(json.dumps(scenario))
    assert main(["bem", str(tmp_path / "s.json"), "-o", str(tmp_path / "out.nc"), *args]) == 2
    assert words in capsys.readouterr().err
    assert not (tmp_path / "out.nc").exists()
