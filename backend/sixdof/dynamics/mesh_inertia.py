"""Mass properties of a triangle mesh: a uniform solid it encloses, or a uniform thin shell.

Exact for polyhedra (the integrals of 1, x and x xᵀ over a tetrahedron or a triangle are
polynomials of its corners), so a box, a prism or an L-bracket come out to rounding.

Solid (divergence theorem, as a sum over the tetrahedra (o, a, b, c) of each outward
triangle with a reference point o; signed volumes make the outside cancel):

    V_t = det[a b c] / 6
    ∫ x dV = V_t (a + b + c) / 4
    ∫ x xᵀ dV = V_t / 20 · (a aᵀ + b bᵀ + c cᵀ + s sᵀ),   s = a + b + c

Shell (each triangle of area A_t, surface density per m²):

    ∫ x dA = A_t (a + b + c) / 3
    ∫ x xᵀ dA = A_t / 12 · (a aᵀ + b bᵀ + c cᵀ + s sᵀ)

Then, with C = ∫ (x − c)(x − c)ᵀ dm about the centroid c, the inertia tensor about the
centroid is I = tr(C) E − C: its own entries, Ixx = ∫ (y² + z²) dm and Ixy = −∫ x y dm
(as `Inertia` is documented, docs/physics.md). Corners are taken relative to their mean
before summing, so a part far from its file's origin loses no digits to the shift.
Shapes: `triangles` (T, 3, 3), metres, any consistent frame; results in that frame.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

Array = NDArray[np.float64]


@dataclass(frozen=True)
class MeshMoments:
    """Measure (volume m³ or area m²), centroid (3,) and the second moment about the
    centroid per unit density, C = ∫ (x − c)(x − c)ᵀ dV (or dA), (3, 3)."""

    measure: float
    centroid: Array
    second: Array

    def inertia(self, density: float) -> Array:
        """The inertia tensor about the centroid of the body of that density, (3, 3)."""
        c = density * self.second
        return np.trace(c) * np.eye(3) - c


def _corner_sums(tri: Array) -> tuple[Array, Array]:
    s = tri.sum(axis=1)
    outer = np.einsum("tki,tkj->tij", tri, tri) + np.einsum("ti,tj->tij", s, s)
    return s, outer


def solid_moments(triangles: Array) -> MeshMoments:
    """Moments of the solid a closed, outward-wound mesh encloses; ValueError if its volume
    is not positive."""
    tri = np.asarray(triangles, dtype=float)
    shift = tri.reshape(-1, 3).mean(axis=0)
    tri = tri - shift
    vol = np.einsum("ti,ti->t", tri[:, 0], np.cross(tri[:, 1], tri[:, 2])) / 6.0
    volume = float(vol.sum())
    if not volume > 0:
        raise ValueError(f"the mesh encloses no positive volume ({volume:.6g} m³)")
    s, outer = _corner_sums(tri)
    first = (vol[:, None] * s).sum(axis=0) / 4.0
    second = (vol[:, None, None] * outer).sum(axis=0) / 20.0
    centroid = first / volume
    central = second - volume * np.outer(centroid, centroid)
    return MeshMoments(volume, centroid + shift, 0.5 * (central + central.T))


def shell_moments(triangles: Array) -> MeshMoments:
    """Moments of the mesh's surface as a thin shell (open meshes too); ValueError if its
    area is zero."""
    tri = np.asarray(triangles, dtype=float)
    shift = tri.reshape(-1, 3).mean(axis=0)
    tri = tri - shift
    area_t = 0.5 * np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1)
    area = float(area_t.sum())
    if not area > 0:
        raise ValueError("the mesh has no area")
    s, outer = _corner_sums(tri)
    first = (area_t[:, None] * s).sum(axis=0) / 3.0
    second = (area_t[:, None, None] * outer).sum(axis=0) / 12.0
    centroid = first / area
    central = second - area * np.outer(centroid, centroid)
    return MeshMoments(area, centroid + shift, 0.5 * (central + central.T))


def principal(inertia: Array) -> tuple[Array, Array]:
    """Principal moments (ascending, (3,)) and axes (columns of a right-handed rotation,
    (3, 3)) of a symmetric inertia tensor."""
    moments, axes = np.linalg.eigh(np.asarray(inertia, dtype=float))
    if np.linalg.det(axes) < 0:
        axes[:, 2] = -axes[:, 2]
    return moments, axes


def tensor_entries(inertia: Array) -> tuple[float, float, float, float, float, float]:
    """(Ixx, Iyy, Izz, Ixy, Ixz, Iyz), the tensor's own entries (`Inertia`'s order)."""
    i = np.asarray(inertia, dtype=float)
    return (float(i[0, 0]), float(i[1, 1]), float(i[2, 2]),
            float(i[0, 1]), float(i[0, 2]), float(i[1, 2]))  # fmt: skip


__all__ = ["MeshMoments", "principal", "shell_moments", "solid_moments", "tensor_entries"]
