"""A preset's file carries its view (issue 45): which plots open, whether the camera follows,
in the page's own names. A pinned, jointed or floating body is watched with the camera still
(following it hides the swing and the heave); the plots show what the caption talks about."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from sixdof.scenario import Scenario
from sixdof.scenario.presets import ORDER, PRESETS, preset_file
from sixdof.scenario.view import OVERLAY_NAMES, PLOT_NAMES

PAGE = Path(__file__).resolve().parents[2] / "frontend" / "src"
#: element kinds that hold a body in place or float it: watched with a still camera
HELD = {"pivot", "joint", "buoyancy", "ground", "spring"}


def test_the_view_names_are_the_pages() -> None:
    teach = (PAGE / "teach" / "teach.js").read_text()
    overlays = re.findall(r"^\s*\['(\w+)', '[^']*', 'Digit\d'\]", teach, re.M)
    assert tuple(overlays) == OVERLAY_NAMES
    plots = (PAGE / "panel" / "plots.js").read_text()
    table = plots[plots.index("export const CHANNELS") : plots.index("}; // prettier-ignore")]
    channels = re.findall(r"^  (\w+): \{ label:", table, re.M)
    assert tuple(channels) == PLOT_NAMES


@pytest.mark.parametrize("name", ORDER)
def test_every_preset_has_a_view(name: str) -> None:
    view = PRESETS[name].scenario().view
    assert view is not None and view.plots, name
    kinds = {e["kind"] for e in preset_file(name).get("elements", []) if "kind" in e}
    # two_masses_spring's pair is free, but the lone ball beside it is tied to a wall
    held = bool(kinds & HELD)
    assert view.follow is (not held), (name, kinds)


def test_the_presets_open_on_what_their_captions_are_about() -> None:
    view = {name: PRESETS[name].scenario().view for name in ORDER}
    assert view["tennis_racket"] is not None and view["tennis_racket"].plots == ["AngVel"]
    for name in ORDER:
        if preset_file(name).get("water") or name == "floating_box":
            plots = view[name].plots if view[name] else None
            assert plots and "Water" in plots, name


def test_a_view_names_only_what_the_page_has() -> None:
    with pytest.raises(ValidationError, match="plots"):
        Scenario.model_validate({"view": {"plots": ["Speed"]}})
    with pytest.raises(ValidationError, match="camera"):
        Scenario.model_validate({"view": {"camera": {"position": [0, 0, 0]}}})
    assert Scenario.model_validate({}).view is None
