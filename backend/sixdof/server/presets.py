"""The server's view of the scenario presets (sixdof.scenario.presets): list and look up."""

from __future__ import annotations

from ..scenario import Scenario
from ..scenario.presets import DEFAULT_PRESET, PRESETS
from .errors import Refusal
from .protocol import PresetInfo

__all__ = ["DEFAULT_PRESET", "default_scenario", "infos", "origin", "scenario"]

#: What the body parameters say about the motion: a scenario whose bodies differ from its
#: preset in one of these no longer does what the preset's caption says. The looks (Mesh,
#: Material, …) and the initial state do not make a caption wrong.
PHYSICS = ("Name", "Mass", "InertiaRadi", "Inertia", "CGOffset", "Gravity", "model", "Force",
           "Moment")  # fmt: skip


def infos() -> list[PresetInfo]:
    """Name, English title, caption and question, flip axis and the values the messages quote
    of every preset, in their own order."""
    return [
        PresetInfo(
            name=p.name,
            title=p.title,
            caption=p.caption,
            question=p.question,
            flip_axis=p.flip_axis,
            values=p.values,
        )
        for p in PRESETS.values()
    ]


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


def _same(a: object, b: object) -> bool:
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float | int) and isinstance(b, float | int):
        return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))
    return a == b


def origin(current: Scenario) -> tuple[str | None, bool]:
    """(the preset `current` was loaded from or None, whether its physics differs from it: a
    body's PHYSICS, its elements or its water)."""
    preset = PRESETS.get(current.name)
    if preset is None:
        return None, True
    base = preset.scenario()
    if len(base.bodies) != len(current.bodies):
        return current.name, True
    differs = any(
        not _same(getattr(b, k), getattr(c, k))
        for b, c in zip(base.bodies, current.bodies, strict=True)
        for k in PHYSICS
    )
    # the elements and the water are physics too: a spring added or a wave changed makes the
    # caption's numbers wrong as surely as a new mass
    for part in ("elements", "water"):
        differs = differs or not _same_json(
            _dump(getattr(base, part)), _dump(getattr(current, part))
        )
    return current.name, differs


def _dump(value: object) -> object:
    if isinstance(value, list):
        return [_dump(v) for v in value]
    return value.model_dump(mode="json") if hasattr(value, "model_dump") else value


def _same_json(a: object, b: object) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_json(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same_json(x, y) for x, y in zip(a, b, strict=True))
    return _same(a, b)


def default_scenario() -> Scenario:
    return scenario(DEFAULT_PRESET)


def question(name: str) -> str:
    """Preset `name`'s prediction question in English ("" for none or no such preset)."""
    preset = PRESETS.get(name)
    return preset.question if preset is not None else ""
