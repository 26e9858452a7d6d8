""" "Changed since the preset" follows any edit of the physics (issue 45): a body's parameters
(as before), and now its elements and its water too, which left the caption stale."""

from __future__ import annotations

from sixdof.scenario.elements import SpringElement
from sixdof.scenario.presets import preset_scenario
from sixdof.server.presets import origin


def test_a_fresh_preset_is_unchanged() -> None:
    for name in ("buoy_in_waves", "spring_mount", "double_pendulum", "hover"):
        assert origin(preset_scenario(name)) == (name, False)


def test_an_edit_of_the_water_changes_it() -> None:
    s = preset_scenario("buoy_in_waves")
    assert s.water is not None
    waves = [w.model_copy(update={"amplitude": w.amplitude * 1.5}) for w in s.water.waves]
    changed = s.model_copy(update={"water": s.water.model_copy(update={"waves": waves})})
    assert origin(changed) == ("buoy_in_waves", True)
    assert origin(s.model_copy(update={"water": None})) == ("buoy_in_waves", True)


def test_an_edit_of_the_elements_changes_it() -> None:
    s = preset_scenario("spring_mount")
    assert origin(s.model_copy(update={"elements": s.elements[:-1]})) == ("spring_mount", True)
    first = s.elements[0]
    assert isinstance(first, SpringElement)
    stiffer = first.model_copy(update={"stiffness": first.stiffness * 2})
    changed = s.model_copy(update={"elements": [stiffer, *s.elements[1:]]})
    assert origin(changed) == ("spring_mount", True)
