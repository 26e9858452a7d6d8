"""Radiation: a hull's memory of the waves it makes, fitted to BEM coefficients
(docs/physics.md, "Radiation memory from BEM coefficients").

In a scenario file, `file` names a Capytaine NetCDF next to it (`sixdof bem` writes one), or
a WAMIT `.1` (with its `.3` and `.hst` beside it, scaled by `wamit_length`: wamit_file.py);
reading the file fits the memory (dynamics/radiation_fit.py) and writes the fit into the
element (`fit`: A, B, C, D, A∞ and the fit's error), so a scenario sent to a server, shared
or recorded carries its memory whole and is never fitted again. A scenario with `fit` alone
(what a file becomes, or a preset) needs no file.

`"excitation": "bem"` takes the waves' force from the file's diffraction and Froude–Krylov
forces (the fit then carries them: `fit.excitation`) instead of the pressure of the
undisturbed waves over the clipped hull (`"pressure"`, the buoyancy element's); the body's
buoyancy then acts in still water. `"hydrostatics": "linear"` takes the body's buoyancy from
the file's stiffness (`fit.stiffness`; from the hull when the file has none) about its rest
instead of the clipped hull (`"nonlinear"`: a buoyancy element's): the body then has no
buoyancy element (dynamics/linear_hydrostatics.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field, model_validator

from ...fields import FieldError
from ..bounded import Within
from ..kind import Building, Checking, ElementModel, Kind, Strict, XmlLib, XmlReader

if TYPE_CHECKING:
    from ...dynamics.elements import Radiation

#: The most states a fitted memory may carry (A is n × n, evaluated at every stage).
MAX_STATES = 96
#: The most frequencies and headings a fit's excitation table carries.
MAX_FREQUENCIES = 400
MAX_HEADINGS = 36
#: The most pairs of degrees of freedom a fit realises (i ≤ j of six).
MAX_PAIRS = 21
Number = Annotated[float, Within("matrix")]
Matrix = list[list[Number]]
Dof = Annotated[int, Field(ge=0, le=5)]


class SamplesModel(Strict):
    """The file's A(ω) and B(ω) the memory was fitted to, for each pair of degrees of freedom
    it realises (`pairs`, i ≤ j; 0…5 surge, sway, heave, roll, pitch, yaw): what the page's
    Hydrodynamics card draws the fit against (GET /api/rooms/{room}/hydrodynamics)."""

    omega: list[Number] = Field(min_length=2, max_length=MAX_FREQUENCIES)
    pairs: list[tuple[Dof, Dof]] = Field(min_length=1, max_length=MAX_PAIRS)
    added_mass: list[list[Number]] = Field(description="per pair, per frequency")
    damping: list[list[Number]] = Field(description="per pair, per frequency")

    @model_validator(mode="after")
    def _shapes(self) -> SamplesModel:
        n, p = len(self.omega), len(self.pairs)
        if any(b <= a for a, b in zip(self.omega, self.omega[1:], strict=False)):
            raise FieldError("fit.samples.omega", "invalid", "fit.samples.omega: increasing")
        if any(i > j for i, j in self.pairs) or len(set(self.pairs)) != p:
            raise FieldError(
                "fit.samples.pairs", "invalid", "fit.samples.pairs: distinct pairs [i, j], i ≤ j"
            )
        for name in ("added_mass", "damping"):
            if len(getattr(self, name)) != p or any(len(r) != n for r in getattr(self, name)):
                raise FieldError(
                    f"fit.samples.{name}",
                    "invalid",
                    f"fit.samples.{name}: expected {p} × {n} (pairs × frequencies)",
                )
        return self


class ExcitationModel(Strict):
    """The file's wave force per metre of amplitude (diffraction + Froude–Krylov), body axes
    about the reference point, at `omega` (rad/s, increasing) × `headings` (degrees, the
    waves' direction of travel from the body's x toward its y, increasing) × the six degrees
    of freedom: `re`, `im` (Capytaine's phase: F(t) = Re(a X e^{−iωt}) for η = a cos ωt at
    the reference point)."""

    omega: list[Number] = Field(min_length=2, max_length=MAX_FREQUENCIES)
    headings: list[Number] = Field(min_length=1, max_length=MAX_HEADINGS)
    re: list[list[list[Number]]]
    im: list[list[list[Number]]]

    @model_validator(mode="after")
    def _shapes(self) -> ExcitationModel:
        n, h = len(self.omega), len(self.headings)
        if any(b <= a for a, b in zip(self.omega, self.omega[1:], strict=False)) or any(
            b <= a for a, b in zip(self.headings, self.headings[1:], strict=False)
        ):
            raise FieldError(
                "fit.excitation", "invalid", "fit.excitation: omega and headings increase"
            )
        for name in ("re", "im"):
            m = getattr(self, name)
            if len(m) != n or any(len(r) != h or any(len(c) != 6 for c in r) for r in m):
                raise FieldError(
                    f"fit.excitation.{name}",
                    "invalid",
                    f"fit.excitation.{name}: expected {n} × {h} × 6 (omega × headings × dofs)",
                )
        return self


class RadiationFitModel(Strict):
    """The fitted memory: ẋ = A x + B ν, μ = C x + D ν (body axes, about the reference
    point), A∞ (`infinite`), and how far its A(ω), B(ω) are from the file's (`error`,
    relative to the largest |K(jω)|)."""

    A: Matrix
    B: Matrix
    C: Matrix
    D: Matrix
    infinite: Matrix
    error: Annotated[float, Field(ge=0.0, le=1.0)] = 0.0
    extrapolated: bool = False
    excitation: ExcitationModel | None = None
    stiffness: Matrix | None = Field(
        None, description="the file's hydrostatic_stiffness, body axes (buoyancy and weight)"
    )
    samples: SamplesModel | None = Field(None, description="the file's A(ω), B(ω) it was fitted to")
    density: Annotated[float, Within("density")] | None = Field(
        None,
        description="kg/m³: the water the fit is for (a file's is fitted for the scenario's); "
        "in other water its added mass, memory and wave force scale by the ratio",
    )

    @model_validator(mode="after")
    def _shapes(self) -> RadiationFitModel:
        n = len(self.A)
        if not 1 <= n <= MAX_STATES:
            raise FieldError("fit.A", "invalid", f"fit.A: 1 to {MAX_STATES} states, got {n}")
        want = {"A": (n, n), "B": (n, 6), "C": (6, n), "D": (6, 6), "infinite": (6, 6)}
        for name, (rows, cols) in want.items():
            m = getattr(self, name)
            if len(m) != rows or any(len(r) != cols for r in m):
                raise FieldError(
                    f"fit.{name}", "invalid", f"fit.{name}: expected {rows}×{cols} ({n} states)"
                )
        if self.stiffness is not None and (
            len(self.stiffness) != 6 or any(len(r) != 6 for r in self.stiffness)
        ):
            raise FieldError("fit.stiffness", "invalid", "fit.stiffness: expected 6×6")
        return self


class RadiationElement(ElementModel):
    """The radiation memory of `body`'s hull: `file` (a BEM file next to the scenario file)
    or its `fit`; the waves' force and the hydrostatics from the same file when asked."""

    kind: Literal["radiation"]
    file: str | None = Field(
        None, max_length=255, description="a Capytaine NetCDF (.nc) or a WAMIT .1 file"
    )
    wamit_length: float = Field(
        1.0, ge=1e-3, le=1e4, description="m: WAMIT's ULEN, the length its .1/.3/.hst scale by"
    )
    fit: RadiationFitModel | None = None
    excitation: Literal["pressure", "bem"] = Field(
        "pressure", description="the waves' force: the pressure over the hull, or the file's"
    )
    hydrostatics: Literal["nonlinear", "linear"] = Field(
        "nonlinear", description="the clipped hull's buoyancy, or the file's stiffness"
    )

    @model_validator(mode="after")
    def _fitted(self) -> RadiationElement:
        if self.fit is None:
            raise FieldError(
                "file",
                "invalid",
                "radiation: give file (a BEM file next to a scenario file: it is fitted when "
                "the file is read) or fit (A, B, C, D, infinite)",
            )
        if self.excitation == "bem" and self.fit.excitation is None:
            raise FieldError(
                "excitation",
                "invalid",
                "radiation: excitation bem needs the file's diffraction_force and "
                "Froude_Krylov_force (fit.excitation); this one has none",
            )
        return self


def _check(e: RadiationElement, k: int, scene: Checking) -> None:
    """Its states step with the fixed-step kernels only; linear hydrostatics replace the
    body's buoyancy element, which it then may not have."""
    if scene.method not in ("euler", "rk4"):
        raise FieldError(
            "integrator",
            "invalid",
            f"elements[{k}]: a radiation memory's states step with euler or rk4, "
            f"not {scene.method}",
        )
    if e.hydrostatics == "linear":
        for j, other in enumerate(scene.elements):
            if other.kind == "buoyancy" and other.body == e.body:
                raise FieldError(
                    "hydrostatics",
                    "invalid",
                    f"elements[{k}]: hydrostatics linear is {e.body}'s buoyancy; remove its "
                    f"buoyancy element (elements[{j}]), or use hydrostatics nonlinear",
                )


def _build(e: RadiationElement, ctx: Building) -> Radiation:
    from ...dynamics.elements import Radiation

    assert e.fit is not None

    def rows(m: Matrix) -> tuple[tuple[float, ...], ...]:
        return tuple(tuple(r) for r in m)

    from ..radiation_water import hydrostatics_row, wave_rows

    f = fit_in_water(e.fit, ctx.sea.density)
    i = ctx.index[e.body]
    water = e if f is e.fit else e.model_copy(update={"fit": f})
    waves, headings = wave_rows(water, ctx.sea, ctx.bodies[i])
    return Radiation(
        i, rows(f.A), rows(f.B), rows(f.C), rows(f.D), rows(f.infinite),
        waves, headings, hydrostatics_row(e, ctx.sea, ctx.bodies[i]),
    )  # fmt: skip


def fit_in_water(fit: RadiationFitModel, density: float) -> RadiationFitModel:
    """`fit` in water of `density` (kg/m³) instead of its own: its A∞, its memory's output
    (C and D: K(jω) times the ratio, its poles unchanged), the file's samples and the waves'
    force scaled by density / fit.density (potential flow's pressure is ρ ∂φ/∂t, φ the same in
    any water); the stiffness kept (it holds the body's weight: radiation_water.check_water
    refuses it in other water). A fit that does not say its water, or is in its own, is
    returned as it is."""
    if fit.density is None or fit.density == density:
        return fit
    k = density / fit.density

    def times(m: Matrix) -> Matrix:
        return [[v * k for v in row] for row in m]

    update: dict[str, Any] = {
        "C": times(fit.C), "D": times(fit.D), "infinite": times(fit.infinite),
        "density": density,
    }  # fmt: skip
    if fit.samples is not None:
        s = fit.samples
        update["samples"] = s.model_copy(
            update={"added_mass": times(s.added_mass), "damping": times(s.damping)}
        )
    if fit.excitation is not None:
        x = fit.excitation
        update["excitation"] = x.model_copy(
            update={"re": [times(m) for m in x.re], "im": [times(m) for m in x.im]}
        )
    return fit.model_copy(update=update)


def _xml_read(reader: XmlReader, name: str, e: XmlLib, spec: dict[str, Any]) -> None:
    """File (a BEM file next to the input file) is fitted as it is read."""
    from ..radiation_files import fit_of, needs_fit

    if "file" not in spec or not needs_fit(spec):
        return
    data = reader.named_file(e.node, "File", str(spec["file"]))

    def beside(name: str) -> bytes | None:
        return reader.named_file_if_any(e.node, "File", name)

    try:
        spec["fit"] = fit_of(data, str(spec["file"]), spec, beside, reader.water_density())
    except FieldError as exc:
        raise reader.fail(e.node, "File", exc.message) from None


KIND = Kind(
    name="radiation",
    model=RadiationElement,
    xml_object="Element/Radiation",
    xml_attributes={
        "File": ("file", "text"),
        "A": ("fit.A", "matrix"),
        "B": ("fit.B", "matrix"),
        "C": ("fit.C", "matrix"),
        "D": ("fit.D", "matrix"),
        "Infinite": ("fit.infinite", "matrix"),
        "Error": ("fit.error", 1),
        "Density": ("fit.density", 1),
        "SampleOmega": ("fit.samples.omega", "list"),
        "SamplePairs": ("fit.samples.pairs", "matrix"),
        "SampleAddedMass": ("fit.samples.added_mass", "matrix"),
        "SampleDamping": ("fit.samples.damping", "matrix"),
        "Excitation": ("excitation", "text"),
        "Hydrostatics": ("hydrostatics", "text"),
        "WamitLength": ("wamit_length", 1),
    },
    xml_read=_xml_read,
    check=_check,
    build=_build,
    drawing="none",
    docs="physics.md#radiation-memory-from-bem-coefficients",
    example={
        "fit": {
            "A": [[-1.0]],
            "B": [[0.0, 0.0, 1.0, 0.0, 0.0, 0.0]],
            "C": [[0.0], [0.0], [1e4], [0.0], [0.0], [0.0]],
            "D": [[0.0] * 6 for _ in range(6)],
            "infinite": [[1e5 if i == j == 2 else 0.0 for j in range(6)] for i in range(6)],
            "error": 0.01,
            "density": 1025.0,
        }
    },
)
