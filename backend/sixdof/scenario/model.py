"""One validated description of a run: bodies, parameters, inputs, initial state, integration.

This is the JSON the web API speaks and what FhSim XML files are read into.
Field names at this edge are FhSim's (Mass, InertiaRadi, Force, Pos, …);
`model` and `integration.method` are ours. Every numeric field must be finite;
errors name the field (pydantic's `loc`) and the allowed range.

numpy and the dynamics' numerics are imported where a method needs them, not here: the
server's start-up path defines these models without loading them (a validation loads them).
"""

from __future__ import annotations

import math
import warnings
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from ..dynamics.names import METHODS, NORM_TIME_CONSTANT, Method, Model
from ..fields import QUATER_NORM_RANGE, FieldError
from .added_mass import check_added_mass
from .bounded import Vec3, Vec4, Vec6, Within
from .elements import ElementSpec, check_elements, dynamics_elements
from .view import ViewSpec
from .water import WaterSpec

if TYPE_CHECKING:
    import numpy as np

    from ..dynamics import Bodies, BodyParams, IntegratorSettings
    from ..dynamics.elements import System

Finite = Annotated[float, Field(allow_inf_nan=False, strict=True)]


def checked_quaternion(v: tuple[float, ...]) -> tuple[float, ...]:
    """Quater as given, when its norm is within QUATER_NORM_RANGE ([0.5, 2]).

    A non-unit Quater is kept, not normalised: the norm term of the kinematics pulls |q|
    back to one with time constant τ (seed 001), which a run then shows. Zero, or a norm
    outside the range (where the simulation would call the state diverged), is refused.
    """
    norm = math.sqrt(sum(c * c for c in v))  # components are within ±2: no overflow
    lo, hi = QUATER_NORM_RANGE
    if not lo <= norm <= hi:
        raise FieldError(
            "Quater",
            "out_of_range",
            f"Quater: its norm must be in [{lo:g}, {hi:g}] (1 for a rotation; the norm term "
            f"pulls it back to 1), got {norm:g}",
        )
    return tuple(float(c) for c in v)


def quaternion_note(name: str, quater: tuple[float, ...]) -> str | None:
    """A warning when an initial Quater is not unit (it is kept as given), else None."""
    norm = math.sqrt(sum(c * c for c in quater))
    if abs(norm - 1.0) <= 1e-9:
        return None
    return (
        f"{name}.Quater: |Quater| = {norm:.6g} is not 1; kept as given, the norm term pulls it "
        f"back to 1 with time constant τ = {NORM_TIME_CONSTANT} s"
    )


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class BodySpec(_Strict):
    """One `Body/6DBody` (an FhSim `Lib` element) with its constant inputs and initial state."""

    Name: str = Field("B", min_length=1, max_length=64, pattern=r"^[A-Za-z_][A-Za-z0-9_\-]*$")
    Mass: Annotated[float, Within("Mass")] = 1.0
    InertiaRadi: Annotated[Vec3, Within("InertiaRadi")] = Field(
        (0.5, 0.5, 0.5), description="radii of gyration about the CG, m"
    )
    Inertia: Annotated[Vec6, Within("Inertia")] | None = Field(
        None, description="Ixx,Iyy,Izz,Ixy,Ixz,Iyz about the CG, kg·m²; overrides InertiaRadi"
    )
    CGOffset: Annotated[Vec3, Within("CGOffset")] = Field(
        (0.0, 0.0, 0.0), description="CG relative to the reference point, body frame, m"
    )
    Gravity: Annotated[float, Within("Gravity")] = 9.81
    model: Model = "full"
    Material: str = Field("Simple/Black", max_length=128)
    Mesh: str = Field(
        "fhSphere.mesh", max_length=128,
        description="a shipped mesh, sha256:… (uploaded), or a file beside the scenario file",
    )  # fmt: skip
    MeshUnits: Literal["m", "mm", "in"] = Field("m", description="the mesh file's unit")
    InertiaFrom: Literal["given", "solid", "shell"] = Field(
        "given",
        description="given: Mass, CGOffset, Inertia as typed; solid, shell: from the shape "
        "(Mesh × MeshScale × Size), placed as its file places it from the reference point",
    )
    Density: Annotated[float, Within("Density")] | None = Field(
        None, description="kg/m³ (solid) or kg/m² (shell); when given, Mass follows the shape"
    )
    MeshScale: Annotated[Vec3, Within("MeshScale")] = (1.0, 1.0, 1.0)
    MeshOrigin: Annotated[Vec3, Within("MeshOrigin")] = (0.0, 0.0, 0.0)
    Size: Annotated[Vec3, Within("Size")] = (1.0, 1.0, 1.0)
    Force: Annotated[Vec3, Within("Force")] = Field(
        (0.0, 0.0, 0.0), description="global frame, at the CG, N"
    )
    Moment: Annotated[Vec3, Within("Moment")] = Field(
        (0.0, 0.0, 0.0), description="global frame, about the CG, N·m"
    )
    Pos: Annotated[Vec3, Within("Pos")] = (0.0, 0.0, 0.0)
    Quater: Annotated[Vec4, Within("Quater"), AfterValidator(checked_quaternion)] = (
        1.0,
        0.0,
        0.0,
        0.0,
    )
    LocalVel: Annotated[Vec3, Within("LocalVel")] = (0.0, 0.0, 0.0)
    AngVel: Annotated[Vec3, Within("AngVel")] = (0.0, 0.0, 0.0)

    @model_validator(mode="after")
    def _physical(self) -> BodySpec:
        if self.InertiaFrom != "given":
            from .body_mesh import shape_fields

            # Written past validate_assignment: these fields follow the others, not checks.
            self.__dict__.update(shape_fields(self))
        self.params()  # a FieldError (a ValueError) names the field
        return self

    def params(self) -> BodyParams:
        """The dynamics' BodyParams (warns on inertia that breaks the triangle inequality)."""
        from ..dynamics.params import BodyParams

        if self.Inertia is not None:
            return BodyParams.from_inertia(self.Mass, self.Inertia, r_cg_body=self.CGOffset,
                                           gravity=self.Gravity, model=self.model)  # fmt: skip
        return BodyParams.from_radii(self.Mass, self.InertiaRadi, r_cg_body=self.CGOffset,
                                     gravity=self.Gravity, model=self.model)  # fmt: skip

    def initial_state(self) -> np.ndarray:
        from ..dynamics.model import make_state

        return make_state(self.Pos, self.Quater, self.LocalVel, self.AngVel)

    def inputs(self) -> np.ndarray:
        import numpy as np

        return np.concatenate([self.Force, self.Moment]).astype(float)


class Integration(_Strict):
    """Integration settings; names as FhSim's `Engine` element where it has them."""

    method: Method = "rk4"
    stepsize: Finite = Field(1e-3, gt=0.0, description="fixed step, s")
    HMax: Finite = Field(0.01, gt=0.0)
    HMin: Finite = Field(1e-10, gt=0.0)
    AbsTol: Finite = Field(1e-9, gt=0.0)
    RelTol: Finite = Field(1e-9, gt=0.0)
    TOutput: str = Field(
        "0:0.01:10", max_length=4096, description="times and start:step:end ranges, s"
    )

    @model_validator(mode="after")
    def _consistent(self) -> Integration:
        self.settings()  # a FieldError (a ValueError) names the field
        toutput_rows(self.TOutput)  # counted, not expanded: a short text can ask for 1e13 rows
        return self

    def settings(self) -> IntegratorSettings:
        from ..dynamics.integrators import IntegratorSettings

        return IntegratorSettings(self.method, self.stepsize, self.HMax, self.HMin,
                                  self.AbsTol, self.RelTol)  # fmt: skip

    def output_times(self) -> np.ndarray:
        return parse_toutput(self.TOutput)


class Scenario(_Strict):
    """A whole run: one or more bodies and how to integrate them."""

    name: str = Field("custom", max_length=64)
    caption: str = Field("", max_length=1000, description="what to watch, one or two sentences")
    bodies: list[BodySpec] = Field(
        default_factory=lambda: [BodySpec()], min_length=1, max_length=64
    )
    integration: Integration = Field(default_factory=Integration)
    elements: list[ElementSpec] = Field(
        default_factory=list, max_length=64,
        description="pivots, springs, dampers, the ground, timed loads (DESIGN.md section 8)",
    )  # fmt: skip
    water: WaterSpec | None = Field(
        None, description="density, level, current, waves, depth (null: no water entry)"
    )
    view: ViewSpec | None = Field(
        None, description="what the page shows: camera, follow, overlays, plots (not integrated)"
    )

    @model_validator(mode="after")
    def _unique_names(self) -> Scenario:
        names = [b.Name for b in self.bodies]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"body Names must be unique, repeated: {dupes}")
        check_run_cost(self.integration, len(self.bodies))
        check_elements(self.elements, names, self.integration.method, self.integration.stepsize)
        check_added_mass(self.elements, self.bodies)
        if any(e.kind == "radiation" for e in self.elements):
            from .radiation_water import check_water

            check_water(self.elements, self.water, self.bodies)
        for body in self._floating():
            if body.Mesh.startswith("sha256:"):  # a shipped hull is closed; a stored one may not be
                from .body_mesh import closed_mesh

                closed_mesh(body, "Mesh", "solid mass properties and buoyancy need a closed mesh")
        return self

    def _floating(self) -> list[BodySpec]:
        """The bodies a buoyancy element floats."""
        names = {e.body for e in self.elements if e.kind == "buoyancy"}
        return [b for b in self.bodies if b.Name in names]

    def system(
        self, bodies: Bodies | None = None, states: np.ndarray | None = None
    ) -> System | None:
        """The elements packed for the kernels (None without elements), acting on `bodies`
        (default: this scenario's); pivots without `at` are held where their point is in
        `states` (default: the initial states)."""
        if not self.elements:
            return None
        from ..dynamics.elements import pack_system

        states = self.initial_states() if states is None else states
        found = dynamics_elements(self.elements, self.bodies, states, self.water)
        return pack_system(self.batch() if bodies is None else bodies, found)

    def body_params(self) -> list[BodyParams]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # warned once already, at validation
            return [b.params() for b in self.bodies]

    def batch(self) -> Bodies:
        from ..dynamics.params import Bodies

        return Bodies.of(self.body_params())

    def initial_states(self) -> np.ndarray:
        import numpy as np

        return np.stack([b.initial_state() for b in self.bodies])

    def inputs(self) -> np.ndarray:
        import numpy as np

        return np.stack([b.inputs() for b in self.bodies])

    def notes(self) -> list[str]:
        """Warnings worth showing before a run: initial quaternions that are not unit, hulls
        that float on a simplified copy of their mesh (physics_hull.py)."""
        notes = [quaternion_note(b.Name, b.Quater) for b in self.bodies]
        for body in self._floating():
            from .body_mesh import hull_report

            report = hull_report(body)
            if report is not None and report.simplified:
                notes.append(f"{body.Name}: {report.text()}")
        return [n for n in notes if n is not None]

    def body(self, name: str) -> BodySpec:
        for b in self.bodies:
            if b.Name == name:
                return b
        raise KeyError(f"no body named {name!r}; bodies are {[b.Name for b in self.bodies]}")


#: Output rows × bodies a run may ask for: the states alone take 104 bytes per body-row, the
#: CSV table 136 more (about 480 MB at the limit).
MAX_BODY_ROWS = 2_000_000
#: Fixed steps × bodies a run may ask for (euler, rk4): about 20 minutes at 0.1 µs each.
MAX_BODY_STEPS = 10_000_000_000
MAX_OUTPUT_ROWS = MAX_BODY_ROWS  # one body


def check_run_cost(integration: Integration, bodies: int) -> None:
    """FieldError naming the cost and the limit when a run of `bodies` bodies would need more
    than MAX_BODY_ROWS output rows × bodies or MAX_BODY_STEPS fixed steps × bodies."""
    rows, t_end = toutput_rows(integration.TOutput)
    if rows * bodies > MAX_BODY_ROWS:
        raise FieldError(
            "TOutput",
            "out_of_range",
            f"TOutput: {rows:,} output times × {bodies} bod{'y' if bodies == 1 else 'ies'} is "
            f"{rows * bodies:,} rows of states (about {rows * bodies * 240 / 1e6:,.0f} MB); "
            f"the limit is {MAX_BODY_ROWS:,} (fewer times, or split the run)",
        )
    if integration.method in ("euler", "rk4"):
        steps = math.ceil(t_end / integration.stepsize)
        if steps * bodies > MAX_BODY_STEPS:
            raise FieldError(
                "stepsize",
                "out_of_range",
                f"stepsize: {t_end:g} s in steps of {integration.stepsize:g} s is {steps:.3g} "
                f"steps × {bodies} bod{'y' if bodies == 1 else 'ies'}, about "
                f"{steps * bodies * 1e-7 / 3600:.3g} hours at 0.1 µs per body-step; the limit "
                f"is {MAX_BODY_STEPS:.0e} body-steps (a larger step, or a shorter TOutput)",
            )


def _toutput_items(text: str) -> list[tuple[str, list[Decimal]]]:
    items = [s.strip() for s in str(text).split(",") if s.strip()]
    if not items:
        raise ValueError("TOutput: expected times or start:step:end ranges, got nothing")
    out = []
    for item in items:
        parts = [p.strip() for p in item.split(":")]
        try:
            nums = [Decimal(p) for p in parts]
        except InvalidOperation:
            raise ValueError(
                f"TOutput: {item!r} is not a number or a start:step:end range"
            ) from None
        if not all(n.is_finite() and math.isfinite(float(n)) for n in nums):
            raise ValueError(f"TOutput: {item!r} must hold finite numbers")
        if len(nums) not in (1, 3):
            raise ValueError(f"TOutput: {item!r} must be a time or start:step:end")
        if len(nums) == 3 and (nums[1] <= 0 or nums[2] < nums[0]):
            raise ValueError(f"TOutput: range {item!r} needs step > 0 and end ≥ start")
        if nums[0] < 0:
            raise ValueError(f"TOutput: times must be ≥ 0, got {float(nums[0]):g}")
        out.append((item, nums))
    return out


def _range_count(start: Decimal, step: Decimal, end: Decimal) -> int:
    try:
        return int((end - start) // step) + 1
    except InvalidOperation:  # the quotient has more digits than Decimal's precision
        return MAX_OUTPUT_ROWS + 1


def toutput_rows(text: str) -> tuple[int, float]:
    """(output times, last time) of a TOutput text, counted without making the times
    (ranges may overlap, so the count is at most that many); ValueError if it is not
    valid or asks for more than MAX_OUTPUT_ROWS times."""
    rows, t_end = 0, 0.0
    for _, nums in _toutput_items(text):
        if len(nums) == 1:
            rows, t_end = rows + 1, max(t_end, float(nums[0]))
            continue
        count = _range_count(*nums)
        rows += count
        if rows > MAX_OUTPUT_ROWS:
            raise ValueError(
                f"TOutput: asks for more than {MAX_OUTPUT_ROWS:,} output times "
                f"(about {rows:.3g} so far); fewer times, or split the run"
            )
        t_end = max(t_end, float(nums[0] + (count - 1) * nums[1]))
    return rows, t_end


def parse_toutput(text: str) -> np.ndarray:
    """Parse FhSim's TOutput: comma-separated times and `start:step:end` ranges.

    Returns the sorted, de-duplicated times (s). A range holds start + k·step for
    k = 0, 1, … up to and including end when it lies on the grid. The grid is
    computed in exact decimal arithmetic, so "0:0.01:1" gives exactly the
    doubles nearest to 0.03, 0.07, … (not 3 × 0.01 = 0.030000000000000002) and
    always ends at 1.0. Raises ValueError naming the offending item; the count is
    checked (toutput_rows) before any time is made.
    """
    import numpy as np

    toutput_rows(text)
    times: list[np.ndarray] = []
    for item, nums in _toutput_items(text):
        if len(nums) == 1:
            times.append(np.array([float(nums[0])]))
        else:
            times.append(_decimal_range(item, *nums))
    return np.unique(np.concatenate(times))


def _decimal_range(item: str, start: Decimal, step: Decimal, end: Decimal) -> np.ndarray:
    """start + k·step ≤ end as the nearest doubles to the exact decimal values."""
    import numpy as np

    count = _range_count(start, step, end)
    # Scale to integers: (S + k P) / 10^d is then one correctly rounded division.
    digits = max(0, *(-int(n.as_tuple().exponent) for n in (start, step)))
    if digits <= 22:
        s_int, p_int = int(start.scaleb(digits)), int(step.scaleb(digits))
        if abs(s_int) + abs(p_int) * count < 2**53:
            k = np.arange(count, dtype=np.int64)
            return (s_int + p_int * k).astype(float) / float(10**digits)
    return float(start) + float(step) * np.arange(count)


__all__ = ["METHODS", "BodySpec", "Integration", "Scenario", "parse_toutput", "toutput_rows"]
