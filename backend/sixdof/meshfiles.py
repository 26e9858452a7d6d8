"""Mesh files read with trimesh: STL (binary and ASCII), Wavefront OBJ, PLY, glTF and GLB.

A mesh may come from someone else (an upload, a colleague's scenario folder), so the bytes
are checked before trimesh parses them and the triangles after:

- at most MAX_MESH_BYTES bytes (the caller refuses a larger file before reading it whole);
- a binary STL whose header claims more triangles than its bytes hold is refused (the claim
  is what a reader would allocate);
- a glTF that points at anything outside itself (a buffer or image `uri` that is not a
  `data:` URI) or asks for a decompression extension (Draco, meshopt: a small file that
  unpacks into a huge one) is refused;
- at most MAX_TRIANGLES triangles, every vertex finite, at least one triangle of nonzero area.

Coordinates are kept as stored, times the file's unit (`MeshUnits`: the shipped meshes are
in metres, in the body frame: x forward, y starboard, z down). Two views of one file:
`TriangleMesh` (vertices merged where they coincide, so closedness and winding can be
judged; what is weighed and floated) and `MeshData` (as the file lays it out, with its
normals; what the notebook draws). No materials, textures or animations are read.

Below every layer (numpy and trimesh only): the scenario weighs and floats with it, the
notebook draws with it (`sixdof.notebook.meshfiles` re-exports it).
"""

from __future__ import annotations

import io
import json
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    import trimesh

#: The formats read, by file suffix (trimesh's file_type).
SUFFIXES = {".stl": "stl", ".obj": "obj", ".ply": "ply", ".glb": "glb", ".gltf": "gltf"}
#: Triangles one mesh may have (a fine CAD part is ~10⁵; the page draws 5·10⁵ smoothly).
MAX_TRIANGLES = 500_000
#: Bytes one mesh file may hold: a binary STL of MAX_TRIANGLES is 25 MB.
MAX_MESH_BYTES = 32 << 20
#: `MeshUnits`: metres per unit of the file's coordinates.
UNITS = {"m": 1.0, "mm": 1e-3, "in": 0.0254}
_DECOMPRESSION = ("KHR_draco_mesh_compression", "EXT_meshopt_compression")


class MeshFileError(ValueError):
    """A mesh file that cannot be read; the message names the file and what is wrong."""


@dataclass(frozen=True)
class MeshData:
    """Triangles as the file lays them out, for drawing: positions (V, 3) float32, normals
    (V, 3) float32, index (3F,) uint32 or None (then every three positions are a triangle)."""

    positions: NDArray[np.float32]
    normals: NDArray[np.float32]
    index: NDArray[np.uint32] | None

    def bounds(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Bounding box (min, max) of the vertices, m."""
        p = self.positions.astype(float)
        return p.min(0), p.max(0)


@dataclass(frozen=True, eq=False)  # compared and hashed as itself: the arrays are large
class TriangleMesh:
    """A checked mesh with coinciding vertices merged: vertices (V, 3) float64 in the file's
    coordinates, faces (F, 3) int64. `boundary_edges` counts edges with one face only (0: the
    mesh is closed); `winding` is "consistent", "fixed" (trimesh turned faces to agree) or
    "inconsistent" (it could not); an inside-out closed mesh has been turned outward."""

    name: str
    vertices: NDArray[np.float64]
    faces: NDArray[np.int64]
    boundary_edges: int
    winding: str

    @property
    def closed(self) -> bool:
        return self.boundary_edges == 0 and self.winding != "inconsistent"

    def triangles(self) -> NDArray[np.float64]:
        """(F, 3, 3) corner positions, file coordinates."""
        return self.vertices[self.faces]

    def bounds(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        return self.vertices.min(0), self.vertices.max(0)


def file_type(name: str) -> str:
    """trimesh's file_type for `name`'s suffix, or MeshFileError naming the formats."""
    kind = SUFFIXES.get(Path(name).suffix.lower())
    if kind is None:
        raise MeshFileError(
            f"{Path(name).name}: unsupported mesh format, expected one of {sorted(SUFFIXES)}"
        )
    return kind


def _check_stl(data: bytes, name: str) -> None:
    head = data[:512].lstrip()
    if head[:5].lower() == b"solid" and b"facet" in data[:4096]:
        return  # ASCII: bounded by its own bytes
    if len(data) < 84:
        raise MeshFileError(f"{name}: too short for a binary STL ({len(data)} bytes, need 84)")
    (claimed,) = struct.unpack_from("<I", data, 80)
    held = (len(data) - 84) // 50
    if claimed > held:
        raise MeshFileError(
            f"{name}: its STL header claims {claimed:,} triangles, its {len(data):,} bytes "
            f"hold {held:,}"
        )
    if claimed > MAX_TRIANGLES:
        raise _too_many(name, claimed)


def _gltf_document(data: bytes, kind: str, name: str) -> dict[str, Any]:
    try:
        if kind == "gltf":
            return dict(json.loads(data))
        magic, version, _ = struct.unpack_from("<4sII", data, 0)
        if magic != b"glTF" or version != 2:
            raise MeshFileError(f"{name}: not a binary glTF 2.0 file")
        length, chunk = struct.unpack_from("<I4s", data, 12)
        if chunk != b"JSON" or 20 + length > len(data):
            raise MeshFileError(f"{name}: its glTF JSON chunk is missing or cut short")
        return dict(json.loads(data[20 : 20 + length]))
    except (struct.error, ValueError, TypeError) as exc:
        if isinstance(exc, MeshFileError):
            raise
        raise MeshFileError(f"{name}: unreadable glTF ({exc})") from None


def _check_gltf(data: bytes, kind: str, name: str) -> None:
    doc = _gltf_document(data, kind, name)
    for part in ("buffers", "images"):
        for i, item in enumerate(doc.get(part) or []):
            uri = item.get("uri") if isinstance(item, dict) else None
            if isinstance(uri, str) and not uri.startswith("data:"):
                raise MeshFileError(
                    f"{name}: {part}[{i}] points at another file ({uri[:60]!r}); a glTF is "
                    "read on its own: embed its data (a .glb, or data: URIs)"
                )
    used = set(doc.get("extensionsUsed") or []) | set(doc.get("extensionsRequired") or [])
    packed = sorted(used & set(_DECOMPRESSION))
    if packed:
        raise MeshFileError(
            f"{name}: compressed with {packed[0]}, which is not read (a small file may unpack "
            "into a huge one); export it uncompressed"
        )


def _too_many(name: str, count: int) -> MeshFileError:
    return MeshFileError(f"{name}: {count:,} triangles, more than the {MAX_TRIANGLES:,} allowed")


def parse(data: bytes, name: str) -> trimesh.Trimesh:
    """The bytes of a mesh file as trimesh reads them (vertices as stored, nothing merged),
    after the checks on its bytes; MeshFileError names the file and what is wrong."""
    import trimesh

    name = Path(name).name
    kind = file_type(name)
    if len(data) > MAX_MESH_BYTES:
        raise MeshFileError(
            f"{name}: {len(data):,} bytes, more than the {MAX_MESH_BYTES:,} allowed"
        )
    if kind == "stl":
        _check_stl(data, name)
    elif kind in ("glb", "gltf"):
        _check_gltf(data, kind, name)
    try:
        loaded = trimesh.load(
            io.BytesIO(data), file_type=kind, force="mesh", process=False, resolver=None
        )
    except MeshFileError:
        raise
    except IndexError as exc:
        if kind != "obj":
            raise MeshFileError(f"{name}: cannot be read as {kind.upper()} ({exc})") from None
        raise MeshFileError(  # an OBJ face indexes past its vertices
            f"{name}: a face refers to a vertex that does not exist ({exc})"
        ) from None
    except Exception as exc:  # trimesh's readers raise what their parsers raise
        raise MeshFileError(f"{name}: cannot be read as {kind.upper()} ({exc})") from None
    if not isinstance(loaded, trimesh.Trimesh) or len(loaded.faces) == 0:
        raise MeshFileError(f"{name}: no triangles in file")
    if len(loaded.faces) > MAX_TRIANGLES:
        raise _too_many(name, len(loaded.faces))
    vertices = np.asarray(loaded.vertices, dtype=float)
    if not np.all(np.isfinite(vertices)):
        raise MeshFileError(f"{name}: vertex coordinates must be finite (a NaN or inf is there)")
    faces = np.asarray(loaded.faces)
    if faces.min() < 0 or faces.max() >= len(vertices):
        raise MeshFileError(f"{name}: a face refers to a vertex that does not exist")
    return loaded


def _orient(mesh: trimesh.Trimesh) -> bool:
    """Turn faces so that every pair sharing an edge runs it in opposite directions (walking
    the face graph from one face per part); False when no choice does (a Möbius strip, an
    edge of three faces), and then the faces are left as they were."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import breadth_first_order, connected_components

    faces = np.asarray(mesh.faces)
    pairs = np.asarray(mesh.face_adjacency)
    edges = np.asarray(mesh.face_adjacency_edges)

    def forward(f: np.ndarray) -> np.ndarray:  # does face f run the edge u -> v?
        rows = faces[f]
        at = np.argmax(rows == edges[:, :1], axis=1)
        return rows[np.arange(len(f)), (at + 1) % 3] == edges[:, 1]

    same = forward(pairs[:, 0]) == forward(pairs[:, 1])  # the pair disagrees as it is
    n = len(faces)
    graph = coo_matrix((same.astype(np.int8) + 1, (pairs[:, 0], pairs[:, 1])), shape=(n, n))
    graph = (graph + graph.T).tocsr()
    flip = np.zeros(n, dtype=bool)
    _, label = connected_components(graph, directed=False)
    for start in np.unique(label, return_index=True)[1]:
        order, parent = breadth_first_order(graph, start, directed=False)
        tree = order[1:]
        turn = np.asarray(graph[parent[tree], tree]).ravel() == 2
        for f, p, t in zip(tree.tolist(), parent[tree].tolist(), turn.tolist(), strict=True):
            flip[f] = flip[p] ^ t  # parents come first in breadth-first order
    if np.any(flip[pairs[:, 0]] ^ flip[pairs[:, 1]] != same):
        return False
    fixed = faces.copy()
    fixed[flip] = fixed[flip][:, ::-1]
    mesh.faces = fixed
    return True


def checked(data: bytes, name: str) -> TriangleMesh:
    """The mesh in `data` with coinciding vertices merged, its winding made consistent where
    trimesh can, a closed inside-out mesh turned outward; degenerate (zero-area) triangles are
    dropped, a mesh of nothing else refused."""
    import trimesh

    name = Path(name).name
    raw = parse(data, name)
    mesh = trimesh.Trimesh(raw.vertices, raw.faces, process=True, validate=False)
    area = mesh.area_faces
    if not np.any(area > 0):
        raise MeshFileError(f"{name}: every triangle is degenerate (zero area)")
    if np.any(area <= 0):
        mesh.update_faces(area > 0)
        mesh.remove_unreferenced_vertices()
    winding = "consistent"
    if not mesh.is_winding_consistent:
        winding = "fixed" if _orient(mesh) else "inconsistent"
    boundary = len(trimesh.grouping.group_rows(mesh.edges_sorted, require_count=1))
    if boundary == 0 and winding != "inconsistent" and mesh.volume < 0:
        mesh.invert()
    vertices = np.array(mesh.vertices, dtype=float)
    faces = np.array(mesh.faces, dtype=np.int64)
    vertices.setflags(write=False)
    faces.setflags(write=False)
    return TriangleMesh(name, vertices, faces, boundary, winding)


def drawn(data: bytes, name: str) -> MeshData:
    """The mesh in `data` as its file lays it out, with its normals (computed per face where
    the file has none), for drawing."""
    mesh = parse(data, name)
    positions = np.asarray(mesh.vertices, dtype=np.float32)
    faces = np.asarray(mesh.faces, dtype=np.uint32).ravel()
    normals = np.asarray(mesh.vertex_normals, dtype=np.float64)
    length = np.linalg.norm(normals, axis=1, keepdims=True)
    normals = normals / np.where(length > 0, length, 1.0)
    return MeshData(positions, normals.astype(np.float32), faces)


def read_bytes(path: str | Path) -> bytes:
    """A mesh file's bytes, refused before reading when it is not a known format, not a
    file or larger than MAX_MESH_BYTES."""
    path = Path(path)
    file_type(path.name)
    if not path.is_file():
        raise MeshFileError(f"{path}: no such file")
    size = path.stat().st_size
    if size > MAX_MESH_BYTES:
        raise MeshFileError(
            f"{path.name}: {size:,} bytes, more than the {MAX_MESH_BYTES:,} allowed"
        )
    return path.read_bytes()


def read_mesh(path: str | Path) -> MeshData:
    """A mesh file for drawing; MeshFileError names the file and the problem."""
    return drawn(read_bytes(path), Path(path).name)


def load_mesh(path: str | Path) -> TriangleMesh:
    """A mesh file checked and merged, for weighing and floating."""
    return checked(read_bytes(path), Path(path).name)


__all__ = [
    "MAX_MESH_BYTES",
    "MAX_TRIANGLES",
    "SUFFIXES",
    "UNITS",
    "MeshData",
    "MeshFileError",
    "TriangleMesh",
    "checked",
    "drawn",
    "file_type",
    "load_mesh",
    "parse",
    "read_mesh",
]
