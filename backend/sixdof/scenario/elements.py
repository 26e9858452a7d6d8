"""The scenario's elements: pivots, springs, dampers, the ground and timed loads, as JSON.

    "elements": [
      {"kind": "pivot",  "body": "Pendulum", "point": [0, 0, -0.5]},
      {"kind": "spring", "body": "A", "point": [0, 0, 0], "to": {"body": "B", "point": [0, 0, 0]},
       "stiffness": 100, "damping": 0.5, "rest_length": 1},
      {"kind": "damper", "body": "Hull", "linear": [6 numbers], "quadratic": [6 numbers]},
      {"kind": "ground", "body": "Ball", "height": 0, "restitution": 0.8, "friction": 0.3},
      {"kind": "load",   "body": "B", "force": [0, 0, -10], "signal": "sine", "frequency": 1},
      {"kind": "buoyancy", "body": "Hull"},
      {"kind": "added_mass", "body": "Hull", "diagonal": [6 numbers]}   # or "matrix": 6×6
    ]

Points on a body are body axes from its reference point (`Pos`); `to` as [x, y, z] and
`at`, `height` are NED (DESIGN.md section 8). Every number is checked against the one table
of limits (`sixdof.fields.LIMITS`). The equations are in `dynamics.elements`; here they are
described, checked against the scenario's bodies and turned into the dynamics' values.
Each kind is one module of `scenario.kinds` (its model, checks and build, its entry in the
registry); this module is what they have in common: the union of their models, the checks
every element has, and the loops over a scenario's elements.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Union

from pydantic import Field

from ..fields import FieldError
from .kind import BodyPoint, Building, Checking, ElementModel
from .kinds import BY_NAME, KIND_TABLE, KINDS
from .kinds.added_mass import AddedMassElement
from .kinds.buoyancy import BuoyancyElement
from .kinds.damper import DamperElement
from .kinds.ground import GROUND_MAX_STEP, GroundElement
from .kinds.load import MAX_TABLE_ROWS, LoadElement
from .kinds.pivot import PivotElement
from .kinds.spring import SpringElement
from .shapes import BodySpec, contact_shape, hull_triangles

if TYPE_CHECKING:
    import numpy as np

    from ..dynamics.elements import Element
    from .water import WaterSpec

    #: An element's spec: to the type checker, what every kind's model has.
    ElementSpec = ElementModel
else:
    #: An element's spec: one of the kinds' models, told apart by `kind`.
    models = tuple(k.model for k in KIND_TABLE)
    ElementSpec = Annotated[Union[models], Field(discriminator="kind")]  # noqa: UP007


def check_elements(
    elements: Sequence[ElementSpec], names: Sequence[str], method: str, step: float
) -> None:
    """FieldError for elements that do not fit the scenario: unknown bodies, and each kind's
    own checks (a spring from a body to itself, two pivots on one body, a ground with too
    large a step), and dopri5."""
    scene = Checking(names, elements, method, step)
    for k, e in enumerate(elements):
        if e.body not in names:
            raise FieldError(
                "body",
                "unknown_body",
                f"elements[{k}].body: no body named {e.body!r}; bodies are {list(names)}",
            )
        check = BY_NAME[e.kind].check
        if check is not None:
            check(e, k, scene)
    if elements and method == "dopri5":
        raise FieldError(
            "method",
            "invalid",
            "method: scenarios with elements run with euler, rk4 or radau; "
            "dopri5 steps free bodies only",
        )


def dynamics_elements(
    elements: Sequence[ElementSpec],
    bodies: Sequence[BodySpec],
    states: np.ndarray,
    water: WaterSpec | None = None,
) -> list[Element]:
    """The dynamics' elements of checked specs; a pivot without `at` is held where its point
    is in `states` (N, 13) (the initial state, or the live state when one is added). The
    water (default: still, 1025 kg/m³, level 0) acts through buoyancy and dampers."""
    from ..dynamics.water import Water

    sea = Water() if water is None else water.dynamics()
    ctx = Building({b.Name: i for i, b in enumerate(bodies)}, bodies, states, sea, elements)
    return [BY_NAME[e.kind].build(e, ctx) for e in elements]


__all__ = [
    "GROUND_MAX_STEP",
    "KINDS",
    "MAX_TABLE_ROWS",
    "AddedMassElement",
    "BodyPoint",
    "BodySpec",
    "BuoyancyElement",
    "DamperElement",
    "ElementSpec",
    "GroundElement",
    "LoadElement",
    "PivotElement",
    "SpringElement",
    "check_elements",
    "contact_shape",
    "dynamics_elements",
    "hull_triangles",
]
