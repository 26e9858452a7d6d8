"""Elements: what holds, springs, damps, stops or drives a body (DESIGN.md section 8).

In FhSim these are other SimObjects wired to a body's Force and Moment ports; here they are
values listed beside the bodies and evaluated inside the compiled derivative at every
integrator stage, from that stage's own state (system_compiled.py). Points on a body are in
body axes from its reference point o (`Pos`); world points and heights are NED (z down).

- `Pivot` (a spherical joint, exact), `Spring`, `Damper` (Fossen's), `Ground` (contact and
  friction), `Buoyancy` (the water's pressure on a hull), `AddedMass`, `TimedLoad`, `Joint`
  (a ball, hinge, slider or weld between two bodies or a body and the world): each
  kind's dataclass, equations, row, compiled force and stored energy are its module in
  `kinds/` (kinds/__init__.py lists them); this module packs a list of them.

`pack_system` turns a list of them into the arrays the kernels read (layout's E_* rows).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from .kinds.added_mass import AddedMass, added_mass_matrix
from .kinds.buoyancy import Buoyancy, outward
from .kinds.cable import Cable
from .kinds.controller import Controller
from .kinds.damper import Damper
from .kinds.ground import (
    FRICTION_STEP_RATE,
    GROUND_SLIP,
    GROUND_STIFFNESS_PER_KG,
    ContactShape,
    Ground,
    damping_ratio,
    friction_rate,
)
from .kinds.joint import Joint
from .kinds.load import TimedLoad
from .kinds.pivot import Pivot, pivot_inertia
from .kinds.radiation import Radiation
from .kinds.spring import Spring
from .kinds.table import BY_ELEMENT, KINDS
from .layout import E_BODY, E_KIND, E_N_STATES, E_OTHER, E_STATES, ELEMENT_SIZE
from .params import Bodies
from .quaternion import Array, IntArray

Element = (
    Pivot
    | Spring
    | Damper
    | Ground
    | TimedLoad
    | Buoyancy
    | AddedMass
    | Joint
    | Controller
    | Radiation
    | Cable
)


def _other(e: Element) -> int | None:
    """The second body an element joins its body to (a spring's, a joint's), or None."""
    return e.other if isinstance(e, Spring | Joint | Cable) else None


@dataclass(frozen=True, eq=False)
class System:
    """Elements packed for the kernels, with the groups of bodies that step together.

    groups (G, 2): first body row and count of each group (a body alone, or an interval of
    rows holding every body a two-body spring or a joint joins); rows (M, ELEMENT_SIZE):
    the elements, group after group, with body indices local to the group; bounds (G + 1,):
    the rows of group g are rows[bounds[g]:bounds[g + 1]]; aux: signal tables; order (M,):
    row of the k-th element as given; state_bounds (G + 1,): group g's elements carry the
    states z[state_bounds[g]:state_bounds[g + 1]] (a controller's, layout.E_STATES), which
    step with its bodies; `initial` (Z,): their values at the start.
    """

    groups: IntArray
    rows: Array
    bounds: IntArray
    aux: Array
    order: IntArray
    elements: tuple[Element, ...]
    state_bounds: IntArray
    initial: Array

    @property
    def n_bodies(self) -> int:
        return int(self.groups[:, 1].sum()) if len(self.groups) else 0

    @property
    def n_states(self) -> int:
        """Element states in all (the length of z)."""
        return int(self.state_bounds[-1]) if len(self.state_bounds) else 0

    def initial_states(self) -> Array:
        """A fresh z: every element's initial states, group after group."""
        return self.initial.copy()


def _intervals(n: int, elements: Sequence[Element]) -> list[tuple[int, int]]:
    """Contiguous groups [first, last], every two-body spring or joint inside one."""
    reach = list(range(n))  # reach[i]: the last row that must step with row i
    for e in elements:
        other = _other(e)
        if other is not None:
            a, b = sorted((e.body, other))
            reach[a] = max(reach[a], b)
    groups, start, end = [], 0, -1
    for i in range(n):
        if i > end and i > 0:
            groups.append((start, end))
            start = i
        end = max(end, reach[i])
    groups.append((start, end))
    return groups


def _row(e: Element, local: int, other: int, bodies: Bodies, aux: list[float]) -> Array:
    kind = BY_ELEMENT[type(e)]
    row = np.zeros(ELEMENT_SIZE)
    row[E_KIND] = kind.code
    row[E_BODY] = local
    row[E_OTHER] = other
    kind.pack(e, row, bodies, aux)
    return row


def pack_system(bodies: Bodies, elements: Sequence[Element]) -> System:
    """The kernels' arrays for these elements acting on `bodies` (indices into it)."""
    n = len(bodies)
    for e in elements:
        other = _other(e)
        if not 0 <= e.body < n or (other is not None and not 0 <= other < n):
            raise ValueError(f"element {e!r}: body index out of range for {n} bodies")
    intervals = _intervals(n, elements)
    group_of = np.empty(n, dtype=np.int64)
    for g, (a, b) in enumerate(intervals):
        group_of[a : b + 1] = g
    ranked = sorted(range(len(elements)), key=lambda k: group_of[elements[k].body])
    aux: list[float] = []
    rows = np.zeros((len(elements), ELEMENT_SIZE))
    order = np.empty(len(elements), dtype=np.int64)
    held = np.zeros(len(intervals), dtype=np.int64)  # states of each group so far
    initial: list[Array] = [np.zeros(0) for _ in intervals]
    for r, k in enumerate(ranked):
        e = elements[k]
        g = group_of[e.body]
        first = intervals[g][0]
        other = _other(e)
        rows[r] = _row(e, e.body - first, -1 if other is None else other - first, bodies, aux)
        order[k] = r
        start = BY_ELEMENT[type(e)].states
        if start is not None:  # its states follow the group's others (local offsets)
            z0 = start(e)
            rows[r, E_STATES], rows[r, E_N_STATES] = held[g], len(z0)
            held[g] += len(z0)
            initial[g] = np.concatenate([initial[g], z0])
    counts = np.bincount(group_of[[elements[k].body for k in ranked]], minlength=len(intervals))
    bounds = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    groups = np.array([(a, b - a + 1) for a, b in intervals], dtype=np.int64).reshape(-1, 2)
    state_bounds = np.concatenate([[0], np.cumsum(held)]).astype(np.int64)
    return System(
        groups,
        rows,
        bounds,
        np.asarray(aux, dtype=float),
        order,
        tuple(elements),
        state_bounds,
        np.concatenate(initial),
    )


def state_slices(system: System) -> list[slice]:
    """Where each element's states are in z, in the order the elements were given (empty
    slices for those that carry none)."""
    out = []
    for r in system.order.tolist():
        g = int(np.searchsorted(system.bounds, r, side="right")) - 1
        start = int(system.state_bounds[g] + system.rows[r, E_STATES])
        out.append(slice(start, start + int(system.rows[r, E_N_STATES])))
    return out


def carry_states(old: System | None, new: System | None, z: Array) -> Array:
    """The states z of `old`'s elements carried to `new`'s: the k-th element keeps its states
    when it was of the same kind with as many before (a controller whose gains changed keeps
    its integral), else it starts from its initial ones."""
    if new is None:
        return np.zeros(0)
    out = new.initial_states()
    if old is None or not old.n_states:
        return out
    before = state_slices(old)
    for k, (e, now) in enumerate(zip(new.elements, state_slices(new), strict=True)):
        if k < len(before) and type(old.elements[k]) is type(e):
            was = before[k]
            if was.stop - was.start == now.stop - now.start:
                out[now] = z[was]
    return out


def alone(n: int) -> System:
    """n bodies, each its own group, no elements."""
    groups = np.stack([np.arange(n), np.ones(n, dtype=np.int64)], axis=1).astype(np.int64)
    return System(
        groups.reshape(-1, 2),
        np.zeros((0, ELEMENT_SIZE)),
        np.zeros(n + 1, dtype=np.int64),
        np.zeros(0),
        np.zeros(0, dtype=np.int64),
        (),
        np.zeros(n + 1, dtype=np.int64),
        np.zeros(0),
    )


def _shifted(e: Element, by: int) -> Element:
    """Element e with its body indices moved by `by` (its system's first body in a batch)."""
    if by == 0:
        return e
    if isinstance(e, Spring | Joint) and e.other is not None:
        return replace(e, body=e.body + by, other=e.other + by)
    return replace(e, body=e.body + by)


def concat_systems(systems: Sequence[System]) -> System:
    """One system of several, bodies and elements in order (e.g. every room of a server); the
    elements' body indices are the concatenated batch's."""
    groups, rows, bounds, aux, order = [], [], [np.zeros(1, dtype=np.int64)], [], []
    state_bounds, initial = [np.zeros(1, dtype=np.int64)], []
    body0 = row0 = aux0 = z0 = 0
    firsts = []
    for s in systems:
        firsts.append(body0)
        g = s.groups.copy()
        g[:, 0] += body0
        groups.append(g)
        r = s.rows.copy()
        for kind in KINDS.values():  # offsets into aux move with it
            rows_of = r[:, E_KIND] == kind.code
            for column in kind.aux_columns:
                r[rows_of, column] += aux0
        rows.append(r)
        bounds.append(s.bounds[1:] + row0)
        aux.append(s.aux)
        order.append(s.order + row0)
        state_bounds.append(s.state_bounds[1:] + z0)
        initial.append(s.initial)
        z0 += s.n_states
        body0 += s.n_bodies
        row0 += len(s.rows)
        aux0 += len(s.aux)
    pairs = zip(systems, firsts, strict=True)
    shifted = tuple(_shifted(e, first) for s, first in pairs for e in s.elements)
    return System(
        np.concatenate(groups).astype(np.int64).reshape(-1, 2),
        np.concatenate(rows).reshape(-1, ELEMENT_SIZE),
        np.concatenate(bounds).astype(np.int64),
        np.concatenate(aux) if aux else np.zeros(0),
        np.concatenate(order).astype(np.int64) if order else np.zeros(0, dtype=np.int64),
        shifted,
        np.concatenate(state_bounds).astype(np.int64),
        np.concatenate(initial) if initial else np.zeros(0),
    )


__all__ = [
    "FRICTION_STEP_RATE",
    "GROUND_SLIP",
    "GROUND_STIFFNESS_PER_KG",
    "AddedMass",
    "Buoyancy",
    "Cable",
    "ContactShape",
    "Controller",
    "Damper",
    "Element",
    "Ground",
    "Joint",
    "Pivot",
    "Radiation",
    "Spring",
    "System",
    "TimedLoad",
    "added_mass_matrix",
    "alone",
    "carry_states",
    "concat_systems",
    "damping_ratio",
    "friction_rate",
    "outward",
    "pack_system",
    "pivot_inertia",
    "state_slices",
]
