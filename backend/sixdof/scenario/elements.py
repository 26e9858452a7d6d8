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
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Annotated, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..fields import FieldError
from .bounded import Vec3, Vec6, Within

if TYPE_CHECKING:
    import numpy as np

    from ..dynamics.elements import ContactShape, Element
    from .water import WaterSpec


class BodySpec(Protocol):
    """What the elements read of a body (model.BodySpec has it; model imports this module)."""

    Name: str
    Mesh: str
    MeshScale: tuple[float, float, float]
    MeshOrigin: tuple[float, float, float]
    Size: tuple[float, float, float]
    CGOffset: tuple[float, float, float]


#: The largest fixed step a scenario with a ground may take, s: a contact rings at about
#: 141 rad/s (more for a box rocking on its corners), which RK4 follows well up to here.
GROUND_MAX_STEP = 0.002
#: Rows of a load's (t, value) table.
MAX_TABLE_ROWS = 100_000

Name = Annotated[str, Field(min_length=1, max_length=64)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class BodyPoint(_Strict):
    """A point on another body: the far end of a spring between two bodies."""

    body: Name
    point: Annotated[Vec3, Within("point")] = (0.0, 0.0, 0.0)


class PivotElement(_Strict):
    """A spherical joint: the body point `point` stays at the world point `at`."""

    kind: Literal["pivot"]
    body: Name
    point: Annotated[Vec3, Within("point")] = Field(
        (0.0, 0.0, 0.0), description="held body point, body axes from Pos, m"
    )
    at: Annotated[Vec3, Within("Pos")] | None = Field(
        None, description="world point it is held at, NED, m; default: where the point starts"
    )


class SpringElement(_Strict):
    """A linear spring-damper from a body point to a world point or another body's point."""

    kind: Literal["spring"]
    body: Name
    point: Annotated[Vec3, Within("point")] = (0.0, 0.0, 0.0)
    to: Annotated[Vec3, Within("target")] | BodyPoint = Field(
        (0.0, 0.0, 0.0), description="world point [x, y, z] (NED, m) or {body, point}"
    )
    stiffness: Annotated[float, Within("stiffness")] = 100.0
    damping: Annotated[float, Within("damping")] = 0.0
    rest_length: Annotated[float, Within("rest_length")] = 0.0


class DamperElement(_Strict):
    """Fossen's D(ν) = D_l + D_q |ν|, diagonal, body axes: surge, sway, heave, roll, pitch, yaw."""

    kind: Literal["damper"]
    body: Name
    linear: Annotated[Vec6, Within("linear")] = (0.0,) * 6
    quadratic: Annotated[Vec6, Within("quadratic")] = (0.0,) * 6


class GroundElement(_Strict):
    """The plane z = height (NED), touched by the body's drawn shape."""

    kind: Literal["ground"]
    body: Name
    height: Annotated[float, Within("height")] = 0.0
    restitution: Annotated[float, Within("restitution")] = 0.5
    friction: Annotated[float, Within("friction")] = 0.5
    stiffness: Annotated[float, Within("ground_stiffness")] | None = Field(
        None, description="N/m per touching point; default 2e4 N/m per kg of the body"
    )


class LoadElement(_Strict):
    """A force and moment that vary in time: signal × (force, moment)."""

    kind: Literal["load"]
    body: Name
    force: Annotated[Vec3, Within("Force")] = (0.0, 0.0, 0.0)
    moment: Annotated[Vec3, Within("Moment")] = (0.0, 0.0, 0.0)
    frame: Literal["global", "body"] = "global"
    point: Annotated[Vec3, Within("point")] | None = None
    signal: Literal["constant", "step", "sine", "table"] = "step"
    start: Annotated[float, Within("start")] = 0.0
    amplitude: Annotated[float, Within("amplitude")] = 1.0
    frequency: Annotated[float, Within("frequency")] = 0.0
    phase: Annotated[float, Within("phase")] = 0.0
    table: (
        list[tuple[Annotated[float, Within("start")], Annotated[float, Within("table")]]] | None
    ) = Field(None, max_length=MAX_TABLE_ROWS, description="(t, value) rows, t increasing")

    @model_validator(mode="after")
    def _table(self) -> LoadElement:
        if self.signal == "table":
            rows = self.table or []
            if len(rows) < 2:
                raise FieldError(
                    "table", "invalid", "table: a table signal needs at least 2 (t, value) rows"
                )
            for k in range(1, len(rows)):
                if not rows[k][0] > rows[k - 1][0]:
                    raise FieldError(
                        "table",
                        "invalid",
                        f"table: times must increase, row {k} has t = {rows[k][0]:g} after "
                        f"{rows[k - 1][0]:g}",
                    )
        return self


class BuoyancyElement(_Strict):
    """The water's pressure on the body's drawn shape (Mesh × Size × MeshScale at CGOffset +
    MeshOrigin, as the page draws it), clipped at the instantaneous surface."""

    kind: Literal["buoyancy"]
    body: Name


Row6 = tuple[
    Annotated[float, Within("added_mass")],
    Annotated[float, Within("added_mass")],
    Annotated[float, Within("added_mass")],
    Annotated[float, Within("added_mass")],
    Annotated[float, Within("added_mass")],
    Annotated[float, Within("added_mass")],
]


class AddedMassElement(_Strict):
    """M_A, body axes about the reference point: `diagonal` (surge, sway, heave, roll, pitch,
    yaw) or a symmetric 6×6 `matrix`; it joins the mass matrix, with C_A(ν) in `full`."""

    kind: Literal["added_mass"]
    body: Name
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


ElementSpec = Annotated[
    PivotElement
    | SpringElement
    | DamperElement
    | GroundElement
    | LoadElement
    | BuoyancyElement
    | AddedMassElement,
    Field(discriminator="kind"),
]
KINDS = ("pivot", "spring", "damper", "ground", "load", "buoyancy", "added_mass")


def check_elements(
    elements: Sequence[ElementSpec], names: Sequence[str], method: str, step: float
) -> None:
    """FieldError for elements that do not fit the scenario: unknown bodies, a spring from a
    body to itself, two pivots on one body, a ground with too large a step, dopri5."""
    known = set(names)
    pivoted: set[str] = set()
    added = {e.body for e in elements if isinstance(e, AddedMassElement)}
    for k, e in enumerate(elements):
        where = f"elements[{k}]"
        if e.body not in known:
            raise FieldError(
                "body",
                "unknown_body",
                f"{where}.body: no body named {e.body!r}; bodies are {list(names)}",
            )
        if isinstance(e, SpringElement) and isinstance(e.to, BodyPoint):
            if e.to.body not in known:
                raise FieldError(
                    "body",
                    "unknown_body",
                    f"{where}.to.body: no body named {e.to.body!r}; bodies are {list(names)}",
                )
            if e.to.body == e.body:
                raise FieldError(
                    "to",
                    "invalid",
                    f"{where}.to: a spring joins two bodies, or a "
                    "body and a world point, not a body to itself",
                )
        if isinstance(e, PivotElement):
            if e.body in pivoted:
                raise FieldError(
                    "kind", "invalid", f"{where}: {e.body!r} has a pivot already (one per body)"
                )
            if e.body in added:
                raise FieldError(
                    "kind",
                    "invalid",
                    f"{where}: {e.body!r} has added mass; a pivot holds bodies without it",
                )
            pivoted.add(e.body)
        if isinstance(e, GroundElement) and method in ("euler", "rk4") and step > GROUND_MAX_STEP:
            raise FieldError(
                "stepsize",
                "out_of_range",
                f"stepsize: with a ground the step must be at most "
                f"{GROUND_MAX_STEP:g} s (contacts ring at ~141 rad/s), got {step:g}",
            )
    if elements and method == "dopri5":
        raise FieldError(
            "method",
            "invalid",
            "method: scenarios with elements run with euler, rk4 or radau; "
            "dopri5 steps free bodies only",
        )


# --------------------------------------------------------------------------- drawn shapes


@lru_cache(maxsize=1)
def _mesh_table() -> dict[str, tuple[str, tuple[float, ...], tuple[float, ...]]]:
    """Mesh name or alias → (name, bbox_min, size) from the shipped meshes.json."""
    from ..assets import asset_dir

    path = asset_dir("meshes") / "meshes.json"
    try:
        listed = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        listed = []
    table = {}
    for entry in listed if isinstance(listed, list) else []:
        value = (str(entry["name"]), tuple(entry["bbox_min"]), tuple(entry["size"]))
        for key in (entry["name"], entry.get("file", ""), *entry.get("aliases", ())):
            table[str(key).lower()] = value
    return table


def contact_shape(body: BodySpec) -> ContactShape:
    """The shape the page draws for `body`, as the ground touches it: the mesh is placed at
    CGOffset + MeshOrigin and scaled by MeshScale × Size (frontend/src/view/body.js). A sphere
    scaled the same in every axis is a sphere; every other mesh its bounding box. A Mesh the
    page does not know is drawn as the fallback sphere, so it touches as one."""
    from ..dynamics.elements import ContactShape

    name, low, size = _mesh_table().get(body.Mesh.lower(), ("sphere", (-0.5,) * 3, (1.0,) * 3))
    scale = [a * b for a, b in zip(body.MeshScale, body.Size, strict=True)]
    holder = [a + b for a, b in zip(body.CGOffset, body.MeshOrigin, strict=True)]
    c = [h + s * (lo + 0.5 * w) for h, s, lo, w in zip(holder, scale, low, size, strict=True)]
    half = [0.5 * s * w for s, w in zip(scale, size, strict=True)]
    centre = (c[0], c[1], c[2])
    if name == "sphere" and math.isclose(min(half), max(half), rel_tol=1e-9):
        return ContactShape("sphere", centre, (half[0], half[0], half[0]))
    return ContactShape("box", centre, (half[0], half[1], half[2]))


@lru_cache(maxsize=16)
def _mesh_triangles(name: str) -> np.ndarray:
    """The shipped mesh `name`'s triangles (T, 3, 3), as stored (MeshScale = Size = 1)."""
    import numpy as np

    from ..assets import asset_dir
    from ..meshfiles import read_mesh

    files = {"sphere": "sphere.glb"}
    path = asset_dir("meshes") / "meshes.json"
    for entry in json.loads(path.read_text(encoding="utf-8")):
        files[str(entry["name"])] = str(entry["file"])
    data = read_mesh(asset_dir("meshes") / files[name])
    pos = data.positions.astype(float)
    index = np.arange(len(pos)) if data.index is None else data.index.astype(np.int64)
    tri = pos[index].reshape(-1, 3, 3)
    tri.setflags(write=False)
    return tri


def hull_triangles(body: BodySpec) -> np.ndarray:
    """The body's drawn shape as a closed triangle mesh (T, 3, 3), body axes from the
    reference point: the Mesh scaled by MeshScale × Size and placed at CGOffset + MeshOrigin,
    as the page draws it (frontend/src/view/body.js); an unknown Mesh is the fallback sphere."""
    import numpy as np

    name = _mesh_table().get(body.Mesh.lower(), ("sphere",))[0]
    scale = np.array([a * b for a, b in zip(body.MeshScale, body.Size, strict=True)])
    holder = np.array([a + b for a, b in zip(body.CGOffset, body.MeshOrigin, strict=True)])
    return holder + scale * _mesh_triangles(name)


def dynamics_elements(
    elements: Sequence[ElementSpec],
    bodies: Sequence[BodySpec],
    states: np.ndarray,
    water: WaterSpec | None = None,
) -> list[Element]:
    """The dynamics' elements of checked specs; a pivot without `at` is held where its point
    is in `states` (N, 13) (the initial state, or the live state when one is added). The
    water (default: still, 1025 kg/m³, level 0) acts through buoyancy and dampers."""
    from ..dynamics import elements as el
    from ..dynamics import quaternion as quat
    from ..dynamics.water import Water

    sea = Water() if water is None else water.dynamics()

    index = {b.Name: i for i, b in enumerate(bodies)}
    out: list[Element] = []
    for e in elements:
        i = index[e.body]
        if isinstance(e, PivotElement):
            at = e.at
            if at is None:
                x = states[i]
                q = x[3:7] / math.sqrt(float(x[3:7] @ x[3:7]))
                w = x[0:3] + quat.to_rotmat(q) @ e.point
                at = (float(w[0]), float(w[1]), float(w[2]))
            out.append(el.Pivot(i, e.point, at))
        elif isinstance(e, SpringElement):
            if isinstance(e.to, BodyPoint):
                out.append(
                    el.Spring(
                        i,
                        e.point,
                        e.to.point,
                        e.stiffness,
                        e.damping,
                        e.rest_length,
                        index[e.to.body],
                    )
                )
            else:
                out.append(el.Spring(i, e.point, e.to, e.stiffness, e.damping, e.rest_length))
        elif isinstance(e, DamperElement):
            out.append(el.Damper(i, e.linear, e.quadratic, sea.current))
        elif isinstance(e, BuoyancyElement):
            out.append(el.Buoyancy(i, hull_triangles(bodies[i]), sea))
        elif isinstance(e, AddedMassElement):
            out.append(el.AddedMass(i, e.values()))
        elif isinstance(e, GroundElement):
            out.append(
                el.Ground(
                    i, contact_shape(bodies[i]), e.height, e.restitution, e.friction, e.stiffness
                )
            )
        else:
            table = tuple((float(t), float(v)) for t, v in (e.table or ()))
            out.append(
                el.TimedLoad(
                    i,
                    e.force,
                    e.moment,
                    e.frame,
                    e.point,
                    e.signal,
                    e.start,
                    e.amplitude,
                    e.frequency,
                    e.phase,
                    table,
                )
            )
    return out


__all__ = [
    "GROUND_MAX_STEP",
    "KINDS",
    "AddedMassElement",
    "BodyPoint",
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
