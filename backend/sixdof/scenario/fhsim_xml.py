"""FhSim XML input files ⇄ Scenario.

Reads the input files FhSim documents (``<Contents>`` with ``<OBJECTS>`` of
``<Lib SimObject="Body/6DBody">``, constant ``<Connection>`` inputs,
``<InitialCondition>`` states and one ``<Engine>``) and writes them back, so
that XML → Scenario → XML → Scenario compares equal. Our extensions are
attributes FhSim itself ignores: ``Coriolis``, ``Inertia``, ``CGOffset`` and
``Gravity`` on ``Lib``, ``Name`` and ``Caption`` on ``Contents``. docs/fhsim.md
describes the format; every error names the file, line, element and attribute.

A scenario's elements (pivots, springs, dampers, the ground, timed loads) are
SimObjects of our library ``sixdof`` in FhSim's style, parameters as attributes:

    <Lib LibName="sixdof" SimObject="Element/Spring" Name="Spring1" Point="0,0,-0.5"
         To="0,0,-2" Stiffness="100" Damping="0.5" RestLength="1"/>

wired to the body they act on by ``Connection``s from their outputs ``Force`` and
``Moment`` (global, about the CG, as a body's inputs) to the body's inputs:

    <Connection B.Force="Spring1.Force" B.Moment="Spring1.Moment"/>

A spring between two bodies also has ``ForceB`` and ``MomentB``, wired to the other
body (its point there is ``ToPoint``). A body sums every element wired to it and its
constant Force and Moment. The water (``Environment/Water``) and the elements that feel it
(``Element/Buoyancy``, ``Element/Damper``, wired ``Float.Water="Sea.Water"``) are read by
`fhsim_xml_water`; an ``Element/AddedMass`` gives ``Diagonal`` (6) or ``Matrix`` (36, row by
row).
"""

from __future__ import annotations

import math
import re
import warnings
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from ..dynamics.names import INTEGRATOR_NUMBERS, ImpossibleInertiaWarning
from ..fields import FieldError
from .elements import (
    AddedMassElement,
    BuoyancyElement,
    DamperElement,
    GroundElement,
    LoadElement,
    PivotElement,
    SpringElement,
)
from .errors import first_error, reason
from .fhsim_xml_water import WATER_OBJECT, WATER_PORT, WaterReading
from .file_errors import ScenarioFileError, warn_at
from .model import BodySpec, Integration, Scenario, toutput_rows
from .tables import read_table
from .xml_tree import XmlNode, parse_xml

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
}
LIB_TEXT = ("LibName", "SimObject", "Name", "Material", "Mesh", "Coriolis")
INPUT_PORTS = {"Force": 3, "Moment": 3}
STATE_PORTS = {"Pos": 3, "Quater": 4, "LocalVel": 3, "AngVel": 3}
ENGINE_NUMBERS = ("stepsize", "HMax", "HMin", "AbsTol", "RelTol")
ENGINE_ATTRIBUTES = ("IntegratorMethod", *ENGINE_NUMBERS, "TOutput")
_NUMBER_LIST = ", ".join(f"{n} ({m})" for n, m in INTEGRATOR_NUMBERS.items())

#: The library of the element SimObjects (ours, not FhSim's).
ELEMENT_LIB_NAME = "sixdof"
#: SimObject of each element kind.
ELEMENT_OBJECTS = {
    "pivot": "Element/Pivot",
    "spring": "Element/Spring",
    "damper": "Element/Damper",
    "ground": "Element/Ground",
    "load": "Element/Load",
    "buoyancy": "Element/Buoyancy",
    "added_mass": "Element/AddedMass",
}
_KIND_OF = {sim_object: kind for kind, sim_object in ELEMENT_OBJECTS.items()}
_ElementModel = (
    type[PivotElement]
    | type[SpringElement]
    | type[DamperElement]
    | type[GroundElement]
    | type[LoadElement]
    | type[BuoyancyElement]
    | type[AddedMassElement]
)
_ELEMENT_MODELS: dict[str, _ElementModel] = {
    "pivot": PivotElement,
    "spring": SpringElement,
    "damper": DamperElement,
    "ground": GroundElement,
    "load": LoadElement,
    "buoyancy": BuoyancyElement,
    "added_mass": AddedMassElement,
}
#: Each element's attributes: XML name -> (the JSON field, its width, or "text", "table"
#: for rows 't,value; t,value; ...', "csv" for a table file next to the input file).
ELEMENT_ATTRIBUTES: dict[str, dict[str, tuple[str, int | str]]] = {
    "pivot": {"Point": ("point", 3), "At": ("at", 3)},
    "spring": {
        "Point": ("point", 3),
        "To": ("to", 3),
        "ToPoint": ("to_point", 3),
        "Stiffness": ("stiffness", 1),
        "Damping": ("damping", 1),
        "RestLength": ("rest_length", 1),
    },
    "damper": {"Linear": ("linear", 6), "Quadratic": ("quadratic", 6)},
    "ground": {
        "Height": ("height", 1),
        "Restitution": ("restitution", 1),
        "Friction": ("friction", 1),
        "Stiffness": ("stiffness", 1),
    },
    "load": {
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
    "buoyancy": {},  # the hull is the body's drawn shape (Mesh, Size, MeshScale, MeshOrigin)
    "added_mass": {"Diagonal": ("diagonal", 6), "Matrix": ("matrix", 36)},
}
#: Output ports of the elements and the body input each drives (B: a spring's other body).
ELEMENT_PORTS = {"Force": "Force", "Moment": "Moment", "ForceB": "Force", "MomentB": "Moment"}
_NO_ATTRIBUTES = "none: its hull is the body's drawn Mesh, Size, MeshScale and MeshOrigin"
_PORT_REF = re.compile(r"\s*([A-Za-z_][\w\-]*)\.([A-Za-z_]\w*)\s*")


def element_ports(kind: str) -> tuple[str, ...]:
    """The output ports of an element kind: Force, Moment (and ForceB, MomentB of a spring)."""
    return tuple(ELEMENT_PORTS) if kind == "spring" else ("Force", "Moment")


class _Element:
    """An element's Lib as read: its kind, node, fields (JSON names), the attribute each
    field came from, and the Connections wiring its outputs (port -> body, node, attribute)."""

    def __init__(self, kind: str, node: XmlNode) -> None:
        self.kind = kind
        self.node = node
        self.fields: dict[str, Any] = {}
        self.origin: dict[str, str] = {}
        self.wires: dict[str, tuple[str, XmlNode, str]] = {}


Where = tuple[XmlNode, str]  # the element and attribute a Scenario field came from


def read_fhsim_xml(path: str | Path) -> Scenario:
    """Read an FhSim input file. Raises ScenarioFileError; warns ScenarioFileWarning."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ScenarioFileError(path, f"cannot read the file: {exc.strerror or exc}") from None
    return scenario_from_xml(data, path, default_name=path.stem, folder=path.parent)


def scenario_from_xml(
    data: bytes | str,
    path: str | Path = "<string>",
    *,
    default_name: str = "custom",
    folder: Path | None = None,
) -> Scenario:
    """Parse FhSim XML text (bytes or str); `path` is only used in messages. A load's Csv
    table file is read from `folder` (read_fhsim_xml: the file's own); without one, Csv is
    refused (text from a client names no files on the server)."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return _Reader(str(path), folder).read(parse_xml(raw, path), default_name)


class _Reader(WaterReading):
    def __init__(self, path: str, folder: Path | None = None) -> None:
        self.path = path
        self.folder = folder
        self.water = None

    # -- messages ---------------------------------------------------------------
    def fail(self, node: XmlNode, attr: str | None, reason: str) -> ScenarioFileError:
        return ScenarioFileError(
            self.path, reason, line=node.line_of(attr), element=node.label(), attribute=attr
        )

    def warn(self, node: XmlNode, attr: str | None, reason: str) -> None:
        warn_at(self.path, reason, line=node.line_of(attr), element=node.label(), attribute=attr)

    def numbers(self, node: XmlNode, attr: str, width: int) -> tuple:
        """`width` comma-separated finite numbers from an attribute."""
        text = node.attrib[attr]
        if _PORT_REF.fullmatch(text):
            raise self.fail(
                node,
                attr,
                f"{text.strip()!r} is a port; only a body's Force and Moment in a <Connection> "
                'take an element\'s output (e.g. B.Force="Spring1.Force"); here give numbers '
                "such as '0,0,-9.81'",
            )
        items = [s.strip() for s in text.split(",")]
        if len(items) != width:
            what = "a number" if width == 1 else f"{width} comma-separated numbers"
            got = f"{len(items)} value{'s' if len(items) != 1 else ''}"
            raise self.fail(node, attr, f"expected {what}, got {got} in {text!r}")
        values = []
        for item in items:
            try:
                value = float(item)
            except ValueError:
                raise self.fail(
                    node,
                    attr,
                    f"{item!r} is not a number; expected "
                    + (f"{width} comma-separated finite numbers" if width > 1 else "a number"),
                ) from None
            if not math.isfinite(value):
                raise self.fail(node, attr, f"{item!r} is not a finite number")
            values.append(value)
        return tuple(values)

    # -- structure ----------------------------------------------------------------
    def read(self, root: XmlNode, default_name: str) -> Scenario:
        if root.tag != "Contents":
            raise self.fail(
                root, None, "expected the root element <Contents> of an FhSim input file"
            )
        for attr in root.attrib:
            if attr not in ("Name", "Caption"):
                self.warn(root, attr, "unknown attribute, ignored (Contents takes Name, Caption)")
        sections: dict[str, list[XmlNode]] = {name: [] for name in SECTIONS}
        for child in root.children:
            if child.tag in sections:
                sections[child.tag].append(child)
            else:
                self.warn(
                    child, None, f"unsupported section, ignored (read: {', '.join(SECTIONS)})"
                )
        libs = self.children(sections["OBJECTS"], "Lib")
        bodies: dict[str, dict[str, Any]] = {}
        where: dict[str, dict[str, Where]] = {}
        elements: dict[str, _Element] = {}
        for lib in libs:
            if lib.attrib.get("SimObject") in _KIND_OF:
                self.element_lib(lib, bodies, elements)
                continue
            if lib.attrib.get("SimObject") == WATER_OBJECT:
                self.water_lib(lib, self.named(lib, bodies, elements, "water"))
                continue
            name, fields, origin = self.lib(lib, bodies, elements)
            bodies[name], where[name] = fields, origin
        if not bodies:
            raise self.fail(
                sections["OBJECTS"][0] if sections["OBJECTS"] else root,
                None,
                f'no bodies: expected <OBJECTS> with at least one <Lib SimObject="{SIM_OBJECT}">',
            )
        for node in self.children(sections["INTERCONNECTIONS"], "Connection"):
            self.ports(node, INPUT_PORTS, "input", bodies, where, elements)
        for node in self.children(sections["INITIALIZATION"], "InitialCondition"):
            self.ports(node, STATE_PORTS, "state", bodies, where, elements)
        specs = [self.body(fields, where[name]) for name, fields in bodies.items()]
        found = [self.element(name, e) for name, e in elements.items()]
        water = self.water_spec()
        engines = self.children(sections["INTEGRATION"], "Engine")
        if len(engines) > 1:
            raise self.fail(
                engines[1],
                None,
                f"only one <Engine> is allowed (the first is on line {engines[0].line})",
            )
        integration = self.engine(engines[0]) if engines else Integration()
        name = root.attrib.get("Name", default_name)[:64]
        try:
            with warnings.catch_warnings():
                # Validating the Scenario validates its bodies again; warned once, above.
                warnings.simplefilter("ignore", ImpossibleInertiaWarning)
                return Scenario(
                    name=name,
                    caption=root.attrib.get("Caption", ""),
                    bodies=specs,
                    integration=integration,
                    elements=found,
                    water=water,
                )
        except ValidationError as exc:
            err = exc.errors()[0]
            field = str(err["loc"][0]) if err["loc"] else ""
            named = {"caption": "Caption", "name": "Name"}.get(field)
            inner = err.get("ctx", {}).get("error")
            if isinstance(inner, FieldError) and not named:  # the elements against the rest
                raise self.scenario_fail(inner, root, engines, list(elements.values())) from None
            raise self.fail(root, named, _reason(err)) from None

    def scenario_fail(
        self, inner: FieldError, root: XmlNode, engines: list[XmlNode], elements: list[_Element]
    ) -> ScenarioFileError:
        """A check of the elements against the bodies and the integration, located: at the
        Engine for the step or the method, else at the element's Lib."""
        message = inner.message.removeprefix(f"{inner.field}: ")
        if inner.field in ("stepsize", "method"):
            engine_attr = "stepsize" if inner.field == "stepsize" else "IntegratorMethod"
            return self.fail(engines[0] if engines else root, engine_attr, message)
        match = re.match(r"elements\[(\d+)\](?:\.([\w.]+))?: ", inner.message)
        if match and int(match.group(1)) < len(elements):
            e = elements[int(match.group(1))]
            field = (match.group(2) or "").split(".")[0]
            attr = e.origin.get(field) or ("ToPoint" if field == "to" else None)
            return self.fail(e.node, attr, inner.message[match.end() :])
        return self.fail(root, None, message)

    def children(self, sections: list[XmlNode], tag: str) -> list[XmlNode]:
        found = []
        for section in sections:
            for child in section.children:
                if child.tag == tag:
                    found.append(child)
                else:
                    self.warn(
                        child,
                        None,
                        f"unknown element in <{section.tag}>, ignored (expected <{tag}>)",
                    )
        return found

    def lib(
        self, node: XmlNode, bodies: dict[str, dict[str, Any]], elements: dict[str, _Element]
    ) -> tuple[str, dict[str, Any], dict[str, Where]]:
        attrib = node.attrib
        sim_object = attrib.get("SimObject")
        if sim_object != SIM_OBJECT:
            got = "missing" if sim_object is None else f"unknown SimObject {sim_object!r}"
            raise self.fail(
                node,
                "SimObject",
                f"{got}; expected {SIM_OBJECT!r} (a body), {WATER_OBJECT!r} (the water) or "
                "an element: " + ", ".join(repr(o) for o in ELEMENT_OBJECTS.values()),
            )
        if attrib.get("LibName") not in LIB_NAMES:
            names = " or ".join(repr(n) for n in LIB_NAMES)
            self.warn(
                node,
                "LibName",
                f"expected {names} (FhSim's base library, which holds "
                f"{SIM_OBJECT}), got {attrib.get('LibName')!r}; read as {SIM_OBJECT}",
            )
        for required in ("Name", "Mass"):
            if required not in attrib:
                raise self.fail(
                    node,
                    required,
                    f"missing; every <Lib> needs {required} "
                    f"({'a unique body name' if required == 'Name' else 'kg, > 0'})",
                )
        if "InertiaRadi" not in attrib and "Inertia" not in attrib:
            raise self.fail(
                node,
                "InertiaRadi",
                "missing; expected 3 radii of gyration "
                "'rx,ry,rz' in m (or our Inertia='Ixx,Iyy,Izz,Ixy,Ixz,Iyz')",
            )
        name = self.lib_name(node, bodies, elements, "body")
        fields: dict[str, Any] = {"Name": name, "model": "fhsim"}
        origin: dict[str, Where] = {"Name": (node, "Name"), "model": (node, "Coriolis")}
        for attr, text in attrib.items():
            if attr in LIB_NUMBERS:
                values = self.numbers(node, attr, LIB_NUMBERS[attr])
                fields[attr] = values[0] if LIB_NUMBERS[attr] == 1 else values
            elif attr in ("Material", "Mesh"):
                fields[attr] = text
            elif attr == "Coriolis":
                if text.strip() not in ("0", "1"):
                    raise self.fail(
                        node,
                        attr,
                        f"expected 0 (model fhsim, FhSim's equations) "
                        f"or 1 (model full, Newton–Euler), got {text!r}",
                    )
                fields["model"] = "full" if text.strip() == "1" else "fhsim"
            elif attr not in LIB_TEXT:
                self.warn(
                    node,
                    attr,
                    f"unknown attribute of {SIM_OBJECT}, ignored (known: "
                    f"{', '.join([*LIB_TEXT, *LIB_NUMBERS])})",
                )
            origin.setdefault(attr, (node, attr))
        if fields["Mass"] <= 0.0:
            raise self.fail(node, "Mass", f"must be a mass > 0 kg, got {attrib['Mass']!r}")
        return name, fields, origin

    def lib_name(
        self,
        node: XmlNode,
        bodies: dict[str, dict[str, Any]],
        elements: dict[str, _Element],
        what: str,
    ) -> str:
        """The Lib's Name: a word, unique among bodies and elements."""
        name = node.attrib["Name"]
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_\-]{0,63}", name):
            raise self.fail(
                node,
                "Name",
                f"{name!r} is not a {what} name; expected a letter or _ "
                "then letters, digits, _ or -, at most 64 characters (no dots: "
                "Connections refer to Name.Port)",
            )
        if name in bodies or name in elements or (self.water and self.water.name == name):
            raise self.fail(
                node, "Name", f"{name!r} is used by another <Lib>; Names must be unique"
            )
        return name

    def named(
        self,
        node: XmlNode,
        bodies: dict[str, dict[str, Any]],
        elements: dict[str, _Element],
        what: str,
    ) -> str:
        """The Name of a Lib of our library (an element, the water), its LibName checked."""
        if node.attrib.get("LibName") != ELEMENT_LIB_NAME:
            self.warn(
                node,
                "LibName",
                f"expected {ELEMENT_LIB_NAME!r} (sixdof's library of elements and water), got "
                f"{node.attrib.get('LibName')!r}; read as {node.attrib['SimObject']}",
            )
        if "Name" not in node.attrib:
            port = "Water" if what == "water" else "Force"
            raise self.fail(
                node,
                "Name",
                f"missing; every {what} <Lib> needs a Name (Connections wire Name.{port})",
            )
        return self.lib_name(node, bodies, elements, what)

    def element_lib(
        self, node: XmlNode, bodies: dict[str, dict[str, Any]], elements: dict[str, _Element]
    ) -> None:
        """An element's Lib: its parameters, checked for width here and for range later."""
        kind = _KIND_OF[node.attrib["SimObject"]]
        known = ELEMENT_ATTRIBUTES[kind]
        name = self.named(node, bodies, elements, "element")
        e = _Element(kind, node)
        for attr, text in node.attrib.items():
            if attr in ("LibName", "SimObject", "Name"):
                continue
            if attr not in known:
                self.warn(
                    node,
                    attr,
                    f"unknown attribute of {ELEMENT_OBJECTS[kind]}, ignored (known: "
                    f"{', '.join(known) or _NO_ATTRIBUTES})",
                )
                continue
            field, width = known[attr]
            if field in e.origin:
                raise self.fail(
                    node, attr, f"{e.origin[field]} gives the table already; give one of them"
                )
            e.origin[field] = attr
            if isinstance(width, int):
                values = self.numbers(node, attr, width)
                if width == 36:  # a 6×6 matrix, row by row
                    values = tuple(values[k : k + 6] for k in range(0, 36, 6))
                e.fields[field] = values[0] if width == 1 else values
            elif width == "table":
                e.fields[field] = self.table(node, attr)
            elif width == "csv":
                e.fields[field] = self.csv_table(node, attr)
            else:
                e.fields[field] = text.strip()
        if "table" in e.fields:
            e.fields.setdefault("signal", "table")
        elements[name] = e

    def table(self, node: XmlNode, attr: str) -> list[tuple[float, float]]:
        """Rows 't,value; t,value; ...' of a load's Table."""
        rows = []
        for k, row in enumerate(r for r in node.attrib[attr].split(";") if r.strip()):
            items = [c.strip() for c in row.split(",")]
            try:
                t, v = (float(c) for c in items)
            except ValueError:
                raise self.fail(
                    node,
                    attr,
                    f"row {k}: expected two numbers 't,value' (rows separated by ';'), "
                    f"got {row.strip()!r}",
                ) from None
            if not (math.isfinite(t) and math.isfinite(v)):
                raise self.fail(node, attr, f"row {k}: {row.strip()!r} is not finite")
            rows.append((t, v))
        return rows

    def csv_table(self, node: XmlNode, attr: str) -> list[list[float]]:
        """The (t, value) rows of the CSV file a load's Csv names, next to the input file."""
        if self.folder is None:
            raise self.fail(
                node,
                attr,
                "a table file is read next to an input file; give the rows inline "
                "instead, Table='t,value; t,value; ...'",
            )
        return read_table(self.folder / node.attrib[attr])

    def wire(
        self,
        node: XmlNode,
        attr: str,
        body: str,
        port: str,
        bodies: dict[str, dict[str, Any]],
        elements: dict[str, _Element],
    ) -> None:
        """Body.Port="Element.Output": that element's output drives this body's input."""
        match = _PORT_REF.fullmatch(node.attrib[attr])
        assert match is not None
        source, output = match.groups()
        e = elements.get(source)
        if e is None:
            what = "a body (a body drives no other body)" if source in bodies else "not an element"
            if self.water is not None and source == self.water.name:
                what = (
                    f"the water: its output {WATER_PORT} goes to the input {WATER_PORT} of a "
                    f'buoyancy or a damper (Float.{WATER_PORT}="{source}.{WATER_PORT}"), '
                    "not to a body"
                )
            raise self.fail(
                node,
                attr,
                f"{source!r} is {what}; a body's {port} takes an element's output "
                f"({', '.join(elements) or 'none in <OBJECTS>'}) or constant numbers",
            )
        outputs = element_ports(e.kind)
        if output not in outputs:
            raise self.fail(
                node,
                attr,
                f"{output!r} is not an output port of {ELEMENT_OBJECTS[e.kind]} {source!r}; "
                f"expected one of {', '.join(outputs)}",
            )
        if ELEMENT_PORTS[output] != port:
            raise self.fail(
                node,
                attr,
                f"{source}.{output} drives a body's {ELEMENT_PORTS[output]}, not its {port}",
            )
        if output in e.wires:
            first = e.wires[output]
            raise self.fail(
                node,
                attr,
                f"{source}.{output} is wired twice (first on line {first[1].line_of(first[2])}); "
                "an element acts on one body",
            )
        e.wires[output] = (body, node, attr)

    def end(self, name: str, e: _Element, force: str, moment: str) -> str | None:
        """The body an element's Force and Moment outputs (or ForceB and MomentB) drive."""
        f, m = e.wires.get(force), e.wires.get(moment)
        if f is None and m is None:
            return None
        if f is None or m is None:
            body, node, attr = f or m  # type: ignore[misc]  # one of them is set
            missing = moment if m is None else force
            raise self.fail(
                node,
                attr,
                f"{name}.{missing} is not wired: an element's {force} and {moment} both drive "
                f'the body it acts on ({body}.{ELEMENT_PORTS[missing]}="{name}.{missing}")',
            )
        if f[0] != m[0]:
            raise self.fail(
                m[1],
                m[2],
                f"{name}.{force} drives {f[0]!r} but {name}.{moment} drives {m[0]!r}; "
                "both drive the body it acts on",
            )
        return f[0]

    def element(self, name: str, e: _Element) -> Any:
        """The element's JSON spec, checked: its body from the Connections, its numbers
        against the limits table (errors name the attribute)."""
        body = self.end(name, e, "Force", "Moment")
        if body is None:
            raise self.fail(
                e.node,
                None,
                "not connected: wire its outputs to the body it acts on, e.g. <Connection "
                f'B.Force="{name}.Force" B.Moment="{name}.Moment"/>',
            )
        self.check_water_wire(name, e.kind, e.node)
        if e.kind == "added_mass" and ("diagonal" in e.fields) == ("matrix" in e.fields):
            raise self.fail(
                e.node,
                "Matrix" if e.fields else "Diagonal",
                ("give Diagonal or Matrix, not both" if e.fields else "missing")
                + "; M_A is Diagonal (6 numbers: surge, sway, heave, roll, pitch, yaw) "
                "or Matrix (36 numbers, the symmetric 6×6 matrix row by row), body axes "
                "about Pos",
            )
        spec = {"kind": e.kind, "body": body, **e.fields}
        if e.kind == "spring":
            other = self.end(name, e, "ForceB", "MomentB")
            point = spec.pop("to_point", None)
            if other is not None:
                if "to" in spec:
                    raise self.fail(
                        e.node,
                        "To",
                        f"a spring ends at a world point (To) or on the body wired to "
                        f"{name}.ForceB and {name}.MomentB ({other!r}), not both",
                    )
                spec["to"] = {"body": other} if point is None else {"body": other, "point": point}
                e.origin["to"] = e.origin.get("to_point", "ToPoint")
            elif point is not None:
                raise self.fail(
                    e.node,
                    "ToPoint",
                    f"a point on the spring's other body, but no Connection wires "
                    f'{name}.ForceB and {name}.MomentB to one (C.Force="{name}.ForceB" '
                    f'C.Moment="{name}.MomentB")',
                )
        try:
            return _ELEMENT_MODELS[e.kind].model_validate(spec)
        except ValidationError as exc:
            err = first_error(exc)
            inner = err.get("ctx", {}).get("error")
            field = str(err["loc"][0]) if err["loc"] else ""
            if not field and isinstance(inner, FieldError):
                field = inner.field
            raise self.fail(e.node, e.origin.get(field), _reason(err)) from None

    def ports(
        self,
        node: XmlNode,
        ports: dict[str, int],
        kind: str,
        bodies: dict[str, dict[str, Any]],
        where: dict[str, dict[str, Where]],
        elements: dict[str, _Element],
    ) -> None:
        """Body.Port="numbers" attributes of a Connection (inputs) or InitialCondition; in a
        Connection also Body.Port="Element.Output", an element driving the body."""
        known = ", ".join(ports)
        for attr in node.attrib:
            body, dot, port = attr.partition(".")
            if not dot or not body or not port:
                raise self.fail(
                    node,
                    attr,
                    f"expected an attribute Body.Port with an {kind} "
                    f"port ({known}), e.g. B.{next(iter(ports))}",
                )
            if self.water is not None and body == self.water.name:
                raise self.water_ports(node, attr)
            if body in elements and port == WATER_PORT and kind == "input":
                e = elements[body]
                ref = _PORT_REF.fullmatch(node.attrib[attr])
                self.water_input(
                    node,
                    attr,
                    body,
                    e.kind,
                    ELEMENT_OBJECTS[e.kind],
                    (ref.group(1), ref.group(2)) if ref else None,
                )
                continue
            if body in elements:
                raise self.fail(
                    node,
                    attr,
                    f"{body!r} is an element: its ports are outputs, wired to a body's "
                    f'input as B.Force="{body}.Force" B.Moment="{body}.Moment"',
                )
            if body not in bodies:
                raise self.fail(
                    node, attr, f"unknown body {body!r}; the bodies in <OBJECTS> are {list(bodies)}"
                )
            if port not in ports:
                raise self.fail(
                    node,
                    attr,
                    f"{port!r} is not an {kind} port of {SIM_OBJECT}; expected one of {known}",
                )
            if kind == "input" and port in ports and _PORT_REF.fullmatch(node.attrib[attr]):
                self.wire(node, attr, body, port, bodies, elements)
                continue
            if port in where[body]:
                first = where[body][port]
                raise self.fail(
                    node, attr, f"given twice (first on line {first[0].line_of(first[1])})"
                )
            bodies[body][port] = self.numbers(node, attr, ports[port])
            where[body][port] = (node, attr)

    def body(self, fields: dict[str, Any], origin: dict[str, Where]) -> BodySpec:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                spec = BodySpec(**fields)
            except ValidationError as exc:
                err = exc.errors()[0]
                node, attr = self.origin_of(err, origin, origin["Name"][0])
                raise self.fail(node, attr, _reason(err)) from None
        for item in caught:
            if issubclass(item.category, ImpossibleInertiaWarning):
                attr = "Inertia" if "Inertia" in fields else "InertiaRadi"
                node = origin["Name"][0]
                warn_at(
                    self.path,
                    str(item.message).removeprefix("Inertia: "),
                    line=node.line_of(attr),
                    element=node.label(),
                    attribute=attr,
                    category=ImpossibleInertiaWarning,
                )
            else:
                warnings.warn_explicit(item.message, item.category, item.filename, item.lineno)
        return spec

    def engine(self, node: XmlNode) -> Integration:
        fields: dict[str, Any] = {}
        origin: dict[str, Where] = {"method": (node, "IntegratorMethod")}
        for attr, text in node.attrib.items():
            origin[attr] = (node, attr)
            if attr == "IntegratorMethod":
                try:
                    fields["method"] = INTEGRATOR_NUMBERS[int(text.strip())]
                except (ValueError, KeyError):
                    raise self.fail(
                        node, attr, f"expected one of {_NUMBER_LIST}, got {text!r}"
                    ) from None
            elif attr in ENGINE_NUMBERS:
                fields[attr] = self.numbers(node, attr, 1)[0]
            elif attr == "TOutput":
                try:
                    toutput_rows(text)
                except ValueError as exc:
                    reason = str(exc).removeprefix("TOutput: ")
                    raise self.fail(
                        node,
                        attr,
                        f"{reason}; expected comma-separated times "
                        "and start:step:end ranges, e.g. '0, 0:0.01:10'",
                    ) from None
                fields[attr] = text
            else:
                self.warn(
                    node,
                    attr,
                    f"unknown attribute of <Engine>, ignored (known: "
                    f"{', '.join(ENGINE_ATTRIBUTES)})",
                )
        try:
            return Integration(**fields)
        except ValidationError as exc:
            err = exc.errors()[0]
            at, attr = self.origin_of(err, origin, node)
            raise self.fail(at, attr, _reason(err)) from None

    @staticmethod
    def origin_of(err: ErrorDetails, origin: dict[str, Where], node: XmlNode) -> Where:
        field = str(err["loc"][0]) if err["loc"] else _message_field(err["msg"])
        return origin.get(field or "", (node, _FIELD_ATTRS.get(field or "", field or "")))


_FIELD_ATTRS = {"method": "IntegratorMethod", "model": "Coriolis"}


def _message_field(msg: str) -> str | None:
    """The field a model-level validator named: 'Value error, stepsize: …' -> 'stepsize'."""
    match = re.match(r"(?:Value error, )?(\w+): ", msg)
    return match.group(1) if match else None


def _reason(err: ErrorDetails) -> str:
    return reason(err)[1]
