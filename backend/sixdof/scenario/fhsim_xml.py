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

The reading is cut by what it reads: `fhsim_xml_format` (the vocabulary), `fhsim_xml_errors`
(located messages, numbers), `fhsim_xml_water`, `fhsim_xml_bodies`, `fhsim_xml_elements`,
`fhsim_xml_connections` (inputs, wires, initial states), `fhsim_xml_lines` (FhSim's own
``Cable`` and ``Math/LinearSystem``, wired by Connections, which a scenario's cables and
linear-system controllers are written as) and `fhsim_xml_engine` (the integration
settings); this module puts the file together.
"""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..dynamics.names import ImpossibleInertiaWarning
from ..fields import FieldError
from .fhsim_xml_connections import ConnectionReading
from .fhsim_xml_elements import ElementLib
from .fhsim_xml_engine import EngineReading
from .fhsim_xml_errors import reason_text
from .fhsim_xml_format import (
    ELEMENT_ATTRIBUTES,
    ELEMENT_LIB_NAME,
    ELEMENT_OBJECTS,
    ELEMENT_PORTS,
    ENGINE_ATTRIBUTES,
    ENGINE_NUMBERS,
    INPUT_PORTS,
    KIND_OF,
    LIB_NAME,
    LIB_NAMES,
    LIB_NUMBERS,
    LIB_TEXT,
    SECTIONS,
    SIM_OBJECT,
    STATE_PORTS,
    Where,
    element_ports,
)
from .fhsim_xml_lines import LINE_OBJECTS
from .fhsim_xml_water import WATER_OBJECT
from .file_errors import ScenarioFileError
from .mesh_names import inline_meshes
from .model import Integration, Scenario
from .named_files import NamedFileError, NamedFiles
from .xml_tree import XmlNode, parse_xml

__all__ = [
    "ELEMENT_ATTRIBUTES",
    "ELEMENT_LIB_NAME",
    "ELEMENT_OBJECTS",
    "ELEMENT_PORTS",
    "ENGINE_ATTRIBUTES",
    "ENGINE_NUMBERS",
    "INPUT_PORTS",
    "LIB_NAME",
    "LIB_NAMES",
    "LIB_NUMBERS",
    "LIB_TEXT",
    "SECTIONS",
    "SIM_OBJECT",
    "STATE_PORTS",
    "element_ports",
    "read_fhsim_xml",
    "scenario_from_xml",
]


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
    refused (text from a client names no files on the server); named_files says which files
    of the folder may be read."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return _Reader(str(path), folder).read(parse_xml(raw, path), default_name)


class _Reader(ConnectionReading, EngineReading):
    """The whole file: its sections, each part read by the part of the reader that knows it."""

    def __init__(self, path: str, folder: Path | None = None) -> None:
        self.path = path
        self.files = None if folder is None else NamedFiles(folder)
        self.folder = folder
        self.water = None
        self.body_specs = {}

    def read(self, root: XmlNode, default_name: str) -> Scenario:
        if root.tag != "Contents":
            raise self.fail(
                root, None, "expected the root element <Contents> of an FhSim input file"
            )
        for attr in root.attrib:
            if attr not in ("Name", "Caption", "View"):
                self.warn(
                    root, attr, "unknown attribute, ignored (Contents takes Name, Caption, View)"
                )
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
        elements: dict[str, ElementLib] = {}
        for lib in libs:
            if lib.attrib.get("SimObject") in KIND_OF:
                self.element_lib(lib, bodies, elements)
                continue
            if lib.attrib.get("SimObject") in LINE_OBJECTS:
                self.line_lib(lib, bodies, elements)
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
        self.mesh_files(bodies, where)
        specs = [self.body(fields, where[name]) for name, fields in bodies.items()]
        self.body_specs = {spec.Name: spec for spec in specs}
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
                    view=_view(root.attrib.get("View")),
                )
        except ValidationError as exc:
            err = exc.errors()[0]
            field = str(err["loc"][0]) if err["loc"] else ""
            named = {"caption": "Caption", "name": "Name", "view": "View"}.get(field)
            inner = err.get("ctx", {}).get("error")
            if isinstance(inner, FieldError) and not named:  # the elements against the rest
                raise self.scenario_fail(inner, root, engines, list(elements.values())) from None
            raise self.fail(root, named, reason_text(err)) from None

    def mesh_files(
        self, bodies: dict[str, dict[str, Any]], where: dict[str, dict[str, Where]]
    ) -> None:
        """A body's Mesh naming a file beside the input file (`Mesh="parts/bracket.stl"`):
        read, checked and kept by its content, and named by its id (mesh_names.py); refused
        at the Lib's Mesh with the file and the reason."""
        order = list(bodies)
        try:
            inline_meshes({"bodies": [bodies[n] for n in order]}, self.folder)
        except NamedFileError as exc:
            node, attr = where[order[int(exc.loc[1])]]["Mesh"]
            raise self.fail(node, attr, str(exc)) from None

    def scenario_fail(
        self, inner: FieldError, root: XmlNode, engines: list[XmlNode], elements: list[ElementLib]
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
            if field in e.located:  # given in a Connection (FhSim's Cable)
                return self.fail(*e.located[field], inner.message[match.end() :])
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


def _view(text: str | None) -> Any:
    """The page's view from the Contents' View attribute (JSON), validated with the scenario:
    text that is not JSON is refused there as a view that is not an object."""
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text
