"""The FhSim XML reader's messages: errors and warnings located at a file's line, element and
attribute, the numbers of an attribute (with the reasons they are refused), and the attribute
a pydantic error on a Scenario field points back to."""

from __future__ import annotations

import math
import re

from pydantic_core import ErrorDetails

from .errors import reason
from .fhsim_xml_format import PORT_REF, Where
from .file_errors import ScenarioFileError, warn_at
from .xml_tree import XmlNode


class LocatedReading:
    """The base of the reader (`fhsim_xml._Reader`): what every part of it reports with."""

    path: str  # the file, as messages name it

    def fail(self, node: XmlNode, attr: str | None, reason: str) -> ScenarioFileError:
        return ScenarioFileError(
            self.path, reason, line=node.line_of(attr), element=node.label(), attribute=attr
        )

    def warn(self, node: XmlNode, attr: str | None, reason: str) -> None:
        warn_at(self.path, reason, line=node.line_of(attr), element=node.label(), attribute=attr)

    def numbers(self, node: XmlNode, attr: str, width: int) -> tuple:
        """`width` comma-separated finite numbers from an attribute."""
        text = node.attrib[attr]
        if PORT_REF.fullmatch(text):
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

    @staticmethod
    def origin_of(err: ErrorDetails, origin: dict[str, Where], node: XmlNode) -> Where:
        field = str(err["loc"][0]) if err["loc"] else _message_field(err["msg"])
        return origin.get(field or "", (node, _FIELD_ATTRS.get(field or "", field or "")))


_FIELD_ATTRS = {"method": "IntegratorMethod", "model": "Coriolis"}


def _message_field(msg: str) -> str | None:
    """The field a model-level validator named: 'Value error, stepsize: …' -> 'stepsize'."""
    match = re.match(r"(?:Value error, )?(\w+): ", msg)
    return match.group(1) if match else None


def reason_text(err: ErrorDetails) -> str:
    """The reason of a pydantic error, without the field it names."""
    return reason(err)[1]
