"""backend/sixdof/scenario/presets/values/values.gen.json: the numbers each preset's title,
caption and question quote, computed from its scenario file by `caption_values`.

Kept as a generated file so that listing the presets (`GET /api/presets`, a hello) reads
numbers instead of validating twenty scenarios, which loads numpy and the dynamics into a
server that has no room yet (tests/live/e2e/test_lazy_physics.py)."""

from __future__ import annotations

import json

from sixdof.scenario import Scenario
from sixdof.scenario.presets import ORDER, preset_file
from sixdof.scenario.presets.numbers import caption_values


def render_preset_values() -> str:
    values = {
        name: caption_values(name, Scenario.model_validate(preset_file(name))) for name in ORDER
    }
    return json.dumps(values, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
