"""FhSim's ``Cable`` and ``Math/LinearSystem`` as sixdof writes them (fhsim_xml_write): a
scenario's `cable` and `linear_system` `controller` as a Lib and its Connection attributes,
in the form fhsim_xml_lines reads (its docstring describes it)."""

from __future__ import annotations

from typing import Any

from .elements import BodyPoint
from .fhsim_xml_format import matrix_text, number_text, vector_text
from .fhsim_xml_lines import (
    CABLE_ATTRIBUTES,
    CABLE_LIB_NAME,
    CABLE_OBJECT,
    LINEAR_LIB_NAME,
    LINEAR_OBJECT,
)
from .fhsim_xml_water import WATER_PORT
from .kinds.cable import CableElement
from .kinds.controller import CHANNELS, ControllerElement


def cable_xml(
    e: CableElement, name: str, water: str | None
) -> tuple[dict[str, str], dict[str, str]]:
    """A cable's Lib and Connection attributes: end A on its body, end B its `to`."""
    lib = {"LibName": CABLE_LIB_NAME, "SimObject": CABLE_OBJECT, "Name": name}
    for attr, (field, width) in CABLE_ATTRIBUTES.items():
        value: Any
        if field == "point_a":
            value = e.point
        elif field == "point_b":
            value = e.to.point if isinstance(e.to, BodyPoint) else None
        else:
            value = getattr(e, field)
        if value is not None:
            lib[attr] = number_text(value) if width == 1 else vector_text(value)
    wires = {
        f"{name}.PositionA": f"{e.body}.Pos",
        f"{name}.VelocityA": f"{e.body}.Vel",
        f"{e.body}.Force": f"{name}.ForceA",
        f"{e.body}.Moment": f"{name}.MomentA",
    }
    if isinstance(e.to, BodyPoint):
        other = e.to.body
        wires.update({
            f"{name}.PositionB": f"{other}.Pos",
            f"{name}.VelocityB": f"{other}.Vel",
            f"{other}.Force": f"{name}.ForceB",
            f"{other}.Moment": f"{name}.MomentB",
        })  # fmt: skip
    else:
        wires[f"{name}.PositionB"] = vector_text(e.to)
    for end, speed in (("A", e.pay_out_speed), ("B", e.pay_out_speed_b)):
        if speed:
            wires[f"{name}.RetractedSpeed{end}"] = number_text(0.0 - speed)
    if water is not None:
        wires[f"{name}.{WATER_PORT}"] = f"{water}.{WATER_PORT}"
    return lib, wires


def linear_system_xml(e: ControllerElement, name: str) -> tuple[dict[str, str], dict[str, str]]:
    """A linear system's Lib and Connection attributes. Out drives Force (3 rows), Moment (3)
    or both (6): the rows of C and D are put on their channels, zero rows in between (two
    outputs on one channel add, as the dynamics adds them)."""
    force = any(o.startswith("Force.") for o in e.outputs) or not e.outputs
    moment = any(o.startswith("Moment.") for o in e.outputs)
    channels = (CHANNELS[:3] if force else ()) + (CHANNELS[3:] if moment else ())

    def padded(rows: list[list[float]], width: int) -> list[list[float]]:
        out: list[list[float] | None] = [None] * len(channels)
        for output, row in zip(e.outputs, rows, strict=True):
            k = channels.index(output)
            before = out[k]
            out[k] = list(row) if before is None else _added(before, row)
        return [row if row is not None else [0.0] * width for row in out]

    n, ni = len(e.A or []), len(e.inputs)
    lib = {
        "LibName": LINEAR_LIB_NAME,
        "SimObject": LINEAR_OBJECT,
        "Name": name,
        "A": matrix_text(e.A or []),
        "B": matrix_text(e.B or []),
        "C": matrix_text(padded(e.C or [], n)),
        "D": matrix_text(padded(e.D or [], ni)),
    }
    if e.x0 is not None:
        lib["X0"] = vector_text(e.x0)
    if e.reference is not None:
        lib["Reference"] = vector_text(e.reference)
    wires = {}
    if e.inputs:
        wires[f"{name}.In"] = ",".join(f"{e.body}.{s}" for s in e.inputs)
    if force:
        wires[f"{e.body}.Force"] = f"{name}.Out"
    if moment:
        wires[f"{e.body}.Moment"] = f"{name}.Out"
    return lib, wires


def _added(a: list[float], b: list[float]) -> list[float]:
    return [x + y for x, y in zip(a, b, strict=True)]
