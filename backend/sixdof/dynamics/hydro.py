"""Outputs of floating bodies: draft, heel, trim and the wave at the CG (issue 28).

Apart from `water` (which `elements` imports) so that reading the elements does not make
an import circle; `model.outputs` adds these to every body's outputs.
"""

from __future__ import annotations

from weakref import WeakKeyDictionary

import numpy as np

from .elements import Buoyancy, System
from .params import Bodies
from .quaternion import Array, to_euler, to_rotmat
from .water import elevation

#: Each hull's vertices once (body axes), by element: a closed mesh's corners repeat each
#: vertex ~6 times, and the Draft of a 4,000-triangle hull is a quarter of the cost on them.
_VERTICES: WeakKeyDictionary[Buoyancy, Array] = WeakKeyDictionary()


def hull_vertices(e: Buoyancy) -> Array:
    """(V, 3): the distinct corners of the element's hull, body axes."""
    vertices = _VERTICES.get(e)
    if vertices is None:
        corners = np.asarray(e.triangles, dtype=float).reshape(-1, 3)
        vertices = _VERTICES[e] = np.unique(corners, axis=0)
    return vertices


def hydro_outputs(
    system: System | None, bodies: Bodies, x: Array, t: float = 0.0
) -> dict[str, Array]:
    """Per body of `bodies` (states x (N, 13) at time t) and the elements acting on them
    (`system`, packed for these bodies alone, not concatenated): `draft_and_wave`'s Draft
    and WaveElevation, and Heel and Trim, the roll and pitch Euler angles (z-y-x, rad)."""
    xs = np.atleast_2d(np.asarray(x, dtype=float))
    q = xs[:, 3:7] / np.linalg.norm(xs[:, 3:7], axis=1, keepdims=True)
    euler = to_euler(q)
    out = draft_and_wave(system, bodies, xs, t)
    out["Heel"] = euler[:, 0].copy()
    out["Trim"] = euler[:, 1].copy()
    return out


def draft_and_wave(
    system: System | None, bodies: Bodies, x: Array, t: float = 0.0
) -> dict[str, Array]:
    """`hydro_outputs` without the angles (a room's tick has them with the other outputs,
    and the Euler angles cost more than the rest): Draft, the depth of the hull's lowest
    point below the local surface level − η (0 when clear of the water, 0 without a
    buoyancy element); WaveElevation, η at the CG's (x, y), m, positive up (of the body's
    buoyancy's water, else the first buoyancy's, else 0)."""
    xs = np.atleast_2d(np.asarray(x, dtype=float))
    n = len(xs)
    q = xs[:, 3:7] / np.linalg.norm(xs[:, 3:7], axis=1, keepdims=True)
    rot = to_rotmat(q).reshape(n, 3, 3)
    cg = xs[:, 0:3] + np.einsum("nij,nj->ni", rot, bodies.r_cg_body)
    hulls = [] if system is None else [e for e in system.elements if isinstance(e, Buoyancy)]
    waters = {e.body: e.water for e in hulls}
    first = hulls[0].water if hulls else None
    draft = np.zeros(n)
    wave = np.zeros(n)
    for i in range(n):
        water = waters.get(i, first)
        if water is not None:
            g = float(bodies.gravity[i])
            wave[i] = float(elevation(water, g, t, cg[i, 0:1], cg[i, 1:2])[0])
    for e in hulls:  # a body with several hulls: the deepest
        i = e.body
        corners = xs[i, 0:3] + hull_vertices(e) @ rot[i].T
        eta = elevation(e.water, float(bodies.gravity[i]), t, corners[:, 0], corners[:, 1])
        draft[i] = max(draft[i], float(np.max(corners[:, 2] - (e.water.level - eta))))
    return {"Draft": draft, "WaveElevation": wave}


def place_buoyancy(system: System, bodies: Bodies, x: Array, t: float, records: Array) -> None:
    """Move each buoyancy element's record (`kernel.element_records`, in the elements' order;
    the kernel gives the point of the line of action nearest the CG) along its line of
    action to the foot of the centre of buoyancy: the centroid of the hull below the plane
    z = level − η at the CG. In still water it is the centre of buoyancy itself, which the
    force passes through; in waves a point near it on the exact line (the same moment)."""
    from .hull_submerged import submerged  # compiled: numba loads with the first room

    xs = np.atleast_2d(np.asarray(x, dtype=float))
    for j, e in enumerate(system.elements):
        if not isinstance(e, Buoyancy):
            continue
        force = records[j, 3:6]
        ff = float(force @ force)
        if ff == 0.0:
            continue
        i = e.body
        q = xs[i, 3:7] / np.linalg.norm(xs[i, 3:7])
        rot = to_rotmat(q)
        cg = xs[i, 0:3] + rot @ bodies.r_cg_body[i]
        eta = float(elevation(e.water, float(bodies.gravity[i]), t, cg[0:1], cg[1:2])[0])
        tri = np.ascontiguousarray(e.triangles, dtype=float)
        volume, bx, by, bz = submerged(tri, rot, xs[i, 0:3], e.water.level - eta)
        if volume <= 0.0:
            continue
        point = records[j, 0:3]
        point = point + float((np.array([bx, by, bz]) - point) @ force) / ff * force
        records[j, 0:3] = point
        records[j, 6:9] = point


__all__ = ["draft_and_wave", "hydro_outputs", "place_buoyancy"]
