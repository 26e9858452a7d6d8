"""A body's mesh as a shape: found by its `Mesh` name, scaled, weighed.

`Mesh` names a shipped mesh (meshes/meshes.json, with its FhSim aliases) or a stored one
(`sha256:…`: an upload, or a file beside a scenario file read with it, see mesh_names.py).
The shape is the mesh × MeshScale × Size × MeshUnits (metres per file unit), per axis.

With `InertiaFrom` "solid" or "shell" the mesh sits where its file puts it relative to the
reference point `Pos` (a CAD part's origin is its datum): Mass (from Density when given),
CGOffset (the centroid) and Inertia (about the CG, body axes, the tensor's own entries)
come from the shape, and MeshOrigin (relative to the CG) is −CGOffset, so what is drawn,
weighed and floated is one placed shape (DESIGN.md section 9, docs/physics.md).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from ..fields import LIMITS, FieldError, out_of_range

if TYPE_CHECKING:
    from ..dynamics.mesh_inertia import MeshMoments
    from ..meshfiles import TriangleMesh
    from .physics_hull import HullReport


class Scaled(Protocol):
    """What placing a body's mesh reads of it (model.BodySpec and shapes.BodySpec have it)."""

    @property
    def Mesh(self) -> str: ...
    @property
    def MeshScale(self) -> tuple[float, float, float]: ...
    @property
    def Size(self) -> tuple[float, float, float]: ...
    @property
    def MeshUnits(self) -> str: ...


class ShapeSpec(Scaled, Protocol):
    """What weighing reads of a body (model.BodySpec has it)."""

    @property
    def InertiaFrom(self) -> str: ...
    @property
    def Density(self) -> float | None: ...
    @property
    def Mass(self) -> float: ...


@lru_cache(maxsize=1)
def shipped_files() -> dict[str, str]:
    """Shipped mesh name or alias (lower case) → its file in meshes/."""
    from ..assets import asset_dir

    try:
        listed = json.loads((asset_dir("meshes") / "meshes.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        listed = []
    table = {"sphere": "sphere.glb"}
    for entry in listed if isinstance(listed, list) else []:
        for key in (entry["name"], entry.get("file", ""), *entry.get("aliases", ())):
            table[str(key).lower()] = str(entry["file"])
    return table


@lru_cache(maxsize=32)
def _shipped(file: str) -> TriangleMesh:
    from ..assets import asset_dir
    from ..meshfiles import load_mesh

    return load_mesh(asset_dir("meshes") / file)


@lru_cache(maxsize=16)
def _stored(key: str) -> TriangleMesh | None:
    from ..meshfiles import checked
    from ..meshstore import display_name, mesh_store

    data = mesh_store().get(key)
    return None if data is None else checked(data, display_name(key))


def find_mesh(name: str) -> TriangleMesh | None:
    """The mesh `name` stands for (shipped or stored), None when it is neither (the page then
    draws the fallback sphere)."""
    from ..meshstore import is_mesh_id

    if is_mesh_id(name):
        return _stored(name)
    file = shipped_files().get(name.lower())
    return None if file is None else _shipped(file)


def is_stored(name: str) -> bool:
    from ..meshstore import is_mesh_id

    return is_mesh_id(name)


def mesh_label(name: str) -> str:
    """How messages name a mesh: a stored one by the file name it came with."""
    from ..meshstore import display_name

    return display_name(name) if is_stored(name) else name


def scale_of(body: Scaled) -> np.ndarray:
    """Metres per file unit along each body axis: MeshScale × Size × MeshUnits."""
    from ..meshfiles import UNITS

    unit = UNITS[body.MeshUnits]
    return np.array([a * b * unit for a, b in zip(body.MeshScale, body.Size, strict=True)])


def closed_mesh(body: Scaled, field: str, need: str) -> TriangleMesh:
    """The body's mesh when it is found and closed; FieldError on `field` saying why not."""
    mesh = find_mesh(body.Mesh)
    if mesh is None:
        where = "no mesh uploaded to this server" if is_stored(body.Mesh) else "not a known mesh"
        raise FieldError(field, "invalid", f"{field}: Mesh {body.Mesh!r} is {where}; {need}")
    label = mesh_label(body.Mesh)  # a stored mesh's cached copy keeps the name it came with first
    if mesh.winding == "inconsistent":
        raise FieldError(
            field, "invalid",
            f"{field}: {label}'s triangles are wound inconsistently and cannot be turned to "
            f"agree; {need}",
        )  # fmt: skip
    if mesh.boundary_edges:
        raise FieldError(
            field, "invalid",
            f"{field}: {label} is open: {mesh.boundary_edges} boundary edges; {need}",
        )  # fmt: skip
    return mesh


_NEED = "solid mass properties and buoyancy need a closed mesh"


@lru_cache(maxsize=64)
def _moments(key: str, scale: tuple[float, float, float], kind: str) -> MeshMoments:
    from ..dynamics.mesh_inertia import shell_moments, solid_moments

    mesh = find_mesh(key)
    assert mesh is not None  # callers found it first
    tri = mesh.triangles() * np.asarray(scale)
    return solid_moments(tri) if kind == "solid" else shell_moments(tri)


def shape_moments(body: ShapeSpec) -> MeshMoments:
    """Volume (solid) or area (shell), centroid from the reference point and the second
    moment of the body's placed, scaled mesh; FieldError naming why it cannot be weighed."""
    if body.InertiaFrom == "solid":
        closed_mesh(body, "InertiaFrom", _NEED)
    elif find_mesh(body.Mesh) is None:
        closed_mesh(body, "InertiaFrom", "shell mass properties need its mesh")
    scale = scale_of(body)
    try:
        return _moments(body.Mesh, (scale[0], scale[1], scale[2]), body.InertiaFrom)
    except ValueError as exc:
        raise FieldError("InertiaFrom", "invalid",
                         f"InertiaFrom: {mesh_label(body.Mesh)}: {exc}") from None  # fmt: skip


def shape_fields(body: ShapeSpec) -> dict[str, Any]:
    """Mass, Inertia, CGOffset and MeshOrigin of a body whose InertiaFrom is solid or shell,
    from its shape (Mass as given unless Density is); FieldError when out of range."""
    from ..dynamics.mesh_inertia import tensor_entries

    m = shape_moments(body)
    mass = body.Mass if body.Density is None else body.Density * m.measure
    if not LIMITS["Mass"].admits(mass):
        per = "m³" if body.InertiaFrom == "solid" else "m²"
        raise FieldError(
            "Mass", "out_of_range",
            f"Mass: Density × {body.InertiaFrom} measure = {body.Density:g} × {m.measure:.6g} "
            f"{per} = {mass:.6g} kg, must be {LIMITS['Mass'].text()}",
        )  # fmt: skip
    density = mass / m.measure
    entries = tensor_entries(m.inertia(density))
    if not all(LIMITS["Inertia"].admits(e) for e in entries):
        raise out_of_range("Inertia", LIMITS["Inertia"], list(entries), each=True)
    cg = tuple(float(c) for c in m.centroid)
    if not all(LIMITS["CGOffset"].admits(c) for c in cg):
        raise out_of_range("CGOffset", LIMITS["CGOffset"], list(cg), each=True)
    return {
        "Mass": float(mass),
        "Inertia": entries,
        "CGOffset": cg,
        "MeshOrigin": tuple(0.0 - c for c in cg),
    }


def hull_report(body: Scaled) -> HullReport | None:
    """How the hull buoyancy floats compares with the body's full mesh (None for a mesh
    that is not found or not closed: it floats the fallback sphere, or is refused)."""
    from .physics_hull import physics_hull

    mesh = find_mesh(body.Mesh)
    if mesh is None or not mesh.closed:
        return None
    key = body.Mesh if is_stored(body.Mesh) else shipped_files()[body.Mesh.lower()]
    return physics_hull(key, mesh)[1]


@dataclass(frozen=True)
class MassProperties:
    """A body's mass properties: mass (kg), centre (the CG from the reference point, body
    axes, m), tensor (3, 3, about the CG, body axes, kg·m²) and its entries (Ixx, Iyy, Izz,
    Ixy, Ixz, Iyz), principal moments (ascending) and axes (columns), and, from a shape,
    its volume (solid, m³) or area (shell, m²) and density (kg/m³ or kg/m²)."""

    source: str
    mass: float
    centre: tuple[float, float, float]
    tensor: np.ndarray
    entries: tuple[float, float, float, float, float, float]
    principal_moments: np.ndarray
    principal_axes: np.ndarray
    measure: float | None = None
    density: float | None = None


def mass_properties(body: Any) -> MassProperties:
    """The mass properties `body` (a BodySpec) moves with: from its shape when InertiaFrom
    is solid or shell (then they equal its Mass, CGOffset and Inertia), else as given."""
    from ..dynamics.mesh_inertia import principal, tensor_entries

    params = body.params()
    tensor = np.array(params.inertia_cg, dtype=float)
    moments, axes = principal(tensor)
    measure = density = None
    if body.InertiaFrom != "given":
        measure = shape_moments(body).measure
        density = params.mass / measure
    cg = tuple(float(c) for c in params.r_cg_body)
    return MassProperties(body.InertiaFrom, float(params.mass), (cg[0], cg[1], cg[2]), tensor,
                          tensor_entries(tensor), moments, axes, measure, density)  # fmt: skip


__all__ = [
    "MassProperties",
    "closed_mesh",
    "find_mesh",
    "mass_properties",
    "scale_of",
    "shape_fields",
    "shape_moments",
    "shipped_files",
]
