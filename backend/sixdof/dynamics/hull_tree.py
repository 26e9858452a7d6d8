"""A bounding-volume tree over a hull's triangles, for still-water buoyancy (issue 28's cost).

In still water the gauge pressure head at a body point v (body axes from the reference
point) is linear in v: d(v) = n·v + c, with n the third row of R (the world's down seen in
body axes) and c = z_ref − level. The force and moment of a linear pressure on a triangle
are then linear in (n, c), with coefficients fixed by the triangle alone:

    −∫ d n̂ dA        = −(P n + c S),   P = s mᵀ,        S = s,
    −∫ d v × n̂ dA    =   T n + c U,    T = [s]× Q,      U = s × m,

with s the area vector (outward), m the centroid and Q = (Σ vᵢvᵢᵀ + Σvᵢ Σvᵢᵀ)/12 (so that
∫ v vᵀ dA = A Q). Summed over the triangles of a node they stay linear: a node whose box
is entirely under water adds its 24 sums (exact, no clipping), one entirely dry adds
nothing, and only the triangles of leaves that straddle the surface are clipped. A stage
then costs the triangles along the waterline, not the whole hull.

Nodes are stored depth first with a skip index (the node after the subtree), so the
kernel walks them without a stack.
"""

from __future__ import annotations

import numpy as np

from .layout import (
    N_CENTRE,
    N_COUNT,
    N_FIRST,
    N_HALF,
    N_P,
    N_S,
    N_SKIP,
    N_T,
    N_U,
    NODE_SIZE,
)
from .quaternion import Array, IntArray

#: Triangles per leaf: a leaf's box test costs about as much as clipping one triangle.
LEAF_SIZE = 4


def triangle_sums(tri: Array) -> Array:
    """(T, 24): P (9, row-major), S (3), T (9), U (3) of each triangle (module docstring)."""
    a, b, c = tri[:, 0], tri[:, 1], tri[:, 2]
    s = 0.5 * np.cross(b - a, c - a)
    total = a + b + c
    m = total / 3.0
    q = (
        np.einsum("ti,tj->tij", a, a)
        + np.einsum("ti,tj->tij", b, b)
        + np.einsum("ti,tj->tij", c, c)
        + np.einsum("ti,tj->tij", total, total)
    ) / 12.0
    cross = np.zeros((len(tri), 3, 3))
    cross[:, 0, 1], cross[:, 0, 2] = -s[:, 2], s[:, 1]
    cross[:, 1, 0], cross[:, 1, 2] = s[:, 2], -s[:, 0]
    cross[:, 2, 0], cross[:, 2, 1] = -s[:, 1], s[:, 0]
    p = np.einsum("ti,tj->tij", s, m).reshape(-1, 9)
    t = np.einsum("tij,tjk->tik", cross, q).reshape(-1, 9)
    u = np.cross(s, m)
    return np.concatenate([p, s, t, u], axis=1)


def build(tri: Array) -> tuple[Array, Array]:
    """The tree of triangles `tri` (T, 3, 3): (nodes (K, NODE_SIZE), the triangles in the
    order the leaves index them (T, 3, 3))."""
    tri = np.asarray(tri, dtype=float)
    order = np.arange(len(tri))
    nodes: list[Array] = []
    if len(tri):
        _node(0, len(tri), tri, tri.mean(axis=1), triangle_sums(tri), order, nodes)
    packed = np.asarray(nodes, dtype=float).reshape(-1, NODE_SIZE)
    return packed, tri[order]


def _node(
    lo: int, hi: int, tri: Array, centroids: Array, sums: Array, order: IntArray, nodes: list[Array]
) -> None:
    """Append the node of triangles order[lo:hi] and its subtree to `nodes`, depth first.

    A function of the module, not a closure of `build`: a closure that calls itself is a
    reference cycle, which kept each build's arrays (~0.5 MB for the ship mesh) until the
    server's rare full collections (launch.quiet_garbage_collector): +3 MB a load of 8 ships.
    """
    row = np.zeros(NODE_SIZE)
    nodes.append(row)
    idx = order[lo:hi]
    corners = tri[idx].reshape(-1, 3)
    low, high = corners.min(axis=0), corners.max(axis=0)
    row[N_CENTRE : N_CENTRE + 3] = 0.5 * (low + high)
    row[N_HALF : N_HALF + 3] = 0.5 * (high - low)
    total = sums[idx].sum(axis=0)
    row[N_P : N_P + 9] = total[0:9]
    row[N_S : N_S + 3] = total[9:12]
    row[N_T : N_T + 9] = total[12:21]
    row[N_U : N_U + 3] = total[21:24]
    row[N_FIRST] = lo
    if hi - lo <= LEAF_SIZE:
        row[N_COUNT] = hi - lo
    else:
        spread = np.ptp(centroids[idx], axis=0)
        axis = int(np.argmax(spread))
        keys = centroids[idx, axis]
        order[lo:hi] = idx[np.argsort(keys, kind="stable")]
        mid = (lo + hi) // 2
        _node(lo, mid, tri, centroids, sums, order, nodes)
        _node(mid, hi, tri, centroids, sums, order, nodes)
    row[N_SKIP] = len(nodes)


__all__ = ["LEAF_SIZE", "build", "triangle_sums"]
