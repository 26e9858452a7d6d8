"""The mesh readers, re-exported: they live in `sixdof.meshfiles` (trimesh), so the
scenario can weigh and float a body's mesh without importing the notebook."""

from __future__ import annotations

from ..meshfiles import MeshData, MeshFileError, read_mesh

__all__ = ["MeshData", "MeshFileError", "read_mesh"]
