"""Energy held by a body's elements (the StoredEnergy output, added to TotalEnergy).

Per body of `bodies` at states x (N, 13), for the elements `system` packed for these
bodies alone (not concatenated): the sum of each element's `stored` energy, which its kind's
module states and computes (kinds/: a spring's ½ k (ℓ − ℓ₀)², the ground's contact springs,
the hydrostatic potential of a hull below the still level, an added mass's ½ νᵀ M_A ν and a
radiation memory's ½ νᵀ A∞ ν; a cable's elastic energy, its nodes' kinetic energy and
potential in gravity, read from its states z: cable_lines.energy); an element between two
bodies is counted on its first body, so the sum over the bodies counts it once. Pivots (no
work), dampers (dissipate) and timed loads (external work) store nothing. With these,
TotalEnergy of an undamped system of springs, pivots, ground and still water is constant
(tests/unit/test_stored_energy.py).
"""

from __future__ import annotations

import numpy as np

from .cable_lines import cable_energy
from .elements import System, state_slices
from .kinds.radiation import Radiation
from .kinds.table import BY_ELEMENT, Poses
from .params import Bodies
from .quaternion import Array


def stored_energy(system: System | None, bodies: Bodies, x: Array, z: Array | None = None) -> Array:
    """(N,) J: the energy the elements acting on each body hold (module docstring); z: the
    elements' states (a cable's; None: their initial ones)."""
    out = np.zeros(len(np.atleast_2d(x)))
    if system is None or not system.elements:
        return out
    out += cable_energy(system, bodies, x, z)
    poses = Poses.of(bodies, x)
    for j, e in enumerate(system.elements):
        stored = BY_ELEMENT[type(e)].stored
        if stored is not None:
            out[e.body] += stored(e, system.rows[system.order[j]], poses)
    return out


def radiated_energy(system: System | None, n: int, z: Array | None = None) -> Array:
    """(n,) J: the work each body's motion has done on the water through its radiation
    elements, their last state E_rad (kinds/radiation.py; z: the elements' states, None:
    their initial ones). Not in TotalEnergy: the water has it, not the body."""
    out = np.zeros(n)
    if system is None or not any(isinstance(e, Radiation) for e in system.elements):
        return out
    zs = system.initial_states() if z is None else np.asarray(z, dtype=float)
    for e, s in zip(system.elements, state_slices(system), strict=True):
        if isinstance(e, Radiation):
            out[e.body] += zs[s][-1]
    return out


__all__ = ["radiated_energy", "stored_energy"]
