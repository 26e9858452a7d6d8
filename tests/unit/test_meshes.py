"""The shipped meshes and materials: files as described in meshes.json, closed, outward, small.

The files are read back with independent parsers (GLB, binary/ASCII STL, OBJ), so a writer
bug in meshes/make_meshes.py shows here and not only in the browser.
"""

from __future__ import annotations

import importlib.util
import json
import re
import struct
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

MESHES = Path(__file__).resolve().parents[2] / "meshes"
CATALOGUE = json.loads((MESHES / "meshes.json").read_text())
MATERIALS = json.loads((MESHES / "materials.json").read_text())
BY_NAME = {e["name"]: e for e in CATALOGUE}


def read_glb(path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    data = path.read_bytes()
    magic, version, total = struct.unpack_from("<4sII", data, 0)
    assert (magic, version, total) == (b"glTF", 2, len(data))
    jlen, jtype = struct.unpack_from("<I4s", data, 12)
    assert jtype == b"JSON"
    doc = json.loads(data[20 : 20 + jlen])
    blen, btype = struct.unpack_from("<I4s", data, 20 + jlen)
    assert btype == b"BIN\0"
    binary = data[28 + jlen : 28 + jlen + blen]
    prim = doc["meshes"][0]["primitives"][0]

    def accessor(i: int) -> np.ndarray:
        acc = doc["accessors"][i]
        view = doc["bufferViews"][acc["bufferView"]]
        dtype = {5126: "<f4", 5123: "<u2", 5125: "<u4"}[acc["componentType"]]
        width = {"VEC3": 3, "SCALAR": 1}[acc["type"]]
        arr = np.frombuffer(binary, dtype, acc["count"] * width, view.get("byteOffset", 0))
        return arr.reshape(-1, width) if width > 1 else arr

    pos = accessor(prim["attributes"]["POSITION"]).astype(float)
    acc = doc["accessors"][prim["attributes"]["POSITION"]]
    np.testing.assert_allclose(acc["min"], pos.min(0), atol=1e-6)  # required by glTF
    np.testing.assert_allclose(acc["max"], pos.max(0), atol=1e-6)
    nor = accessor(prim["attributes"]["NORMAL"]).astype(float)
    idx = accessor(prim["indices"]).astype(np.int64).reshape(-1, 3)
    return pos, nor, idx


def read_stl(path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Triangles as (vertices, facet normals repeated per vertex, faces)."""
    data = path.read_bytes()
    if data[:5] == b"solid" and b"facet" in data[:300]:
        text = data.decode()
        normals = [list(map(float, m)) for m in re.findall(r"facet normal (\S+) (\S+) (\S+)", text)]
        verts = [list(map(float, m)) for m in re.findall(r"vertex (\S+) (\S+) (\S+)", text)]
        assert len(verts) == 3 * len(normals)
        tri, fn = np.array(verts).reshape(-1, 3, 3), np.array(normals)
    else:
        (count,) = struct.unpack_from("<I", data, 80)
        assert len(data) == 84 + 50 * count
        rec = np.frombuffer(data, [("n", "<f4", 3), ("v", "<f4", (3, 3)), ("a", "<u2")], count, 84)
        tri, fn = rec["v"].astype(float), rec["n"].astype(float)
    v = tri.reshape(-1, 3)
    return v, np.repeat(fn, 3, axis=0), np.arange(len(v)).reshape(-1, 3)


def read_obj(path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    v, vn, faces, fnorm = [], [], [], []
    for line in path.read_text().splitlines():
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "v":
            v.append([float(x) for x in parts[1:4]])
        elif parts[0] == "vn":
            vn.append([float(x) for x in parts[1:4]])
        elif parts[0] == "f":
            refs = [p.split("/") for p in parts[1:]]
            assert len(refs) == 3
            faces.append([int(r[0]) - 1 for r in refs])
            fnorm.append([int(r[2]) - 1 for r in refs])
    faces_a, fnorm_a = np.array(faces), np.array(fnorm)
    assert np.array_equal(faces_a, fnorm_a)  # the writer pairs each vertex with its normal
    return np.array(v), np.array(vn), faces_a


READERS = {"glb": read_glb, "stl": read_stl, "obj": read_obj}


def load(entry: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    path = MESHES / entry["file"]
    return READERS[path.suffix.lstrip(".")](path)


def volume_centroid(v: np.ndarray, f: np.ndarray) -> tuple[float, np.ndarray]:
    a, b, c = v[f[:, 0]], v[f[:, 1]], v[f[:, 2]]
    det = np.einsum("ij,ij->i", a, np.cross(b, c))
    vol = det.sum() / 6
    return vol, (det[:, None] * (a + b + c)).sum(0) / 24 / vol


def test_catalogue_has_the_shipped_meshes_in_every_format() -> None:
    assert set(BY_NAME) == {"sphere", "box", "cylinder", "t_handle", "ship", "arrow"}
    assert {Path(e["file"]).suffix for e in CATALOGUE} == {".glb", ".stl", ".obj"}
    aliases = [a for e in CATALOGUE for a in e["aliases"]]
    assert len(aliases) == len(set(aliases)), "an alias may name one mesh only"
    assert "fhSphere.mesh" in BY_NAME["sphere"]["aliases"]
    assert not set(aliases) & set(BY_NAME), "aliases must not shadow mesh names"


@pytest.mark.parametrize("entry", CATALOGUE, ids=lambda e: e["name"])
def test_mesh_file_matches_its_catalogue_entry(entry: dict) -> None:
    path = MESHES / entry["file"]
    assert path.stat().st_size < 100 * 1024
    v, n, f = load(entry)
    np.testing.assert_allclose(v.max(0) - v.min(0), entry["size"], atol=2e-3)
    np.testing.assert_allclose(v.min(0), entry["bbox_min"], atol=2e-3)
    # closed: after merging equal positions every directed edge has exactly one reverse twin
    _, inv = np.unique(np.round(v, 4), axis=0, return_inverse=True)
    ff = inv.ravel()[f]
    edges = Counter(
        (int(a), int(b)) for t in ff for a, b in ((t[0], t[1]), (t[1], t[2]), (t[2], t[0]))
    )
    open_edges = [e for e, k in edges.items() if edges.get((e[1], e[0]), 0) != k]
    assert not open_edges, f"{len(open_edges)} edges without a twin"
    # outward: positive volume, and every normal agrees with its triangle's winding
    vol, centroid = volume_centroid(v, f)
    assert vol == pytest.approx(entry["volume"], rel=2e-3)
    tri = v[f]
    fn = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    fn /= np.linalg.norm(fn, axis=1, keepdims=True)
    np.testing.assert_allclose(np.linalg.norm(n, axis=1), 1.0, atol=2e-3)
    for k in range(3):
        assert np.einsum("ij,ij->i", n[f[:, k]], fn).min() > 0.2
    if entry["name"] != "arrow":  # the arrow starts at its origin; the rest are centred
        np.testing.assert_allclose(centroid, 0.0, atol=2e-3)


def test_volumes_and_radii_match_closed_forms() -> None:
    # sphere of diameter 1 (32 × 16 facets lose ~1.6 % of the volume)
    assert BY_NAME["sphere"]["volume"] == pytest.approx(np.pi / 6, rel=0.02)
    np.testing.assert_allclose(BY_NAME["sphere"]["radii"], 0.5 * np.sqrt(0.4), rtol=0.01)
    # unit cube: I = m (1 + 1) / 12
    assert BY_NAME["box"]["volume"] == pytest.approx(1.0, rel=1e-6)
    np.testing.assert_allclose(BY_NAME["box"]["radii"], np.sqrt(1 / 6), rtol=1e-3)
    # cylinder d = 1, h = 1 along z: rx² = (3 r² + h²)/12, rz² = r²/2
    assert BY_NAME["cylinder"]["volume"] == pytest.approx(np.pi / 4, rel=0.01)
    np.testing.assert_allclose(
        BY_NAME["cylinder"]["radii"], [np.sqrt(1.75 / 12)] * 2 + [np.sqrt(0.125)], rtol=0.01
    )
    # the T-handle's stem (x) is its intermediate axis: the one that flips
    rx, ry, rz = BY_NAME["t_handle"]["radii"]
    assert ry < rx < rz


def mirror_pairs(tri: np.ndarray) -> np.ndarray:
    """For each triangle (T, 3, k) its mirror image's index in `tri`, or -1: the image in
    y = 0 (y negated, winding reversed so it still faces out) equal to within 1e-12 up to
    which vertex comes first."""
    image = (tri * np.array([1.0, -1.0, 1.0] * (tri.shape[2] // 3)))[:, [0, 2, 1]]
    flat_tri = tri.reshape(len(tri), -1)
    dist = np.full((len(tri), len(tri)), np.inf)
    for r in range(3):
        rolled = np.roll(image, r, axis=1).reshape(len(tri), -1)
        dist = np.minimum(dist, np.abs(flat_tri[:, None, :] - rolled[None, :, :]).max(axis=2))
    match = dist.argmin(axis=1)
    return np.where(dist[np.arange(len(tri)), match] <= 1e-12, match, -1)


def test_ship_is_its_own_mirror_image() -> None:
    """Starboard is the exact mirror image of port: the set of the ship's triangles (their
    vertices and vertex normals) mirrored in the centre plane y = 0 is the set itself, so the
    hull has no heeling lever of its own (tests/unit/test_hydrostatics.py). It had not: all its
    quads split on one diagonal, and an upright ship listed by GZ(0) = 0.3 mm at Size 10."""
    v, n, f = load(BY_NAME["ship"])
    assert len(f) == 652
    tri = np.concatenate([v[f], n[f]], axis=2)  # (T, 3, 6): position, normal
    match = mirror_pairs(tri)
    assert (match >= 0).all(), f"{int((match < 0).sum())} triangles without a mirror image"
    assert sorted(match.tolist()) == list(range(len(tri)))  # one to one
    self_mirrored = match == np.arange(len(tri))
    assert 0 < self_mirrored.sum() < 20  # the few that straddle y = 0 (deck, transom, house)
    # the check itself: the box's faces split on one diagonal are not symmetric
    bv, _, bf = load(BY_NAME["box"])
    assert (mirror_pairs(bv[bf]) < 0).any()


def test_make_meshes_reproduces_the_shipped_files(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("make_meshes", MESHES / "make_meshes.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.main(["--out", str(tmp_path)])
    # compared as numbers, not bytes: another libm may round a last digit differently
    fresh = json.loads((tmp_path / "meshes.json").read_text())
    assert [e["name"] for e in fresh] == [e["name"] for e in CATALOGUE]
    for new, old in zip(fresh, CATALOGUE, strict=True):
        assert {
            k: v for k, v in new.items() if not isinstance(v, list) or isinstance(v[0], str)
        } == {k: v for k, v in old.items() if not isinstance(v, list) or isinstance(v[0], str)}
        for key in ("size", "bbox_min", "radii"):
            np.testing.assert_allclose(new[key], old[key], atol=2e-4)
        made = READERS[new["format"]](tmp_path / new["file"])
        for a, b in zip(made, load(old), strict=True):
            np.testing.assert_allclose(a, b, atol=2e-4)


def test_materials_cover_fhsim_names_with_valid_values() -> None:
    for colour in ("Black", "White", "Red", "Green", "Blue", "Yellow", "Orange", "Grey"):
        assert f"Simple/{colour}" in MATERIALS
    for name, m in MATERIALS.items():
        assert re.fullmatch(r"#[0-9a-fA-F]{6}", m["color"]), name
        assert 0 <= m["metalness"] <= 1 and 0 <= m["roughness"] <= 1, name
        assert 0 < m.get("opacity", 1.0) <= 1, name
        assert set(m) <= {"color", "metalness", "roughness", "opacity"}, name
