"""The FhSim XML vocabulary sixdof reads and writes: SimObjects, sections, attributes, ports.

`fhsim_xml` (the docstring there describes the format) reads with these tables,
`fhsim_xml_write` writes with them; the water's are in `fhsim_xml_water`.
"""

from __future__ import annotations

import re

from .kind import XmlWidth
from .kinds import BY_NAME, KIND_TABLE
from .xml_tree import XmlNode

SIM_OBJECT = "Body/6DBody"
LIB_NAME = "fhsim_base"  # what sixdof writes
#: Library names public FhSim input files give the base library (both name the same one).
LIB_NAMES = ("fhsim_base", "base")
SECTIONS = ("OBJECTS", "INTERCONNECTIONS", "INITIALIZATION", "INTEGRATION")
#: Lib attributes and their widths (None: text). Coriolis, Inertia, CGOffset, Gravity are ours.
LIB_NUMBERS = {
    "Mass": 1,
    "InertiaRadi": 3,
    "Inertia": 6,
    "CGOffset": 3,
    "Gravity": 1,
    "MeshScale": 3,
    "MeshOrigin": 3,
    "Size": 3,
    "Density": 1,
}
LIB_TEXT = ("LibName", "SimObject", "Name", "Material", "Mesh", "MeshUnits", "InertiaFrom",
            "Coriolis")  # fmt: skip
INPUT_PORTS = {"Force": 3, "Moment": 3}
STATE_PORTS = {"Pos": 3, "Quater": 4, "LocalVel": 3, "AngVel": 3}
ENGINE_NUMBERS = ("stepsize", "HMax", "HMin", "AbsTol", "RelTol")
ENGINE_ATTRIBUTES = ("IntegratorMethod", *ENGINE_NUMBERS, "TOutput")

#: The library of the element SimObjects (ours, not FhSim's).
ELEMENT_LIB_NAME = "sixdof"
#: SimObject of each element kind, and the kind of each (the registry's `xml_object`).
ELEMENT_OBJECTS = {k.name: k.xml_object for k in KIND_TABLE}
KIND_OF = {k.xml_object: k.name for k in KIND_TABLE}
#: Each element's attributes: XML name -> (the JSON field, its width, or "text", "table"
#: for rows 't,value; t,value; ...', "csv" for a table file next to the input file).
ELEMENT_ATTRIBUTES: dict[str, dict[str, tuple[str, XmlWidth]]] = {
    k.name: dict(k.xml_attributes) for k in KIND_TABLE
}
#: Output ports of the elements and the body input each drives (B: a spring's other body).
ELEMENT_PORTS = {"Force": "Force", "Moment": "Moment", "ForceB": "Force", "MomentB": "Moment"}
#: A port reference in an attribute, Name.Port (e.g. "Spring1.Force").
PORT_REF = re.compile(r"\s*([A-Za-z_][\w\-]*)\.([A-Za-z_]\w*)\s*")


def element_ports(kind: str) -> tuple[str, ...]:
    """The output ports of an element kind: Force, Moment (and ForceB, MomentB of a spring)."""
    return BY_NAME[kind].xml_ports


Where = tuple[XmlNode, str]  # the element and attribute a Scenario field came from


def number_text(x: float) -> str:
    """Shortest text that reads back as the same double ('2', '0.001', '1e-09')."""
    text = repr(float(x))
    return text[:-2] if text.endswith(".0") else text


def vector_text(values: tuple[float, ...] | list[float]) -> str:
    return ",".join(number_text(v) for v in values)


def matrix_text(rows: list[list[float]]) -> str:
    """FhSim's Math/LinearSystem matrix text, "0,1;-0.5,-2" (rows by ';')."""
    return ";".join(",".join(number_text(v) for v in row) for row in rows)
