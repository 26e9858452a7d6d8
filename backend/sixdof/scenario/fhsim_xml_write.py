"""Scenario → FhSim XML input file, the inverse of `fhsim_xml.scenario_from_xml`.

Every field is written, numbers as the shortest text that reads back as the
same double, so XML → Scenario → XML → Scenario compares equal. Our extension
attributes (Coriolis, Inertia, CGOffset, Gravity, Contents Name and Caption)
are ignored by FhSim itself.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from ..dynamics.names import INTEGRATOR_NUMBERS
from .fhsim_xml import ENGINE_NUMBERS, INPUT_PORTS, LIB_NAME, SIM_OBJECT, STATE_PORTS
from .model import Scenario

METHOD_NUMBERS = {method: number for number, method in INTEGRATOR_NUMBERS.items()}


def _num(x: float) -> str:
    """Shortest text that reads back as the same double ('2', '0.001', '1e-09')."""
    text = repr(float(x))
    return text[:-2] if text.endswith(".0") else text


def _vec(values: tuple[float, ...] | list[float]) -> str:
    return ",".join(_num(v) for v in values)


def scenario_to_xml(scenario: Scenario) -> str:
    """An FhSim input file for `scenario` (reads back equal with `scenario_from_xml`)."""
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
    integ = scenario.integration
    engine = {"IntegratorMethod": str(METHOD_NUMBERS[integ.method])}
    engine.update({attr: _num(getattr(integ, attr)) for attr in ENGINE_NUMBERS})
    engine["TOutput"] = integ.TOutput
    ET.SubElement(ET.SubElement(root, "INTEGRATION"), "Engine", engine)
    ET.indent(root, space="  ")
    return ET.tostring(root, encoding="unicode") + "\n"
