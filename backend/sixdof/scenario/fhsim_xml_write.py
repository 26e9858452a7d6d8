"""Scenario → FhSim XML input file, the inverse of `fhsim_xml.scenario_from_xml`.

Every field is written, numbers as the shortest text that reads back as the
same double, so XML → Scenario → XML → Scenario compares equal. Our extension
attributes (Coriolis, Inertia, CGOffset, Gravity, Contents Name and Caption)
are ignored by FhSim itself. Elements are written as `sixdof` SimObjects named by
kind and number (Pivot1, Spring1, Spring2, ...), after the bodies, each wired to its
body by one Connection (fhsim_xml's docstring, docs/fhsim.md).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from ..dynamics.names import INTEGRATOR_NUMBERS
from ..fields import FieldError
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
from .model import Scenario

METHOD_NUMBERS = {method: number for number, method in INTEGRATOR_NUMBERS.items()}


def _num(x: float) -> str:
    """Shortest text that reads back as the same double ('2', '0.001', '1e-09')."""
    text = repr(float(x))
    return text[:-2] if text.endswith(".0") else text


def _vec(values: tuple[float, ...] | list[float]) -> str:
    return ",".join(_num(v) for v in values)


#: Element kinds the XML cannot carry yet (issue 28's floating bodies).
_NO_XML = ("buoyancy", "added_mass")


def _element_names(scenario: Scenario) -> list[str]:
    """Pivot1, Spring1, Spring2, ... for the elements in order, clear of the body Names."""
    taken = {b.Name for b in scenario.bodies}
    counts: dict[str, int] = {}
    names = []
    for e in scenario.elements:
        while True:
            counts[e.kind] = counts.get(e.kind, 0) + 1
            name = f"{e.kind.capitalize()}{counts[e.kind]}"
            if name not in taken:
                break
        taken.add(name)
        names.append(name)
    return names


def _element_lib(e: ElementSpec, name: str) -> dict[str, str]:
    """The Lib attributes of one element: every field that is set (None is left out)."""
    lib = {"LibName": ELEMENT_LIB_NAME, "SimObject": ELEMENT_OBJECTS[e.kind], "Name": name}
    for attr, (field, width) in ELEMENT_ATTRIBUTES[e.kind].items():
        if width == "csv" or field == "to_point":
            continue
        value = getattr(e, field)
        if field == "to" and isinstance(value, BodyPoint):
            lib["ToPoint"] = _vec(value.point)
        elif value is None:
            continue
        elif width == "table":
            lib[attr] = "; ".join(f"{_num(t)},{_num(v)}" for t, v in value)
        elif width == "text":
            lib[attr] = str(value)
        elif width == 1:
            lib[attr] = _num(value)
        else:
            lib[attr] = _vec(value)
    return lib


def _element_wires(e: ElementSpec, name: str) -> dict[str, str]:
    """The Connection of one element: its outputs to the inputs of the body (or bodies)."""
    wires = {f"{e.body}.Force": f"{name}.Force", f"{e.body}.Moment": f"{name}.Moment"}
    to = getattr(e, "to", None)
    if isinstance(to, BodyPoint):
        wires.update({f"{to.body}.Force": f"{name}.ForceB", f"{to.body}.Moment": f"{name}.MomentB"})
    return wires


def scenario_to_xml(scenario: Scenario) -> str:
    """An FhSim input file for `scenario` (reads back equal with `scenario_from_xml`).
    FieldError for water, buoyancy and added mass, which have no XML form yet."""
    floating = [e.kind for e in scenario.elements if e.kind in _NO_XML]
    if scenario.water is not None or floating:
        what = "water" if scenario.water is not None else floating[0]
        raise FieldError(
            "water" if scenario.water is not None else "kind",
            "invalid",
            f"{what}: water, buoyancy and added_mass have no FhSim XML form yet; "
            "save this scenario as JSON",
        )
    root = ET.Element("Contents", {"Name": scenario.name})
    if scenario.caption:
        root.set("Caption", scenario.caption)
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
        ET.SubElement(objects, "Lib", lib)
        ports = {f"{b.Name}.{port}": _vec(getattr(b, port)) for port in INPUT_PORTS}
        ET.SubElement(connections, "Connection", ports)
        states = {f"{b.Name}.{port}": _vec(getattr(b, port)) for port in STATE_PORTS}
        ET.SubElement(initial, "InitialCondition", states)
    for e, name in zip(scenario.elements, _element_names(scenario), strict=True):
        ET.SubElement(objects, "Lib", _element_lib(e, name))
        ET.SubElement(connections, "Connection", _element_wires(e, name))
    integ = scenario.integration
    engine = {"IntegratorMethod": str(METHOD_NUMBERS[integ.method])}
    engine.update({attr: _num(getattr(integ, attr)) for attr in ENGINE_NUMBERS})
    engine["TOutput"] = integ.TOutput
    ET.SubElement(ET.SubElement(root, "INTEGRATION"), "Engine", engine)
    ET.indent(root, space="  ")
    return ET.tostring(root, encoding="unicode") + "\n"
