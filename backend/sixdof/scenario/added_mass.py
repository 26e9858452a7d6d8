"""M + M_A must be positive definite: the check of a body's added mass against its own mass.

An added-mass element is checked alone for its range and symmetry (elements.py); only with
the body does it show whether the kernels can use it. They solve with (M_RB + M_A)⁻¹
(dynamics.kernel.pack): a singular sum stops the room with numpy's LinAlgError, naming no
field, and a sum with a negative eigenvalue runs on silently, its body accelerating against
the force along that direction. So the sum is checked wherever added mass can meet a body:
a scenario's validation, a live `set_elements`, and a `set_params` that changes the mass,
inertia or CG of a body that has added mass (simulation/changes.py).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from ..fields import FieldError
from .elements import AddedMassElement, ElementSpec
from .kinds.radiation import RadiationElement

if TYPE_CHECKING:
    from ..dynamics.params import BodyParams

#: The smallest eigenvalue of M + M_A, relative to its largest, that counts as positive: a
#: sum this close to singular would be inverted into numbers of ~1e12 times the body's
#: (a Cholesky factorisation alone accepts it and the run blows up instead).
RELATIVE_FLOOR = 1e-12


class MassiveBody(Protocol):
    """What the check reads of a body (model.BodySpec)."""

    Name: str

    def params(self) -> BodyParams: ...


def check_added_mass(elements: Sequence[ElementSpec], bodies: Sequence[MassiveBody]) -> None:
    """FieldError naming the added-mass element (`elements[2].diagonal` or `.matrix`) of a
    body whose M_RB + ΣM_A is not positive definite, with its smallest eigenvalue. Bodies
    without added mass, and unknown bodies (check_elements names those), are not looked at.
    """
    found = not_definite(elements, bodies)
    if found is not None:
        where, name, low = found
        raise FieldError(
            where,
            "invalid",
            f"{where}: M + M_A of body {name!r} (its 6×6 rigid-body mass matrix about Pos "
            f"plus its added mass) must be positive definite; its smallest eigenvalue is "
            f"{low:.4g}",
        )


def not_definite(
    elements: Sequence[ElementSpec], bodies: Sequence[MassiveBody]
) -> tuple[str, str, float] | None:
    """(where: the field of the body's last added-mass element, the body's Name, the
    smallest eigenvalue of M + M_A) of the first body whose sum is not positive definite;
    None if every one is."""
    last: dict[str, int] = {}  # body -> index of its last element with added mass
    for k, e in enumerate(elements):
        if _added(e) is not None:
            last[e.body] = k
    if not last:
        return None
    import numpy as np

    by_name = {b.Name: b for b in bodies}
    for name, k in last.items():
        body = by_name.get(name)
        if body is None:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # an impossible inertia: warned at validation
            total = np.array(body.params().mass_matrix, dtype=float)
        for e in elements:
            added = _added(e)
            if added is not None and e.body == name:
                total += np.asarray(added[0], dtype=float)
        low = smallest_eigenvalue(total)
        if low is not None:
            found = _added(elements[k])
            assert found is not None
            return f"elements[{k}].{found[1]}", name, low
    return None


def _added(e: ElementSpec) -> tuple[object, str] | None:
    """(the added mass an element gives its body, the field that gives it), or None: an
    added mass's matrix or diagonal, a radiation's A∞ (`fit.infinite`)."""
    if isinstance(e, AddedMassElement):
        return e.values(), "matrix" if e.matrix is not None else "diagonal"
    if isinstance(e, RadiationElement) and e.fit is not None:
        return e.fit.infinite, "fit.infinite"
    return None


def smallest_eigenvalue(matrix: object) -> float | None:
    """None if the symmetric `matrix` is positive definite (Cholesky, and no eigenvalue
    below RELATIVE_FLOOR of the largest), else its smallest eigenvalue."""
    import numpy as np

    m = np.asarray(matrix, dtype=float)
    m = 0.5 * (m + m.T)
    values = np.linalg.eigvalsh(m)
    try:
        np.linalg.cholesky(m)
    except np.linalg.LinAlgError:
        return float(values[0])
    if values[0] <= RELATIVE_FLOOR * abs(float(values[-1])):
        return float(values[0])
    return None
