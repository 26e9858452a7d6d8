"""Ready-made scenarios for the lab, each showing one thing a student can watch for.

Each preset is a scenario file in this folder (`NAME.json`, the JSON `sixdof run` reads; no
caption in it) and three messages in the page's locale catalogues, `preset.NAME.title`,
`.caption` and `.question` (frontend/src/locales/*.json, ICU MessageFormat). Every number a
message quotes is a placeholder whose value `numbers.caption_values` computes from the
scenario, so changing a file changes its caption in every language. The page formats the
messages itself with those values (sent with the preset list); the English text here, for
the scenario's own `caption`, the CLI and the REST list, is the same message formatted by
`icu.format_message`.

Every preset is model `full` (Newton–Euler) unless it says otherwise and is integrated with
RK4 at h = 1 ms. Visuals: `Size` is the body's extent in metres along body x, y, z (the
shipped meshes fit a unit box), and the inertia is that of the solid the mesh depicts, so
what you see spins the way it looks like it should. The first presets are free bodies; the
later ones are bodies in a world, held, sprung or stopped by elements (DESIGN.md section 8).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from ...assets import asset_dir
from ..model import Scenario
from .icu import format_message
from .numbers import Values, elliptic_k

__all__ = ["DEFAULT_PRESET", "ORDER", "PRESETS", "Preset", "elliptic_k", "preset_scenario"]

#: The presets in the order the menus list them: free bodies, then bodies in a world, then
#: floating bodies, then mechanisms (bodies joined by joints).
ORDER = (
    "hover", "free_fall", "projectile", "tennis_racket", "symmetric_top", "spin_up",
    "coriolis_full", "coriolis_fhsim", "offset_cg", "stretch_it",
    "compound_pendulum", "heavy_top", "gyroscope", "two_masses_spring", "bouncing_ball",
    "spring_mount",
    "floating_box", "stiff_and_tender", "buoy_in_waves", "heeled_ship", "drift_in_current",
    "oes_sphere_1m", "oes_sphere_5m", "barge_in_waves",
    "double_pendulum", "chain", "gimbal_gyroscope", "four_bar", "crane_barge",
    "station_keeping", "moored_buoy", "crane_lowering", "cart_pole",
)  # fmt: skip
DEFAULT_PRESET = "hover"

#: Presets that count flips: the body axis (0 x, 1 y, 2 z) whose AngVel component changes
#: sign at each flip (sixdof.teaching.count_flips).
FLIP_AXIS = {"tennis_racket": 0, "stretch_it": 0}

FOLDER = Path(__file__).resolve().parent


@cache
def _file(name: str) -> dict[str, Any]:
    """The preset's file as read (a fresh Scenario is validated from it at each use)."""
    data: dict[str, Any] = json.loads((FOLDER / f"{name}.json").read_text(encoding="utf-8"))
    return data


def preset_file(name: str) -> dict[str, Any]:
    """Preset `name`'s scenario file, as JSON (no caption: the catalogue has it)."""
    return _file(name)


@cache
def english() -> dict[str, str]:
    """The English catalogue (the page's `locales/en.json`; a wheel carries a copy)."""
    catalogue: dict[str, str] = json.loads(
        (asset_dir("locales") / "en.json").read_text(encoding="utf-8")
    )
    return catalogue


@cache
def _all_values() -> dict[str, Values]:
    """What `caption_values` gives for each preset, as scripts/gen_protocol.py wrote it:
    reading it keeps numpy and the dynamics out of a server with no room yet (validating a
    scenario loads them), and `make lint` fails when it is out of date."""
    text = (FOLDER / "values" / "values.gen.json").read_text(encoding="utf-8")
    values: dict[str, Values] = json.loads(text)
    return values


def _values(name: str) -> Values:
    return _all_values().get(name, {})


@dataclass(frozen=True)
class Preset:
    """A named scenario file: `title` for menus, `caption` says what to watch, `question` asks
    the class to predict it first (all three English, from the catalogue); `values` are the
    numbers and formulas they quote; `flip_axis` names the axis whose AngVel component changes
    sign at each flip, for presets that count flips."""

    name: str
    flip_axis: int | None = None

    @property
    def values(self) -> Values:
        return dict(_values(self.name))

    def text(self, part: str) -> str:
        """The English `part` ("title", "caption" or "question"): "" (the name for a title)
        when the catalogue has no message for it."""
        message = english().get(f"preset.{self.name}.{part}")
        if message is None:
            return self.name if part == "title" else ""
        return format_message(message, _values(self.name))

    @property
    def title(self) -> str:
        return self.text("title")

    @property
    def caption(self) -> str:
        return self.text("caption")

    @property
    def question(self) -> str:
        return self.text("question")

    def scenario(self) -> Scenario:
        """A fresh, validated Scenario: the file's, with the English caption."""
        return Scenario.model_validate({**_file(self.name), "caption": self.caption})


PRESETS: dict[str, Preset] = {name: Preset(name, FLIP_AXIS.get(name)) for name in ORDER}


def preset_scenario(name: str) -> Scenario:
    """The Scenario of preset `name`; KeyError listing the names if there is none."""
    try:
        return PRESETS[name].scenario()
    except KeyError:
        raise KeyError(f"no preset {name!r}; presets are {list(PRESETS)}") from None
