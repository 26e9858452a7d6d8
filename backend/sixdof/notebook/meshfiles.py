"""The mesh readers, re-exported: they live in `sixdof.meshfiles` (numpy only), so the
scenario can build a floating body's hull from them without importing the notebook."""

from __future__ import annotations

from ..meshfiles import (
    MeshData,
    MeshFileError,
    face_normals_per_vertex,
    read_glb,
    read_mesh,
    read_obj,
    read_stl,
)

__all__ = [
    "MeshData",
    "MeshFileError",
    "face_normals_per_vertex",
    "read_glb",
    "read_mesh",
    "read_obj",
    "read_stl",
]
