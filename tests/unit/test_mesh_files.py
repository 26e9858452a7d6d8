"""Mesh files read with trimesh: every format gives the same solid, hostile files are
refused with the file and the reason, files beside a scenario are read by its rules."""

from __future__ import annotations

import base64
import io
import json
import struct
from pathlib import Path

import numpy as np
import pytest
import trimesh
from support.meshes import box, stl_bytes

from sixdof import meshfiles
from sixdof.dynamics.mesh_inertia import solid_moments
from sixdof.meshfiles import MeshFileError, checked
from sixdof.scenario import load_scenario_file
from sixdof.scenario.file_errors import ScenarioFileError

pytestmark = pytest.mark.unit
DIMS = (2.0, 0.5, 0.25)


def exported(file_type: str) -> bytes:
    mesh = trimesh.Trimesh(*_indexed(box(*DIMS)), process=False)
    data = mesh.export(file_type=file_type)
    return data.encode() if isinstance(data, str) else bytes(data)


def _indexed(tri: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return tri.reshape(-1, 3), np.arange(3 * len(tri)).reshape(-1, 3)


@pytest.mark.parametrize("kind", ["stl", "stl_ascii", "obj", "ply", "glb", "gltf"])
def test_every_format_reads_the_same_closed_box(kind: str) -> None:
    if kind == "gltf":  # one file, its buffer inline as a data: URI
        files = trimesh.Trimesh(*_indexed(box(*DIMS))).export(file_type="gltf", embed_buffers=True)
        data = files["model.gltf"]
    else:
        data = exported(kind)
    suffix = "stl" if kind == "stl_ascii" else kind
    mesh = checked(data, f"part.{suffix}")
    assert mesh.closed and mesh.winding == "consistent"
    assert len(mesh.faces) == 12
    assert solid_moments(mesh.triangles()).measure == pytest.approx(np.prod(DIMS), rel=1e-12)


def test_winding_fixed_and_inside_out_turned() -> None:
    tri = box(*DIMS)
    flipped = tri.copy()
    flipped[3] = flipped[3][::-1]
    mesh = checked(stl_bytes(flipped), "flip.stl")
    assert mesh.winding == "fixed"
    assert solid_moments(mesh.triangles()).measure == pytest.approx(np.prod(DIMS), rel=1e-12)
    inside_out = checked(stl_bytes(tri[:, ::-1]), "inside_out.stl")
    assert solid_moments(inside_out.triangles()).measure == pytest.approx(np.prod(DIMS))


def test_open_mesh_counts_its_boundary_edges() -> None:
    mesh = checked(stl_bytes(box(*DIMS)[:-1]), "open.stl")
    assert mesh.boundary_edges == 3 and not mesh.closed


def test_stl_header_claiming_more_triangles_than_bytes() -> None:
    data = bytearray(stl_bytes(box(*DIMS)))
    data[80:84] = struct.pack("<I", 4_000_000_000)
    with pytest.raises(MeshFileError, match=r"liar\.stl: its STL header claims 4,000,000,000 "
                       r"triangles, its 684 bytes hold 12"):  # fmt: skip
        checked(bytes(data), "liar.stl")


def test_triangle_and_size_caps(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(meshfiles, "MAX_TRIANGLES", 10)
    with pytest.raises(MeshFileError, match=r"big\.stl: 12 triangles, more than the 10"):
        checked(stl_bytes(box(*DIMS)), "big.stl")
    with pytest.raises(MeshFileError, match=r"big\.obj: 12 triangles, more than the 10"):
        checked(exported("obj"), "big.obj")
    monkeypatch.setattr(meshfiles, "MAX_MESH_BYTES", 100)
    with pytest.raises(MeshFileError, match=r"huge\.ply: .* bytes, more than the 100 allowed"):
        checked(exported("ply"), "huge.ply")


def test_non_finite_and_degenerate_vertices() -> None:
    tri = box(*DIMS)
    tri[0, 0, 0] = np.nan
    with pytest.raises(MeshFileError, match=r"nan\.stl: vertex coordinates must be finite"):
        checked(stl_bytes(tri), "nan.stl")
    flat = np.zeros((4, 3, 3))
    flat[:, 1, 0] = 1.0  # every triangle a segment
    with pytest.raises(MeshFileError, match=r"flat\.stl: every triangle is degenerate"):
        checked(stl_bytes(flat), "flat.stl")


def test_gltf_pointing_at_other_files_or_compressed_is_refused() -> None:
    doc = {"asset": {"version": "2.0"}, "buffers": [{"uri": "../../etc/passwd", "byteLength": 9}]}
    with pytest.raises(MeshFileError, match=r"x\.gltf: buffers\[0\] points at another file"):
        checked(json.dumps(doc).encode(), "x.gltf")
    doc = {"asset": {"version": "2.0"}, "extensionsUsed": ["KHR_draco_mesh_compression"]}
    with pytest.raises(MeshFileError, match="compressed with KHR_draco_mesh_compression"):
        checked(json.dumps(doc).encode(), "x.gltf")
    text = json.dumps({"asset": {"version": "2.0"}, "images": [{"uri": "http://example/a.png"}]})
    body = text.encode() + b" " * (-len(text) % 4)
    glb = b"glTF" + struct.pack("<II", 2, 20 + len(body)) + struct.pack("<I", len(body))
    with pytest.raises(MeshFileError, match=r"x\.glb: images\[0\] points at another file"):
        checked(glb + b"JSON" + body, "x.glb")
    data_uri = "data:application/octet-stream;base64," + base64.b64encode(b"\0" * 4).decode()
    assert data_uri.startswith("data:")  # a data: URI is the file's own data: not refused


def test_unknown_format_and_garbage() -> None:
    with pytest.raises(MeshFileError, match="unsupported mesh format"):
        checked(b"x", "x.mesh")
    with pytest.raises(MeshFileError, match=r"junk\.ply: cannot be read as PLY"):
        checked(b"ply\nformat nonsense\n", "junk.ply")


# -------------------------------------------------------------- meshes beside a scenario


def _scenario(folder: Path, mesh: str, **body: object) -> Path:
    path = folder / "scene.json"
    path.write_text(json.dumps({"bodies": [{"Name": "P", "Mesh": mesh, **body}]}, indent=1))
    return path


def test_a_mesh_beside_the_scenario_file(tmp_path: Path) -> None:
    (tmp_path / "parts").mkdir()
    (tmp_path / "parts" / "brick.ply").write_bytes(exported("ply"))
    sc = load_scenario_file(_scenario(tmp_path, "parts/brick.ply", InertiaFrom="solid",
                                      Density=1000.0))  # fmt: skip
    body = sc.bodies[0]
    assert body.Mesh.startswith("sha256:")
    assert body.Mass == pytest.approx(1000.0 * np.prod(DIMS), rel=1e-12)
    again = load_scenario_file(_scenario(tmp_path, "parts/brick.ply"))
    assert again.bodies[0].Mesh == body.Mesh  # the same bytes are one mesh


def test_scenario_mesh_refusals_name_file_and_reason(tmp_path: Path) -> None:
    (tmp_path / "lid.stl").write_bytes(stl_bytes(box(*DIMS)[:-2]))
    with pytest.raises(ScenarioFileError, match=r"lid\.stl is open: 4 boundary edges; solid "
                       r"mass properties and buoyancy need a closed mesh"):  # fmt: skip
        load_scenario_file(_scenario(tmp_path, "lid.stl", InertiaFrom="solid"))
    with pytest.raises(ScenarioFileError, match=r"goes up a folder"):
        load_scenario_file(_scenario(tmp_path, "../lid.stl"))
    with pytest.raises(ScenarioFileError, match=r"missing\.obj cannot be opened"):
        load_scenario_file(_scenario(tmp_path, "missing.obj"))
    (tmp_path / "liar.stl").write_bytes(b"\0" * 80 + struct.pack("<I", 99) + b"\0" * 50)
    with pytest.raises(ScenarioFileError, match=r"liar\.stl: its STL header claims 99"):
        load_scenario_file(_scenario(tmp_path, "liar.stl"))


def test_read_mesh_for_drawing_keeps_the_file_layout() -> None:
    data = meshfiles.drawn(exported("glb"), "b.glb")
    assert data.index is not None and len(data.index) == 36
    np.testing.assert_allclose(np.linalg.norm(data.normals, axis=1), 1.0, atol=1e-5)
    assert isinstance(io.BytesIO, type)


def test_the_lists_of_formats_agree() -> None:
    from sixdof.scenario import mesh_names

    assert tuple(meshfiles.SUFFIXES) == mesh_names.SUFFIXES
    assert mesh_names.MAX_SCENARIO_MESH_BYTES == 2 * meshfiles.MAX_MESH_BYTES
