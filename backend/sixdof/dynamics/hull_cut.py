"""A closed triangle mesh cut by a horizontal plane: the submerged volume, its centre and the
waterplane, exactly for the polyhedron.

`cut` (numpy) gives all of them, for the still-water hydrostatics of `analysis.hydrostatics`
(cached per change); `hull_submerged.submerged` (compiled) the volume and its centre alone,
for what runs every tick of a live room.

The volume and its centre come from signed tetrahedra of the clipped wetted surface with
their apex on the plane (so the cap adds nothing), the waterplane's area and moments from
the cut's boundary segments by Green's theorem.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .quaternion import Array


@dataclass(frozen=True)
class Cut:
    """The part of a closed mesh below the plane z = level (NED, z down)."""

    volume: float  # m³
    centre: Array  # centre of the submerged volume (3,), the mesh's coordinates
    area: float  # waterplane area, m²
    flotation: Array  # centre of flotation (x, y) (2,)
    i_xx: float  # ∫ (y − y_f)² dA, about the x axis through the centre of flotation, m⁴
    i_yy: float  # ∫ (x − x_f)² dA
    i_xy: float  # ∫ (x − x_f)(y − y_f) dA


def cut(triangles: Array, level: float) -> Cut:
    """Volume, centre of buoyancy and waterplane of the closed outward mesh `triangles`
    (T, 3, 3) below z = level (a vertex exactly on the plane counts as dry, as in the
    kernel)."""
    tri = np.asarray(triangles, dtype=float)
    pts = tri.reshape(-1, 3)
    o = np.array([0.5 * (pts[:, 0].min() + pts[:, 0].max()),
                  0.5 * (pts[:, 1].min() + pts[:, 1].max()), level])  # fmt: skip
    rel = tri - o
    d = rel[:, :, 2]
    wet = d > 0.0
    n = wet.sum(axis=1)
    pieces = [rel[n == 3]]
    segments = []
    for count in (1, 2):
        sel = n == count
        if not sel.any():
            continue
        t, dd, w = rel[sel], d[sel], wet[sel]
        # the odd vertex first (the wet one of one, the dry one of two), cyclic order kept
        odd = np.argmax(w, axis=1) if count == 1 else np.argmin(w, axis=1)
        idx = (odd[:, None] + np.arange(3)) % 3
        t = np.take_along_axis(t, idx[:, :, None], axis=1)
        dd = np.take_along_axis(dd, idx, axis=1)
        a, b, c = t[:, 0], t[:, 1], t[:, 2]
        da, db, dc = dd[:, 0:1], dd[:, 1:2], dd[:, 2:3]
        ab = a + da / (da - db) * (b - a)
        ac = a + da / (da - dc) * (c - a)
        if count == 1:
            pieces.append(np.stack([a, ab, ac], axis=1))
            segments.append(np.stack([ac, ab], axis=1))  # the cap runs against the faces
        else:
            pieces.append(np.stack([ab, b, c], axis=1))
            pieces.append(np.stack([ab, c, ac], axis=1))
            segments.append(np.stack([ab, ac], axis=1))
    wetted = np.concatenate(pieces) if pieces else np.zeros((0, 3, 3))
    six_v = np.einsum("ij,ij->i", wetted[:, 0], np.cross(wetted[:, 1], wetted[:, 2]))
    volume = float(six_v.sum()) / 6.0
    if volume > 0.0:
        centre = o + np.einsum("i,ij->j", six_v, wetted.sum(axis=1)) / (24.0 * volume)
    else:
        centre = o.copy()
    # the cap's boundary (its normal points up, −z: clockwise seen in x, y), Green's theorem
    seg = np.concatenate(segments) if segments else np.zeros((0, 2, 3))
    px, py, qx, qy = seg[:, 0, 0], seg[:, 0, 1], seg[:, 1, 0], seg[:, 1, 1]
    cr = -(px * qy - qx * py)
    area = float(cr.sum()) / 2.0
    if area > 0.0:
        sx = float(((px + qx) * cr).sum()) / 6.0
        sy = float(((py + qy) * cr).sum()) / 6.0
        ixx = float(((py * py + py * qy + qy * qy) * cr).sum()) / 12.0
        iyy = float(((px * px + px * qx + qx * qx) * cr).sum()) / 12.0
        ixy = float(((px * qy + 2 * px * py + 2 * qx * qy + qx * py) * cr).sum()) / 24.0
        xf, yf = sx / area, sy / area
        i_xx, i_yy, i_xy = ixx - area * yf * yf, iyy - area * xf * xf, ixy - area * xf * yf
    else:
        area, xf, yf, i_xx, i_yy, i_xy = 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    return Cut(volume, centre, area, o[0:2] + np.array([xf, yf]), i_xx, i_yy, i_xy)


__all__ = ["Cut", "cut"]
