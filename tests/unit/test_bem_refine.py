"""`sixdof bem --panel SIZE` (analysis/bem_run.refine): a box's 12 triangles split until the
largest panel is SIZE m or less, the surface unchanged and still closed (a box as drawn is no
BEM mesh: the barge preset's file needed finer panels for its damping to come out >= 0)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from sixdof.analysis.bem_run import MAX_PANELS, BemError, job_for, refine
from sixdof.scenario import Scenario

pytestmark = pytest.mark.unit

BOX = Scenario.model_validate({
    "name": "box",
    "bodies": [{"Name": "Barge", "Mass": 240000.0, "Mesh": "box", "Size": [20, 8, 3]}],
    "elements": [{"kind": "buoyancy", "body": "Barge"}],
    "water": {"density": 1000.0},
})  # fmt: skip


def area(vertices: np.ndarray, faces: np.ndarray) -> float:
    tri = vertices[faces]
    return float(
        np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1).sum() / 2
    )


def test_the_hull_is_split_to_the_size_asked_and_stays_closed() -> None:
    coarse = job_for(BOX, omega=(0.5, 2.0, 4))
    fine = job_for(BOX, omega=(0.5, 2.0, 4), panel=1.0)
    assert len(coarse.faces) == 12 and coarse.panel_radius > 10
    assert len(fine.faces) == 12 * 4**4 and fine.panel_radius <= 1.0
    assert area(fine.vertices, fine.faces) == pytest.approx(
        2 * (20 * 8 + 20 * 3 + 8 * 3), rel=1e-12
    )
    assert area(fine.vertices, fine.faces) == pytest.approx(area(coarse.vertices, coarse.faces))
    edges = Counter(
        tuple(sorted((int(f[i]), int(f[(i + 1) % 3])))) for f in fine.faces for i in range(3)
    )
    assert set(edges.values()) == {2}  # every edge between two panels: no crack, no hole
    # the normals still point out (each panel's turns as its parent's: the volume is the box's)
    tri = fine.vertices[fine.faces]
    volume = np.einsum("ij,ij->i", tri[:, 0], np.cross(tri[:, 1], tri[:, 2])).sum() / 6
    assert abs(volume) == pytest.approx(20 * 8 * 3, rel=1e-12)


def test_too_fine_a_panel_is_refused_naming_the_bound() -> None:
    vertices = np.array([[0, 0, 0], [10, 0, 0], [0, 10, 0], [0, 0, 10]], dtype=float)
    faces = np.array([[0, 2, 1], [0, 1, 3], [1, 2, 3], [0, 3, 2]])
    with pytest.raises(BemError, match=f"over {MAX_PANELS} panels"):
        refine(vertices, faces, 0.01)
    with pytest.raises(BemError, match="> 0"):
        refine(vertices, faces, 0.0)
