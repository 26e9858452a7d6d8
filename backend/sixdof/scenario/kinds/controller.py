"""A controller: a PID holding a body at a target pose, or FhSim's Math/LinearSystem wired
from the body's outputs to its Force and Moment; its states step with the bodies
(docs/physics.md, "Controllers")."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator

from ...fields import FieldError
from ..bounded import Vec3, Vec4, Vec6, Within
from ..kind import Building, Checking, ElementModel, Kind, Panel, Strict

if TYPE_CHECKING:
    from ...dynamics.elements import Controller

#: The most states a linear system may carry (its A is n × n, evaluated at every stage).
MAX_STATES = 64
#: What a linear system reads and writes: the dynamics' tables (kinds/controller.py),
#: repeated here because the scenario imports no numpy; a test keeps them equal.
SIGNALS: tuple[str, ...] = (
    "Pos.x", "Pos.y", "Pos.z", "Vel.x", "Vel.y", "Vel.z",
    "Quater.w", "Quater.x", "Quater.y", "Quater.z",
    "LocalVel.x", "LocalVel.y", "LocalVel.z", "AngVel.x", "AngVel.y", "AngVel.z",
    "Roll", "Pitch", "Yaw",
)  # fmt: skip
CHANNELS: tuple[str, ...] = (
    "Force.x", "Force.y", "Force.z", "Moment.x", "Moment.y", "Moment.z",
)  # fmt: skip
Number = Annotated[float, Within("matrix")]
Matrix = list[list[Number]]


def parse_matrix(value: Any) -> Any:
    """FhSim's Math/LinearSystem matrix text "0,1;-0.5,-2" (rows by ';') as rows of numbers;
    anything else as it is (pydantic checks it)."""
    if not isinstance(value, str):
        return value
    rows = [r for r in value.split(";") if r.strip()]
    try:
        return [[float(c) for c in r.split(",")] for r in rows]
    except ValueError:
        raise ValueError(f"expected rows of numbers 'a,b;c,d', got {value!r}") from None


class Target(Strict):
    """Where a PID holds its body: the reference point's position (NED) and, optionally,
    its heading `yaw` (degrees, roll and pitch zero) or a whole attitude `Quater`."""

    Pos: Annotated[Vec3, Within("Pos")] = (0.0, 0.0, 0.0)
    yaw: Annotated[float, Within("direction")] | None = None
    Quater: Annotated[Vec4, Within("Quater")] | None = None

    @model_validator(mode="after")
    def _one_attitude(self) -> Target:
        if self.yaw is not None and self.Quater is not None:
            raise FieldError("target", "invalid", "target: give yaw or Quater, not both")
        if self.Quater is not None and not sum(q * q for q in self.Quater) > 0.0:
            raise FieldError("target.Quater", "invalid", "target.Quater: a zero quaternion")
        return self

    def quaternion(self) -> tuple[float, float, float, float]:
        if self.Quater is not None:
            return self.Quater
        half = math.radians(self.yaw or 0.0) / 2.0
        return (math.cos(half), 0.0, 0.0, math.sin(half))


class ControllerElement(ElementModel):
    """A PID (`type` "pid") or a linear system ("linear_system") acting on its body."""

    kind: Literal["controller"]
    type: Literal["pid", "linear_system"] = "pid"
    target: Target | None = None
    kp: Annotated[Vec6, Within("kp")] = (0.0,) * 6
    ki: Annotated[Vec6, Within("ki")] = (0.0,) * 6
    kd: Annotated[Vec6, Within("kd")] = (0.0,) * 6
    limit: Annotated[Vec6, Within("limit")] | None = Field(
        None, description="the most |Force| and |Moment| per axis; null: none"
    )
    frame: Literal["global", "body"] = "global"
    anti_windup: bool = True
    A: Matrix | None = None
    B: Matrix | None = None
    C: Matrix | None = None
    D: Matrix | None = None
    inputs: list[str] = Field(default_factory=list, max_length=MAX_STATES)
    outputs: list[str] = Field(default_factory=list, max_length=6)
    reference: list[Annotated[float, Within("reference")]] | None = None
    x0: list[Annotated[float, Within("reference")]] | None = None

    _matrices = field_validator("A", "B", "C", "D", mode="before")(parse_matrix)

    @field_validator("inputs", "outputs", mode="before")
    @classmethod
    def _names(cls, value: Any) -> Any:
        if isinstance(value, str):  # the XML form: "Pos.x,Vel.x"
            return [v.strip() for v in value.split(",") if v.strip()]
        return value

    @model_validator(mode="after")
    def _shapes(self) -> ControllerElement:
        if self.type == "pid":
            return self
        for name in ("A", "B", "C", "D"):
            if getattr(self, name) is None:
                raise FieldError(name, "invalid", f"{name}: a linear_system needs A, B, C and D")
        for names, known, field in ((self.inputs, SIGNALS, "inputs"),
                                    (self.outputs, CHANNELS, "outputs")):  # fmt: skip
            for s in names:
                if s not in known:
                    raise FieldError(
                        field, "invalid", f"{field}: unknown {s!r}; known: {', '.join(known)}"
                    )
        n, ni, no = len(self.A or []), len(self.inputs), len(self.outputs)
        if not 1 <= n <= MAX_STATES:
            raise FieldError("A", "invalid", f"A: 1 to {MAX_STATES} rows (states), got {n}")
        want = {"A": (n, n), "B": (n, ni), "C": (no, n), "D": (no, ni)}
        for name, (rows, cols) in want.items():
            m = getattr(self, name)
            if len(m) != rows or any(len(r) != cols for r in m):
                got = f"{len(m)}×{'/'.join(str(len(r)) for r in m) or 0}"
                raise FieldError(
                    name,
                    "invalid",
                    f"{name}: expected {rows}×{cols} ({n} states, {ni} inputs, {no} outputs), "
                    f"got {got}",
                )
        for name, vec, size in (("reference", self.reference, ni), ("x0", self.x0, n)):
            if vec is not None and len(vec) != size:
                raise FieldError(
                    name, "invalid", f"{name}: expected {size} numbers, got {len(vec)}"
                )
        return self


def _check(e: ControllerElement, k: int, scene: Checking) -> None:
    """Its states step with the fixed-step kernels only."""
    if scene.method not in ("euler", "rk4"):
        raise FieldError(
            "integrator",
            "invalid",
            f"elements[{k}]: a controller's states step with euler or rk4, not {scene.method}",
        )


def _build(e: ControllerElement, ctx: Building) -> Controller:
    from ...dynamics.elements import Controller

    i = ctx.index[e.body]
    limit = e.limit if e.limit is not None else (math.inf,) * 6
    if e.type == "pid":
        target = e.target if e.target is not None else Target(Pos=tuple(ctx.states[i, 0:3]))
        return Controller(
            i, "pid", target.Pos, target.quaternion(), e.kp, e.ki, e.kd, limit, e.frame,
            e.anti_windup,
        )  # fmt: skip

    def rows(m: Matrix | None) -> tuple[tuple[float, ...], ...]:
        return tuple(tuple(r) for r in (m or []))

    return Controller(
        i,
        "linear_system",
        a=rows(e.A),
        b=rows(e.B),
        c=rows(e.C),
        d=rows(e.D),
        inputs=tuple(e.inputs),
        outputs=tuple(e.outputs),
        reference=tuple(e.reference or ()),
        initial=tuple(e.x0 or ()),
    )


KIND = Kind(
    name="controller",
    model=ControllerElement,
    xml_object="Element/Controller",
    xml_attributes={
        "Type": ("type", "text"),
        "TargetPos": ("target.Pos", 3),
        "TargetYaw": ("target.yaw", 1),
        "TargetQuater": ("target.Quater", 4),
        "Kp": ("kp", 6),
        "Ki": ("ki", 6),
        "Kd": ("kd", 6),
        "Limit": ("limit", 6),
        "Frame": ("frame", "text"),
        "AntiWindup": ("anti_windup", "text"),
        "A": ("A", "matrix"),
        "B": ("B", "matrix"),
        "C": ("C", "matrix"),
        "D": ("D", "matrix"),
        "Inputs": ("inputs", "names"),
        "Outputs": ("outputs", "names"),
        "Reference": ("reference", "list"),
        "X0": ("x0", "list"),
    },
    check=_check,
    build=_build,
    drawing="tag",
    docs="physics.md#controllers-pid-and-linear-systems",
    example={
        "type": "pid",
        "target": {"Pos": (1.0, 2.0, 0.0), "yaw": 30.0},
        "kp": (100.0, 100.0, 0.0, 0.0, 0.0, 50.0),
        "ki": (10.0, 10.0, 0.0, 0.0, 0.0, 5.0),
        "kd": (80.0, 80.0, 0.0, 0.0, 0.0, 40.0),
        "limit": (1e3, 1e3, 1e3, 1e3, 1e3, 500.0),
        "frame": "body",
    },
    panel=Panel(
        vectors=(("kp", 6), ("ki", 6), ("kd", 6)),
        add=(),
        defaults={"kp": (0.0,) * 6, "ki": (0.0,) * 6, "kd": (0.0,) * 6},
    ),
)
