"""Bodies packed for the kernels (kernel.py): one float64 row of parameters per body.

The row holds m, g, the model factor c (1 `full`, 0 `fhsim`), r_g, I_o (3×3) and M_RB⁻¹
(6×6) exactly as `Bodies` has them, so kernel and reference agree to rounding, and a flag for
r_g = 0, where the kernels skip the r_g terms. `packed` remembers the rows of the `Bodies`
(and `System`) in use, and forgets them when those die (by_identity.py): a room's tables go
with its world, not with the server.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass, fields

import numpy as np

from .by_identity import ByIdentity
from .elements import Element, System, added_mass_matrix, alone, concat_systems, pack_system
from .layout import (
    P_BLOCK,
    P_CORIOLIS,
    P_GRAVITY,
    P_INERTIA_O,
    P_MASS,
    P_MASS_INV,
    P_R_CG,
    PARAM_SIZE,
)
from .params import Bodies
from .quaternion import Array


@dataclass(frozen=True, eq=False)
class PackedBodies:
    """N bodies ready for the kernels.

    `params` (N, PARAM_SIZE) float64, one row per body (layout: the P_* offsets);
    `bodies` is the `Bodies` it was packed from (for `dynamics.outputs`); `system` the
    elements acting on them (elements.py), None for free bodies, which then step on the
    per-body fast path. Treat all as read-only: to change a parameter, pack anew.
    `parts`: the packs a `concat` was made of, kept alive with it (module docstring of
    by_identity.py: a batch keyed by their ids must not outlive them).
    """

    params: Array
    bodies: Bodies
    system: System | None = None
    parts: tuple[PackedBodies, ...] = ()

    def __len__(self) -> int:
        return int(self.params.shape[0])


def pack(bodies: Bodies, elements: Sequence[Element] | System = ()) -> PackedBodies:
    """Pack a `Bodies` batch into one float64 array (N, PARAM_SIZE), once per parameter set,
    with the elements acting on them (a list, or a System packed for these bodies)."""
    n = len(bodies)
    params = np.zeros((n, PARAM_SIZE))
    params[:, P_MASS] = bodies.mass
    params[:, P_GRAVITY] = bodies.gravity
    params[:, P_CORIOLIS] = bodies.coriolis
    params[:, P_R_CG : P_R_CG + 3] = bodies.r_cg_body
    params[:, P_INERTIA_O : P_INERTIA_O + 9] = bodies.inertia_o.reshape(n, 9)
    if isinstance(elements, System):
        system = _acting(elements)
    else:
        system = pack_system(bodies, elements) if elements else None
    # an added-mass element joins M_RB: the kernels read (M_RB + M_A)⁻¹ (elements.AddedMass)
    added = None if system is None else added_mass_matrix(system.elements, n)
    inv = bodies.mass_matrix_inv if added is None else np.linalg.inv(bodies.mass_matrix + added)
    params[:, P_MASS_INV : P_MASS_INV + 36] = inv.reshape(n, 36)
    block = ~np.any(inv[:, 0:3, 3:6], axis=(1, 2)) & ~np.any(inv[:, 3:6, 0:3], axis=(1, 2))
    params[:, P_BLOCK] = block & ~np.any(bodies.r_cg_body, axis=1)
    return PackedBodies(params, bodies, system)


def _acting(system: System | None) -> System | None:
    """`system`, or None when it holds no element (the free bodies' fast path)."""
    return system if system is not None and len(system.rows) else None


def concat(packs: Sequence[PackedBodies]) -> PackedBodies:
    """One batch of all bodies of several packs, in order (e.g. every room of a server)."""
    if not packs:
        raise ValueError("at least one PackedBodies is needed")
    bodies = Bodies(
        **{
            f.name: np.concatenate([getattr(p.bodies, f.name) for p in packs])
            for f in fields(Bodies)
        }
    )
    system = None
    if any(p.system is not None for p in packs):
        system = concat_systems([alone(len(p)) if p.system is None else p.system for p in packs])
    return PackedBodies(np.concatenate([p.params for p in packs]), bodies, system, tuple(packs))


#: The rows of the Bodies (and System) packed lately, each dropped when its objects die, and
#: the PackedBodies last made of them while someone holds it (weakly: it holds the bodies).
_PACKED: ByIdentity[tuple[Array, weakref.ref[PackedBodies]]] = ByIdentity()


def packed(bodies: Bodies, system: System | None = None) -> PackedBodies:
    """`pack(bodies, system)`, remembered for as long as that `Bodies` and system live (the
    same PackedBodies while it is held, its rows while they live).

    `Bodies` and `System` are frozen; this assumes their arrays are not changed in place.
    """
    kept = _PACKED.get(bodies, system)
    if kept is None:
        pk = pack(bodies, () if system is None else system)
    else:
        held = kept[1]()
        if held is not None:
            return held
        pk = PackedBodies(kept[0], bodies, _acting(system))
    _PACKED.put((bodies, system), (pk.params, weakref.ref(pk)))
    return pk


__all__ = ["PackedBodies", "concat", "pack", "packed"]
