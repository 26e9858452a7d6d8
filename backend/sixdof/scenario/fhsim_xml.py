"""FhSim XML input files ⇄ Scenario.

Reads the input files FhSim documents (``<Contents>`` with ``<OBJECTS>`` of
``<Lib SimObject="Body/6DBody">``, constant ``<Connection>`` inputs,
``<InitialCondition>`` states and one ``<Engine>``) and writes them back, so
that XML → Scenario → XML → Scenario compares equal. Our extensions are
attributes FhSim itself ignores: ``Coriolis``, ``Inertia``, ``CGOffset`` and
``Gravity`` on ``Lib``, ``Name`` and ``Caption`` on ``Contents``. docs/fhsim.md
describes the format; every error names the file, line, element and attribute.
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
from .errors import reason
from .file_errors import ScenarioFileError, warn_at
from .model import BodySpec, Integration, Scenario, toutput_rows
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

Where = tuple[XmlNode, str]  # the element and attribute a Scenario field came from


def read_fhsim_xml(path: str | Path) -> Scenario:
    """Read an FhSim input file. Raises ScenarioFileError; warns ScenarioFileWarning."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ScenarioFileError(path, f"cannot read the file: {exc.strerror or exc}") from None
    return scenario_from_xml(data, path, default_name=path.stem)


def scenario_from_xml(
    data: bytes | str, path: str | Path = "<string>", *, default_name: str = "custom"
) -> Scenario:
    """Parse FhSim XML text (bytes or str); `path` is only used in messages."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return _Reader(str(path)).read(parse_xml(raw, path), default_name)


class _Reader:
    def __init__(self, path: str) -> None:
        self.path = path

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
        if re.fullmatch(r"\s*[A-Za-z_][\w\-]*\.[A-Za-z_]\w*\s*", text):
            raise self.fail(
                node,
                attr,
                f"{text.strip()!r} is a port; port-to-port connections "
                "are not supported, only constant inputs such as '0,0,-9.81'",
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
        if not libs:
            raise self.fail(
                sections["OBJECTS"][0] if sections["OBJECTS"] else root,
                None,
                f'no bodies: expected <OBJECTS> with at least one <Lib SimObject="{SIM_OBJECT}">',
            )
        bodies: dict[str, dict[str, Any]] = {}
        where: dict[str, dict[str, Where]] = {}
        for lib in libs:
            name, fields, origin = self.lib(lib, bodies)
            bodies[name], where[name] = fields, origin
        for node in self.children(sections["INTERCONNECTIONS"], "Connection"):
            self.ports(node, INPUT_PORTS, "input", bodies, where)
        for node in self.children(sections["INITIALIZATION"], "InitialCondition"):
            self.ports(node, STATE_PORTS, "state", bodies, where)
        specs = [self.body(fields, where[name]) for name, fields in bodies.items()]
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
                )
        except ValidationError as exc:
            err = exc.errors()[0]
            field = str(err["loc"][0]) if err["loc"] else ""
            named = {"caption": "Caption", "name": "Name"}.get(field)
            raise self.fail(root, named, _reason(err)) from None

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
        self, node: XmlNode, bodies: dict[str, dict[str, Any]]
    ) -> tuple[str, dict[str, Any], dict[str, Where]]:
        attrib = node.attrib
        sim_object = attrib.get("SimObject")
        if sim_object != SIM_OBJECT:
            got = "missing" if sim_object is None else f"unknown SimObject {sim_object!r}"
            raise self.fail(
                node,
                "SimObject",
                f"{got}; expected {SIM_OBJECT!r} (the only SimObject sixdof simulates)",
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
        name = attrib["Name"]
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_\-]{0,63}", name):
            raise self.fail(
                node,
                "Name",
                f"{name!r} is not a body name; expected a letter or _ "
                "then letters, digits, _ or -, at most 64 characters (no dots: "
                "Connections refer to Name.Port)",
            )
        if name in bodies:
            raise self.fail(
                node, "Name", f"{name!r} is used by another <Lib>; Names must be unique"
            )
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

    def ports(
        self,
        node: XmlNode,
        ports: dict[str, int],
        kind: str,
        bodies: dict[str, dict[str, Any]],
        where: dict[str, dict[str, Where]],
    ) -> None:
        """Body.Port="numbers" attributes of a Connection (inputs) or InitialCondition."""
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
