"""The ``<Connection>`` and ``<InitialCondition>`` attributes of an FhSim XML input file:
a body's constant inputs (Force, Moment) and initial state, the element outputs wired to a
body's inputs, the water wired to an element's input Water, the inputs of FhSim's own Cable
and Math/LinearSystem (fhsim_xml_lines)."""

from __future__ import annotations

from typing import Any

from .fhsim_xml_elements import ElementLib
from .fhsim_xml_format import PORT_REF, SIM_OBJECT, Where
from .fhsim_xml_lines import LineReading
from .fhsim_xml_water import WATER_KINDS, WATER_PORT
from .xml_tree import XmlNode


class ConnectionReading(LineReading):
    """The reader's part for the Connections and InitialConditions."""

    def wire(
        self,
        node: XmlNode,
        attr: str,
        body: str,
        port: str,
        bodies: dict[str, dict[str, Any]],
        elements: dict[str, ElementLib],
    ) -> None:
        """Body.Port="Element.Output": that element's output drives this body's input."""
        match = PORT_REF.fullmatch(node.attrib[attr])
        assert match is not None
        source, output = match.groups()
        e = elements.get(source)
        if e is None:
            what = "a body (a body drives no other body)" if source in bodies else "not an element"
            if self.water is not None and source == self.water.name:
                feel = " or a ".join(sorted(WATER_KINDS))
                what = (
                    f"the water: its output {WATER_PORT} goes to the input {WATER_PORT} of a "
                    f'{feel} (Float.{WATER_PORT}="{source}.{WATER_PORT}"), not to a body'
                )
            raise self.fail(
                node,
                attr,
                f"{source!r} is {what}; a body's {port} takes an element's output "
                f"({', '.join(elements) or 'none in <OBJECTS>'}) or constant numbers",
            )
        outputs = e.outputs
        if output not in outputs:
            raise self.fail(
                node,
                attr,
                f"{output!r} is not an output port of {e.sim_object} {source!r}; "
                f"expected one of {', '.join(outputs)}",
            )
        if port not in outputs[output]:
            raise self.fail(
                node,
                attr,
                f"{source}.{output} drives a body's {' or '.join(outputs[output])}, not its {port}",
            )
        # an output that drives both inputs (a linear system's Out) is wired once to each
        key = output if len(outputs[output]) == 1 else f"{output}.{port}"
        if key in e.wires:
            first = e.wires[key]
            raise self.fail(
                node,
                attr,
                f"{source}.{output} is wired twice (first on line {first[1].line_of(first[2])}); "
                "an element acts on one body",
            )
        e.wires[key] = (body, node, attr)

    def ports(
        self,
        node: XmlNode,
        ports: dict[str, int],
        kind: str,
        bodies: dict[str, dict[str, Any]],
        where: dict[str, dict[str, Where]],
        elements: dict[str, ElementLib],
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
                ref = PORT_REF.fullmatch(node.attrib[attr])
                self.water_input(
                    node,
                    attr,
                    body,
                    e.kind,
                    e.sim_object,
                    (ref.group(1), ref.group(2)) if ref else None,
                )
                continue
            if body in elements and elements[body].inputs is not None and kind == "input":
                self.line_input(node, attr, body, elements[body], port)
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
            if kind == "input" and port in ports and PORT_REF.fullmatch(node.attrib[attr]):
                self.wire(node, attr, body, port, bodies, elements)
                continue
            if port in where[body]:
                first = where[body][port]
                raise self.fail(
                    node, attr, f"given twice (first on line {first[0].line_of(first[1])})"
                )
            bodies[body][port] = self.numbers(node, attr, ports[port])
            where[body][port] = (node, attr)
