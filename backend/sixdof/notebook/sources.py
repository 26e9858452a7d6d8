"""What a notebook user may hand to BodyView: a Scenario, a dict, a file, or a preset name."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..scenario import Scenario, load_scenario_file
from ..scenario.errors import field_error
from ..scenario.presets import PRESETS, preset_scenario

ScenarioLike = Scenario | Mapping[str, Any] | str | Path


def as_scenario(source: ScenarioLike) -> Scenario:
    """A validated Scenario from any of the accepted sources.

    - a `sixdof.scenario.Scenario`: used as is (copied, so the view never changes yours);
    - a dict (Scenario JSON, as the web API speaks it);
    - a path to an FhSim XML input file (.xml) or a Scenario JSON file (.json);
    - a preset name such as "tennis_racket" (`sixdof.scenario.presets.PRESETS`).

    Raises ValueError naming what was wrong (a ScenarioFileError for files, which names
    the file, line and field).
    """
    if isinstance(source, Scenario):
        return source.model_copy(deep=True)
    if isinstance(source, Mapping):
        try:
            return Scenario.model_validate(dict(source))
        except ValidationError as exc:
            raise field_error(exc) from None
    if isinstance(source, Path) or (isinstance(source, str) and _looks_like_path(source)):
        return load_scenario_file(source)
    if isinstance(source, str):
        if source in PRESETS:
            return preset_scenario(source)
        raise ValueError(
            f"scenario: {source!r} is neither a preset ({sorted(PRESETS)}) nor a .xml/.json file"
        )
    raise TypeError(
        "scenario: expected a Scenario, a dict, a .xml/.json path or a preset name, "
        f"got {type(source).__name__}"
    )


def _looks_like_path(text: str) -> bool:
    return text.lower().endswith((".xml", ".json")) or "/" in text or "\\" in text
