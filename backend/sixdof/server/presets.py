"""The server's view of the scenario presets (sixdof.scenario.presets): list and look up."""

from __future__ import annotations

from ..scenario import Scenario
from ..scenario.presets import DEFAULT_PRESET, PRESETS
from .errors import Refusal

__all__ = ["DEFAULT_PRESET", "default_scenario", "infos", "scenario"]


def infos() -> list[dict[str, str]]:
    """[{name, title, caption}] of every preset, in the presets' own order."""
    return [{"name": p.name, "title": p.title, "caption": p.caption} for p in PRESETS.values()]


def scenario(name: str) -> Scenario:
    """A fresh scenario of preset `name`; Refusal("unknown_preset") naming the choices."""
    preset = PRESETS.get(name)
    if preset is None:
        raise Refusal(
            "unknown_preset",
            f"preset: no preset named {name[:64]!r}; presets are " + ", ".join(PRESETS),
            "preset",
        )
    return preset.scenario()


def default_scenario() -> Scenario:
    return scenario(DEFAULT_PRESET)
