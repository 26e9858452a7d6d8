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


DOUBLE = {
    "bodies": [
        {"Name": "Upper", "Mass": 1.0, "InertiaRadi": [0.29, 0.29, 0.01], "Pos": [0, 0, 0.5]},
        {"Name": "Lower", "Mass": 1.0, "InertiaRadi": [0.29, 0.29, 0.01], "Pos": [0, 0, 1.5],
         "AngVel": [0, 2.0, 0]},
    ],
    "elements": [
        {"kind": "joint", "type": "hinge", "body": "Upper", "point": [0, 0, -0.5]},
        {"kind": "joint", "type": "slider", "body": "Lower", "point": [0, 0, -0.5],
         "to": {"body": "Upper"}, "axis": [0, 0, 1]},
    ],
}  # fmt: skip


def test_joints_are_drawn_at_their_points_with_a_hinge_s_pin_and_a_slider_s_rail() -> None:
    """The hinge's pin lies along its axis (east) through the top point; the slider's rail
    along the lower link's axis as it is turned now, longer than the pin."""
    view = BodyView(DOUBLE)
    assert [o.name for o in view.elements.objects] == ["joint", "joint"]
    view.step(300)
    records = view.sim.element_records()
    x = view.sim.state_array()
    for k, obj in enumerate(view.elements.objects):
        assert np.allclose(obj.position, records[k, 0:3], atol=1e-12)
    pin = np.asarray(view.elements.objects[0].children[1].geometry.attributes["position"].array)
    rail = np.asarray(view.elements.objects[1].children[1].geometry.attributes["position"].array)
    assert np.allclose(pin[1] / np.linalg.norm(pin[1]), [0.0, 1.0, 0.0], atol=1e-6)
    q = x[1, 3:7]
    w, v = q[0], q[1:]
    down = np.array([0.0, 0.0, 1.0])
    turned = down + 2 * w * np.cross(v, down) + 2 * np.cross(v, np.cross(v, down))
    assert np.allclose(rail[1] / np.linalg.norm(rail[1]), turned, atol=1e-6)
    assert abs(turned[0]) > 0.01  # the lower link has swung: the rail turned with it
    assert np.linalg.norm(rail[1]) > 2 * np.linalg.norm(pin[1])
