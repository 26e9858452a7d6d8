"""Added mass: M_A joins the body's mass matrix, with C_A(ν) in the `full` model
(docs/physics.md)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import model_validator

from ...fields import FieldError
from ..bounded import Within
from ..kind import Building, ElementModel, Kind, XmlLib, XmlReader

if TYPE_CHECKING:
    from ...dynamics.elements import AddedMass

Row6 = tuple[
    Annotated[float, Within("added_mass")],
    Annotated[float, Within("added_mass")],
    Annotated[float, Within("added_mass")],
    Annotated[float, Within("added_mass")],
    Annotated[float, Within("added_mass")],
    Annotated[float, Within("added_mass")],
]


class AddedMassElement(ElementModel):
    """M_A, body axes about the reference point: `diagonal` (surge, sway, heave, roll, pitch,
    yaw) or a symmetric 6×6 `matrix`; it joins the mass matrix, with C_A(ν) in `full`."""

    kind: Literal["added_mass"]
    diagonal: Row6 | None = None
    matrix: tuple[Row6, Row6, Row6, Row6, Row6, Row6] | None = None

    @model_validator(mode="after")
    def _one(self) -> AddedMassElement:
        if (self.diagonal is None) == (self.matrix is None):
            raise FieldError(
                "diagonal", "invalid", "added_mass: give either diagonal (6) or matrix (6×6)"
            )
        m = self.values()
        for a in range(6):
            for b in range(a):
                if not math.isclose(m[a][b], m[b][a], rel_tol=1e-9, abs_tol=1e-12):
                    raise FieldError(
                        "matrix",
                        "invalid",
                        f"matrix: M_A must be symmetric, [{a}][{b}] = {m[a][b]:g} but "
                        f"[{b}][{a}] = {m[b][a]:g}",
                    )
        return self

    def values(self) -> tuple[tuple[float, ...], ...]:
        if self.matrix is not None:
            return tuple(tuple(r) for r in self.matrix)
        d = self.diagonal or (0.0,) * 6
        return tuple(tuple(d[a] if a == b else 0.0 for b in range(6)) for a in range(6))


def _build(e: AddedMassElement, ctx: Building) -> AddedMass:
    from ...dynamics.elements import AddedMass

    return AddedMass(ctx.index[e.body], e.values())


def _xml_read(reader: XmlReader, name: str, e: XmlLib, spec: dict[str, Any]) -> None:
    """Diagonal or Matrix, one of them (located at the attribute, not at the element)."""
    if ("diagonal" in e.fields) == ("matrix" in e.fields):
        raise reader.fail(
            e.node,
            "Matrix" if e.fields else "Diagonal",
            ("give Diagonal or Matrix, not both" if e.fields else "missing")
            + "; M_A is Diagonal (6 numbers: surge, sway, heave, roll, pitch, yaw) "
            "or Matrix (36 numbers, the symmetric 6×6 matrix row by row), body axes "
            "about Pos",
        )


KIND = Kind(
    name="added_mass",
    model=AddedMassElement,
    xml_object="Element/AddedMass",
    xml_attributes={"Diagonal": ("diagonal", 6), "Matrix": ("matrix", 36)},
    xml_read=_xml_read,
    build=_build,
    drawing="none",
    docs="physics.md#added-mass-and-the-munk-moment",
    example={"diagonal": (10.0, 20.0, 30.0, 1.0, 2.0, 3.0)},
)
