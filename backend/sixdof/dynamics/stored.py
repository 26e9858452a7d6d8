"""Energy held by a body's elements (the StoredEnergy output, added to TotalEnergy).

Per body of `bodies` at states x (N, 13), for the elements `system` packed for these
bodies alone (not concatenated):

- a spring: ½ k (ℓ − ℓ₀)², ℓ the distance between its ends (one between two bodies is
  counted on its first body, so the sum over the bodies counts it once);
- the ground: ½ k δ² for each touching point δ below the plane (the contact springs; the
  dashpot and friction only take energy away);
- buoyancy: the hydrostatic potential ρ g ∫ (z − level) dV = ρ g ∇ (z_B − level) over the
  hull's volume below the still level (its gradient is the still-water buoyancy force and
  moment), ∇ and the centre of buoyancy B from `hull_submerged.submerged`. Waves and a
  current do work on a body, so with them the total is not constant; the still-level
  potential is still what is stored;
- an added mass: ½ νᵀ M_A ν, the water's kinetic energy moving with the body.

Pivots (no work), dampers (dissipate) and timed loads (external work) store nothing. With
these, TotalEnergy of an undamped system of springs, pivots, ground and still water is
constant (tests/unit/test_stored_energy.py).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .elements import AddedMass, Buoyancy, Ground, Spring, System
from .layout import EG_K
from .params import Bodies
from .quaternion import Array, to_rotmat


def stored_energy(system: System | None, bodies: Bodies, x: Array) -> Array:
    """(N,) J: the energy the elements acting on each body hold (module docstring)."""
    xs = np.atleast_2d(np.asarray(x, dtype=float))
    n = len(xs)
    out = np.zeros(n)
    if system is None or not system.elements:
        return out
    q = xs[:, 3:7] / np.linalg.norm(xs[:, 3:7], axis=1, keepdims=True)
    rot = to_rotmat(q).reshape(n, 3, 3)
    pos = xs[:, 0:3]

    def world(i: int, point: ArrayLike) -> Array:
        return pos[i] + rot[i] @ np.asarray(point, dtype=float)

    for j, e in enumerate(system.elements):
        i = e.body
        if isinstance(e, Spring):
            end = np.asarray(e.to, dtype=float) if e.other is None else world(e.other, e.to)
            length = float(np.linalg.norm(end - world(i, e.point)))
            out[i] += 0.5 * e.stiffness * (length - e.rest_length) ** 2
        elif isinstance(e, Ground):
            k = float(system.rows[system.order[j], EG_K])
            centre = np.asarray(e.shape.centre, dtype=float)
            if e.shape.kind == "sphere":
                # the lowest point: the centre plus the radius straight down, as the kernel
                lowest = world(i, centre)[2] + e.shape.extent[0]
                depths = np.array([lowest - e.height])
            else:
                half = np.asarray(e.shape.extent, dtype=float)
                signs = np.array([[sx, sy, sz] for sz in (-1, 1) for sy in (-1, 1)
                                  for sx in (-1, 1)], dtype=float)  # fmt: skip
                corners = pos[i] + (centre + signs * half) @ rot[i].T
                depths = corners[:, 2] - e.height
            out[i] += 0.5 * k * float(np.sum(np.maximum(depths, 0.0) ** 2))
        elif isinstance(e, Buoyancy):
            from .hull_submerged import submerged  # compiled: numba loads with the first room

            tri = np.ascontiguousarray(e.triangles, dtype=float)
            volume, _, _, z_b = submerged(tri, rot[i], pos[i], e.water.level)
            rho_g = e.water.density * float(bodies.gravity[i])
            out[i] += rho_g * volume * (z_b - e.water.level)
        elif isinstance(e, AddedMass):
            nu = xs[i, 7:13]
            out[i] += 0.5 * float(nu @ np.asarray(e.matrix, dtype=float) @ nu)
    return out


__all__ = ["stored_energy"]
