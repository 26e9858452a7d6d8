"""FhSim XML naming a mesh file beside it (issue 42): `<Lib … Mesh="parts/brick.stl"
InertiaFrom="solid" Density="…"/>` reads the file from the input file's folder, keeps it by
its content (the scenario names its sha256: id) and weighs the body by its shape; the file
written back carries InertiaFrom, Density and MeshUnits and reads back equal. A file that is
missing, outside the folder, open or lying is refused at the Lib's Mesh with its line."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest
from support.meshes import box, stl_bytes

from sixdof.scenario import load_scenario_file
from sixdof.scenario.fhsim_xml import scenario_from_xml
from sixdof.scenario.fhsim_xml_write import scenario_to_xml
from sixdof.scenario.file_errors import ScenarioFileError

DIMS_MM = (400.0, 100.0, 50.0)
CENTRE_MM = (200.0, 0.0, -25.0)  # the part's datum at one end of its bottom face
DENSITY = 2700.0  # aluminium, kg/m³


def xml(folder: Path, mesh: str, extra: str = 'InertiaFrom="solid" MeshUnits="mm"') -> Path:
    path = folder / "part.xml"
    path.write_text(f"""<Contents Name="part">
  <OBJECTS>
    <Lib LibName="fhsim_base" SimObject="Body/6DBody" Name="Part" Density="{DENSITY}"
         Mesh="{mesh}" {extra}/>
  </OBJECTS>
</Contents>
""")
    return path


def test_a_mesh_file_beside_the_xml_is_read_kept_and_weighed(tmp_path: Path) -> None:
    (tmp_path / "parts").mkdir()
    (tmp_path / "parts" / "brick.stl").write_bytes(stl_bytes(box(*DIMS_MM, CENTRE_MM)))
    body = load_scenario_file(xml(tmp_path, "parts/brick.stl")).bodies[0]
    assert body.Mesh.startswith("sha256:") and body.InertiaFrom == "solid"
    a, b, c = np.array(DIMS_MM) / 1000
    m = DENSITY * a * b * c
    assert body.Mass == pytest.approx(m, rel=1e-12)
    closed = [m * (b * b + c * c) / 12, m * (a * a + c * c) / 12, m * (a * a + b * b) / 12]
    assert body.Inertia is not None
    np.testing.assert_allclose(body.Inertia, [*closed, 0, 0, 0], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(body.CGOffset, np.array(CENTRE_MM) / 1000, rtol=0, atol=1e-12)
    np.testing.assert_allclose(body.MeshOrigin, -np.array(CENTRE_MM) / 1000, rtol=0, atol=1e-12)
    # written back, the shape's fields travel with it and read back equal
    scenario = load_scenario_file(tmp_path / "part.xml")
    text = scenario_to_xml(scenario)
    assert 'InertiaFrom="solid"' in text and 'MeshUnits="mm"' in text and "Density=" in text
    assert scenario_from_xml(text) == scenario


def test_mesh_file_refusals_name_the_line_and_the_reason(tmp_path: Path) -> None:
    where = r"part\.xml:4: <Lib Name=\"Part\"> Mesh: "  # the line of the Mesh attribute
    with pytest.raises(ScenarioFileError, match=where + r"missing\.stl cannot be opened"):
        load_scenario_file(xml(tmp_path, "missing.stl"))
    with pytest.raises(ScenarioFileError, match=r"Mesh.*goes up a folder"):
        load_scenario_file(xml(tmp_path, "../brick.stl"))
    (tmp_path / "lid.stl").write_bytes(stl_bytes(box(*DIMS_MM)[:-2]))
    with pytest.raises(ScenarioFileError, match=r"lid\.stl is open: 4 boundary edges"):
        load_scenario_file(xml(tmp_path, "lid.stl"))
    (tmp_path / "liar.stl").write_bytes(b"\0" * 80 + struct.pack("<I", 99) + b"\0" * 50)
    with pytest.raises(ScenarioFileError, match=r"liar\.stl: its STL header claims 99"):
        load_scenario_file(xml(tmp_path, "liar.stl"))
    # text from a client names no file on the server
    (tmp_path / "brick.stl").write_bytes(stl_bytes(box(*DIMS_MM)))
    with pytest.raises(ScenarioFileError, match=r"read beside a scenario file; upload it"):
        scenario_from_xml(xml(tmp_path, "brick.stl").read_text())
    # given inertia needs Mass and InertiaRadi as before
    with pytest.raises(ScenarioFileError, match=r"Mass: missing"):
        load_scenario_file(xml(tmp_path, "brick.stl", extra=""))
