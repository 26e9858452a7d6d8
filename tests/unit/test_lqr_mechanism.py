"""`sixdof.lqr` for bodies held by joints refuses what it cannot design for, naming the field:
too few signals to tell the mechanism's states apart, a signal that is not one, a state not
at rest, elements with states of their own. (What it designs is checked against the
textbook cart-pole in tests/unit/test_presets_lines.py.)"""

from __future__ import annotations

import pytest

from sixdof.analysis.lqr import lqr
from sixdof.fields import FieldError
from sixdof.scenario import Scenario
from sixdof.scenario.presets import PRESETS

SIGNALS = ["Pos.x", "Pitch", "Vel.x", "AngVel.y"]


def at_rest() -> Scenario:
    s = PRESETS["cart_pole"].scenario()
    s.elements = [e for e in s.elements if e.kind != "controller"]
    s.bodies[1].AngVel = (0.0, 0.0, 0.0)
    return s


@pytest.mark.parametrize(
    ("change", "inputs", "field"),
    [
        (None, ["Pos.x", "Pitch"], "inputs"),  # 2 signals for 4 states
        (None, ["Pos.x", "Pitch", "Vel.x", "Vel.y"], "inputs"),  # Vel.y tells nothing
        (None, ["Pos.x", "Lean", "Vel.x", "AngVel.y"], "inputs"),  # no such signal
        ("moving", SIGNALS, "Pos"),
        ("controlled", SIGNALS, "elements"),
    ],
)
def test_refusals_name_the_field(change: str | None, inputs: list[str], field: str) -> None:
    s = at_rest()
    if change == "moving":
        s.bodies[1].AngVel = (0.0, 0.3, 0.0)
    if change == "controlled":
        s = PRESETS["cart_pole"].scenario()
        s.bodies[1].AngVel = (0.0, 0.0, 0.0)
    with pytest.raises(FieldError) as err:
        lqr(s, [1.0] * len(inputs), [1.0], body="Pole", inputs=inputs)
    assert err.value.field == field, err.value


def test_the_design_is_stable_and_reads_what_it_was_given() -> None:
    design = lqr(at_rest(), [10.0, 100.0, 1.0, 1.0], [0.1], body="Pole", inputs=SIGNALS)
    assert design.K.shape == (1, 4) and max(design.eigenvalues.real) < 0
    assert design.element["inputs"] == SIGNALS
    assert design.element["outputs"] == ["Force.x", "Moment.y"]  # the force at the hinge
