"""The water and the elements that feel it, in FhSim XML (issue 28; docs/fhsim.md "Water").

The scenario's one water is a SimObject of our library ``sixdof``, parameters as
attributes; its wave components are three comma-separated lists of equal length, one
number per component (absent: still water; ``Depth`` absent: deep water):

    <Lib LibName="sixdof" SimObject="Environment/Water" Name="Sea" Density="1025" Level="0"
         Current="0.4,0.3,0" WaveAmplitude="0.5,0.2" WavePeriod="6,3.5" WaveDirection="0,90"
         Depth="30"/>

An element that feels the water (``Element/Buoyancy``, ``Element/Damper``) has an input
``Water``, wired from the water's output ``Water`` beside its Force and Moment:

    <Connection Hull.Force="Float.Force" Hull.Moment="Float.Moment" Float.Water="Sea.Water"/>

When a file has a water, every buoyancy and damper is wired to it (each feels the one water,
as in the Scenario JSON, and the file says so); without one a buoyancy floats in still sea
water (1025 kg/m³, level 0) and a damper acts on the velocity itself, as JSON without
``"water"`` does. Every number is checked by `WaterSpec` against `sixdof.fields.LIMITS`;
errors name the Lib and the attribute.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from .errors import first_error, reason
from .fhsim_xml_errors import LocatedReading
from .file_errors import ScenarioFileError
from .kinds import BY_NAME, KIND_TABLE
from .water import MAX_WAVES, WaterSpec
from .xml_tree import XmlNode

#: SimObject of the water, its output port (also the input port of the elements that feel it).
WATER_OBJECT = "Environment/Water"
WATER_PORT = "Water"
#: Name the writer gives the water (Sea1, Sea2, ... when a body or element has it).
WATER_NAME = "Sea"
#: Element kinds with an input Water: they feel the water (its surface, its current).
WATER_KINDS = tuple(k.name for k in KIND_TABLE if k.water is not None)
#: The water's single-valued attributes: XML name -> (WaterSpec field, width).
WATER_NUMBERS: dict[str, tuple[str, int]] = {
    "Density": ("density", 1),
    "Level": ("level", 1),
    "Current": ("current", 3),
    "Depth": ("depth", 1),
}
#: The wave lists, one number per component: XML name -> WaveSpec field.
WAVE_LISTS: dict[str, str] = {
    "WaveAmplitude": "amplitude",
    "WavePeriod": "period",
    "WaveDirection": "direction",
}
WATER_ATTRIBUTES = ("LibName", "SimObject", "Name", *WATER_NUMBERS, *WAVE_LISTS)
_FIELD_ATTR = {field: attr for attr, (field, _) in WATER_NUMBERS.items()} | {
    field: attr for attr, field in WAVE_LISTS.items()
}
_EXAMPLE = f'Float.{WATER_PORT}="{WATER_NAME}.{WATER_PORT}"'


class WaterLib:
    """The water's Lib as read: its node, Name, fields and the element inputs wired to it."""

    def __init__(self, node: XmlNode, name: str) -> None:
        self.node = node
        self.name = name
        self.fields: dict[str, Any] = {}
        self.waves: dict[str, tuple[float, ...]] = {}
        self.wires: dict[str, tuple[XmlNode, str]] = {}


class WaterReading(LocatedReading):
    """The reader's part for the water (a base of fhsim_xml._Reader)."""

    water: WaterLib | None = None

    def water_lib(self, node: XmlNode, name: str) -> None:
        """The water's Lib: its numbers (width checked here, ranges in `water_spec`)."""
        if self.water is not None:
            raise self.fail(
                node,
                "SimObject",
                f"a second water; a scenario has one water (the first, {self.water.name!r}, "
                f"is on line {self.water.node.line})",
            )
        water = WaterLib(node, name)
        for attr in node.attrib:
            if attr in WATER_NUMBERS:
                field, width = WATER_NUMBERS[attr]
                values = self.numbers(node, attr, width)
                water.fields[field] = values[0] if width == 1 else values
            elif attr in WAVE_LISTS:
                water.waves[attr] = self.wave_list(node, attr)
            elif attr not in WATER_ATTRIBUTES:
                self.warn(
                    node,
                    attr,
                    f"unknown attribute of {WATER_OBJECT}, ignored (known: "
                    f"{', '.join(WATER_ATTRIBUTES)})",
                )
        self.water = water

    def water_density(self) -> float:
        """The water's Density as given (kg/m³), 1025 without one (WaterSpec's default); one
        out of range is refused by `water_spec`."""
        given = None if self.water is None else self.water.fields.get("density")
        if isinstance(given, float | int) and 0 < given < float("inf"):
            return float(given)
        return 1025.0

    def wave_list(self, node: XmlNode, attr: str) -> tuple[float, ...]:
        """One number per wave component, at most MAX_WAVES."""
        text = node.attrib[attr]
        if not text.strip():
            raise self.fail(
                node,
                attr,
                "expected one number per wave component, got nothing; leave WaveAmplitude, "
                "WavePeriod and WaveDirection out for still water",
            )
        count = len(text.split(","))
        if count > MAX_WAVES:
            raise self.fail(
                node, attr, f"at most {MAX_WAVES} wave components (numbers), got {count}"
            )
        return tuple(self.numbers(node, attr, count))

    def water_input(
        self,
        node: XmlNode,
        attr: str,
        name: str,
        kind: str,
        sim_object: str,
        ref: tuple[str, str] | None,
    ) -> None:
        """Element.Water="Sea.Water" (`ref`: the value as (Name, Port), None if it is not a
        port): element `name` (`kind`, written `sim_object`) feels the water."""
        if kind not in WATER_KINDS:
            raise self.fail(
                node,
                attr,
                f"{name!r} ({sim_object}) has no input {WATER_PORT}; only "
                + " and ".join(sorted(k.xml_object for k in KIND_TABLE if k.water is not None))
                + " are wired to the water",
            )
        water = self.water
        if ref is None:
            expected = water.name if water is not None else WATER_NAME
            raise self.fail(
                node,
                attr,
                f"expected the water's output, {name}.{WATER_PORT}="
                f'"{expected}.{WATER_PORT}", got {node.attrib[attr]!r}',
            )
        source, output = ref
        if water is None or source != water.name:
            there = (
                f"the water is {water.name!r}"
                if water is not None
                else f'there is no <Lib SimObject="{WATER_OBJECT}"> in <OBJECTS>'
            )
            raise self.fail(node, attr, f"{source!r} is not the water; {there}")
        if output != WATER_PORT:
            raise self.fail(
                node,
                attr,
                f"{output!r} is not an output port of {WATER_OBJECT} {source!r}; "
                f"expected {WATER_PORT}",
            )
        if name in water.wires:
            first, first_attr = water.wires[name]
            raise self.fail(
                node,
                attr,
                f"{name}.{WATER_PORT} is wired twice (first on line {first.line_of(first_attr)})",
            )
        water.wires[name] = (node, attr)

    def water_ports(self, node: XmlNode, attr: str) -> ScenarioFileError:
        """The error for Sea.Port="..." in a Connection or an InitialCondition."""
        name = self.water.name if self.water is not None else WATER_NAME
        return self.fail(
            node,
            attr,
            f"{name!r} is the water ({WATER_OBJECT}): it has no inputs or states; its output "
            f"{WATER_PORT} is wired to an element's input, e.g. Float.{WATER_PORT}=\"{name}."
            f'{WATER_PORT}"',
        )

    def check_water_wire(self, name: str, kind: str, node: XmlNode) -> None:
        """With a water in the file, every buoyancy and damper is wired to it."""
        if self.water is None or kind not in WATER_KINDS or name in self.water.wires:
            return
        feels = BY_NAME[kind].water
        raise self.fail(
            node,
            None,
            f"not wired to the water {self.water.name!r}: with a water in the file every "
            f"{kind} is wired to it ({feels}); wire it, e.g. <Connection "
            f'{name}.{WATER_PORT}="{self.water.name}.{WATER_PORT}"/>',
        )

    def water_spec(self) -> WaterSpec | None:
        """The water's WaterSpec, checked against the limits (errors name the attribute)."""
        water = self.water
        if water is None:
            return None
        node = water.node
        lists = water.waves
        if lists:
            counts = {attr: len(values) for attr, values in lists.items()}
            first, n = next(iter(counts.items()))
            for attr in WAVE_LISTS:
                if attr == "WaveDirection" and attr not in lists:
                    continue  # every component travels north
                if attr not in lists:
                    raise self.fail(
                        node,
                        attr,
                        f"missing; {first} gives {n} wave component{'s' * (n != 1)}: give "
                        "WaveAmplitude (m) and WavePeriod (s), and WaveDirection (degrees, "
                        "default 0), one number per component in each",
                    )
                if counts[attr] != n:
                    raise self.fail(
                        node,
                        attr,
                        f"{counts[attr]} value{'s' * (counts[attr] != 1)} but {first} has {n}; "
                        "give one number per wave component in each of WaveAmplitude, "
                        "WavePeriod and WaveDirection",
                    )
            fields = [WAVE_LISTS[attr] for attr in lists]
            waves = [
                dict(zip(fields, values, strict=True))
                for values in zip(*lists.values(), strict=True)
            ]
            water.fields["waves"] = waves
        try:
            return WaterSpec.model_validate(water.fields)
        except ValidationError as exc:
            err = first_error(exc)
            loc = tuple(err["loc"])
            field = str(loc[0]) if loc else ""
            if field == "waves" and len(loc) >= 3:
                named = _FIELD_ATTR.get(str(loc[2]))
                text = f"wave component {loc[1]}: {reason(err)[1]}"
            else:
                named, text = _FIELD_ATTR.get(field), reason(err)[1]
            raise self.fail(node, named, text) from None


__all__ = [
    "WATER_ATTRIBUTES",
    "WATER_KINDS",
    "WATER_NAME",
    "WATER_NUMBERS",
    "WATER_OBJECT",
    "WATER_PORT",
    "WAVE_LISTS",
    "WaterLib",
    "WaterReading",
]
