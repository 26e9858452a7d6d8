"""The notebook draws a body's own mesh (issue 42): a file beside the scenario file (kept by
its content when the file is read) and an uploaded `sha256:` mesh are drawn from the mesh
store with their own triangles, scaled by MeshScale × Size × MeshUnits and placed as the
server weighs them; an id the store does not hold falls back to the sphere with a warning."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from support.meshes import box, stl_bytes, stored

pytest.importorskip("pythreejs")
pytest.importorskip("ipywidgets")

import pythreejs as p3

from sixdof.notebook import BodyView, VisualWarning
from sixdof.scenario import load_scenario_file

DIMS_MM = (300.0, 120.0, 60.0)
CENTRE_MM = (150.0, 0.0, -30.0)  # the part's datum at one end of its bottom face


def drawn_box(view: BodyView) -> tuple[np.ndarray, np.ndarray]:
    """The drawn mesh's corners in body axes from the reference point (m): min, max."""
    d = view.drawings[0]
    positions = np.asarray(d.mesh.geometry.attributes["position"].array, dtype=float)
    placed = positions * np.asarray(d.holder.scale) + np.asarray(d.holder.position)
    return placed.min(axis=0), placed.max(axis=0)


def test_a_mesh_file_beside_the_scenario_is_drawn_where_it_is_weighed(tmp_path: Path) -> None:
    (tmp_path / "bracket.stl").write_bytes(stl_bytes(box(*DIMS_MM, CENTRE_MM)))
    body = {"Name": "B", "Gravity": 0.0, "Mesh": "bracket.stl", "MeshUnits": "mm",
            "InertiaFrom": "solid", "Density": 7850.0}  # fmt: skip
    (tmp_path / "part.json").write_text(json.dumps({"name": "part", "bodies": [body]}))
    scenario = load_scenario_file(tmp_path / "part.json")
    with warnings.catch_warnings():
        warnings.simplefilter("error", VisualWarning)  # nothing falls back
        view = BodyView(scenario)
    d = view.drawings[0]
    assert d.mesh_name == "bracket.stl" and isinstance(d.mesh.geometry, p3.BufferGeometry)
    np.testing.assert_allclose(d.holder.scale, (0.001, 0.001, 0.001))  # MeshUnits mm
    low, high = drawn_box(view)
    centre, half = np.array(CENTRE_MM) / 1000, np.array(DIMS_MM) / 2000
    np.testing.assert_allclose(low, centre - half, atol=1e-9)
    np.testing.assert_allclose(high, centre + half, atol=1e-9)
    # the CG the server weighed is the middle of what is drawn
    np.testing.assert_allclose(scenario.bodies[0].CGOffset, (low + high) / 2, atol=1e-9)
    assert view.drawings[0].extent() == pytest.approx(0.3)


def test_an_uploaded_mesh_set_live_is_drawn_and_an_unknown_id_falls_back() -> None:
    key = stored(stl_bytes(box(2.0, 1.0, 0.5)), "slab.stl")
    view = BodyView({"name": "t", "bodies": [{"Name": "B", "Gravity": 0.0}]})
    view.sim.set_params("B", Mesh=key, Size=(0.5, 0.5, 0.5))
    view.refresh()
    assert view.drawings[0].mesh_name == "slab.stl"
    low, high = drawn_box(view)
    np.testing.assert_allclose(high - low, (1.0, 0.5, 0.25), atol=1e-9)
    missing = "sha256:" + "0" * 64
    with pytest.warns(VisualWarning, match=r"no such mesh in this process's mesh store"):
        view = BodyView({"name": "t", "bodies": [{"Name": "B", "Mesh": missing}]})
    assert isinstance(view.drawings[0].mesh.geometry, p3.SphereBufferGeometry)
