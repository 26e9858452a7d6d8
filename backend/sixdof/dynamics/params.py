"""Body parameters: validated on construction, stacked into batches.

`BodyParams` describes one body with the quantities of DESIGN.md sections 1–3:
mass m, the inertia tensor about the CG in body axes I_g, the CG's position
relative to the reference point o in body axes r_g, gravity g (along +z of
NED) and the model (`full` Newton–Euler or `fhsim`, which drops the Coriolis
and gyroscopic terms). `Bodies` holds N of them as arrays with a leading axis
and the derived matrices the derivative needs (I_o, M_RB and its inverse), so
the hot path never loops over bodies in Python.
"""

from __future__ import annotations

import math
import sys
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from types import FrameType

import numpy as np

from ..fields import FieldError
from .names import MODELS, ImpossibleInertiaWarning, Model
from .quaternion import Array, skew

DEFAULT_GRAVITY = 9.81


def _refused(field: str, message: str) -> FieldError:
    """A body parameter out of its allowed range, as the one FieldError."""
    return FieldError(field, "out_of_range", f"{field}: {message}")


def _vector(value: Sequence[float] | Array, width: int, name: str) -> Array:
    arr = np.asarray(value, dtype=float)
    if arr.shape != (width,):
        raise _refused(name, f"expected {width} numbers, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise _refused(name, f"all {width} values must be finite numbers, got {arr.tolist()}")
    return arr


def _finite_scalar(value: float, name: str) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise _refused(name, f"expected a number, got {value!r}") from None
    if not math.isfinite(x):
        raise _refused(name, f"must be a finite number, got {value!r}")
    return x


def _positive_mass(value: float) -> float:
    try:
        mass = float(value)
    except (TypeError, ValueError):
        raise _refused("Mass", f"expected a number > 0 kg, got {value!r}") from None
    if not (math.isfinite(mass) and mass > 0.0):
        raise _refused("Mass", f"must be a finite number > 0 kg, got {value!r}")
    return mass


def _caller_stacklevel() -> int:
    """The stacklevel of the first frame outside this module (and dataclass-made __init__).

    So an ImpossibleInertiaWarning points at the user's line, whether the body was built by
    BodyParams(...), from_radii, from_inertia or replace.
    """
    frame: FrameType | None = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_code.co_filename in (__file__, "<string>"):
        frame = frame.f_back
        level += 1
    return level


def inertia_from_radii(mass: float, radii: Sequence[float] | Array) -> Array:
    """I_g = diag(m rx², m ry², m rz²) from FhSim's InertiaRadi (radii of gyration, m)."""
    r = _vector(radii, 3, "InertiaRadi")
    if np.any(r <= 0.0):
        raise _refused("InertiaRadi", f"each radius must be > 0 m, got {r.tolist()}")
    return np.diag(mass * r**2)


def inertia_from_entries(entries: Sequence[float] | Array) -> Array:
    """The symmetric tensor of (Ixx, Iyy, Izz, Ixy, Ixz, Iyz), the tensor's own entries."""
    ixx, iyy, izz, ixy, ixz, iyz = _vector(entries, 6, "Inertia")
    return np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])


def inertia_entries(inertia: Array) -> tuple[float, float, float, float, float, float]:
    """Inverse of `inertia_from_entries`."""
    i = np.asarray(inertia, dtype=float)
    return (i[0, 0], i[1, 1], i[2, 2], i[0, 1], i[0, 2], i[1, 2])


@dataclass(frozen=True)
class BodyParams:
    """One rigid body. Construct with `from_radii` or `from_inertia` for FhSim's inputs."""

    mass: float
    inertia_cg: Array
    r_cg_body: Array = field(default_factory=lambda: np.zeros(3))
    gravity: float = DEFAULT_GRAVITY
    model: Model = "full"

    def __post_init__(self) -> None:
        object.__setattr__(self, "mass", _positive_mass(self.mass))
        inertia = np.asarray(self.inertia_cg, dtype=float)
        if inertia.shape != (3, 3):
            raise _refused("Inertia", f"expected a 3×3 tensor, got shape {inertia.shape}")
        if not np.all(np.isfinite(inertia)):
            raise _refused("Inertia", "all entries must be finite numbers")
        if not np.allclose(inertia, inertia.T, rtol=1e-12, atol=0.0):
            raise _refused(
                "Inertia",
                "the tensor must be symmetric (entry ij equal to entry ji), got a largest "
                f"difference of {np.max(np.abs(inertia - inertia.T)):g} kg·m²",
            )
        inertia = 0.5 * (inertia + inertia.T)
        principal = np.linalg.eigvalsh(inertia)
        if principal[0] <= 0.0:
            raise _refused(
                "Inertia",
                "the tensor must be positive definite (all principal moments > 0 kg·m²), "
                f"got principal moments {principal.tolist()}",
            )
        a, b, c = principal
        if a + b < c * (1.0 - 1e-12):
            warnings.warn(
                f"Inertia: principal moments {principal.tolist()} break the triangle "
                f"inequality ({a:.6g} + {b:.6g} < {c:.6g}); no real body has them, "
                "but FhSim accepts them, so the run goes on",
                ImpossibleInertiaWarning,
                stacklevel=_caller_stacklevel(),
            )
        inertia.setflags(write=False)
        object.__setattr__(self, "inertia_cg", inertia)
        r_cg = _vector(self.r_cg_body, 3, "CGOffset")
        r_cg.setflags(write=False)
        object.__setattr__(self, "r_cg_body", r_cg)
        object.__setattr__(self, "gravity", _finite_scalar(self.gravity, "Gravity"))
        if self.model not in MODELS:
            raise _refused("model", f"must be one of {list(MODELS)}, got {self.model!r}")

    @classmethod
    def from_radii(
        cls,
        mass: float,
        radii: Sequence[float] | Array,
        *,
        r_cg_body: Sequence[float] | Array = (0.0, 0.0, 0.0),
        gravity: float = DEFAULT_GRAVITY,
        model: Model = "full",
    ) -> BodyParams:
        mass_f = _positive_mass(mass)
        return cls(mass_f, inertia_from_radii(mass_f, radii), np.asarray(r_cg_body, float),
                   gravity, model)  # fmt: skip

    @classmethod
    def from_inertia(
        cls,
        mass: float,
        entries: Sequence[float] | Array,
        *,
        r_cg_body: Sequence[float] | Array = (0.0, 0.0, 0.0),
        gravity: float = DEFAULT_GRAVITY,
        model: Model = "full",
    ) -> BodyParams:
        return cls(mass, inertia_from_entries(entries), np.asarray(r_cg_body, float),
                   gravity, model)  # fmt: skip

    @property
    def coriolis(self) -> bool:
        return self.model == "full"

    @property
    def inertia_o(self) -> Array:
        """I_o = I_g − m S(r_g)², the inertia about the reference point (parallel axes)."""
        s = skew(self.r_cg_body)
        return self.inertia_cg - self.mass * s @ s

    @property
    def mass_matrix(self) -> Array:
        """M_RB = [[m E, −m S(r_g)], [m S(r_g), I_o]] (DESIGN.md section 3), 6×6."""
        s = skew(self.r_cg_body)
        m = self.mass
        return np.block([[m * np.eye(3), -m * s], [m * s, self.inertia_o]])

    def replace(self, **changes: object) -> BodyParams:
        """A new, validated BodyParams with some fields changed."""
        values = {
            "mass": self.mass,
            "inertia_cg": self.inertia_cg,
            "r_cg_body": self.r_cg_body,
            "gravity": self.gravity,
            "model": self.model,
        }
        values.update(changes)
        return BodyParams(**values)  # type: ignore[arg-type]  # values: this class's own fields


@dataclass(frozen=True)
class Bodies:
    """N bodies as arrays with a leading axis, plus the matrices the derivative needs.

    Shapes: mass (N,), inertia_cg (N,3,3), r_cg_body (N,3), gravity (N,),
    coriolis (N,) as 1.0 for `full` and 0.0 for `fhsim`, inertia_o (N,3,3),
    mass_matrix and mass_matrix_inv (N,6,6).
    """

    mass: Array
    inertia_cg: Array
    r_cg_body: Array
    gravity: Array
    coriolis: Array
    inertia_o: Array
    mass_matrix: Array
    mass_matrix_inv: Array

    @classmethod
    def of(cls, params: BodyParams | Sequence[BodyParams]) -> Bodies:
        items = [params] if isinstance(params, BodyParams) else list(params)
        if not items:
            raise ValueError("at least one body is needed")
        mass_matrix = np.stack([p.mass_matrix for p in items])
        return cls(
            mass=np.array([p.mass for p in items]),
            inertia_cg=np.stack([p.inertia_cg for p in items]),
            r_cg_body=np.stack([p.r_cg_body for p in items]),
            gravity=np.array([p.gravity for p in items]),
            coriolis=np.array([1.0 if p.coriolis else 0.0 for p in items]),
            inertia_o=np.stack([p.inertia_o for p in items]),
            mass_matrix=mass_matrix,
            mass_matrix_inv=np.linalg.inv(mass_matrix).astype(np.float64),
        )

    def __len__(self) -> int:
        return int(self.mass.shape[0])

    def take(self, index: Array | slice) -> Bodies:
        """The bodies at `index` (an index array or a slice), as a new batch."""
        return Bodies(**{f.name: getattr(self, f.name)[index] for f in fields(Bodies)})
