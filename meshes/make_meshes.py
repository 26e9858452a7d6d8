"""Make the shipped meshes of sixdof (numpy only) and write meshes/meshes.json.

Every mesh is authored in the BODY frame of FhSim's 6DBody: x forward, y
starboard (right), z down, in metres, at MeshScale = Size = (1, 1, 1). The page
draws a mesh as it is, scaled by MeshScale × Size and placed at MeshOrigin
relative to the CG, so a mesh's own origin should sit at its centroid (the CG
of a uniform solid) unless noted ("arrow" starts at its origin).

Formats, so that each of three.js' loaders is used: binary glTF (.glb:
positions, normals, indices), binary and ASCII STL, and Wavefront OBJ.

For every mesh, meshes.json records "size" (bounding box, m, at scale 1) and
"radii": the radii of gyration (rx, ry, rz) about the centroid of a uniform
solid of that shape at scale 1, computed from the closed surface by the
divergence theorem (signed tetrahedra from the origin). A preset can use them
as InertiaRadi so the drawn shape and the dynamics agree.

Run:  python meshes/make_meshes.py [--out DIR]   (default: the folder of this file)
The output is deterministic: running it twice gives the same bytes.
"""

from __future__ import annotations

import argparse
import json
import struct
from pathlib import Path

import numpy as np

Part = tuple[np.ndarray, np.ndarray, np.ndarray]  # vertices (V,3), normals (V,3), faces (F,3)

# ----------------------------------------------------------------------------- geometry


def _unit(v: np.ndarray) -> np.ndarray:
    n = np.linalg.norm(v, axis=-1, keepdims=True)
    return v / np.where(n > 0, n, 1.0)


def smooth_normals(verts: np.ndarray, faces: np.ndarray) -> np.ndarray:
    """Area-weighted vertex normals (faces counter-clockwise seen from outside)."""
    a, b, c = verts[faces[:, 0]], verts[faces[:, 1]], verts[faces[:, 2]]
    fn = np.cross(b - a, c - a)  # length = 2 × area, so the sum is area weighted
    vn = np.zeros_like(verts)
    for k in range(3):
        np.add.at(vn, faces[:, k], fn)
    return _unit(vn)


def flat(verts: np.ndarray, faces: np.ndarray) -> Part:
    """Unshare the vertices so each triangle carries its own face normal (sharp edges)."""
    v = verts[faces].reshape(-1, 3)
    a, b, c = verts[faces[:, 0]], verts[faces[:, 1]], verts[faces[:, 2]]
    n = np.repeat(_unit(np.cross(b - a, c - a)), 3, axis=0)
    return v, n, np.arange(len(v)).reshape(-1, 3)


def smooth(verts: np.ndarray, faces: np.ndarray) -> Part:
    return verts, smooth_normals(verts, faces), faces


def merge(*parts: Part) -> Part:
    vs, ns, fs, off = [], [], [], 0
    for v, n, f in parts:
        vs.append(v)
        ns.append(n)
        fs.append(f + off)
        off += len(v)
    return np.concatenate(vs), np.concatenate(ns), np.concatenate(fs)


def grid_faces(rows: int, cols: int, wrap: bool) -> np.ndarray:
    """Quads of a rows × cols vertex grid (row-major), split in two triangles each."""
    faces = []
    ncols = cols if wrap else cols - 1
    for i in range(rows - 1):
        for j in range(ncols):
            j1 = (j + 1) % cols
            a, b, c, d = i * cols + j, i * cols + j1, (i + 1) * cols + j1, (i + 1) * cols + j
            faces += [(a, b, c), (a, c, d)]
    return np.array(faces, dtype=np.int64)


def fan(center: np.ndarray, ring: np.ndarray, outward: np.ndarray) -> Part:
    """A flat polygon cap: a fan from `center` over the closed `ring`, facing `outward`."""
    verts = np.vstack([center[None, :], ring])
    m = len(ring)
    faces = np.array([(0, 1 + j, 1 + (j + 1) % m) for j in range(m)], dtype=np.int64)
    a, b, c = verts[faces[0]]
    if np.dot(np.cross(b - a, c - a), outward) < 0:
        faces = faces[:, [0, 2, 1]]
    return verts, np.repeat(_unit(outward)[None, :], len(verts), axis=0), faces


def tube(axis: int, radius: float, z0: float, z1: float, seg: int, center=(0.0, 0.0)) -> Part:
    """A closed cylinder along body axis `axis` from z0 to z1: smooth side, flat caps."""
    t = 2 * np.pi * np.arange(seg) / seg
    u, w = radius * np.cos(t) + center[0], radius * np.sin(t) + center[1]
    other = [k for k in range(3) if k != axis]

    def ring(z: float) -> np.ndarray:
        r = np.zeros((seg, 3))
        r[:, axis], r[:, other[0]], r[:, other[1]] = z, u, w
        return r

    side_v = np.vstack([ring(z0), ring(z1)])
    side_n = np.zeros_like(side_v)
    side_n[:, other[0]] = np.tile(np.cos(t), 2)
    side_n[:, other[1]] = np.tile(np.sin(t), 2)
    side_f = grid_faces(2, seg, wrap=True)
    # orient the side outward: check one face against its vertex normal
    a, b, c = side_v[side_f[0]]
    if np.dot(np.cross(b - a, c - a), side_n[side_f[0, 0]]) < 0:
        side_f = side_f[:, [0, 2, 1]]
    e = np.zeros(3)
    e[axis] = 1.0
    c0, c1 = np.zeros(3), np.zeros(3)
    c0[axis], c1[axis] = z0, z1
    c0[other[0]] = c1[other[0]] = center[0]
    c0[other[1]] = c1[other[1]] = center[1]
    return merge((side_v, side_n, side_f), fan(c0, ring(z0), -e), fan(c1, ring(z1), e))


def cone(axis: int, r0: float, z0: float, z1: float, seg: int) -> Part:
    """A closed cone along `axis`: base radius r0 at z0, apex at z1; smooth side, flat base."""
    t = 2 * np.pi * np.arange(seg) / seg
    other = [k for k in range(3) if k != axis]
    base = np.zeros((seg, 3))
    base[:, axis], base[:, other[0]], base[:, other[1]] = z0, r0 * np.cos(t), r0 * np.sin(t)
    apex = np.zeros((seg, 3))  # one apex vertex per segment, so each keeps its own normal
    apex[:, axis] = z1
    verts = np.vstack([base, apex])
    slope = r0 / (z1 - z0)
    n = np.zeros((2 * seg, 3))
    n[:, other[0]] = np.tile(np.cos(t), 2)
    n[:, other[1]] = np.tile(np.sin(t), 2)
    n[:, axis] = slope
    faces = np.array([(j, (j + 1) % seg, seg + j) for j in range(seg)], dtype=np.int64)
    a, b, c = verts[faces[0]]
    if np.dot(np.cross(b - a, c - a), n[0]) < 0:
        faces = faces[:, [0, 2, 1]]
    e = np.zeros(3)
    e[axis] = -np.sign(z1 - z0)
    center = np.zeros(3)
    center[axis] = z0
    return merge((verts, _unit(n), faces), fan(center, base, e))


def uv_sphere(radius: float, seg: int, rings: int) -> Part:
    th = np.pi * np.arange(rings + 1) / rings  # polar angle from -z (up) to +z (down)
    ph = 2 * np.pi * np.arange(seg) / seg
    n = np.stack(
        [
            np.outer(np.sin(th), np.cos(ph)).ravel(),
            np.outer(np.sin(th), np.sin(ph)).ravel(),
            np.repeat(-np.cos(th), seg),
        ],
        axis=1,
    )
    faces = grid_faces(rings + 1, seg, wrap=True)
    verts = radius * n
    # drop the degenerate triangles at the poles, orient the rest outward
    tri = verts[faces]
    area2 = np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1)
    faces = faces[area2 > 1e-9]
    tri = verts[faces]
    if np.dot(np.cross(tri[0, 1] - tri[0, 0], tri[0, 2] - tri[0, 0]), tri[0].mean(0)) < 0:
        faces = faces[:, [0, 2, 1]]
    return verts, n, faces


def box(size: tuple[float, float, float]) -> Part:
    h = np.asarray(size) / 2
    corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]) * h
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    faces = []
    for a, b, c, d in quads:
        faces += [(a, b, c), (a, c, d)]
    faces = np.array(faces, dtype=np.int64)
    tri = corners[faces]
    normal = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    flip = np.einsum("ij,ij->i", normal, tri.mean(1)) < 0
    faces[flip] = faces[flip][:, [0, 2, 1]]
    return flat(corners, faces)


def mirror(part: Part) -> Part:
    """The mirror image of `part` in the centre plane y = 0, still facing outward."""
    v, n, f = part
    flip = np.array([1.0, -1.0, 1.0])
    return v * flip, n * flip, f[:, [0, 2, 1]]


def mirrored_box(size: tuple[float, float, float]) -> Part:
    """A box centred on the origin whose triangles are mirror images in y = 0 (box() splits
    the faces that cross y = 0 on one diagonal, so it is not): the four faces around the y
    axis each get a vertex on y = 0, the middle of an edge along y, and are fanned from it."""
    h = np.asarray(size) / 2
    xm, zm = (-1, 0, -1), (1, 0, 1)  # middles of the edges along y at (x-, z-) and (x+, z+)
    faces = [  # outward normal, then the face's corners in order round it, the fan's apex first
        ((-1, 0, 0), [xm, (-1, 1, -1), (-1, 1, 1), (-1, -1, 1), (-1, -1, -1)]),
        ((0, 0, -1), [xm, (-1, 1, -1), (1, 1, -1), (1, -1, -1), (-1, -1, -1)]),
        ((1, 0, 0), [zm, (1, 1, 1), (1, 1, -1), (1, -1, -1), (1, -1, 1)]),
        ((0, 0, 1), [zm, (1, 1, 1), (-1, 1, 1), (-1, -1, 1), (1, -1, 1)]),
        ((0, 1, 0), [(-1, 1, -1), (1, 1, -1), (1, 1, 1), (-1, 1, 1)]),
        ((0, -1, 0), [(-1, -1, -1), (1, -1, -1), (1, -1, 1), (-1, -1, 1)]),
    ]
    corners = sorted({c for _, ring in faces for c in ring})
    index = {c: k for k, c in enumerate(corners)}
    verts = np.array(corners, dtype=float) * h
    tris = []
    for outward, ring in faces:
        for k in range(1, len(ring) - 1):
            t = [index[ring[0]], index[ring[k]], index[ring[k + 1]]]
            a, b, c = verts[t]
            if np.dot(np.cross(b - a, c - a), outward) < 0:
                t = [t[0], t[2], t[1]]
            tris.append(t)
    return flat(verts, np.array(tris, dtype=np.int64))


def hull() -> Part:
    """A simple ship hull, 1 m long (bow at +x), beam 0.24 m, 0.14 m deep (keel at +z).

    Starboard is the exact mirror image of port (vertices and triangles), so the hull has no
    heeling lever of its own: the port half of the shell is made and mirrored, and the deck,
    transom and deckhouse are triangulated symmetrically about y = 0.
    """
    nx, nr = 25, 13
    x = np.linspace(-0.5, 0.5, nx)
    s = x + 0.5  # 0 at the transom, 1 at the stem
    bow = np.sqrt(np.clip(1 - ((s - 0.55) / 0.45) ** 2, 0, 1))  # elliptic waterlines forward
    half_beam = 0.12 * np.where(s < 0.55, 1.0, bow) * np.minimum(1.0, 0.85 + 1.5 * s)
    deck_z, keel_z = -0.05, 0.09
    draft = keel_z - 0.015 * np.clip((0.25 - s) / 0.25, 0, 1)  # a little rise at the stern
    a = np.linspace(0, np.pi, nr)  # port deck edge (a=0) round the bilge to starboard (a=pi)
    verts = np.zeros((nx, nr, 3))
    verts[:, :, 0] = x[:, None]
    verts[:, :, 1] = -half_beam[:, None] * np.cos(a)[None, :]
    # a U section: flat-ish bottom, near-vertical sides
    depth = (np.sin(a) ** 0.6)[None, :]
    verts[:, :, 2] = deck_z + (draft - deck_z)[:, None] * depth
    verts[-1, :, 1] = 0.0  # the stem is a line
    mid = nr // 2
    verts[:, mid, 1] = 0.0  # the keel is on the centre plane (cos(pi/2) is not quite 0)
    verts[:, mid + 1 :] = verts[:, mid - 1 :: -1] * [1.0, -1.0, 1.0]  # starboard mirrors port
    # port and starboard halves are smoothed apart, so the keel and the stem stay sharp lines;
    # starboard is port mirrored, so its quads are split on the mirrored diagonals
    half = verts[:, : mid + 1]
    v = half.reshape(-1, 3)
    f = grid_faces(nx, half.shape[1], wrap=False)
    tri = v[f]
    normal = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    f = f[np.linalg.norm(normal, axis=1) > 1e-9]
    # outward = away from the centre line: test a face amidships
    t = v[f[len(f) // 2]]
    if np.dot(np.cross(t[1] - t[0], t[2] - t[0]), t.mean(0) - [t.mean(0)[0], 0, 0.02]) < 0:
        f = f[:, [0, 2, 1]]
    port_side = smooth(v, f)
    side = merge(port_side, mirror(port_side))
    # deck: the flat polygon between the port and starboard deck edges, facing up (-z), fanned
    # from the stem (on y = 0) so that each triangle's mirror image is another one or itself
    port, stbd = verts[: nx - 1, 0], verts[: nx - 1, -1]  # the stem is row nx - 1
    deck_v = np.vstack([verts[nx - 1, 0][None, :], port, stbd])
    m = nx - 1
    deck_f = [(0, 1 + i + 1, 1 + i) for i in range(m - 1)]  # port edge
    deck_f += [(0, 1 + m + i, 1 + m + i + 1) for i in range(m - 1)]  # starboard edge
    deck_f += [(0, 1, 1 + m)]  # across the transom edge
    deck_f = np.array(deck_f, dtype=np.int64)
    t = deck_v[deck_f]
    up = np.cross(t[:, 1] - t[:, 0], t[:, 2] - t[:, 0])[:, 2] < 0
    deck_f[~up] = deck_f[~up][:, [0, 2, 1]]
    deck = flat(deck_v, deck_f)
    centre = verts[0].mean(0)
    centre[1] = 0.0
    transom = fan(centre, verts[0], np.array([-1.0, 0, 0]))
    # a small deckhouse, aft of midships
    house_v, house_n, house_f = mirrored_box((0.22, 0.14, 0.06))
    house_v = house_v + np.array([-0.12, 0.0, deck_z - 0.03])
    return merge(side, deck, flat(*transom[::2]), (house_v, house_n, house_f))


def t_handle() -> Part:
    """The T-handle of the Dzhanibekov effect: a 1 m bar along y with a 0.5 m stem along +x."""
    bar = tube(1, 0.06, -0.5, 0.5, 24)
    stem = tube(0, 0.045, 0.035, 0.56, 20)
    # the stem starts just inside the bar so no gap shows; the overlap (about 1 % of the volume)
    # counts twice in mass_properties, which is close enough for "radii"
    return merge(bar, stem)


def arrow() -> Part:
    """An arrow along +x from its origin (tail) to x = 1: shaft 0.75 m, head 0.25 m."""
    shaft = tube(0, 0.035, 0.0, 0.75, 16)
    head = cone(0, 0.1, 0.75, 1.0, 16)
    return merge(shaft, head)


# ----------------------------------------------------------------------------- mass properties


def mass_properties(verts: np.ndarray, faces: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """Volume, centroid and inertia tensor per unit density of a closed, outward-oriented mesh.

    Sum over signed tetrahedra (origin, a, b, c): volume det/6, centroid (a+b+c)/4 and the
    second moments ∫x_i x_j dV = det/120 (Σ_k a_i a_j … + (Σ)(Σ)) (Tonon 2004). Overlapping
    parts count twice, as in a union of touching solids (ours touch, they do not overlap).
    """
    a, b, c = verts[faces[:, 0]], verts[faces[:, 1]], verts[faces[:, 2]]
    det = np.einsum("ij,ij->i", a, np.cross(b, c))
    vol = det.sum() / 6.0
    centroid = (det[:, None] * (a + b + c)).sum(0) / 24.0 / vol
    s = a + b + c
    second = np.einsum("t,ti,tj->ij", det, s, s)
    for p in (a, b, c):
        second += np.einsum("t,ti,tj->ij", det, p, p)
    second /= 120.0  # ∫ x xᵀ dV about the origin
    second -= vol * np.outer(centroid, centroid)  # about the centroid
    inertia = np.trace(second) * np.eye(3) - second
    return float(vol), centroid, inertia


# ----------------------------------------------------------------------------- writers


def write_glb(path: Path, part: Part, name: str) -> None:
    """Binary glTF 2.0: one mesh, one primitive with POSITION, NORMAL and uint16/32 indices."""
    v, n, f = part
    pos = v.astype("<f4").tobytes()
    nor = n.astype("<f4").tobytes()
    itype, ifmt = (5123, "<u2") if len(v) < 65536 else (5125, "<u4")
    idx = f.astype(ifmt).tobytes()
    idx += b"\0" * (-len(idx) % 4)
    binary = pos + nor + idx
    vmin, vmax = v.min(0).astype("<f4"), v.max(0).astype("<f4")
    doc = {
        "asset": {"version": "2.0", "generator": "sixdof meshes/make_meshes.py"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0, "name": name}],
        "meshes": [
            {
                "name": name,
                "primitives": [{"attributes": {"POSITION": 0, "NORMAL": 1}, "indices": 2}],
            }
        ],
        "buffers": [{"byteLength": len(binary)}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": len(pos), "target": 34962},
            {"buffer": 0, "byteOffset": len(pos), "byteLength": len(nor), "target": 34962},
            {
                "buffer": 0,
                "byteOffset": len(pos) + len(nor),
                "byteLength": f.size * np.dtype(ifmt).itemsize,
                "target": 34963,
            },
        ],
        "accessors": [
            {
                "bufferView": 0,
                "componentType": 5126,
                "count": len(v),
                "type": "VEC3",
                "min": [float(x) for x in vmin],
                "max": [float(x) for x in vmax],
            },
            {"bufferView": 1, "componentType": 5126, "count": len(v), "type": "VEC3"},
            {"bufferView": 2, "componentType": itype, "count": int(f.size), "type": "SCALAR"},
        ],
    }
    js = json.dumps(doc, separators=(",", ":")).encode()
    js += b" " * (-len(js) % 4)
    total = 12 + 8 + len(js) + 8 + len(binary)
    out = struct.pack("<4sII", b"glTF", 2, total)
    out += struct.pack("<I4s", len(js), b"JSON") + js
    out += struct.pack("<I4s", len(binary), b"BIN\0") + binary
    path.write_bytes(out)


def write_stl_binary(path: Path, part: Part, name: str) -> None:
    v, _, f = part
    tri = v[f]
    fn = _unit(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]))
    header = f"sixdof mesh {name}, body frame x fwd y stbd z down, m".encode()[:80].ljust(80, b" ")
    rec = np.zeros(len(f), dtype=[("n", "<f4", 3), ("v", "<f4", (3, 3)), ("attr", "<u2")])
    rec["n"], rec["v"] = fn, tri
    path.write_bytes(header + struct.pack("<I", len(f)) + rec.tobytes())


def write_stl_ascii(path: Path, part: Part, name: str) -> None:
    v, _, f = part
    tri = v[f]
    fn = _unit(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]))
    lines = [f"solid {name}"]
    for t, n in zip(tri, fn, strict=True):
        lines.append(f"facet normal {n[0]:.5g} {n[1]:.5g} {n[2]:.5g}")
        lines.append("outer loop")
        lines += [f"vertex {p[0]:.5g} {p[1]:.5g} {p[2]:.5g}" for p in t]
        lines += ["endloop", "endfacet"]
    lines.append(f"endsolid {name}")
    path.write_text("\n".join(lines) + "\n")


def write_obj(path: Path, part: Part, name: str) -> None:
    v, n, f = part
    lines = [f"# sixdof mesh {name}: body frame (x fwd, y starboard, z down), metres", f"o {name}"]
    lines += [f"v {p[0]:.5g} {p[1]:.5g} {p[2]:.5g}" for p in v]
    lines += [f"vn {p[0]:.4f} {p[1]:.4f} {p[2]:.4f}" for p in n]
    lines += [f"f {a + 1}//{a + 1} {b + 1}//{b + 1} {c + 1}//{c + 1}" for a, b, c in f]
    path.write_text("\n".join(lines) + "\n")


WRITERS = {
    "glb": write_glb,
    "stl": write_stl_binary,
    "stl-ascii": write_stl_ascii,
    "obj": write_obj,
}

# ----------------------------------------------------------------------------- catalogue

MESHES = [
    # name, file, writer, builder, aliases (FhSim / Ogre names), centred, description
    ("sphere", "sphere.glb", "glb", lambda: uv_sphere(0.5, 32, 16),
     ["fhSphere.mesh", "sphere.mesh", "Sphere.mesh", "fhBall.mesh"], True,
     "sphere, diameter 1 m"),
    ("box", "box.stl", "stl", lambda: box((1.0, 1.0, 1.0)),
     ["fhBox.mesh", "fhCube.mesh", "cube.mesh", "box.mesh", "Box.mesh"], True,
     "cube, 1 m edges along the body axes"),
    ("cylinder", "cylinder.glb", "glb", lambda: tube(2, 0.5, -0.5, 0.5, 40),
     ["fhCylinder.mesh", "cylinder.mesh", "Cylinder.mesh"], True,
     "cylinder, diameter 1 m, length 1 m along body z (down)"),
    ("t_handle", "t_handle.obj", "obj", t_handle,
     ["fhTHandle.mesh", "tennis_racket", "racket.mesh", "fhRacket.mesh"], True,
     "T-handle (Dzhanibekov / tennis racket): 1 m bar along y, stem along +x"),
    ("ship", "ship.glb", "glb", hull,
     ["fhShip.mesh", "fhBoat.mesh", "ship.mesh", "boat.mesh", "hull.mesh"], True,
     "simple hull, 1 m long, bow at +x, deck up (-z), keel down (+z)"),
    ("arrow", "arrow.stl", "stl-ascii", arrow,
     ["fhArrow.mesh", "arrow.mesh", "Arrow.mesh"], False,
     "arrow along +x, tail at the origin, 1 m long"),
]  # fmt: skip


def build(name: str) -> Part:
    """The mesh `name`, centred on its centroid when the catalogue says so."""
    for n, _file, _fmt, builder, _aliases, centred, _desc in MESHES:
        if n == name:
            v, nn, f = builder()
            if centred:
                _, c, _ = mass_properties(v, f)
                c[np.abs(c) < 1e-9] = 0.0  # on a plane of symmetry (the ship's y = 0): stay so
                v = v - c
                v[np.abs(v) < 1e-9] = 0.0
            return v, nn, f
    raise KeyError(name)


def catalogue_entry(name: str, part: Part) -> dict:
    v, _, f = part
    vol, _, inertia = mass_properties(v, f)
    radii = np.sqrt(np.diag(inertia) / vol)
    for n, file, fmt, _builder, aliases, _centred, desc in MESHES:
        if n == name:
            return {
                "name": n,
                "file": file,
                "format": fmt.split("-")[0],
                "aliases": aliases,
                "size": [round(float(s), 4) for s in v.max(0) - v.min(0)],
                "bbox_min": [round(float(s), 4) for s in v.min(0)],
                "radii": [round(float(r), 4) for r in radii],
                "volume": round(vol, 5),
                "description": desc
                + "; body frame (x forward, y starboard, z down), metres at MeshScale = Size = 1",
            }
    raise KeyError(name)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent)
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    entries = []
    for name, file, fmt, *_ in MESHES:
        part = build(name)
        WRITERS[fmt](args.out / file, part, name)
        entries.append(catalogue_entry(name, part))
    (args.out / "meshes.json").write_text(json.dumps(entries, indent=2) + "\n")
    for e in entries:
        kb = (args.out / e["file"]).stat().st_size / 1024
        print(f"{e['file']:14s} {kb:6.1f} KB  size {e['size']}  radii {e['radii']}")


if __name__ == "__main__":
    main()
