"""Scenario → FhSim XML input file, the inverse of `fhsim_xml.scenario_from_xml`.

Every field is written, numbers as the shortest text that reads back as the
same double, so XML → Scenario → XML → Scenario compares equal. Our extension
attributes (Coriolis, Inertia, CGOffset, Gravity, Contents Name, Caption and View, the
page's view as JSON) are ignored by FhSim itself. The water is an `Environment/Water`
SimObject named Sea,
after the bodies; elements are `sixdof` SimObjects named by kind and number (Pivot1,
Spring1, Spring2, AddedMass1, ...), after the water, each wired to its body (and a buoyancy
or damper to the water) by one Connection (fhsim_xml's docstring, fhsim_xml_water's,
docs/fhsim.md); a cable is FhSim's own ``Cable`` and a linear-system controller its
``Math/LinearSystem``, their inputs wired in that Connection too (fhsim_xml_lines).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

from ..dynamics.names import INTEGRATOR_NUMBERS
from .elements import BodyPoint, ElementSpec
from .fhsim_xml import (
    ELEMENT_ATTRIBUTES,
    ELEMENT_LIB_NAME,
    ELEMENT_OBJECTS,
    ENGINE_NUMBERS,
    INPUT_PORTS,
    LIB_NAME,
    SIM_OBJECT,
    STATE_PORTS,
)
from .fhsim_xml_format import matrix_text, number_text, vector_text
from .fhsim_xml_lines_write import cable_xml, linear_system_xml
from .fhsim_xml_water import (
    WATER_KINDS,
    WATER_NAME,
    WATER_NUMBERS,
    WATER_OBJECT,
    WATER_PORT,
    WAVE_LISTS,
)
from .kind import BodyEnd
from .kinds.cable import CableElement
from .kinds.controller import ControllerElement
from .model import Scenario
from .water import WaterSpec

METHOD_NUMBERS = {method: number for number, method in INTEGRATOR_NUMBERS.items()}


_num = number_text
_vec = vector_text


def _names(scenario: Scenario) -> tuple[str, list[str]]:
    """The water's Name (Sea, else Sea1, Sea2, ...) and Pivot1, Spring1, Spring2, AddedMass1,
    ... for the elements in order, all clear of the body Names and of each other."""
    taken = {b.Name for b in scenario.bodies}
    water = WATER_NAME
    k = 0
    while water in taken:
        k += 1
        water = f"{WATER_NAME}{k}"
    taken.add(water)
    counts: dict[str, int] = {}
    names = []
    for e in scenario.elements:
        stem = ELEMENT_OBJECTS[e.kind].split("/")[1]
        while True:
            counts[e.kind] = counts.get(e.kind, 0) + 1
            name = f"{stem}{counts[e.kind]}"
            if name not in taken:
                break
        taken.add(name)
        names.append(name)
    return water, names


def _water_lib(water: WaterSpec, name: str) -> dict[str, str]:
    """The water's Lib attributes; the wave lists only with waves, Depth only when finite."""
    lib = {"LibName": ELEMENT_LIB_NAME, "SimObject": WATER_OBJECT, "Name": name}
    for attr, (field, width) in WATER_NUMBERS.items():
        value = getattr(water, field)
        if value is not None:
            lib[attr] = _num(value) if width == 1 else _vec(value)
    if water.waves:
        for attr, field in WAVE_LISTS.items():
            lib[attr] = _vec([getattr(w, field) for w in water.waves])
    return lib


def _element_lib(e: ElementSpec, name: str) -> dict[str, str]:
    """The Lib attributes of one element: every field that is set (None is left out)."""
    lib = {"LibName": ELEMENT_LIB_NAME, "SimObject": ELEMENT_OBJECTS[e.kind], "Name": name}
    for attr, (field, width) in ELEMENT_ATTRIBUTES[e.kind].items():
        if width == "csv" or field == "to_point":
            continue
        value: Any = e
        for part in field.split("."):  # "target.Pos": an entry of a field
            value = getattr(value, part) if value is not None else None
        if field == "to" and isinstance(value, BodyPoint | BodyEnd):
            if value.point is not None:
                lib["ToPoint"] = _vec(value.point)
        elif value is None or (width == "names" and not value):
            continue
        elif width == "table":
            lib[attr] = "; ".join(f"{_num(t)},{_num(v)}" for t, v in value)
        elif width == "text":
            lib[attr] = str(value).lower() if isinstance(value, bool) else str(value)
        elif width == "matrix":  # FhSim's Math/LinearSystem text, "0,1;-0.5,-2"
            lib[attr] = matrix_text(value)
        elif width == "names":
            lib[attr] = ",".join(value)
        elif width == "list":
            lib[attr] = _vec(value)
        elif width == 1:
            lib[attr] = _num(value)
        elif width == 36:  # a 6×6 matrix, row by row
            lib[attr] = _vec([x for row in value for x in row])
        else:
            lib[attr] = _vec(value)
    return lib


def _element_wires(e: ElementSpec, name: str, water: str | None) -> dict[str, str]:
    """The Connection of one element: its outputs to the inputs of the body (or bodies), and
    the water's output to its input Water if it feels the water (`water`: its Name)."""
    wires = {f"{e.body}.Force": f"{name}.Force", f"{e.body}.Moment": f"{name}.Moment"}
    to = getattr(e, "to", None)
    if isinstance(to, BodyPoint | BodyEnd):
        wires.update({f"{to.body}.Force": f"{name}.ForceB", f"{to.body}.Moment": f"{name}.MomentB"})
    if water is not None and e.kind in WATER_KINDS:
        wires[f"{name}.{WATER_PORT}"] = f"{water}.{WATER_PORT}"
    return wires


def scenario_to_xml(scenario: Scenario) -> str:
    """An FhSim input file for `scenario` (reads back equal with `scenario_from_xml`)."""
    root = ET.Element("Contents", {"Name": scenario.name})
    if scenario.caption:
        root.set("Caption", scenario.caption)
    if scenario.view is not None:
        root.set("View", scenario.view.model_dump_json(exclude_none=True))
    objects = ET.SubElement(root, "OBJECTS")
    connections = ET.SubElement(root, "INTERCONNECTIONS")
    initial = ET.SubElement(root, "INITIALIZATION")
    for b in scenario.bodies:
        lib = {
            "LibName": LIB_NAME,
            "SimObject": SIM_OBJECT,
            "Name": b.Name,
            "Mass": _num(b.Mass),
            "InertiaRadi": _vec(b.InertiaRadi),
        }
        if b.Inertia is not None:
            lib["Inertia"] = _vec(b.Inertia)
        lib["CGOffset"] = _vec(b.CGOffset)
        lib["Gravity"] = _num(b.Gravity)
        lib["Coriolis"] = "1" if b.model == "full" else "0"
        lib.update(
            Material=b.Material,
            Mesh=b.Mesh,
            MeshScale=_vec(b.MeshScale),
            MeshOrigin=_vec(b.MeshOrigin),
            Size=_vec(b.Size),
        )
        # the shape's own (left out at their defaults, as FhSim's files have them)
        if b.MeshUnits != "m":
            lib["MeshUnits"] = b.MeshUnits
        if b.InertiaFrom != "given":
            lib["InertiaFrom"] = b.InertiaFrom
        if b.Density is not None:
            lib["Density"] = _num(b.Density)
        ET.SubElement(objects, "Lib", lib)
        ports = {f"{b.Name}.{port}": _vec(getattr(b, port)) for port in INPUT_PORTS}
        ET.SubElement(connections, "Connection", ports)
        states = {f"{b.Name}.{port}": _vec(getattr(b, port)) for port in STATE_PORTS}
        ET.SubElement(initial, "InitialCondition", states)
    water, names = _names(scenario)
    if scenario.water is not None:
        ET.SubElement(objects, "Lib", _water_lib(scenario.water, water))
    wired = water if scenario.water is not None else None
    for e, name in zip(scenario.elements, names, strict=True):
        if isinstance(e, CableElement):
            lib, wires = cable_xml(e, name, wired)
        elif isinstance(e, ControllerElement) and e.type == "linear_system":
            lib, wires = linear_system_xml(e, name)
        else:
            lib, wires = _element_lib(e, name), _element_wires(e, name, wired)
        ET.SubElement(objects, "Lib", lib)
        ET.SubElement(connections, "Connection", wires)
    integ = scenario.integration
    engine = {"IntegratorMethod": str(METHOD_NUMBERS[integ.method])}
    engine.update({attr: _num(getattr(integ, attr)) for attr in ENGINE_NUMBERS})
    engine["TOutput"] = integ.TOutput
    ET.SubElement(ET.SubElement(root, "INTEGRATION"), "Engine", engine)
    ET.indent(root, space="  ")
    return ET.tostring(root, encoding="unicode") + "\n"
