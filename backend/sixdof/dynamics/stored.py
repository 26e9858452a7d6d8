"""Energy held by a body's elements (the StoredEnergy output, added to TotalEnergy).

Per body of `bodies` at states x (N, 13), for the elements `system` packed for these
bodies alone (not concatenated): the sum of each element's `stored` energy, which its kind's
module states and computes (kinds/: a spring's ½ k (ℓ − ℓ₀)², the ground's contact springs,
the hydrostatic potential of a hull below the still level, an added mass's ½ νᵀ M_A ν); an
element between two bodies is counted on its first body, so the sum over the bodies counts
it once. Pivots (no work), dampers (dissipate) and timed loads (external work) store
nothing. With these, TotalEnergy of an undamped system of springs, pivots, ground and still
water is constant (tests/unit/test_stored_energy.py).
"""

from __future__ import annotations

import numpy as np

from .elements import System
from .kinds.table import BY_ELEMENT, Poses
from .params import Bodies
from .quaternion import Array


def stored_energy(system: System | None, bodies: Bodies, x: Array) -> Array:
    """(N,) J: the energy the elements acting on each body hold (module docstring)."""
    out = np.zeros(len(np.atleast_2d(x)))
    if system is None or not system.elements:
        return out
    poses = Poses.of(bodies, x)
    for j, e in enumerate(system.elements):
        stored = BY_ELEMENT[type(e)].stored
        if stored is not None:
            out[e.body] += stored(e, system.rows[system.order[j]], poses)
    return out


__all__ = ["stored_energy"]
