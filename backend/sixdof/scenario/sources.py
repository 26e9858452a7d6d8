"""Every way a user may name a scenario, and the overrides a run may put on it.

`as_scenario` takes a Scenario, its JSON as a dict, a path to an FhSim XML or Scenario JSON
file, FhSim XML text, or a preset name; `with_overrides` changes the integrator, step,
model or output times and validates the result as a whole, so a bad value is refused with
the same FieldError (field, allowed range) as anywhere else.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import ValidationError

from ..dynamics.names import INTEGRATOR_NUMBERS, METHODS
from ..fields import FieldError
from .errors import field_error
from .fhsim_xml import scenario_from_xml
from .files import load_scenario_file
from .model import Scenario
from .presets import PRESETS, preset_scenario

ScenarioLike = Scenario | Mapping[str, Any] | str | Path


def as_scenario(source: ScenarioLike) -> Scenario:
    """A validated Scenario from any of the accepted sources.

    - a `sixdof.scenario.Scenario`: used as is (copied, so nothing changes yours);
    - a dict (Scenario JSON, as the web API speaks it);
    - a path to an FhSim XML input file (.xml) or a Scenario JSON file (.json);
    - FhSim XML text (a string that starts with "<");
    - a preset name such as "tennis_racket" (`sixdof.scenario.presets.PRESETS`).

    Raises a ValueError naming what was wrong: a FieldError (field, allowed range) for
    values, a ScenarioFileError (file, line, element, attribute) for files and XML.
    """
    if isinstance(source, Scenario):
        return source.model_copy(deep=True)
    if isinstance(source, Mapping):
        try:
            return Scenario.model_validate(dict(source))
        except ValidationError as exc:
            raise field_error(exc) from None
    if isinstance(source, str) and source.lstrip().startswith("<"):
        return scenario_from_xml(source)
    if isinstance(source, Path) or (isinstance(source, str) and _looks_like_path(source)):
        return load_scenario_file(source)
    if isinstance(source, str):
        if source in PRESETS:
            return preset_scenario(source)
        raise FieldError(
            "scenario",
            "invalid",
            f"scenario: {source!r} is neither a preset ({', '.join(sorted(PRESETS))}), "
            "a .xml/.json file, nor FhSim XML text",
        )
    raise TypeError(
        "scenario: expected a Scenario, a dict, a .xml/.json path, XML text or a preset name, "
        f"got {type(source).__name__}"
    )


def _looks_like_path(text: str) -> bool:
    return text.lower().endswith((".xml", ".json")) or "/" in text or "\\" in text


def with_overrides(
    scenario: Scenario,
    *,
    integrator: str | int | None = None,
    step: float | None = None,
    model: str | None = None,
    output_times: str | Sequence[float] | np.ndarray | None = None,
    t_end: float | None = None,
) -> Scenario:
    """A copy of `scenario` with the given settings replaced, validated as a whole.

    integrator: "euler", "rk4", "dopri5", "radau" or FhSim's IntegratorMethod number;
    step: the fixed step (stepsize), s; model: "full" or "fhsim" for every body;
    output_times: TOutput text ("0:0.01:10") or a list of times, s; t_end: the run ends
    there, with outputs on the scenario's own output spacing (its first interval).
    """
    data = scenario.model_dump()
    integration = data["integration"]
    if integrator is not None:
        if isinstance(integrator, int) and not isinstance(integrator, bool):
            if integrator not in INTEGRATOR_NUMBERS:
                raise FieldError(
                    "integrator",
                    "invalid",
                    f"integrator: FhSim's IntegratorMethod numbers are "
                    f"{dict(INTEGRATOR_NUMBERS)}, got {integrator}",
                )
            integrator = INTEGRATOR_NUMBERS[integrator]
        if integrator not in METHODS:
            raise FieldError(
                "integrator",
                "invalid",
                f"integrator: must be one of {list(METHODS)}, got {integrator!r}",
            )
        integration["method"] = integrator
    if step is not None:
        integration["stepsize"] = step
    if model is not None:
        for body in data["bodies"]:
            body["model"] = model
    if output_times is not None:
        integration["TOutput"] = _toutput(output_times)
    if t_end is not None:
        if not isinstance(t_end, int | float) or not t_end > 0:
            raise FieldError("t_end", "out_of_range", f"t_end: must be a time > 0 s, got {t_end!r}")
        times = Scenario.model_validate(data).integration.output_times()
        spacing = float(np.diff(times)[0]) if times.size > 1 else float(t_end)
        integration["TOutput"] = f"0:{spacing!r}:{float(t_end)!r},{float(t_end)!r}"
    try:
        return Scenario.model_validate(data)
    except ValidationError as exc:
        raise field_error(exc) from None


def _toutput(times: str | Sequence[float] | np.ndarray) -> str:
    if isinstance(times, str):
        return times
    values = np.asarray(times, dtype=float).ravel()
    if values.size == 0 or not np.all(np.isfinite(values)):
        raise FieldError(
            "output_times", "invalid", "output_times: give finite times, s (at least one)"
        )
    return ",".join(repr(float(t)) for t in values)
