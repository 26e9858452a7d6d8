"""The preset tests' shared steps (test_presets.py, test_presets_shape.py): the numbers a
preset's caption quotes, and a preset run headless, with its first body changed."""

from __future__ import annotations

from sixdof.headless import RunResult, run_scenario
from sixdof.scenario.presets import PRESETS


def V(name: str) -> dict[str, float]:
    """The numbers preset `name`'s caption quotes (its formulas left out)."""
    return {k: v for k, v in PRESETS[name].values.items() if isinstance(v, float)}


def run(name: str, t_end: float | None = None, **changes: object) -> RunResult:
    scenario = PRESETS[name].scenario()
    for key, value in changes.items():
        setattr(scenario.bodies[0], key, value)
    return run_scenario(scenario, t_end=t_end)
