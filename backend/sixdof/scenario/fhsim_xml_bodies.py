"""The bodies of an FhSim XML input file: a ``<Lib SimObject="Body/6DBody">`` read into
BodySpec fields, and the Names every Lib (body, element, water) is known by."""

from __future__ import annotations

import re
import warnings
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from ..dynamics.names import ImpossibleInertiaWarning
from .fhsim_xml_errors import reason_text
from .fhsim_xml_format import (
    ELEMENT_LIB_NAME,
    ELEMENT_OBJECTS,
    LIB_NAMES,
    LIB_NUMBERS,
    LIB_TEXT,
    SIM_OBJECT,
    Where,
)
from .fhsim_xml_water import WATER_OBJECT, WaterReading
from .file_errors import warn_at
from .model import BodySpec
from .xml_tree import XmlNode

#: The Libs read so far, by Name (bodies: their fields; elements: their `ElementLib`).
Named = Mapping[str, object]


class BodyReading(WaterReading):
    """The reader's part for the bodies and the Libs' Names."""

    def lib(
        self, node: XmlNode, bodies: Named, elements: Named
    ) -> tuple[str, dict[str, Any], dict[str, Where]]:
        attrib = node.attrib
        sim_object = attrib.get("SimObject")
        if sim_object != SIM_OBJECT:
            got = "missing" if sim_object is None else f"unknown SimObject {sim_object!r}"
            raise self.fail(
                node,
                "SimObject",
                f"{got}; expected {SIM_OBJECT!r} (a body), {WATER_OBJECT!r} (the water) or "
                "an element: "
                + ", ".join(repr(o) for o in ELEMENT_OBJECTS.values())
                + ", or FhSim's 'Cable' or 'Math/LinearSystem'",
            )
        if attrib.get("LibName") not in LIB_NAMES:
            names = " or ".join(repr(n) for n in LIB_NAMES)
            self.warn(
                node,
                "LibName",
                f"expected {names} (FhSim's base library, which holds "
                f"{SIM_OBJECT}), got {attrib.get('LibName')!r}; read as {SIM_OBJECT}",
            )
        # with InertiaFrom solid or shell the shape gives the inertia, and Density the mass
        shaped = attrib.get("InertiaFrom", "given").strip() != "given"
        needed = ("Name",) if shaped and "Density" in attrib else ("Name", "Mass")
        for required in needed:
            if required not in attrib:
                raise self.fail(
                    node,
                    required,
                    f"missing; every <Lib> needs {required} "
                    f"({'a unique body name' if required == 'Name' else 'kg, > 0'})",
                )
        if "InertiaRadi" not in attrib and "Inertia" not in attrib and not shaped:
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
            elif attr in ("Material", "Mesh", "MeshUnits", "InertiaFrom"):
                fields[attr] = text.strip() if attr in ("MeshUnits", "InertiaFrom") else text
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
        if "Mass" in fields and fields["Mass"] <= 0.0:
            raise self.fail(node, "Mass", f"must be a mass > 0 kg, got {attrib['Mass']!r}")
        return name, fields, origin

    def lib_name(
        self,
        node: XmlNode,
        bodies: Named,
        elements: Named,
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
        bodies: Named,
        elements: Named,
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

    def body(self, fields: dict[str, Any], origin: dict[str, Where]) -> BodySpec:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                spec = BodySpec(**fields)
            except ValidationError as exc:
                err = exc.errors()[0]
                node, attr = self.origin_of(err, origin, origin["Name"][0])
                raise self.fail(node, attr, reason_text(err)) from None
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
