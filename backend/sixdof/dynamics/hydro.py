"""Outputs of floating bodies: draft, heel, trim and the wave at the CG (issue 28).

Apart from `water` (which `elements` imports) so that reading the elements does not make
an import circle; `model.outputs` adds these to every body's outputs.
"""

from __future__ import annotations

import numpy as np

from .elements import Buoyancy, System
from .params import Bodies
from .quaternion import Array, to_euler, to_rotmat
from .water import elevation


def hydro_outputs(
    system: System | None, bodies: Bodies, x: Array, t: float = 0.0
) -> dict[str, Array]:
    """Per body of `bodies` (states x (N, 13) at time t) and the elements acting on them
    (`system`, packed for these bodies alone, not concatenated): Draft, the depth of the
    hull's lowest point below the local surface level − η (0 when clear of the water, 0
    without a buoyancy element); Heel and Trim, the roll and pitch Euler angles (z-y-x, rad);
    WaveElevation, η at the CG's (x, y), m, positive up (of the body's buoyancy's water,
    else the first buoyancy's, else 0)."""
    xs = np.atleast_2d(np.asarray(x, dtype=float))
    n = len(xs)
    q = xs[:, 3:7] / np.linalg.norm(xs[:, 3:7], axis=1, keepdims=True)
    euler = to_euler(q)
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
        corners = xs[i, 0:3] + np.asarray(e.triangles, dtype=float).reshape(-1, 3) @ rot[i].T
        eta = elevation(e.water, float(bodies.gravity[i]), t, corners[:, 0], corners[:, 1])
        draft[i] = max(draft[i], float(np.max(corners[:, 2] - (e.water.level - eta))))
    return {"Draft": draft, "Heel": euler[:, 0].copy(), "Trim": euler[:, 1].copy(),
            "WaveElevation": wave}  # fmt: skip


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


__all__ = ["hydro_outputs", "place_buoyancy"]
