"""The hull buoyancy integrates: a fine mesh's simplified copy, made once per mesh.

Buoyancy clips every hull triangle at the water surface at every integrator stage, so its
cost grows with the triangles; a CAD hull of 10⁵ of them would not float live. Above
HULL_ABOVE triangles the hull is a copy simplified to about HULL_TARGET triangles: first
vertex clustering (vertex_clustering.py: every vertex of a grid cell merged at its
quadric-optimal point, which removes the long thin triangles of CAD-like meshes that edge
collapses cannot touch), then quadric error decimation (fast-simplification, Garland and
Heckbert's algorithm: it moves each kept vertex where it best stands for those it replaces,
so volume and shape are kept far better than by dropping vertices). The copy is checked
before it is used: closed, its volume within HULL_VOLUME_TOLERANCE of the full mesh's, its
centre of buoyancy (the volume's centroid) within HULL_CENTRE_TOLERANCE of the mesh's size
from the full one's; finer grids, then decimation alone and gentler, are tried next, and the
full mesh is floated when none passes. What floats is reported against the full mesh
(`HullReport`, in `Scenario.notes()` and `sixdof inspect`). The simplification works on the
file's coordinates, so one copy serves every Size, MeshScale and MeshUnits (they scale it as
they scale the mesh).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from .vertex_clustering import cluster

if TYPE_CHECKING:
    from collections.abc import Iterator

    from ..meshfiles import TriangleMesh

#: Meshes with more triangles than this float on a simplified copy.
HULL_ABOVE = 5000
#: Triangles of the simplified copy (about; ~4 ms of a room's tick budget at 60 Hz).
HULL_TARGET = 4000
HULL_VOLUME_TOLERANCE = 0.005
HULL_CENTRE_TOLERANCE = 0.005
#: Triangles a surface keeps per squared grid cell of its area when clustered (measured on
#: spheres, 2.47; 2 for a face along the grid), and how many times the target the clustered
#: copy is meant to keep, for the decimation to choose from.
_PER_CELL = 2.5
_OVER_TARGET = 3.0
#: Grid cells tried, as fractions of the first: a finer one where a thin wall or gap fell
#: into one cell and the clustered copy is not closed.
_CELLS = (1.0, 0.5, 0.25)
#: Decimation's aggressiveness tried in turn: a lower one keeps thin triangles'
#: neighbourhoods from collapsing.
_AGGRESSIVENESS = (7, 3)
#: Decimation alone, (triangles, aggressiveness) tried in turn after the clustered copies.
_TRIES = ((HULL_TARGET, 7), (HULL_TARGET, 3), (2 * HULL_TARGET, 3))


@dataclass(frozen=True)
class HullReport:
    """The floated hull against the full mesh, file coordinates: triangles, volumes and
    centres of buoyancy (centroids of the enclosed volume)."""

    name: str
    full_triangles: int
    hull_triangles: int
    full_volume: float
    hull_volume: float
    full_centre: tuple[float, float, float]
    hull_centre: tuple[float, float, float]
    method: str = ""

    @property
    def simplified(self) -> bool:
        return self.hull_triangles != self.full_triangles

    def text(self) -> str:
        if not self.simplified:
            return f"{self.name} floats on its own {self.full_triangles:,} triangles"
        dv = self.hull_volume / self.full_volume - 1.0
        shift = float(np.linalg.norm(np.subtract(self.hull_centre, self.full_centre)))
        return (
            f"{self.name} floats on a {self.hull_triangles:,}-triangle copy of its "
            f"{self.full_triangles:,} triangles ({self.method}): volume {dv:+.3%}, centre "
            f"of buoyancy moved {shift:.3g} file units"
        )


def _centre(tri: np.ndarray) -> tuple[float, np.ndarray]:
    from ..dynamics.mesh_inertia import solid_moments

    m = solid_moments(tri)
    return m.measure, m.centroid


def _closed(vertices: np.ndarray, faces: np.ndarray) -> np.ndarray | None:
    """The triangles (T, 3, 3) of the mesh if it is closed and consistently wound."""
    import trimesh

    copy = trimesh.Trimesh(vertices, faces, process=True, validate=False)
    if len(copy.faces) == 0 or not copy.is_watertight or not copy.is_winding_consistent:
        return None
    return np.asarray(copy.triangles, dtype=float)


def _decimated(vertices: np.ndarray, faces: np.ndarray, target: int, agg: int) -> np.ndarray | None:
    import fast_simplification

    if len(faces) <= target:
        return _closed(vertices, faces)
    points, kept = fast_simplification.simplify(  # it takes writable arrays only
        np.array(vertices), np.array(faces), target_count=target, agg=agg
    )
    return _closed(points, kept)


def _copies(mesh: TriangleMesh) -> Iterator[tuple[np.ndarray, str]]:
    """The closed simplified copies to check, best first, with how each was made."""
    tri = mesh.triangles()
    area = 0.5 * float(
        np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1).sum()
    )
    first = np.sqrt(_PER_CELL * area / (_OVER_TARGET * HULL_TARGET))
    for fraction in _CELLS:
        points, faces = cluster(mesh.vertices, mesh.faces, fraction * first)
        if _closed(points, faces) is None:
            continue
        for agg in _AGGRESSIVENESS:
            copy = _decimated(points, faces, HULL_TARGET, agg)
            if copy is not None:
                yield copy, "vertex clustering and quadric decimation"
    for target, agg in _TRIES:
        copy = _decimated(mesh.vertices, mesh.faces, target, agg)
        if copy is not None:
            yield copy, "quadric decimation"


@lru_cache(maxsize=16)
def _hull(key: str, mesh: TriangleMesh) -> tuple[np.ndarray, HullReport]:
    full = mesh.triangles()
    volume, centre = _centre(full)
    tri, method = full, ""
    if len(full) > HULL_ABOVE:
        size = float(np.max(mesh.vertices.max(0) - mesh.vertices.min(0)))
        for copy, how in _copies(mesh):
            v, c = _centre(copy)
            if (abs(v / volume - 1.0) <= HULL_VOLUME_TOLERANCE
                    and np.linalg.norm(c - centre) <= HULL_CENTRE_TOLERANCE * size):  # fmt: skip
                tri, method = copy, how
                break
    v, c = (volume, centre) if tri is full else _centre(tri)
    tri.setflags(write=False)
    report = HullReport(mesh.name, len(full), len(tri), volume, v,
                        (centre[0], centre[1], centre[2]), (c[0], c[1], c[2]), method)  # fmt: skip
    return tri, report


def physics_hull(key: str, mesh: TriangleMesh) -> tuple[np.ndarray, HullReport]:
    """The triangles (T, 3, 3, file coordinates) buoyancy integrates for the closed mesh
    `mesh` (kept under `key`, its id or shipped name), and how they compare with it."""
    return _hull(key, mesh)


__all__ = ["HULL_ABOVE", "HULL_TARGET", "HullReport", "physics_hull"]
