"""Closed triangle meshes for tests, outward-wound, and their file bytes.

Shapes are (T, 3, 3) corner arrays; `stl_bytes` writes a binary STL, `stored` puts one
into the process's mesh store and returns the id a scenario names it by.
"""

from __future__ import annotations

import struct

import numpy as np


def prism(
    polygon: list[tuple[float, float]], caps: list[tuple[int, int, int]], z0: float, z1: float
) -> np.ndarray:
    """The polygon (counter-clockwise about +z) extruded from z0 to z1 (> z0); `caps`: a
    triangulation of the polygon by vertex index."""
    p = np.asarray(polygon, dtype=float)
    n = len(p)
    low = np.column_stack([p, np.full(n, z0)])
    high = np.column_stack([p, np.full(n, z1)])
    tri = []
    for a, b, c in caps:
        tri.append([low[a], low[c], low[b]])  # faces −z
        tri.append([high[a], high[b], high[c]])  # faces +z
    for i in range(n):
        j = (i + 1) % n
        tri.append([low[i], low[j], high[j]])
        tri.append([low[i], high[j], high[i]])
    return np.array(tri)


def fan(n: int) -> list[tuple[int, int, int]]:
    return [(0, k, k + 1) for k in range(1, n - 1)]


def box(a: float, b: float, c: float, centre: tuple[float, float, float] = (0, 0, 0)) -> np.ndarray:
    rect = [(-a / 2, -b / 2), (a / 2, -b / 2), (a / 2, b / 2), (-a / 2, b / 2)]
    return prism(rect, fan(4), -c / 2, c / 2) + np.asarray(centre, dtype=float)


def regular_polygon(n: int, r: float) -> list[tuple[float, float]]:
    t = 2 * np.pi * np.arange(n) / n
    return [(float(r * np.cos(a)), float(r * np.sin(a))) for a in t]


def pyramid(polygon: list[tuple[float, float]], height: float) -> np.ndarray:
    """A pyramid over a convex polygon in the plane z = 0 with its apex at z = −height."""
    p = np.column_stack([np.asarray(polygon, dtype=float), np.zeros(len(polygon))])
    apex = np.array([0.0, 0.0, -height])
    tri = [[p[0], p[k], p[k + 1]] for k in range(1, len(p) - 1)]  # the base faces +z
    tri += [[p[(i + 1) % len(p)], p[i], apex] for i in range(len(p))]
    return np.array(tri)


def stl_bytes(tri: np.ndarray) -> bytes:
    tri = np.asarray(tri, dtype="<f4").reshape(-1, 3, 3)
    rec = np.zeros(len(tri), dtype=[("n", "<f4", 3), ("v", "<f4", (3, 3)), ("a", "<u2")])
    rec["v"] = tri
    return b"\0" * 80 + struct.pack("<I", len(tri)) + rec.tobytes()


def stored(data: bytes, name: str = "part.stl") -> str:
    from sixdof.meshfiles import checked
    from sixdof.meshstore import mesh_store, remember_name

    checked(data, name)
    key = mesh_store().put(data)
    remember_name(key, name)
    return key
