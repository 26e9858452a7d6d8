"""The pythreejs stage and bodies: the page's scene graph, rebuilt with notebook widgets.

    Scene
      lights, camera                 three.js' own y-up frame
      NED root (rotated by C)        children in NED coordinates (frames.py)
        ground: grid in the N-E plane, N/E/D arrows and labels
        body group   at Pos, turned by Quater
          holder     at CGOffset + MeshOrigin, scaled MeshScale × Size × MeshUnits
            mesh     the Mesh (shipped shape or stored mesh), drawn with Material
          triad      at CGOffset: the body axes x, y, z

This is frontend/src/view/body.js and scene.js in pythreejs, so a body looks and sits the
same in the notebook as on the page (DESIGN.md section 6).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import numpy as np
import pythreejs as p3

from ..dynamics import quaternion as quat
from ..scenario import BodySpec
from ..view_style import BACKGROUND, FALLBACK_COLOUR, VIEW_FROM, WORLD_AXIS_COLOURS
from .catalogue import Catalogue, MeshEntry
from .frames import NED_ROOT_QUATERNION, quat_to_three, vec_to_three
from .meshfiles import MeshData, MeshFileError, read_mesh

MIN_SCALE = 1e-6  # a zero MeshScale × Size would make a singular matrix: keep it tiny instead
_QUARTER_TURN_X = NED_ROOT_QUATERNION  # +90° about x: turns three.js' y axis onto z


class VisualWarning(UserWarning):
    """An unknown Mesh or Material: drawn with a fallback, never a blank scene."""


def nice_step(x: float) -> float:
    """1, 2 or 5 × 10ᵏ, the smallest not below x."""
    p = 10.0 ** math.floor(math.log10(x))
    return next(m * p for m in (1.0, 2.0, 5.0, 10.0) if m * p >= x * (1 - 1e-12))


def visual_transform(spec: BodySpec) -> tuple[np.ndarray, np.ndarray]:
    """(offset, scale) of the mesh holder in body axes: CGOffset + MeshOrigin, MeshScale ×
    Size × MeshUnits (metres per file unit, as the server scales the shape it weighs).

    MeshOrigin is relative to the CG (FhSim's definition), and the body group sits at
    the reference point o, so the offset from o is CGOffset + MeshOrigin (m).
    """
    from ..meshfiles import UNITS

    offset = np.add(spec.CGOffset, spec.MeshOrigin)
    scale = np.multiply(spec.MeshScale, spec.Size) * UNITS[spec.MeshUnits]
    scale = np.where(np.abs(scale) < MIN_SCALE, MIN_SCALE, scale)
    return offset, scale


class GeometryLibrary:
    """pythreejs geometries of catalogue entries, made once per view and shared by bodies.

    Sphere, box and cylinder are three.js primitives of the catalogue's dimensions (a few
    numbers on the wire instead of vertex arrays); every other shape is read from its
    file (meshfiles.py). A file that cannot be read falls back to the sphere.
    """

    def __init__(self, catalogue: Catalogue) -> None:
        self.catalogue = catalogue
        self._cache: dict[str, tuple[p3.BaseBufferGeometry, tuple[float, ...]]] = {}

    def get(self, entry: MeshEntry) -> tuple[p3.BaseBufferGeometry, tuple[float, ...], str | None]:
        """(geometry, mesh quaternion xyzw, warning) for a catalogue entry."""
        if entry.file in self._cache:
            return (*self._cache[entry.file], None)
        warning = None
        made = None if entry.stored else self._primitive(entry)
        if made is None:
            path = self.catalogue.mesh_path(entry)
            try:
                if entry.stored:
                    data = _stored_mesh(entry)
                elif path is None:
                    raise MeshFileError(f"{entry.file}: no mesh folder")
                else:
                    data = read_mesh(path)
                attrs = {
                    "position": p3.BufferAttribute(data.positions, normalized=False),
                    "normal": p3.BufferAttribute(data.normals, normalized=False),
                }
                if data.index is not None:
                    attrs["index"] = p3.BufferAttribute(data.index, normalized=False)
                made = (p3.BufferGeometry(attributes=attrs), (0.0, 0.0, 0.0, 1.0))
            except MeshFileError as exc:
                warning = f"Mesh {entry.name!r}: {exc}; drawn as a sphere"
                made = (p3.SphereBufferGeometry(0.5, 32, 16), (0.0, 0.0, 0.0, 1.0))
        self._cache[entry.file] = made
        return (*made, warning)

    @staticmethod
    def _primitive(entry: MeshEntry) -> tuple[p3.BaseBufferGeometry, tuple[float, ...]] | None:
        sx, sy, sz = entry.size
        identity = (0.0, 0.0, 0.0, 1.0)
        if entry.name == "sphere":
            return p3.SphereBufferGeometry(0.5 * sx, 32, 16), identity
        if entry.name == "box":
            return p3.BoxBufferGeometry(sx, sy, sz), identity
        if entry.name == "cylinder":  # axis along body z; three.js' cylinder stands along y
            return p3.CylinderBufferGeometry(0.5 * sx, 0.5 * sx, sz, 40), _QUARTER_TURN_X
        return None


def _stored_mesh(entry: MeshEntry) -> MeshData:
    """A stored mesh's triangles as its file lays them out (the file name says the format)."""
    from ..meshfiles import drawn
    from ..meshstore import mesh_store

    data = mesh_store().get(entry.file)
    if data is None:
        raise MeshFileError(f"{entry.name}: no longer in the mesh store")
    return drawn(data, entry.name)


class BodyDrawing:
    """One body: group (pose), holder (MeshOrigin, MeshScale × Size), mesh, axes triad."""

    def __init__(self, index: int, spec: BodySpec, library: GeometryLibrary) -> None:
        self.library = library
        self.material = p3.MeshStandardMaterial(color=FALLBACK_COLOUR)
        self.mesh = p3.Mesh(
            p3.SphereBufferGeometry(0.5, 32, 16), self.material, name=f"body{index}_mesh"
        )
        self.holder = p3.Group(name=f"body{index}_holder", children=[self.mesh])
        self.triad = p3.AxesHelper(1.0, name=f"body{index}_axes")
        self.group = p3.Group(name=f"body{index}", children=[self.holder, self.triad])
        self.spec: BodySpec | None = None
        self.mesh_name = ""
        self._mesh_warning: str | None = None
        self._material_warning: str | None = None
        self.apply_spec(spec)

    def apply_spec(self, spec: BodySpec) -> list[str]:
        """Draw the visual parameters of `spec`; returns (and warns) what fell back now."""
        notes: list[str] = []
        old = self.spec
        offset, scale = visual_transform(spec)
        with self.holder.hold_sync():
            self.holder.position = tuple(offset.tolist())
            self.holder.scale = tuple(scale.tolist())
        self.triad.position = tuple(float(c) for c in spec.CGOffset)
        self.triad.scale = (max(0.3, 0.75 * self.extent(spec)),) * 3
        if old is None or old.Mesh != spec.Mesh:
            entry, warning = self.library.catalogue.lookup_mesh(spec.Mesh)
            geometry, quat, file_warning = self.library.get(entry)
            with self.mesh.hold_sync():
                self.mesh.geometry = geometry
                self.mesh.quaternion = quat
            self.mesh_name = entry.name
            self._mesh_warning = warning or file_warning
            notes += [self._mesh_warning] if self._mesh_warning else []
        if old is None or old.Material != spec.Material:
            look, warning = self.library.catalogue.material(spec.Material)
            with self.material.hold_sync():
                self.material.color = look.color
                self.material.metalness = look.metalness
                self.material.roughness = look.roughness
                self.material.opacity = look.opacity
                self.material.transparent = look.opacity < 1.0
                self.material.depthWrite = look.opacity >= 1.0
            self._material_warning = warning
            notes += [warning] if warning else []
        self.spec = spec
        for note in notes:
            warnings.warn(f"{spec.Name}: {note}", VisualWarning, stacklevel=3)
        return notes

    @property
    def warnings(self) -> list[str]:
        """What is drawn with a fallback now (unknown Mesh or Material), for the status line."""
        return [w for w in (self._mesh_warning, self._material_warning) if w]

    def extent(self, spec: BodySpec | None = None) -> float:
        """The largest drawn dimension (m): catalogue size × MeshScale × Size."""
        spec = spec or self.spec
        if spec is None:
            return 1.0
        entry = self.library.catalogue.resolve_mesh(spec.Mesh)
        size = np.asarray(entry.size if entry else (1.0, 1.0, 1.0))
        return float(max(0.05, np.max(np.abs(size * visual_transform(spec)[1]))))

    def set_pose(self, pos_ned: Sequence[float], quat_wxyz: Sequence[float]) -> None:
        """Place the group at Pos with orientation Quater (inside the NED root: order only)."""
        with self.group.hold_sync():
            self.group.position = tuple(float(c) for c in pos_ned)
            self.group.quaternion = tuple(quat_to_three(quat_wxyz).tolist())


def _label(text: str, colour: str, size: float) -> p3.Sprite:
    texture = p3.TextTexture(string=text, color=colour, size=64, squareTexture=True)
    return p3.Sprite(
        material=p3.SpriteMaterial(map=texture, transparent=True), scale=(size, size, 1.0)
    )


def look_rotation(eye: np.ndarray, target: np.ndarray) -> tuple[float, float, float, float]:
    """three.js quaternion (x, y, z, w) of a camera at `eye` looking at `target`, y up.

    As three.js' Object3D.lookAt for a camera: its −z axis points at the target, its x axis
    is horizontal (up × back), its y axis completes the frame.
    """
    back = np.asarray(eye, float) - np.asarray(target, float)
    back /= np.linalg.norm(back)
    right = np.cross([0.0, 1.0, 0.0], back)
    if np.linalg.norm(right) < 1e-9:  # looking straight up or down: any horizontal right
        right = np.array([1.0, 0.0, 0.0])
    right /= np.linalg.norm(right)
    up = np.cross(back, right)
    w, x, y, z = quat.from_rotmat(np.column_stack([right, up, back]))
    return (float(x), float(y), float(z), float(w))


class Stage:
    """Renderer, camera, orbit controls, lights, NED root with the ground grid and N/E/D axes."""

    def __init__(self, width: int = 640, height: int = 420) -> None:
        self.ned = p3.Group(name="NED", quaternion=NED_ROOT_QUATERNION)
        self.ground = p3.Group(name="ground")
        self.ned.add(self.ground)
        self.camera = p3.PerspectiveCamera(
            position=(3.0, 3.0, 3.0), fov=45.0, aspect=width / height, near=0.01, far=5000.0
        )
        self.controls = p3.OrbitControls(controlling=self.camera)
        sun = p3.DirectionalLight(color="#ffffff", intensity=0.8, position=(-4.0, 10.0, 6.0))
        self.scene = p3.Scene(
            children=[
                p3.HemisphereLight(color="#ffffff", groundColor="#8d9aa6", intensity=0.75),
                p3.AmbientLight(color="#ffffff", intensity=0.25),
                sun,
                self.camera,
                self.ned,
            ],
            background=BACKGROUND,
        )
        self.renderer = p3.Renderer(
            camera=self.camera,
            scene=self.scene,
            controls=[self.controls],
            width=width,
            height=height,
            antialias=True,
        )
        self.cell = 0.0
        self.set_scale(1.0)
        self.look_at((0.0, 0.0, 0.0), 1.0)

    def set_scale(self, extent: float) -> None:
        """Grid of 40 cells of 1, 2 or 5 × 10ᵏ m fitted to a body of size `extent` (m)."""
        cell = nice_step(max(0.25, 0.75 * extent))
        if cell == self.cell:
            return
        self.cell = cell
        cells = 40
        grid = p3.GridHelper(cell * cells, cells, colorCenterLine="#7d8a96", colorGrid="#c3ccd5")
        grid.quaternion = NED_ROOT_QUATERNION  # GridHelper lies in its x-z plane; NED ground is x-y
        length = 3 * cell
        parts: list[p3.Object3D] = [grid]
        for name, axis in (("N", (1, 0, 0)), ("E", (0, 1, 0)), ("D", (0, 0, 1))):
            colour = WORLD_AXIS_COLOURS[name]
            parts.append(
                p3.ArrowHelper(
                    dir=axis,
                    origin=(0, 0, 0),
                    length=length,
                    color=colour,
                    headLength=0.2 * length,
                    headWidth=0.08 * length,
                )
            )
            label = _label(name, colour, 0.6 * cell)
            label.position = tuple(float(a) * (length + 0.4 * cell) for a in axis)
            parts.append(label)
        self.ground.children = tuple(parts)

    def look_at(self, target_ned: Sequence[float], radius: float) -> None:
        """Camera on the page's default direction, far enough to see a sphere of `radius` m."""
        target = vec_to_three(target_ned)
        view = vec_to_three(VIEW_FROM)
        dist = max(3.0, 1.3 * radius / math.sin(math.radians(self.camera.fov) / 2))
        position = target + dist * view / np.linalg.norm(view)
        self.camera.position = tuple(position.tolist())
        # Aim the camera as well as placing it: OrbitControls re-aim it only after the first
        # user input, and until then the view showed the background alone.
        self.camera.quaternion = look_rotation(position, target)
        self.controls.target = tuple(target.tolist())
        self.camera.far = max(5000.0, 20 * dist)
