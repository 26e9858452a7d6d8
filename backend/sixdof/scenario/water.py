"""The scenario's water, a top-level entry (DESIGN.md section 8; issue 28):

    "water": {"density": 1025, "level": 0.0, "current": [vN, vE, vD],
              "waves": [{"amplitude": 0.5, "period": 6, "direction": 0}], "depth": null}

NED: `level` is the z of the still surface; `direction` 0 = travelling north, 90 = east;
`depth` (m below the still level) null = deep water. Several wave components are summed.
The water acts through elements: `buoyancy` (the pressure on the body's drawn hull) and
`damper` (on the velocity relative to the current). Every number is checked against the
one table of limits (`sixdof.fields.LIMITS`). The equations are in `dynamics.water`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..fields import FieldError
from .bounded import Vec3, Within

if TYPE_CHECKING:
    from ..dynamics.water import Water

#: Wave components a water may sum.
MAX_WAVES = 16
#: The steepest wave accepted, height over length: a wave breaks near H/λ = 1/7 (Michell), and
#: linear (Airy) theory, which the kernels use, does not describe one that steep.
MAX_STEEPNESS = 1 / 7
#: The gravity a wave's length is checked with (m/s², the bodies' default): the kernels use each
#: body's own, and a body in water has this one unless its scenario says otherwise.
WAVE_GRAVITY = 9.81


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class WaveSpec(_Strict):
    """One linear (Airy) wave component: η = a cos(ω t − k (x cos β + y sin β))."""

    amplitude: Annotated[float, Within("wave_amplitude")] = Field(0.5, description="m")
    period: Annotated[float, Within("period")] = Field(6.0, description="s")
    direction: Annotated[float, Within("direction")] = Field(
        0.0, description="degrees, 0 = travelling north, 90 = travelling east"
    )


class WaterSpec(_Strict):
    """Still level, density, a uniform current and linear waves, deep or of finite depth."""

    density: Annotated[float, Within("density")] = Field(1025.0, description="kg/m³")
    level: Annotated[float, Within("level")] = Field(
        0.0, description="NED z of the still surface, m"
    )
    current: Annotated[Vec3, Within("current")] = Field(
        (0.0, 0.0, 0.0), description="[vN, vE, vD], m/s"
    )
    waves: list[WaveSpec] = Field(default_factory=list, max_length=MAX_WAVES)
    depth: Annotated[float, Within("depth")] | None = Field(
        None, description="m below the still level; null: deep water"
    )

    @model_validator(mode="after")
    def _not_breaking(self) -> WaterSpec:
        from ..dynamics.water import wave_number

        for i, w in enumerate(self.waves):
            k = wave_number(2 * math.pi / w.period, WAVE_GRAVITY, self.depth)
            steepness = 2 * w.amplitude * k / (2 * math.pi)
            if steepness > MAX_STEEPNESS:
                raise FieldError(
                    f"waves[{i}]",
                    "out_of_range",
                    f"waves[{i}]: a {w.amplitude:g} m, {w.period:g} s wave is "
                    f"{2 * math.pi / k:.3g} m long, steepness H/λ = {steepness:.2f}, past the "
                    f"breaking limit 1/7 = {MAX_STEEPNESS:.3f}: linear wave theory does not "
                    f"hold there (a smaller amplitude or a longer period)",
                )
        return self

    def dynamics(self) -> Water:
        from ..dynamics.water import Water, Wave

        waves = tuple(Wave(w.amplitude, w.period, w.direction) for w in self.waves)
        return Water(self.density, self.level, self.current, waves, self.depth)


__all__ = ["MAX_STEEPNESS", "MAX_WAVES", "WaterSpec", "WaveSpec"]
