"""A body's `Mesh` naming a file beside the scenario file (`"Mesh": "parts/bracket.stl"`).

The file is read with the rules of `named_files` (the scenario's own folder only, a
relative name, no symlink out, a regular file; its own byte budget, MAX_SCENARIO_MESH_BYTES
for all the meshes of one scenario), checked as a mesh (`meshfiles.checked`), kept in the
mesh store by its content and the name replaced by its id (`sha256:…`). The scenario that
comes out names no file, so the server can send it to every watcher and the page can fetch
the mesh it names (`GET /api/meshes/sha256:…`). Shipped names (`box.stl`, `fhSphere.mesh`)
and ids are left as they are.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..meshstore import MeshStoreFull, is_mesh_id, mesh_store, remember_name
from .named_files import NamedFileError, NamedFiles, shown

# numpy and trimesh load with the first scenario that names a mesh file, not with this module.
#: Suffixes of the mesh files read (meshfiles.SUFFIXES).
SUFFIXES = (".stl", ".obj", ".ply", ".glb", ".gltf")
#: Bytes the mesh files of one scenario may hold together (two of meshfiles.MAX_MESH_BYTES).
MAX_SCENARIO_MESH_BYTES = 64 << 20


def names_a_file(name: object) -> bool:
    """True when `name` is a mesh file name, not a shipped mesh or a stored id."""
    from .body_mesh import shipped_files

    if not isinstance(name, str) or is_mesh_id(name) or name.lower() in shipped_files():
        return False
    return Path(name.replace("\\", "/")).suffix.lower() in SUFFIXES


def inline_meshes(data: Any, folder: Path | None) -> None:
    """Replace each body's Mesh file name by the id of the mesh it holds (in place);
    NamedFileError with its `loc` (("bodies", 2, "Mesh")) naming the file and the reason."""
    if not isinstance(data, dict) or not isinstance(data.get("bodies"), list):
        return
    files = None if folder is None else NamedFiles(folder, limit=MAX_SCENARIO_MESH_BYTES)
    for index, body in enumerate(data["bodies"]):
        if not isinstance(body, dict) or not names_a_file(body.get("Mesh")):
            continue
        from ..meshfiles import MeshFileError, checked

        name = body["Mesh"]
        loc = ("bodies", index, "Mesh")
        if files is None:
            raise NamedFileError(
                f"{shown(name)} names a mesh file, which is read beside a scenario file; "
                "upload it (POST /api/meshes) and name it by the id it gets (sha256:…)",
                loc,
            )
        try:
            raw = files.read(name)
            mesh = checked(raw, name)
            key = mesh_store().put(raw)
        except NamedFileError as exc:
            raise exc.at(loc) from None
        except (MeshFileError, MeshStoreFull) as exc:
            raise NamedFileError(str(exc), loc) from None
        remember_name(key, mesh.name)
        body["Mesh"] = key


__all__ = ["MAX_SCENARIO_MESH_BYTES", "inline_meshes", "names_a_file"]
