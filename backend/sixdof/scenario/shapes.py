"""The body's drawn shape as the elements feel it: the ground touches its sphere or box,
buoyancy its closed triangle mesh, both placed as the page draws the body
(frontend/src/view/body.js): the Mesh scaled by MeshScale × Size × MeshUnits at
CGOffset + MeshOrigin."""

from __future__ import annotations

import json
import math
from functools import lru_cache
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import numpy as np

    from ..dynamics.elements import ContactShape


class BodySpec(Protocol):
    """What the elements read of a body (model.BodySpec has it; model imports this module)."""

    Name: str
    Mesh: str
    MeshScale: tuple[float, float, float]
    MeshOrigin: tuple[float, float, float]
    Size: tuple[float, float, float]
    CGOffset: tuple[float, float, float]
    Mass: float
    Gravity: float
    Quater: tuple[float, float, float, float]

    @property
    def MeshUnits(self) -> str: ...


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


def _bbox(body: BodySpec) -> tuple[str, tuple[float, ...], tuple[float, ...]]:
    """(name, bbox_min, size) of the body's mesh in file units (the fallback sphere's when
    the Mesh is not known)."""
    from .body_mesh import find_mesh, is_stored

    mesh = find_mesh(body.Mesh) if is_stored(body.Mesh) else None
    if mesh is not None:
        low, high = mesh.bounds()
        return body.Mesh, tuple(low.tolist()), tuple((high - low).tolist())
    return _mesh_table().get(body.Mesh.lower(), ("sphere", (-0.5,) * 3, (1.0,) * 3))


def contact_shape(body: BodySpec) -> ContactShape:
    """The shape the page draws for `body`, as the ground touches it: the mesh is placed at
    CGOffset + MeshOrigin and scaled by MeshScale × Size × MeshUnits (frontend/src/view/body.js).
    A sphere scaled the same in every axis is a sphere; every other mesh its bounding box. A
    Mesh the page does not know is drawn as the fallback sphere, so it touches as one."""
    from ..dynamics.elements import ContactShape
    from .body_mesh import scale_of

    name, low, size = _bbox(body)
    scale = scale_of(body).tolist()
    holder = [a + b for a, b in zip(body.CGOffset, body.MeshOrigin, strict=True)]
    c = [h + s * (lo + 0.5 * w) for h, s, lo, w in zip(holder, scale, low, size, strict=True)]
    half = [0.5 * s * w for s, w in zip(scale, size, strict=True)]
    centre = (c[0], c[1], c[2])
    if name == "sphere" and math.isclose(min(half), max(half), rel_tol=1e-9):
        return ContactShape("sphere", centre, (half[0], half[0], half[0]))
    return ContactShape("box", centre, (half[0], half[1], half[2]))


def hull_triangles(body: BodySpec) -> np.ndarray:
    """The body's drawn shape as a closed triangle mesh (T, 3, 3), body axes from the
    reference point: the Mesh scaled by MeshScale × Size × MeshUnits and placed at
    CGOffset + MeshOrigin, as the page draws it (frontend/src/view/body.js); an unknown
    Mesh is the fallback sphere. FieldError when a stored mesh is not closed. A mesh of more
    than physics_hull.HULL_ABOVE triangles floats on its simplified copy."""
    import numpy as np

    from .body_mesh import closed_mesh, find_mesh, is_stored, scale_of
    from .physics_hull import physics_hull

    if is_stored(body.Mesh):
        key = body.Mesh
        mesh = closed_mesh(body, "Mesh", "solid mass properties and buoyancy need a closed mesh")
    else:
        key = _mesh_table().get(body.Mesh.lower(), ("sphere",))[0]
        shipped = find_mesh(key)
        assert shipped is not None  # every shipped name has its file
        mesh = shipped
    holder = np.array([a + b for a, b in zip(body.CGOffset, body.MeshOrigin, strict=True)])
    return holder + scale_of(body) * physics_hull(key, mesh)[0]


__all__ = ["BodySpec", "contact_shape", "hull_triangles"]
