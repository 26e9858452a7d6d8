"""FhSim's own ``Cable`` and ``Math/LinearSystem`` SimObjects in an FhSim XML input file,
read into a scenario's `cable` and `linear_system` `controller` and written back.

Unlike our ``Element/...`` SimObjects these take their inputs by ``Connection``, as FhSim
wires them (docs/fhsim.md, "FhSim's Cable and Math/LinearSystem"):

    <Lib LibName="fhsim_cable" SimObject="Cable" Name="L" cableLength="25" numElements="10"
         diameter="0.02" E-modulus="2e10" cableWeight="2" PointA="0,0,0"/>
    <Connection L.PositionA="Buoy.Pos" L.VelocityA="Buoy.Vel" L.PositionB="-20,0,10"
                Buoy.Force="L.ForceA" Buoy.Moment="L.MomentA"/>

    <Lib LibName="fhsim_base" SimObject="Math/LinearSystem" Name="Ctrl" A="0" B="0,0"
         C="0;0;0" D="-10,-20;0,0;0,0"/>
    <Connection Ctrl.In="Barge.Pos.x,Barge.Vel.x" Barge.Force="Ctrl.Out"/>

A cable end on a body is that body's ``Pos`` (the attachment point in the body's axes is
our ``PointA``/``PointB``), a fixed end is a world point given as numbers. FhSim's
``RetractedSpeedA`` hauls the line in, so the model's pay-out speed is its negative. A
linear system reads the body it drives (sixdof's controllers act on the body they read).
The writer writes cables and linear systems in these forms, a linear system's ``Out`` padded
with zero rows to Force (3 rows) or Force and Moment (6); our older ``Element/Cable`` and
``Element/Controller`` forms are still read (fhsim_xml_elements).
"""

from __future__ import annotations

from typing import Any

from .fhsim_xml_elements import ElementLib
from .fhsim_xml_format import (
    LIB_NAME,
    PORT_REF,
    Where,
    number_text,
    vector_text,
)
from .fhsim_xml_linear import LinearSystemReading
from .kind import XmlWidth
from .kinds.cable import CableElement
from .xml_tree import XmlNode

CABLE_OBJECT = "Cable"
CABLE_LIB_NAME = "fhsim_cable"  # what sixdof writes; any LibName is read
LINEAR_OBJECT = "Math/LinearSystem"
LINEAR_LIB_NAME = LIB_NAME  # FhSim's base library holds Math/LinearSystem
#: FhSim's SimObjects read here and the element kind each becomes.
LINE_OBJECTS = {CABLE_OBJECT: "cable", LINEAR_OBJECT: "controller"}

#: Lib attributes -> (field, width). FhSim's names, then ours; point_a and point_b are not
#: fields of the model: they become `point` and `to.point` once the ends are known.
CABLE_ATTRIBUTES: dict[str, tuple[str, XmlWidth]] = {
    "cableLength": ("length", 1),
    "numElements": ("segments", 1),
    "diameter": ("diameter", 1),
    "E-modulus": ("e_modulus", 1),
    "cableWeight": ("mass_per_length", 1),
    "AxialStiffness": ("axial_stiffness", 1),
    "DragNormal": ("drag_normal", 1),
    "DragTangential": ("drag_tangential", 1),
    "AxialDamping": ("axial_damping", 1),
    "PointA": ("point_a", 3),
    "PointB": ("point_b", 3),
}
CABLE_INPUTS: tuple[str, ...] = (
    "PositionA", "PositionB", "VelocityA", "VelocityB",
    "RetractedLengthA", "RetractedLengthB", "RetractedSpeedA", "RetractedSpeedB",
)  # fmt: skip
#: Output ports -> the body inputs each drives. MomentA/B are ours: the moment of ForceA/B
#: about the body's CG (FhSim's body takes the force at its CG only).
CABLE_OUTPUTS: dict[str, tuple[str, ...]] = {
    "ForceA": ("Force",), "MomentA": ("Moment",), "ForceB": ("Force",), "MomentB": ("Moment",),
}  # fmt: skip
LINEAR_ATTRIBUTES: dict[str, tuple[str, XmlWidth]] = {
    "A": ("A", "matrix"),
    "B": ("B", "matrix"),
    "C": ("C", "matrix"),
    "D": ("D", "matrix"),
    "X0": ("x0", "list"),
    "Reference": ("reference", "list"),
}
LINEAR_INPUTS: tuple[str, ...] = ("In",)
LINEAR_OUTPUTS: dict[str, tuple[str, ...]] = {"Out": ("Force", "Moment")}

_Form = tuple[dict[str, tuple[str, XmlWidth]], tuple[str, ...], dict[str, tuple[str, ...]]]
#: Each kind's Lib attributes, inputs and outputs.
_FORMS: dict[str, _Form] = {
    "cable": (CABLE_ATTRIBUTES, CABLE_INPUTS, CABLE_OUTPUTS),
    "controller": (LINEAR_ATTRIBUTES, LINEAR_INPUTS, LINEAR_OUTPUTS),
}


class LineReading(LinearSystemReading):
    """The reader's part for FhSim's Cable and Math/LinearSystem."""

    def line_lib(
        self, node: XmlNode, bodies: dict[str, Any], elements: dict[str, ElementLib]
    ) -> None:
        """A Cable's or Math/LinearSystem's Lib: its parameters; any LibName is read (public
        FhSim files name their libraries differently)."""
        sim_object = node.attrib["SimObject"]
        kind = LINE_OBJECTS[sim_object]
        attributes, _, outputs = _FORMS[kind]
        if "Name" not in node.attrib:
            raise self.fail(
                node, "Name", f"missing; every {sim_object} <Lib> needs a Name (Connections "
                "wire Name.Port)",
            )  # fmt: skip
        name = self.lib_name(node, bodies, elements, sim_object)
        e = ElementLib(kind, node, sim_object)
        e.outputs = dict(outputs)
        e.inputs = {}
        for attr in self.lib_attributes(node, attributes, sim_object):
            field, width = attributes[attr]
            e.origin[field] = attr
            if isinstance(width, int):
                values = self.numbers(node, attr, width)
                e.fields[field] = values[0] if width == 1 else values
            else:
                e.fields[field] = self.rows(node, attr, width == "list")
        elements[name] = e

    def line_input(self, node: XmlNode, attr: str, name: str, e: ElementLib, port: str) -> None:
        """Name.Input="..." in a Connection: kept until every Connection is read."""
        assert e.inputs is not None
        known = _FORMS[e.kind][1]
        if port not in known:
            outputs = ", ".join(e.outputs)
            raise self.fail(
                node,
                attr,
                f"{port!r} is not an input of {e.sim_object} {name!r}; its inputs are "
                f"{', '.join(known)} (its outputs {outputs} are wired to a body's inputs)",
            )
        if port in e.inputs:
            first = e.inputs[port]
            raise self.fail(node, attr, f"given twice (first on line {first[0].line_of(first[1])})")
        e.inputs[port] = (node, attr)

    def element(self, name: str, e: ElementLib) -> Any:
        """The element's JSON spec; FhSim's Cable and Math/LinearSystem from their wiring."""
        if e.inputs is None:
            return super().element(name, e)
        if e.kind == "cable":
            spec = self.cable_spec(name, e)
            self.check_water_wire(name, e.kind, e.node)
        else:
            spec = self.linear_spec(name, e)
        return self.validated(e, spec)

    # -- Cable --------------------------------------------------------------------------

    def cable_spec(self, name: str, e: ElementLib) -> dict[str, Any]:
        """The `cable` spec of a Cable: its ends from PositionA/B (a body's Pos or a world
        point), checked against VelocityA/B and the bodies ForceA/B and MomentA/B drive."""
        ends = [self.cable_end(name, e, end) for end in "AB"]
        (a_body, _, _), (b_body, _, b_where) = ends
        if a_body is None and b_body is None:
            raise self.fail(
                *b_where,
                f"both ends of {name!r} are world points; sixdof's cable hangs from a body at "
                f'one end at least ({name}.PositionA="Buoy.Pos")',
            )
        if a_body is not None and a_body == b_body:
            raise self.fail(
                *b_where,
                f"both ends of {name!r} are on {a_body!r}; a cable joins two bodies, or a body "
                "and a world point",
            )
        length = e.fields.pop("length", CableElement.model_fields["length"].default)
        for end in "AB":
            retracted = self.cable_constant(e, f"RetractedLength{end}")
            if retracted is None:
                continue
            length -= retracted[0]
            if not length > 0.0:
                raise self.fail(
                    *retracted[1],
                    f"leaves {number_text(length)} m of the {name!r}'s cableLength "
                    "unstretched; cableLength − RetractedLengthA − RetractedLengthB must be > 0",
                )
        speeds = {}
        for end in "AB":
            got = self.cable_constant(e, f"RetractedSpeed{end}")
            # FhSim's retraction speed hauls the line in; the model pays it out
            speeds[end] = (0.0 - got[0], got[1]) if got is not None else None
        spec: dict[str, Any] = {"kind": "cable", **e.fields, "length": length}
        points = {end: spec.pop(f"point_{end.lower()}", None) for end in "AB"}
        # the model's own end (body, point) is on a body: end A, else end B (ends swapped)
        first, second = ("A", "B") if a_body is not None else ("B", "A")
        body, _, where = ends[0] if a_body is not None else ends[1]
        other, other_at, other_where = ends[1] if a_body is not None else ends[0]
        assert body is not None
        spec["body"] = body
        point = points[first] if points[first] is not None else (0.0, 0.0, 0.0)
        spec["point"] = point
        self.cable_wires(name, e, first, body, point, where)
        if other is None:
            spec["to"] = other_at
            e.located["to"] = other_where
            if points[second] is not None:
                raise self.fail(
                    e.node,
                    f"Point{second}",
                    f"a point on end {second}'s body, but {name}.Position{second} is a world point",
                )
            self.cable_wires(name, e, second, None, (0.0, 0.0, 0.0), other_where)
        else:
            other_point = points[second] if points[second] is not None else (0.0, 0.0, 0.0)
            spec["to"] = {"body": other, "point": other_point}
            e.located["to"] = other_where
            self.cable_wires(name, e, second, other, other_point, other_where)
        for field, end in (("pay_out_speed", first), ("pay_out_speed_b", second)):
            speed = speeds[end]
            if speed is not None:
                spec[field] = speed[0]
                e.located[field] = speed[1]
        e.origin.update({"point": f"Point{first}"})
        return spec

    def cable_end(
        self, name: str, e: ElementLib, end: str
    ) -> tuple[str | None, tuple[float, ...] | None, Where]:
        """End `end` ("A", "B"): (its body, None) or (None, its world point), and where it is
        given; VelocityA/B checked against it."""
        assert e.inputs is not None
        port = f"Position{end}"
        if port not in e.inputs:
            raise self.fail(
                e.node,
                None,
                f"{name}.{port} is not wired: an end is on a body "
                f'(<Connection {name}.{port}="Buoy.Pos"/>) or at a world point '
                f'({name}.{port}="0,0,-10")',
            )
        node, attr = e.inputs[port]
        text = node.attrib[attr]
        ref = PORT_REF.fullmatch(text)
        body: str | None = None
        at: tuple[float, ...] | None = None
        if ref is None:
            at = self.numbers(node, attr, 3)
        elif ref.group(1) in self.body_specs and ref.group(2) == "Pos":
            body = ref.group(1)
        else:
            raise self.fail(
                node,
                attr,
                f"expected a body's output Pos (e.g. {next(iter(self.body_specs))}.Pos) or a "
                f"world point 'x,y,z' (NED, m), got {text.strip()!r}",
            )
        velocity = e.inputs.get(f"Velocity{end}")
        if velocity is not None:
            v_node, v_attr = velocity
            v_text = v_node.attrib[v_attr]
            v_ref = PORT_REF.fullmatch(v_text)
            if body is not None and (v_ref is None or v_ref.groups() != (body, "Vel")):
                raise self.fail(
                    v_node,
                    v_attr,
                    f"expected {body}.Vel, the velocity of the body {name}.{port} names; "
                    f"got {v_text.strip()!r}",
                )
            if body is None:
                if v_ref is not None:
                    raise self.fail(
                        v_node,
                        v_attr,
                        f"end {end} is fixed at a world point ({name}.{port}); its velocity "
                        f"is 0,0,0, got {v_text.strip()!r}",
                    )
                if any(self.numbers(v_node, v_attr, 3)):
                    raise self.fail(
                        v_node,
                        v_attr,
                        f"end {end} is fixed at a world point ({name}.{port}); its velocity "
                        "is 0,0,0 (a moving end is on a body: Position and Velocity from it)",
                    )
        return body, at, (node, attr)

    def cable_constant(self, e: ElementLib, port: str) -> tuple[float, Where] | None:
        """A RetractedLength/RetractedSpeed input: a constant number, or None if not given."""
        assert e.inputs is not None
        if port not in e.inputs:
            return None
        node, attr = e.inputs[port]
        text = node.attrib[attr]
        if PORT_REF.fullmatch(text):
            unit = "m" if "Length" in port else "m/s"
            raise self.fail(
                node,
                attr,
                f"{text.strip()!r} is another object's output; sixdof takes constant numbers "
                f"here (a number, {unit})",
            )
        return self.numbers(node, attr, 1)[0], (node, attr)

    def cable_wires(
        self,
        name: str,
        e: ElementLib,
        end: str,
        body: str | None,
        point: tuple[float, ...],
        where: Where,
    ) -> None:
        """ForceA/B (and MomentA/B) drive the body PositionA/B names, or nothing at a world
        point; MomentA/B may be left out only where the point is the body's CG."""
        force, moment = f"Force{end}", f"Moment{end}"
        f, m = e.wires.get(force), e.wires.get(moment)
        if body is None:
            for wired, port in ((f, force), (m, moment)):
                if wired is not None:
                    raise self.fail(
                        wired[1],
                        wired[2],
                        f"{name}.{port} drives {wired[0]!r}, but end {end} is fixed at a world "
                        f"point ({name}.Position{end}); wire {name}.Position{end} to "
                        f"{wired[0]}.Pos for an end on that body",
                    )
            return
        if f is None:
            raise self.fail(
                *where,
                f"{name}.{force} is not wired: the cable pulls {body!r}, the body "
                f'{name}.Position{end} names (<Connection {body}.Force="{name}.{force}"/>)',
            )
        for wired, port, does in ((f, force, "pulls"), (m, moment, "turns")):
            if wired is not None and wired[0] != body:
                raise self.fail(
                    wired[1],
                    wired[2],
                    f"{name}.{port} drives {wired[0]!r} but {name}.Position{end} names "
                    f"{body!r}; an end {does} the body it is on",
                )
        if m is None:
            cg = self.body_specs[body].CGOffset
            if tuple(point) != tuple(cg):
                raise self.fail(
                    f[1],
                    f[2],
                    f"{name}.{moment} is not wired: end {end}'s point "
                    f"{vector_text(tuple(point))} is not {body!r}'s CG "
                    f"({vector_text(tuple(cg))}), so the line turns it "
                    f'(<Connection {body}.Moment="{name}.{moment}"/>)',
                )

    # -- Math/LinearSystem ----------------------------------------------------------------
