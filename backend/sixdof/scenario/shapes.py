"""The body's drawn shape as the elements feel it: the ground touches its sphere or box,
buoyancy its closed triangle mesh, both placed as the page draws the body
(frontend/src/view/body.js): the Mesh scaled by MeshScale × Size at CGOffset + MeshOrigin."""

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


__all__ = ["BodySpec", "contact_shape", "hull_triangles"]
