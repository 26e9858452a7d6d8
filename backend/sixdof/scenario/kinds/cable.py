"""A cable: FhSim's lumped-mass Cable from a body point to a world point or to another
body's point, in the scenario's water, winched at either end (docs/physics.md, "Cable")."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator

from ...fields import FieldError
from ..bounded import Vec3, Within
from ..kind import (
    BodyPoint,
    Building,
    Checking,
    ElementModel,
    Kind,
    Panel,
    check_other_body,
    other_end_reader,
)

if TYPE_CHECKING:
    from ...dynamics.elements import Cable


class CableElement(ElementModel):
    """A lumped-mass line of `segments` segments: its weight and buoyancy, Morison's drag on
    its velocity relative to the current, the seabed at the water's depth, slack allowed."""

    kind: Literal["cable"]
    point: Annotated[Vec3, Within("point")] = (0.0, 0.0, 0.0)
    to: Annotated[Vec3, Within("target")] | BodyPoint = Field(
        (0.0, 0.0, 0.0), description="world point [x, y, z] (NED, m) or {body, point}"
    )
    length: Annotated[float, Within("cable_length")] = 10.0
    segments: Annotated[int, Within("segments")] = 10
    mass_per_length: Annotated[float, Within("mass_per_length")] = 1.0
    axial_stiffness: Annotated[float, Within("axial_stiffness")] | None = Field(
        None, description="EA, N (or e_modulus, FhSim's E-modulus, EA = E π d²/4)"
    )
    e_modulus: Annotated[float, Within("e_modulus")] | None = None
    diameter: Annotated[float, Within("diameter")] = 0.05
    drag_normal: Annotated[float, Within("drag_coefficient")] = 1.2
    drag_tangential: Annotated[float, Within("drag_coefficient")] = 0.008
    axial_damping: Annotated[float, Within("axial_damping")] = 0.0
    pay_out_speed: Annotated[float, Within("pay_out_speed")] = 0.0
    pay_out_speed_b: Annotated[float, Within("pay_out_speed_b")] = 0.0

    @field_validator("segments", mode="before")
    @classmethod
    def _whole(cls, value: Any) -> Any:
        """FhSim's numElements as XML gives it, a number: 8.0 is 8."""
        if isinstance(value, float) and value.is_integer():
            return int(value)
        return value

    @model_validator(mode="after")
    def _stiffness(self) -> CableElement:
        if (self.axial_stiffness is None) == (self.e_modulus is None):
            raise FieldError(
                "axial_stiffness",
                "invalid",
                "axial_stiffness: give EA (axial_stiffness, N) or e_modulus (Pa), one of them",
            )
        return self

    def ea(self) -> float:
        """EA, N."""
        if self.axial_stiffness is not None:
            return self.axial_stiffness
        return float(self.e_modulus or 0.0) * math.pi * self.diameter**2 / 4.0


def _check(e: CableElement, k: int, scene: Checking) -> None:
    """Its other body is known and not its own; its nodes step with euler or rk4."""
    where = f"elements[{k}]"
    if scene.method not in ("euler", "rk4"):
        raise FieldError(
            "integrator",
            "invalid",
            f"{where}: a cable's nodes step with euler or rk4, not {scene.method}",
        )
    if not isinstance(e.to, BodyPoint):
        return
    check_other_body(where, e.body, e.to.body, scene,
                     "a cable joins two bodies, or a body and a world point")  # fmt: skip


def _world(ctx: Building, i: int, point: Vec3) -> tuple[float, float, float]:
    """Body i's point in the world at the start."""
    from ...dynamics.quaternion import to_rotmat

    x = ctx.states[i]
    w = x[0:3] + to_rotmat(x[3:7]) @ point
    return (float(w[0]), float(w[1]), float(w[2]))


def _build(e: CableElement, ctx: Building) -> Cable:
    from ...dynamics.elements import Cable

    i = ctx.index[e.body]
    other = ctx.index[e.to.body] if isinstance(e.to, BodyPoint) else None
    to = e.to.point if isinstance(e.to, BodyPoint) else e.to
    end = _world(ctx, other, to) if other is not None else to
    sea = ctx.sea
    return Cable(
        i, e.point, to, e.length, e.segments, e.mass_per_length, e.ea(), e.diameter, other,
        density=sea.density, level=sea.level, depth=sea.depth, current=sea.current,
        drag_normal=e.drag_normal, drag_tangential=e.drag_tangential,
        pay_out_a=e.pay_out_speed, pay_out_b=e.pay_out_speed_b, axial_damping=e.axial_damping,
        ends=(_world(ctx, i, e.point), end),
    )  # fmt: skip


KIND = Kind(
    name="cable",
    model=CableElement,
    xml_object="Element/Cable",
    xml_attributes={
        "Point": ("point", 3),
        "To": ("to", 3),
        "ToPoint": ("to_point", 3),
        "cableLength": ("length", 1),
        "numElements": ("segments", 1),
        "cableWeight": ("mass_per_length", 1),
        "AxialStiffness": ("axial_stiffness", 1),
        "E-modulus": ("e_modulus", 1),
        "diameter": ("diameter", 1),
        "DragNormal": ("drag_normal", 1),
        "DragTangential": ("drag_tangential", 1),
        "AxialDamping": ("axial_damping", 1),
        "RetractedSpeedA": ("pay_out_speed", 1),
        "RetractedSpeedB": ("pay_out_speed_b", 1),
    },
    xml_ports=("Force", "Moment", "ForceB", "MomentB"),
    xml_read=other_end_reader("cable"),
    water="its weight, buoyancy, drag and seabed are the water's",
    build=_build,
    check=_check,
    drawing="line",
    docs="physics.md#cable-a-lumped-mass-line",
    example={
        "point": (0.0, 0.0, 0.5),
        "to": (30.0, 0.0, 20.0),
        "length": 40.0,
        "segments": 8,
        "mass_per_length": 20.0,
        "axial_stiffness": 1e7,
        "diameter": 0.05,
        "pay_out_speed": 0.1,
    },
    panel=Panel(
        numbers=("pay_out_speed", "pay_out_speed_b"),
        vectors=(("point", 3), ("to", 3)),
        add=("point", "to"),
    ),
)
