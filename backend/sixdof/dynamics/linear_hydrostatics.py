"""A hull's linear hydrostatics about its still-water equilibrium (a radiation element's
`"hydrostatics": "linear"`, docs/physics.md "Linear hydrostatics").

The linear model replaces the clipped hull's buoyancy by its first-order expansion about the
upright equilibrium where ρ ∇ = m (the pose a BEM file is computed at):

    W(ξ) = W₀ − C ξ,      ξ = (0, 0, z − z₀, φ, θ, 0)

W the buoyancy's force and moment about the reference point in the heading frame (NED axes
turned by the body's yaw ψ), W₀ its value at rest, C the buoyancy's stiffness. The weight
stays with the body model, exact at any attitude, so C here is the buoyancy's alone: a BEM
file's `hydrostatic_stiffness` (Capytaine's) holds the weight's share too (−m g z_G in roll
and pitch), which is taken off; a file without one gets C from the hull. Both by central
differences of the exact cut of the polyhedron (hull_cut), convention-proof.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .hull_cut import cut
from .quaternion import Array

#: Rows of ξ the buoyancy depends on: heave, roll and pitch (none on x, y or yaw).
MOVES = (2, 3, 4)


@dataclass(frozen=True)
class LinearHydrostatics:
    z0: float  # the reference point's z at rest, NED (m)
    w0: Array  # (6,) the buoyancy at rest: force (N) and moment about the reference point (N·m)
    stiffness: Array  # (6, 6) of the buoyancy alone, heading frame about the reference point
    from_file: bool  # C read from the BEM file (else worked out from the hull)
    volume: float  # ∇₀, m³
    z_b: float  # the centre of buoyancy's z at rest, NED (m)


def attitude(roll: float, pitch: float) -> Array:
    """R = R_y(θ) R_x(φ): z-y-x Euler angles with no yaw, body to NED."""
    c, s = math.cos(roll), math.sin(roll)
    rx = np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])
    c, s = math.cos(pitch), math.sin(pitch)
    ry = np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])
    return ry @ rx


def buoyancy(tri: Array, z: float, roll: float, pitch: float, rho_g: float, level: float) -> Array:
    """The still water's buoyancy on the hull (body triangles from the reference point) with the
    reference point at (0, 0, z): force and moment about the reference point, NED (6,)."""
    rot = attitude(roll, pitch)
    world = tri @ rot.T + np.array([0.0, 0.0, z])
    c = cut(world, level)
    force = np.array([0.0, 0.0, -rho_g * c.volume])
    arm = np.asarray(c.centre) - np.array([0.0, 0.0, z])
    return np.concatenate((force, np.cross(arm, force)))


def weight(r_cg: Array, mass: float, g: float, roll: float, pitch: float) -> Array:
    """The weight's force and moment about the reference point at that attitude (6,)."""
    force = np.array([0.0, 0.0, mass * g])
    return np.concatenate((force, np.cross(attitude(roll, pitch) @ r_cg, force)))


def draft(tri: Array, mass: float, rho: float, level: float) -> float:
    """The reference point's z where the upright hull displaces its mass (bisection on the
    cut volume, monotone in z)."""
    zs = tri[..., 2].reshape(-1)
    lo, hi = level - zs.max(), level - zs.min()  # dry ... fully under
    want = mass / rho
    if cut(tri + np.array([0.0, 0.0, hi]), level).volume < want:
        raise ValueError(f"the hull cannot carry its mass ({mass:.4g} kg): it sinks")
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        if cut(tri + np.array([0.0, 0.0, mid]), level).volume < want:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def _jacobian(wrench, z0: float, reach: float) -> Array:
    """−∂W/∂ξ by central differences in heave (a thousandth of the reach) and roll, pitch."""
    out = np.zeros((6, 6))
    steps = {2: 1e-4 * reach, 3: 1e-4, 4: 1e-4}
    for k, h in steps.items():
        up, down = [z0, 0.0, 0.0], [z0, 0.0, 0.0]
        up[k - 2] += h
        down[k - 2] -= h
        out[:, k] = -(wrench(*up) - wrench(*down)) / (2 * h)
    return out


def linear_hydrostatics(
    tri: Array,
    mass: float,
    r_cg: Array,
    rho: float,
    g: float,
    level: float,
    file_stiffness: Array | None = None,
) -> LinearHydrostatics:
    """W₀, z₀ and the buoyancy's C of the hull at rest (see the module's docstring)."""
    tri = np.asarray(tri, dtype=float)
    reach = float(np.abs(tri).max())
    z0 = draft(tri, mass, rho, level)
    w0 = buoyancy(tri, z0, 0.0, 0.0, rho * g, level)
    at_rest = cut(tri + np.array([0.0, 0.0, z0]), level)
    if file_stiffness is None:
        stiffness = _jacobian(lambda z, p, q: buoyancy(tri, z, p, q, rho * g, level), z0, reach)
    else:  # Capytaine's holds the weight's share: −∂W_weight/∂ξ, taken off
        own = _jacobian(lambda _z, p, q: weight(np.asarray(r_cg), mass, g, p, q), z0, reach)
        stiffness = np.asarray(file_stiffness, dtype=float) - own
    keep = np.zeros((6, 6))
    keep[:, MOVES] = stiffness[:, MOVES]
    return LinearHydrostatics(
        z0, w0, keep, file_stiffness is not None, float(at_rest.volume), float(at_rest.centre[2])
    )


__all__ = ["LinearHydrostatics", "attitude", "buoyancy", "draft", "linear_hydrostatics"]
