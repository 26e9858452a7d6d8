"""FhSim's ``Math/LinearSystem`` as fhsim_xml_lines reads it: its ``In``, a list of one
body's signals, and its ``Out``, wired to that body's Force, Moment or both, into a
`linear_system` `controller` (fhsim_xml_lines' docstring describes the format)."""

from __future__ import annotations

from typing import Any

from .fhsim_xml_elements import ElementLib, ElementReading
from .kinds.controller import CHANNELS, SIGNALS
from .model import BodySpec

#: Whole vector outputs of a body a linear system's In may name (Barge.Pos: Pos.x, .y, .z).
VECTORS = tuple(dict.fromkeys(s.split(".")[0] for s in SIGNALS if "." in s))


class LinearSystemReading(ElementReading):
    """The reader's part for a Math/LinearSystem's wiring."""

    #: The bodies by Name, once read (a cable's MomentA may be left out at the CG).
    body_specs: dict[str, BodySpec]

    def linear_spec(self, name: str, e: ElementLib) -> dict[str, Any]:
        """The `linear_system` controller of a Math/LinearSystem: In, the body's signals;
        Out, wired to the body's Force, Moment or both (3, 3 or 6 rows of C and D)."""
        assert e.inputs is not None
        f, m = e.wires.get("Out.Force"), e.wires.get("Out.Moment")
        if f is None and m is None:
            raise self.fail(
                e.node,
                None,
                "not connected: wire its output Out to the body it acts on, e.g. "
                f'<Connection B.Force="{name}.Out" B.Moment="{name}.Out"/>',
            )
        if f is not None and m is not None and f[0] != m[0]:
            raise self.fail(
                m[1],
                m[2],
                f"{name}.Out drives {f[0]!r}'s Force and {m[0]!r}'s Moment; a linear system "
                "acts on one body",
            )
        body = (f or m)[0]  # type: ignore[index]  # one of them is wired
        outputs = (CHANNELS[:3] if f is not None else ()) + (CHANNELS[3:] if m is not None else ())
        inputs = self.linear_inputs(name, e, body)
        wired = " and ".join(
            f"{body}.{port}" for port, w in (("Force", f), ("Moment", m)) if w is not None
        )
        for matrix in ("C", "D"):
            rows = e.fields.get(matrix)
            if rows is not None and len(rows) != len(outputs):
                raise self.fail(
                    e.node,
                    matrix,
                    f"{len(rows)} row{'s' * (len(rows) != 1)}, but {name}.Out drives {wired}: "
                    f"expected {len(outputs)} rows ({', '.join(outputs)})",
                )
        return {
            "kind": "controller",
            "body": body,
            "type": "linear_system",
            "inputs": inputs,
            "outputs": list(outputs),
            **e.fields,
        }

    def linear_inputs(self, name: str, e: ElementLib, body: str) -> list[str]:
        """The signals In names ("Barge.Pos.x, Barge.Pitch", "Barge.Pos"), all of `body`."""
        assert e.inputs is not None
        if "In" not in e.inputs:
            return []
        node, attr = e.inputs["In"]
        signals: list[str] = []
        for item in (i.strip() for i in node.attrib[attr].split(",")):
            if not item:
                continue
            source, dot, signal = item.partition(".")
            if not dot or source not in self.body_specs:
                raise self.fail(
                    node,
                    attr,
                    f"{item!r}: expected a body's output Body.Signal (e.g. {body}.Pos.x, "
                    f"{body}.Pitch) or a whole vector ({body}.Pos), comma-separated",
                )
            if signal in SIGNALS:
                names = [signal]
            elif signal in VECTORS:
                names = [s for s in SIGNALS if s.startswith(f"{signal}.")]
            else:
                raise self.fail(
                    node,
                    attr,
                    f"{item!r}: {signal!r} is not an output sixdof reads; known: "
                    f"{', '.join(SIGNALS)}, or a whole vector ({', '.join(VECTORS)})",
                )
            if source != body:
                raise self.fail(
                    node,
                    attr,
                    f"{item!r} reads {source!r} but {name}.Out drives {body!r}; in sixdof a "
                    "linear system reads the body it acts on",
                )
            signals.extend(names)
        return signals
