"""The simulation settings of an FhSim XML input file: its ``<Engine>`` (integrator,
step, tolerances, output times) read into an Integration."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from ..dynamics.names import INTEGRATOR_NUMBERS
from .fhsim_xml_errors import LocatedReading, reason_text
from .fhsim_xml_format import ENGINE_ATTRIBUTES, ENGINE_NUMBERS, Where
from .model import Integration, toutput_rows
from .xml_tree import XmlNode

_NUMBER_LIST = ", ".join(f"{n} ({m})" for n, m in INTEGRATOR_NUMBERS.items())


class EngineReading(LocatedReading):
    """The reader's part for the ``<Engine>``."""

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
            raise self.fail(at, attr, reason_text(err)) from None
