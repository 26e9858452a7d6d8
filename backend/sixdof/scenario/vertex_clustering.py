"""Vertex clustering on a uniform grid, each cluster at its quadric-optimal point: the even
first pass of the physics hull's simplification (physics_hull.py).

Quadric edge-collapse decimation refuses a collapse that would leave a near-degenerate
triangle, so the long thin triangles of CAD-like meshes (a UV sphere's polar fans, a
cylinder's cap fans) cannot be collapsed at all and the decimation stalls above its target,
or collapses the rest of the mesh to get there (a 100,000-triangle UV sphere: 7,500
triangles, −45 % volume). Clustering first (Rossignac and Borrel 1993) merges every vertex of
a grid cell into one, whatever the triangles' shapes; what is left is about evenly
tessellated at the cell's size, which the decimation then takes to its target keeping the
shape. Each cluster stands at the point of least squared distance to the planes of its
triangles (Lindstrom 2000, "Out-of-core simplification of large polygonal models"),
restricted to the directions those planes constrain: on a flat face the cluster's mean
moved onto the plane, on an edge onto the edge, at a corner the corner. The mean alone cuts
a curved surface's chord (a sphere's clusters lose ~4 × the volume).

The result may be open or non-manifold where a feature is thinner than a cell (two walls in
one cell); the caller checks it and tries a finer grid.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

#: Eigenvalues of a cluster's plane quadric below this fraction of its largest are
#: directions its planes do not constrain: the cluster keeps its mean along them.
_RANK_CUTOFF = 1e-3


def _sums(index: NDArray[np.int64], rows: NDArray[np.float64], n: int) -> NDArray[np.float64]:
    """(n, k): the rows (m, k) summed by index (m,)."""
    return np.stack([np.bincount(index, rows[:, k], n) for k in range(rows.shape[1])], axis=1)


def cluster(
    vertices: NDArray[np.float64], faces: NDArray[np.int64], cell: float
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """The mesh (vertices (V, 3), faces (F, 3)) with the vertices of each cube of side `cell`
    merged at their quadric-optimal point: (vertices, faces). Faces left with two corners
    in one cluster are dropped, and so are faces over the same three clusters (a sheet
    flattened between two walls, or a fold)."""
    key = np.floor(vertices / cell).astype(np.int64)
    _, owner = np.unique(key, axis=0, return_inverse=True)
    owner = owner.ravel()
    n = int(owner.max()) + 1
    mean = _sums(owner, vertices, n) / np.bincount(owner, minlength=n)[:, None]
    tri = vertices[faces]
    normal = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    area = np.linalg.norm(normal, axis=1)
    unit = np.divide(normal, area[:, None], out=np.zeros_like(normal), where=area[:, None] > 0)
    offset = -np.einsum("ij,ij->i", unit, tri[:, 0])
    # each face's plane quadric, area-weighted: A = a n nᵀ, b = a d n (distance n·x + d)
    quad_a = (np.einsum("ti,tj->tij", unit, unit) * area[:, None, None]).reshape(-1, 9)
    quad_b = unit * (offset * area)[:, None]
    sum_a = np.zeros((n, 9))
    sum_b = np.zeros((n, 3))
    for j in range(3):
        sum_a += _sums(owner[faces[:, j]], quad_a, n)
        sum_b += _sums(owner[faces[:, j]], quad_b, n)
    a = sum_a.reshape(n, 3, 3)
    # minimise xᵀA x + 2 bᵀx from the mean, in A's constrained eigendirections only
    w, u = np.linalg.eigh(a)
    residual = -sum_b - np.einsum("nij,nj->ni", a, mean)
    along = np.einsum("nji,nj->ni", u, residual)
    kept = w > _RANK_CUTOFF * w[:, -1:]
    along = np.where(kept, along / np.where(kept, w, 1.0), 0.0)
    points = mean + np.einsum("nij,nj->ni", u, along)
    merged = owner[faces]
    distinct = (
        (merged[:, 0] != merged[:, 1])
        & (merged[:, 1] != merged[:, 2])
        & (merged[:, 0] != merged[:, 2])
    )
    merged = merged[distinct]
    _, group, count = np.unique(
        np.sort(merged, axis=1), axis=0, return_inverse=True, return_counts=True
    )
    return points, merged[count[group.ravel()] == 1]


__all__ = ["cluster"]
