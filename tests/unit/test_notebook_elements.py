"""Elements in the notebook: drawn where the physics says they act, rebuilt when the list
changes, untouched by a refused list."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("pythreejs")

from sixdof.fields import FieldError
from sixdof.notebook import BodyView

PENDULUM = {
    "bodies": [{"Name": "P", "Mass": 2.0, "InertiaRadi": [0.25, 0.2, 0.3],
                "Quater": [math.cos(0.5), math.sin(0.5), 0.0, 0.0]}],
    "elements": [
        {"kind": "pivot", "body": "P", "point": [0.0, 0.0, -0.5]},
        {"kind": "ground", "body": "P", "height": 2.0},
    ],
}  # fmt: skip


def test_the_pivot_and_ground_are_drawn_and_a_spring_follows_the_body() -> None:
    view = BodyView(PENDULUM)
    names = [o.name if o is not None else None for o in view.elements.objects]
    assert names == ["pivot", "ground"]
    held = [0.0, 0.5 * math.sin(1.0), -0.5 * math.cos(1.0)]
    assert np.allclose(view.elements.positions()[0], held, atol=1e-12)
    assert view.elements.positions()[1] == (0.0, 0.0, 2.0)
    view.set_elements([
        *PENDULUM["elements"],
        {"kind": "spring", "body": "P", "point": [0.0, 0.0, 0.5], "to": [0.0, 1.0, 0.0],
         "stiffness": 20.0},
    ])  # fmt: skip
    assert [o.name for o in view.elements.objects] == ["pivot", "ground", "spring"]
    view.step(200)
    records = view.sim.element_records()
    ends = np.array(view.elements.positions()[2]).reshape(2, 3)
    assert np.allclose(ends[0], records[2, 0:3], atol=1e-6)  # float32 in the buffer
    assert np.allclose(ends[1], [0.0, 1.0, 0.0], atol=1e-6)
    assert not np.allclose(ends[0], ends[1])
    group = view.elements.group
    with pytest.raises(FieldError):
        view.set_elements([{"kind": "spring", "body": "P", "stiffness": -1.0}])
    assert view.elements.group is group and len(view.sim.scenario.elements) == 3
