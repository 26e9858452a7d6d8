"""The element kinds' table (dynamics/kinds): one module per kind, looked up by the names the
scenarios use, each with its row, its compiled force and its stored energy."""

from __future__ import annotations

import subprocess
import sys

import numpy as np

from sixdof.dynamics import Bodies, BodyParams
from sixdof.dynamics.elements import (
    AddedMass,
    Buoyancy,
    Cable,
    ContactShape,
    Controller,
    Damper,
    Ground,
    Joint,
    Pivot,
    Radiation,
    Spring,
    TimedLoad,
    concat_systems,
    pack_system,
)
from sixdof.dynamics.kinds import NAMES
from sixdof.dynamics.kinds.table import BY_ELEMENT, KINDS, MODULES
from sixdof.dynamics.layout import E_DATA, E_KIND, ELEMENT_SIZE
from sixdof.scenario import elements as scenario_elements

CUBE = np.array(
    [[[0, 0, 0], [0, 1, 0], [1, 1, 0]], [[0, 0, 0], [1, 1, 0], [1, 0, 0]],
     [[0, 0, 1], [1, 0, 1], [1, 1, 1]], [[0, 0, 1], [1, 1, 1], [0, 1, 1]],
     [[0, 0, 0], [1, 0, 0], [1, 0, 1]], [[0, 0, 0], [1, 0, 1], [0, 0, 1]],
     [[0, 1, 0], [0, 1, 1], [1, 1, 1]], [[0, 1, 0], [1, 1, 1], [1, 1, 0]],
     [[0, 0, 0], [0, 0, 1], [0, 1, 1]], [[0, 0, 0], [0, 1, 1], [0, 1, 0]],
     [[1, 0, 0], [1, 1, 0], [1, 1, 1]], [[1, 0, 0], [1, 1, 1], [1, 0, 1]]],
    dtype=float,
) - 0.5  # fmt: skip


def one_of_each() -> list[object]:
    return [
        Pivot(0, (0.0, 0.0, -0.5), (0.0, 0.0, 0.0)),
        Spring(1, (0.1, 0.0, 0.0), (0.0, 0.0, 1.0), 50.0, 0.5, 0.2),
        Damper(1, (1.0,) * 6, (0.5,) * 6),
        Ground(1, ContactShape("sphere", (0.0, 0.0, 0.0), (0.1, 0.1, 0.1))),
        TimedLoad(1, (1.0, 0.0, 0.0), signal="table", table=((0.0, 0.0), (1.0, 2.0))),
        Buoyancy(1, CUBE),
        AddedMass(1, tuple(tuple(float(i == j) for j in range(6)) for i in range(6))),
        Joint(0, "hinge", (0.0, 0.0, 0.5), (0.0, 0.0, -0.5), other=1),
        Controller(1, "pid", kp=(1.0,) * 6),
        Radiation(
            1, ((-1.0,),), ((0.0, 0.0, 1.0, 0.0, 0.0, 0.0),),
            ((0.0,), (0.0,), (1.0,), (0.0,), (0.0,), (0.0,)),
            ((0.0,) * 6,) * 6, tuple(tuple(float(i == j) for j in range(6)) for i in range(6)),
        ),
        Cable(1, (0.0, 0.0, 0.5), (30.0, 0.0, 20.0), 40.0, 8, 20.0, 1e7, 0.05),
    ]  # fmt: skip


def test_the_kinds_are_the_scenarios_kinds_by_name_in_order() -> None:
    assert tuple(KINDS) == NAMES == scenario_elements.KINDS
    assert [k.module for k in KINDS.values()] == list(MODULES)
    codes = [k.code for k in KINDS.values()]
    assert len(set(codes)) == len(codes) and 0.0 not in codes  # an empty row is no kind


def test_each_element_packs_by_its_kind_within_its_row() -> None:
    bodies = Bodies.of([BodyParams.from_radii(2.0, (0.2, 0.3, 0.25))] * 2)
    elements = one_of_each()
    assert {BY_ELEMENT[type(e)].name for e in elements} == set(KINDS)
    system = pack_system(bodies, elements)  # type: ignore[arg-type]
    for k, e in enumerate(elements):
        kind = BY_ELEMENT[type(e)]
        row = system.rows[system.order[k]]
        assert row[E_KIND] == kind.code and len(row) == ELEMENT_SIZE
        for column in kind.aux_columns:
            assert E_DATA <= column < ELEMENT_SIZE and 0 <= row[column] <= len(system.aux)
    # joined with another system, every kind's offsets into aux move with its aux
    both = concat_systems([system, system])
    for k, e in enumerate(elements):
        kind = BY_ELEMENT[type(e)]
        first = both.rows[both.order[k]]
        second = both.rows[both.order[k + len(elements)]]
        for column in range(ELEMENT_SIZE):
            shift = len(system.aux) if column in kind.aux_columns else 0
            assert second[column] == first[column] + shift


def test_each_kind_has_its_compiled_force_and_says_what_it_stores() -> None:
    for kind in KINDS.values():
        m = kind.module
        if kind.name == "pivot":  # a constraint: its derivative, held state and reaction
            assert all(hasattr(m, f) for f in ("derivative", "held", "reaction"))
        elif kind.name == "joint":  # constraints: their rows, rates and errors, and its gaps
            assert all(callable(getattr(m, f)) for f in ("count", "fill", "error", "gaps"))
        elif kind.name in ("controller", "radiation", "cable"):  # states_compiled dispatches
            assert callable(m.act_states) and callable(kind.states)
        elif kind.name != "buoyancy":  # buoyancy is summed apart (system_compiled)
            assert callable(m.act)
        assert kind.stored is None or callable(kind.stored)
        assert (m.__doc__ or "").startswith(f"`{kind.element.__name__}`")  # its equations


def test_the_kinds_import_no_numba_until_a_kernel_needs_them() -> None:
    code = (
        "import sys; import sixdof.dynamics.kinds as k, sixdof.dynamics.elements; "
        "assert 'numba' not in sys.modules; "
        "from sixdof.dynamics.kinds import spring; plain = spring.force; "
        "import sixdof.dynamics.system_compiled; "
        "from numba.core.registry import CPUDispatcher; "
        "assert not isinstance(plain, CPUDispatcher) and isinstance(spring.force, CPUDispatcher)"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
