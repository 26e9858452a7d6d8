"""A timed load: a force and moment that vary in time, signal × (force, moment)
(docs/physics.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import Field, model_validator

from ...fields import FieldError
from ..bounded import Vec3, Within
from ..kind import Building, ElementModel, Kind, Panel

if TYPE_CHECKING:
    from ...dynamics.elements import TimedLoad

#: Rows of a load's (t, value) table.
MAX_TABLE_ROWS = 100_000


class LoadElement(ElementModel):
    """A force and moment that vary in time: signal × (force, moment)."""

    kind: Literal["load"]
    force: Annotated[Vec3, Within("Force")] = (0.0, 0.0, 0.0)
    moment: Annotated[Vec3, Within("Moment")] = (0.0, 0.0, 0.0)
    frame: Literal["global", "body"] = "global"
    point: Annotated[Vec3, Within("point")] | None = None
    signal: Literal["constant", "step", "sine", "table"] = "step"
    start: Annotated[float, Within("start")] = 0.0
    amplitude: Annotated[float, Within("amplitude")] = 1.0
    frequency: Annotated[float, Within("frequency")] = 0.0
    phase: Annotated[float, Within("phase")] = 0.0
    table: (
        list[tuple[Annotated[float, Within("start")], Annotated[float, Within("table")]]] | None
    ) = Field(None, max_length=MAX_TABLE_ROWS, description="(t, value) rows, t increasing")

    @model_validator(mode="after")
    def _table(self) -> LoadElement:
        if self.signal == "table":
            rows = self.table or []
            if len(rows) < 2:
                raise FieldError(
                    "table", "invalid", "table: a table signal needs at least 2 (t, value) rows"
                )
            for k in range(1, len(rows)):
                if not rows[k][0] > rows[k - 1][0]:
                    raise FieldError(
                        "table",
                        "invalid",
                        f"table: times must increase, row {k} has t = {rows[k][0]:g} after "
                        f"{rows[k - 1][0]:g}",
                    )
        return self


def _build(e: LoadElement, ctx: Building) -> TimedLoad:
    from ...dynamics.elements import TimedLoad

    table = tuple((float(t), float(v)) for t, v in (e.table or ()))
    return TimedLoad(ctx.index[e.body], e.force, e.moment, e.frame, e.point, e.signal,
                     e.start, e.amplitude, e.frequency, e.phase, table)  # fmt: skip


KIND = Kind(
    name="load",
    model=LoadElement,
    xml_object="Element/Load",
    xml_attributes={
        "Force": ("force", 3),
        "Moment": ("moment", 3),
        "Frame": ("frame", "text"),
        "Point": ("point", 3),
        "Signal": ("signal", "text"),
        "Start": ("start", 1),
        "Amplitude": ("amplitude", 1),
        "Frequency": ("frequency", 1),
        "Phase": ("phase", 1),
        "Table": ("table", "table"),
        "Csv": ("table", "csv"),
    },
    build=_build,
    drawing="arrow",
    docs="physics.md#timed-loads",
    example={
        "force": (0.0, 0.0, -10.0),
        "moment": (1.0, 0.0, 0.0),
        "frame": "body",
        "point": (0.1, 0.0, 0.0),
        "signal": "sine",
        "start": 0.5,
        "amplitude": 2.0,
        "frequency": 1.5,
        "phase": 0.25,
    },
    panel=Panel(summary="signal"),
)
