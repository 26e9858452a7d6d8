"""The elements of an FhSim XML input file (SimObjects ``Element/...`` of our library
``sixdof``): their Lib's parameters, the body their outputs are wired to, their JSON spec
checked against the limits (fhsim_xml's docstring describes them)."""

from __future__ import annotations

import math
from collections.abc import Collection, Iterator
from typing import Any

from pydantic import ValidationError

from ..fields import FieldError
from .errors import first_error
from .fhsim_xml_bodies import BodyReading
from .fhsim_xml_errors import reason_text
from .fhsim_xml_format import (
    ELEMENT_ATTRIBUTES,
    ELEMENT_OBJECTS,
    ELEMENT_PORTS,
    KIND_OF,
    Where,
    element_ports,
)
from .kinds import BY_NAME
from .named_files import NamedFileError, NamedFiles
from .tables import read_table
from .xml_tree import XmlNode


class ElementLib:
    """An element's Lib as read: its kind, node, fields (JSON names), the attribute each
    field came from, and the Connections wiring its outputs (port -> body, node, attribute;
    an output that drives both a body's Force and Moment, a linear system's Out, is keyed
    "Out.Force" and "Out.Moment").

    FhSim's own SimObjects (Cable, Math/LinearSystem; fhsim_xml_lines) have inputs too,
    wired by Connections (`inputs`: port -> node, attribute; None for our `Element/...`),
    and fields that come from those Connections (`located`)."""

    def __init__(self, kind: str, node: XmlNode, sim_object: str | None = None) -> None:
        self.kind = kind
        self.node = node
        self.sim_object = sim_object or ELEMENT_OBJECTS[kind]
        self.fields: dict[str, Any] = {}
        self.origin: dict[str, str] = {}
        self.wires: dict[str, tuple[str, XmlNode, str]] = {}
        #: its output ports and the body inputs each may drive
        self.outputs: dict[str, tuple[str, ...]] = {
            port: (ELEMENT_PORTS[port],) for port in element_ports(kind)
        }
        self.inputs: dict[str, Where] | None = None
        self.located: dict[str, Where] = {}


class ElementReading(BodyReading):
    """The reader's part for the elements' Libs."""

    files: NamedFiles | None  # the input file's folder, where a load's Csv is read; None: refused

    def element_lib(
        self, node: XmlNode, bodies: dict[str, dict[str, Any]], elements: dict[str, ElementLib]
    ) -> None:
        """An element's Lib: its parameters, checked for width here and for range later."""
        kind = KIND_OF[node.attrib["SimObject"]]
        known = ELEMENT_ATTRIBUTES[kind]
        name = self.named(node, bodies, elements, "element")
        e = ElementLib(kind, node)
        for attr in self.lib_attributes(node, known, ELEMENT_OBJECTS[kind], BY_NAME[kind].xml_none):
            text = node.attrib[attr]
            field, width = known[attr]
            if field in e.origin:
                raise self.fail(
                    node, attr, f"{e.origin[field]} gives the table already; give one of them"
                )
            e.origin[field] = attr
            value: Any
            if isinstance(width, int):
                values = self.numbers(node, attr, width)
                if width == 36:  # a 6×6 matrix, row by row
                    values = tuple(values[k : k + 6] for k in range(0, 36, 6))
                value = values[0] if width == 1 else values
            elif width == "table":
                value = self.table(node, attr)
            elif width == "csv":
                value = self.csv_table(node, attr)
            elif width in ("matrix", "list"):
                value = self.rows(node, attr, width == "list")
            elif width == "names":
                value = [w.strip() for w in text.split(",") if w.strip()]
            else:
                value = text.strip()
            # "a.b.c": an entry of a field that is a table of its own (a target's Pos, a
            # radiation fit's samples' omega)
            *heads, last = field.split(".")
            table = e.fields
            for head in heads:
                table = table.setdefault(head, {})
            table[last] = value
        if "table" in e.fields:
            e.fields.setdefault("signal", "table")
        elements[name] = e

    def lib_attributes(
        self, node: XmlNode, known: Collection[str], what: str, none: str = "none"
    ) -> Iterator[str]:
        """The attributes of a Lib that `known` names, in the file's order: LibName,
        SimObject and Name skipped, any other warned about (unknown, ignored) and skipped."""
        for attr in node.attrib:
            if attr in ("LibName", "SimObject", "Name"):
                continue
            if attr not in known:
                self.warn(
                    node,
                    attr,
                    f"unknown attribute of {what}, ignored (known: {', '.join(known) or none})",
                )
                continue
            yield attr

    def rows(self, node: XmlNode, attr: str, flat: bool) -> Any:
        """FhSim's matrix text "0,1;-0.5,-2" as rows of numbers (`flat`: one row, "1,2,3", as
        a list of numbers)."""
        out = []
        for k, row in enumerate(r for r in node.attrib[attr].split(";") if r.strip()):
            try:
                values = [float(c) for c in row.split(",")]
            except ValueError:
                raise self.fail(
                    node,
                    attr,
                    f"row {k}: expected numbers 'a,b' (rows separated by ';'), got {row.strip()!r}",
                ) from None
            if not all(math.isfinite(v) for v in values):
                raise self.fail(node, attr, f"row {k}: {row.strip()!r} is not finite")
            out.append(values)
        if flat:
            return [v for r in out for v in r]
        return out

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
        if self.files is None:
            raise self.fail(
                node,
                attr,
                "a table file is read next to an input file; give the rows inline "
                "instead, Table='t,value; t,value; ...'",
            )
        try:
            return read_table(self.files, node.attrib[attr])
        except NamedFileError as exc:
            raise self.fail(node, attr, exc.reason) from None

    def named_file(self, node: XmlNode, attr: str, name: str) -> bytes:
        """The bytes of a file an attribute names (a radiation's BEM file), next to the input
        file, by named_files' rules."""
        if self.files is None:
            raise self.fail(node, attr, "a file is read next to an input file only")
        try:
            return self.files.read(name)
        except NamedFileError as exc:
            raise self.fail(node, attr, exc.reason) from None

    def named_file_if_any(self, node: XmlNode, attr: str, name: str) -> bytes | None:
        """named_file's bytes, or None when the input file's folder has no `name`."""
        if self.files is None:
            raise self.fail(node, attr, "a file is read next to an input file only")
        try:
            return self.files.read_if_any(name)
        except NamedFileError as exc:
            raise self.fail(node, attr, exc.reason) from None

    def end(self, name: str, e: ElementLib, force: str, moment: str) -> str | None:
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

    def element(self, name: str, e: ElementLib) -> Any:
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
        kind = BY_NAME[e.kind]
        spec = {"kind": e.kind, "body": body, **e.fields}
        if kind.xml_read is not None:
            kind.xml_read(self, name, e, spec)
        return self.validated(e, spec)

    def validated(self, e: ElementLib, spec: dict[str, Any]) -> Any:
        """`spec` as its kind's model; else its first error, at the attribute (of the Lib or
        of a Connection) its field came from."""
        try:
            return BY_NAME[e.kind].model.model_validate(spec)
        except ValidationError as exc:
            err = first_error(exc)
            inner = err.get("ctx", {}).get("error")
            field = str(err["loc"][0]) if err["loc"] else ""
            if not field and isinstance(inner, FieldError):
                field = inner.field
            if field in e.located:
                raise self.fail(*e.located[field], reason_text(err)) from None
            raise self.fail(e.node, e.origin.get(field), reason_text(err)) from None
