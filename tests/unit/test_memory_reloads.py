"""Nothing outlives its world (issue 40, finding 9): a room's bodies, elements and the tables
packed from them are freed when a load replaces them. `kernel.packed`'s cache held every
`Bodies` it had seen (its entry held the PackedBodies, which held the bodies, so its weak
reference never fired): +5 MB a reload on a server."""

from __future__ import annotations

import gc
import weakref
from typing import Any

import numpy as np

from sixdof.dynamics import kernel
from sixdof.dynamics.by_identity import ByIdentity
from sixdof.dynamics.params import Bodies, BodyParams
from sixdof.simulation.live import LiveSimulation

FLOATING: dict[str, Any] = {
    "name": "floating",
    "bodies": [
        {"Name": f"Box{i}", "Mass": 500.0, "Mesh": "box", "Size": [2.0, 1.0, 1.0],
         "Pos": [3.0 * i, 0.0, 0.0]}
        for i in range(3)
    ],
    "elements": [{"kind": "buoyancy", "body": f"Box{i}"} for i in range(3)],
    "water": {"level": 0.0},
}  # fmt: skip
ALONE: dict[str, Any] = {"name": "alone", "bodies": [{"Name": "B", "Gravity": 0.0}]}


def body(mass: float = 1.0) -> BodyParams:
    return BodyParams(mass, np.eye(3))


def world_refs(sim: LiveSimulation) -> list[weakref.ref[Any]]:
    """Weak references to the world's bodies, elements and packed rows (as the engine uses
    them: packed once it stepped)."""
    pk = kernel.packed(sim.bodies, sim.system)
    refs = [weakref.ref(sim.bodies), weakref.ref(pk), weakref.ref(pk.params)]
    if sim.system is not None:
        refs.append(weakref.ref(sim.system))
    return refs


def test_a_reload_frees_the_bodies_elements_and_packed_tables_of_the_world_before() -> None:
    sim = LiveSimulation(FLOATING, running=False)
    sim.step(5)
    before = world_refs(sim)
    assert sim.system is not None and len(before) == 4
    for scenario in (ALONE, FLOATING, ALONE):  # loaded and stepped, as a room's PUTs
        sim.load(scenario)
        sim.step(5)
    gc.collect()
    alive = [ref() for ref in before if ref() is not None]
    assert alive == [], [type(obj).__name__ for obj in alive]


def test_loads_leave_no_reference_cycles_behind() -> None:
    """A server collects cycles rarely (launch.quiet_garbage_collector: a young collection
    every 20,000 objects made and kept), so garbage in a cycle stays for many loads: the hull
    tree's builder, a closure calling itself, kept ~0.5 MB of arrays per ship mesh (+3 MB a
    load of 8 ships). Loads and steps of floating bodies must leave none."""
    sim = LiveSimulation(ALONE, running=False)
    for scenario in (FLOATING, ALONE):  # what loads once (meshes, kernels) is loaded
        sim.load(scenario)
        sim.step(3)
    gc.collect()
    gc.disable()
    try:
        for scenario in (FLOATING, ALONE, FLOATING, ALONE):
            sim.load(scenario)
            sim.step(3)
        found = gc.collect()
    finally:
        gc.enable()
    assert found == 0, f"{found} objects were garbage in cycles"


def test_the_geometric_integrators_tables_go_with_their_bodies_too() -> None:
    geometric = {**ALONE, "integration": {"method": "geometric", "stepsize": 1e-3}}
    sim = LiveSimulation(geometric, running=False)
    sim.step(5)
    first = weakref.ref(sim.bodies)
    sim.set_params("B", Mass=3.0)  # a new Bodies: the world is replaced whole
    sim.step(5)
    sim.load(geometric)
    sim.step(5)
    gc.collect()
    assert first() is None


def test_packed_is_kept_while_its_bodies_live_and_dropped_with_them() -> None:
    bodies = Bodies.of([body(2.0), body(3.0)])
    pk = kernel.packed(bodies)
    assert kernel.packed(bodies) is pk  # the same while it is held
    rows = weakref.ref(pk.params)
    del pk
    again = kernel.packed(bodies)  # its rows were kept: not packed anew
    assert again.params is rows()
    np.testing.assert_array_equal(again.params, kernel.pack(bodies).params)
    del again, bodies
    assert rows() is None  # no cycle: freed at once, before any gc


def test_a_concatenated_batch_keeps_the_bodies_it_was_made_of() -> None:
    """The engine keys its batch by the ids of the rooms' bodies: those must not die (and
    their ids go to new bodies) while a batch made of them lives."""
    a = Bodies.of(body(2.0))
    batch = kernel.concat([kernel.packed(a), kernel.packed(Bodies.of(body()))])
    part = weakref.ref(a)
    del a
    gc.collect()
    assert part() is not None and len(batch) == 2
    del batch
    gc.collect()
    assert part() is None


class Key:
    """An object that is not hashable, as Bodies is not."""

    __hash__ = None  # type: ignore[assignment]


def test_by_identity_answers_only_its_own_living_objects() -> None:
    kept: ByIdentity[str] = ByIdentity()
    a, b = Key(), Key()
    kept.put((a, None), "a")
    assert kept.get(a, None) == "a"
    assert kept.get(b, None) is None and kept.get(a, b) is None
    kept.put((a, b), "a and b")
    del b
    assert kept.get(a, None) == "a" and len(kept) == 1  # (a, b) went with b
    del a
    assert len(kept) == 0
