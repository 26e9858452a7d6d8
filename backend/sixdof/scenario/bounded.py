"""`Within(name)`: pydantic bounds taken from the one table of limits (`sixdof.fields`).

    Mass: Annotated[float, Within("Mass")]
    InertiaRadi: Annotated[Vec3, Within("InertiaRadi")]

makes every number (each component of a tuple) strict, finite and within LIMITS[name], in
validation and in the JSON Schema alike; a field with a norm limit (Pos, LocalVel, AngVel)
also has its magnitude checked. The scenario and the protocol both use it, so their
bounds, the live checks and the published schema cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import GetCoreSchemaHandler
from pydantic_core import CoreSchema, core_schema

from ..fields import LIMITS, NORM_LIMITS, check_vector

Vec3 = tuple[float, float, float]
Vec4 = tuple[float, float, float, float]
Vec6 = tuple[float, float, float, float, float, float]


@dataclass(frozen=True)
class Within:
    """Annotated metadata: the numbers of the field are within LIMITS[name]."""

    name: str

    def _bound(self, schema: dict[str, Any]) -> None:
        limit = LIMITS[self.name]
        schema.update(strict=True, le=limit.hi)
        if schema.get("type") == "float":
            schema["allow_inf_nan"] = False
        schema["gt" if limit.lo_open else "ge"] = limit.lo

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        schema = handler(source)
        inner: dict[str, Any] = schema  # type: ignore[assignment]  # TypedDicts, edited as dicts
        if inner.get("type") in ("float", "int"):
            self._bound(inner)
            return schema
        items = inner.get("items_schema")
        if inner.get("type") != "tuple" or not isinstance(items, list):
            raise TypeError(f"Within({self.name!r}) applies to a number or a tuple of numbers")
        for item in items:
            self._bound(item)
        if self.name in NORM_LIMITS:
            width, name = len(items), self.name
            return core_schema.no_info_after_validator_function(
                lambda v: tuple(check_vector(v, width, name)), schema
            )
        return schema
