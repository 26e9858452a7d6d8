"""Tiny readers for the shipped mesh formats (binary glTF, STL, Wavefront OBJ), numpy only.

They read what meshes/make_meshes.py writes and the plain files users drop beside it:
triangles with positions and, where the file has them, normals. Coordinates are kept as
stored: the shipped meshes are in the body frame (x forward, y starboard, z down),
metres at MeshScale = Size = 1, and the notebook draws them inside the body group, as
the page does. No materials, textures or animations are read.

Below every layer (numpy only, no pythreejs): the notebook draws with them and the
scenario builds a floating body's hull from them (`sixdof.scenario.hull`).
`sixdof.notebook.meshfiles` re-exports them.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray


class MeshFileError(ValueError):
    """A mesh file that cannot be read; the message names the file and what is wrong."""


@dataclass(frozen=True)
class MeshData:
    """Triangles: positions (V, 3) float32, normals (V, 3) float32, index (3F,) uint32 or None."""

    positions: NDArray[np.float32]
    normals: NDArray[np.float32]
    index: NDArray[np.uint32] | None

    def bounds(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Bounding box (min, max) of the vertices, m."""
        p = self.positions.astype(float)
        return p.min(0), p.max(0)


def face_normals_per_vertex(positions: np.ndarray) -> np.ndarray:
    """Flat normals for non-indexed triangles (3F, 3): each corner gets its face's normal."""
    tri = positions.reshape(-1, 3, 3).astype(float)
    n = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    length = np.linalg.norm(n, axis=1, keepdims=True)
    n = n / np.where(length > 0, length, 1.0)
    return np.repeat(n, 3, axis=0).astype(np.float32)


def _finish(
    positions: np.ndarray, normals: np.ndarray | None, index: np.ndarray | None, path: Path
) -> MeshData:
    positions = np.asarray(positions, dtype=np.float32).reshape(-1, 3)
    if positions.size == 0:
        raise MeshFileError(f"{path.name}: no triangles in file")
    if not np.all(np.isfinite(positions)):
        raise MeshFileError(f"{path.name}: vertex coordinates must be finite")
    if index is not None:
        index = np.asarray(index, dtype=np.uint32).ravel()
        if index.size % 3 or (index.size and int(index.max()) >= len(positions)):
            raise MeshFileError(f"{path.name}: triangle indices out of range")
    if normals is None:
        if index is not None:  # unshare, so each triangle can carry its own normal
            positions, index = positions[index], None
        normals = face_normals_per_vertex(positions)
    normals = np.asarray(normals, dtype=float).reshape(-1, 3)
    if len(normals) != len(positions):
        raise MeshFileError(f"{path.name}: {len(normals)} normals for {len(positions)} vertices")
    length = np.linalg.norm(normals, axis=1, keepdims=True)  # files round them (OBJ: 4 digits)
    normals = normals / np.where(length > 0, length, 1.0)
    return MeshData(positions, normals.astype(np.float32), index)


_COMPONENTS = {5120: "i1", 5121: "u1", 5122: "<i2", 5123: "<u2", 5125: "<u4", 5126: "<f4"}
_WIDTH = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4}


def _rotmat_xyzw(quat_xyzw: tuple[float, ...]) -> np.ndarray:
    """The rotation glTF's node (x, y, z, w) quaternion stands for, 3×3."""
    x, y, z, w = (float(c) for c in quat_xyzw)
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
        ]
    )


def _node_matrix(node: dict) -> np.ndarray:
    if "matrix" in node:
        return np.asarray(node["matrix"], dtype=float).reshape(4, 4).T  # column-major
    m = np.eye(4)
    m[:3, :3] = _rotmat_xyzw(node.get("rotation", (0.0, 0.0, 0.0, 1.0)))
    m[:3, :3] = m[:3, :3] * np.asarray(node.get("scale", (1.0, 1.0, 1.0)))
    m[:3, 3] = node.get("translation", (0.0, 0.0, 0.0))
    return m


def read_glb(path: Path) -> MeshData:
    """Triangles of every mesh in a binary glTF 2.0 file, with node transforms applied."""
    raw = path.read_bytes()
    try:
        magic, version, _length = struct.unpack_from("<4sII", raw, 0)
        if magic != b"glTF" or version != 2:
            raise MeshFileError(f"{path.name}: not a binary glTF 2.0 file")
        jlen, _jtype = struct.unpack_from("<I4s", raw, 12)
        doc = json.loads(raw[20 : 20 + jlen])
        blen, _btype = struct.unpack_from("<I4s", raw, 20 + jlen)
        binary = raw[28 + jlen : 28 + jlen + blen]
    except (struct.error, json.JSONDecodeError) as exc:
        raise MeshFileError(f"{path.name}: unreadable glTF container ({exc})") from None

    def accessor(i: int) -> np.ndarray:
        acc = doc["accessors"][i]
        view = doc["bufferViews"][acc["bufferView"]]
        dtype = np.dtype(_COMPONENTS[acc["componentType"]])
        width = _WIDTH[acc["type"]]
        start = view.get("byteOffset", 0) + acc.get("byteOffset", 0)
        stride = view.get("byteStride", 0) or dtype.itemsize * width
        if stride == dtype.itemsize * width:  # tightly packed: one read
            return np.frombuffer(binary, dtype, width * acc["count"], start).reshape(-1, width)
        rows = [
            np.frombuffer(binary, dtype, width, start + k * stride) for k in range(acc["count"])
        ]
        return np.array(rows)

    positions, normals, indices, offset = [], [], [], 0
    scene = doc.get("scenes", [{"nodes": list(range(len(doc.get("nodes", []))))}])[
        doc.get("scene", 0)
    ]
    stack = [(n, np.eye(4)) for n in scene.get("nodes", [])]
    try:
        while stack:
            n, parent = stack.pop()
            node = doc["nodes"][n]
            m = parent @ _node_matrix(node)
            stack += [(c, m) for c in node.get("children", [])]
            if "mesh" not in node:
                continue
            for prim in doc["meshes"][node["mesh"]]["primitives"]:
                if prim.get("mode", 4) != 4:
                    continue  # only triangle lists
                p = accessor(prim["attributes"]["POSITION"]).astype(float)
                positions.append(p @ m[:3, :3].T + m[:3, 3])
                if "NORMAL" in prim["attributes"]:
                    nrm = accessor(prim["attributes"]["NORMAL"]).astype(float) @ np.linalg.inv(
                        m[:3, :3]
                    )  # normals transform with the inverse transpose
                    nrm /= np.maximum(np.linalg.norm(nrm, axis=1, keepdims=True), 1e-12)
                    normals.append(nrm)
                idx = accessor(prim["indices"]).ravel() if "indices" in prim else np.arange(len(p))
                indices.append(idx.astype(np.int64) + offset)
                offset += len(p)
    except (KeyError, IndexError, ValueError) as exc:
        raise MeshFileError(f"{path.name}: malformed glTF ({exc!r})") from None
    if not positions:
        raise MeshFileError(f"{path.name}: no triangle mesh in file")
    all_normals = np.concatenate(normals) if len(normals) == len(positions) else None
    return _finish(np.concatenate(positions), all_normals, np.concatenate(indices), path)


def read_stl(path: Path) -> MeshData:
    """Triangles of a binary or ASCII STL file, with flat (per-facet) normals."""
    raw = path.read_bytes()
    if len(raw) >= 84:
        (count,) = struct.unpack_from("<I", raw, 80)
        if len(raw) == 84 + 50 * count:  # binary: the size says so whatever the header holds
            rec = np.frombuffer(
                raw,
                dtype=[("n", "<f4", 3), ("v", "<f4", (3, 3)), ("a", "<u2")],
                count=count,
                offset=84,
            )
            return _finish(rec["v"].reshape(-1, 3), None, None, path)
    text = raw.decode("ascii", errors="replace")
    verts = [line.split()[1:4] for line in text.splitlines() if line.strip().startswith("vertex")]
    try:
        positions = np.array(verts, dtype=float)
    except ValueError:
        raise MeshFileError(f"{path.name}: bad vertex line in ASCII STL") from None
    if positions.size == 0 or len(positions) % 3:
        raise MeshFileError(f"{path.name}: no whole triangles in STL")
    return _finish(positions, None, None, path)


def read_obj(path: Path) -> MeshData:
    """Triangles of a Wavefront OBJ file (v, vn, f; polygons split as fans)."""
    verts: list[list[float]] = []
    norms: list[list[float]] = []
    corners: list[tuple[int, int | None]] = []
    for lineno, line in enumerate(path.read_text(errors="replace").splitlines(), start=1):
        parts = line.split()
        if not parts:
            continue
        try:
            if parts[0] == "v":
                verts.append([float(x) for x in parts[1:4]])
            elif parts[0] == "vn":
                norms.append([float(x) for x in parts[1:4]])
            elif parts[0] == "f":
                face = []
                for item in parts[1:]:
                    fields = item.split("/")
                    vi = int(fields[0])
                    vi = vi - 1 if vi > 0 else len(verts) + vi
                    ni = None
                    if len(fields) >= 3 and fields[2]:
                        ni = int(fields[2])
                        ni = ni - 1 if ni > 0 else len(norms) + ni
                    face.append((vi, ni))
                for k in range(1, len(face) - 1):
                    corners += [face[0], face[k], face[k + 1]]
        except ValueError:
            raise MeshFileError(
                f"{path.name}, line {lineno}: cannot read {line.strip()!r}"
            ) from None
    if not corners:
        raise MeshFileError(f"{path.name}: no faces in OBJ")
    v = np.asarray(verts, dtype=float)
    vertex_index = np.array([c[0] for c in corners])
    if vertex_index.min() < 0 or vertex_index.max() >= len(v):
        raise MeshFileError(f"{path.name}: face refers to a vertex that does not exist")
    positions = v[vertex_index]
    normals = None
    if norms and all(c[1] is not None and 0 <= c[1] < len(norms) for c in corners):
        normal_index = np.array([c[1] for c in corners], dtype=np.intp)
        normals = np.asarray(norms, dtype=float)[normal_index]
    return _finish(positions, normals, None, path)


READERS = {".glb": read_glb, ".stl": read_stl, ".obj": read_obj}


def read_mesh(path: str | Path) -> MeshData:
    """Read a .glb, .stl or .obj file; MeshFileError names the file and the problem."""
    path = Path(path)
    reader = READERS.get(path.suffix.lower())
    if reader is None:
        raise MeshFileError(
            f"{path.name}: unsupported mesh format, expected one of {sorted(READERS)}"
        )
    if not path.is_file():
        raise MeshFileError(f"{path}: no such file")
    return reader(path)
