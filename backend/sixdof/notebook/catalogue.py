"""Mesh and Material names as FhSim gives them, resolved by the page's rules (DESIGN.md §6).

The catalogue is meshes/meshes.json (a list of {name, file, aliases, size, …}) and
meshes/materials.json (FhSim material names → {color, metalness, roughness, opacity}),
the same files the page reads through GET /api/meshes. The rules are the page's
(frontend/src/view/meshes.js):

- `Mesh`: the last path component, any case, matched against each entry's name, file and
  aliases ("fhSphere.mesh" → sphere). A stored mesh (`sha256:…`: an upload, or a file beside
  a scenario file, read with it) is an entry of its own, drawn from the process's mesh store
  by the file name it came with (its size: its bounds, file units). Unknown → the sphere,
  with a warning.
- `Material`: an exact or caseless key of materials.json; otherwise any CSS colour
  ("tomato", "#ff8800", "rgb(…)") with metalness 0.1 and roughness 0.5; otherwise a grey
  fallback with a warning.

When the JSON files are missing (a wheel built without them) a built-in table with the
same sphere/box/cylinder entries and Simple/* colours stands in.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

FALLBACK_MESH = "sphere"
FALLBACK_MATERIAL = {"color": "#8a9099", "metalness": 0.1, "roughness": 0.55}
CSS_MATERIAL = {"metalness": 0.1, "roughness": 0.5}

_BUILTIN_MESHES = [
    {
        "name": "sphere",
        "file": "sphere.glb",
        "size": [1.0, 1.0, 1.0],
        "aliases": ["fhSphere.mesh", "sphere.mesh", "fhBall.mesh"],
    },
    {
        "name": "box",
        "file": "box.stl",
        "size": [1.0, 1.0, 1.0],
        "aliases": ["fhBox.mesh", "fhCube.mesh", "cube.mesh", "box.mesh"],
    },
    {
        "name": "cylinder",
        "file": "cylinder.glb",
        "size": [1.0, 1.0, 1.0],
        "aliases": ["fhCylinder.mesh", "cylinder.mesh"],
    },
]
_BUILTIN_MATERIALS = {
    "Simple/Black": {"color": "#202124", "metalness": 0.2, "roughness": 0.45},
    "Simple/White": {"color": "#f2f2ee", "metalness": 0.0, "roughness": 0.6},
    "Simple/Grey": {"color": "#8a9099", "metalness": 0.1, "roughness": 0.55},
    "Simple/Gray": {"color": "#8a9099", "metalness": 0.1, "roughness": 0.55},
    "Simple/Red": {"color": "#d0312d", "metalness": 0.05, "roughness": 0.5},
    "Simple/Green": {"color": "#2e9d4a", "metalness": 0.05, "roughness": 0.5},
    "Simple/Blue": {"color": "#2660c9", "metalness": 0.05, "roughness": 0.5},
    "Simple/Yellow": {"color": "#f2c12e", "metalness": 0.05, "roughness": 0.5},
    "Simple/Orange": {"color": "#f07d1a", "metalness": 0.05, "roughness": 0.5},
}

# CSS colour syntax that both three.js' Color.setStyle and ipywidgets' Color trait accept.
_HEX = re.compile(r"^#([0-9a-f]{3}|[0-9a-f]{6})$", re.IGNORECASE)
_FUNC = re.compile(r"^(rgb|hsl)a?\(\s*[-+\d.%,\s/]+\)$", re.IGNORECASE)


def _css_names() -> frozenset[str]:
    try:  # the 149 CSS colour names pythreejs' Color trait accepts
        from ipywidgets.widgets.trait_types import _color_names

        return frozenset(n.lower() for n in _color_names)
    except ImportError:  # pragma: no cover - ipywidgets is a dependency of this package
        return frozenset(
            {
                "black",
                "white",
                "red",
                "green",
                "blue",
                "yellow",
                "orange",
                "gray",
                "grey",
                "purple",
                "cyan",
                "magenta",
                "brown",
                "pink",
                "tomato",
            }
        )


CSS_NAMES = _css_names()


def is_css_colour(text: str) -> bool:
    """True for a CSS colour name, #rgb / #rrggbb, or rgb()/hsl() notation."""
    s = str(text).strip()
    return bool(s) and (s.lower() in CSS_NAMES or bool(_HEX.match(s)) or bool(_FUNC.match(s)))


@dataclass(frozen=True)
class MeshEntry:
    """One shipped mesh: its catalogue name, file in meshes/, aliases and size at scale 1 (m)."""

    name: str
    file: str
    aliases: tuple[str, ...] = ()
    size: tuple[float, float, float] = (1.0, 1.0, 1.0)
    stored: bool = False  # kept in the mesh store by its content: `file` is its id


@dataclass(frozen=True)
class Look:
    """A material as the renderer needs it."""

    color: str
    metalness: float = 0.1
    roughness: float = 0.5
    opacity: float = 1.0


@dataclass(frozen=True)
class Catalogue:
    """The mesh list, the material table and the folder the mesh files are in."""

    meshes: tuple[MeshEntry, ...]
    materials: dict[str, dict] = field(default_factory=dict)
    folder: Path | None = None
    builtin: bool = False

    def resolve_mesh(self, name: str) -> MeshEntry | None:
        """The entry for a `Mesh` parameter (name, file or alias; any case; any folder)."""
        if is_mesh_id(str(name or "")):
            return _stored_entry(str(name))
        key = re.split(r"[\\/]", str(name or ""))[-1].lower()
        if not key:
            return None
        for entry in self.meshes:
            if key in {s.lower() for s in (entry.name, entry.file, *entry.aliases)}:
                return entry
        return None

    def lookup_mesh(self, name: str) -> tuple[MeshEntry, str | None]:
        """(entry, warning): the entry, or the fallback sphere and a warning naming `name`."""
        entry = self.resolve_mesh(name)
        if entry is not None:
            return entry, None
        fallback = self.resolve_mesh(FALLBACK_MESH) or self.meshes[0]
        if is_mesh_id(str(name or "")):
            return fallback, (
                f"Mesh {name[:15]}…: no such mesh in this process's mesh store (upload it or "
                f"load the scenario file that names it): drawn as a {fallback.name}"
            )
        known = sorted(e.name for e in self.meshes)
        return fallback, (
            f"Mesh {name!r} is not a shipped mesh (one of {known} or their FhSim "
            f"aliases): drawn as a {fallback.name}"
        )

    def material(self, name: str) -> tuple[Look, str | None]:
        """(look, warning) for a `Material` parameter, by the page's rules."""
        spec = self.materials.get(name)
        if spec is None:
            lower = str(name).lower()
            spec = next((v for k, v in self.materials.items() if k.lower() == lower), None)
        warning = None
        if spec is None:
            if is_css_colour(name):
                spec = {"color": str(name).strip(), **CSS_MATERIAL}
            else:
                spec = FALLBACK_MATERIAL
                warning = (
                    f"Material {name!r} is neither a known material ({sorted(self.materials)}) "
                    "nor a CSS colour: drawn grey"
                )
        look = Look(
            color=str(spec.get("color", FALLBACK_MATERIAL["color"])),
            metalness=_number(spec.get("metalness", 0.1)),
            roughness=_number(spec.get("roughness", 0.5)),
            opacity=_number(spec.get("opacity", 1.0)),
        )
        return look, warning

    def mesh_path(self, entry: MeshEntry) -> Path | None:
        return None if self.folder is None else self.folder / entry.file


def is_mesh_id(name: str) -> bool:
    from ..meshstore import is_mesh_id as stored_id

    return stored_id(name)


def _stored_entry(key: str) -> MeshEntry | None:
    """The entry of a stored mesh, None when the store does not hold it (or it is unreadable)."""
    from ..meshfiles import MeshFileError
    from ..meshstore import display_name
    from ..scenario.body_mesh import find_mesh

    try:
        mesh = find_mesh(key)
    except MeshFileError:
        return None
    if mesh is None:
        return None
    low, high = mesh.bounds()
    size = tuple(float(x) for x in np.subtract(high, low))
    return MeshEntry(display_name(key), key, size=(size[0], size[1], size[2]), stored=True)


def _entries(raw: list[dict]) -> tuple[MeshEntry, ...]:
    return tuple(
        MeshEntry(
            name=str(e["name"]),
            file=str(e["file"]),
            aliases=tuple(str(a) for a in e.get("aliases", ())),
            size=tuple(float(s) for s in e.get("size", (1.0, 1.0, 1.0))),  # type: ignore[arg-type]  # 3 numbers: meshes.json is checked by tests
        )
        for e in raw
    )


@lru_cache(maxsize=8)
def _load(folder: Path) -> Catalogue:
    meshes_json, materials_json = folder / "meshes.json", folder / "materials.json"
    builtin = not meshes_json.is_file()
    raw_meshes = _BUILTIN_MESHES if builtin else json.loads(meshes_json.read_text())
    materials = (
        json.loads(materials_json.read_text())
        if materials_json.is_file()
        else dict(_BUILTIN_MATERIALS)
    )
    return Catalogue(_entries(raw_meshes), materials, folder, builtin)


def load_catalogue(folder: str | Path | None = None) -> Catalogue:
    """The catalogue in `folder` (default: the shipped meshes/), or the built-in table."""
    if folder is None:
        from ..assets import asset_dir

        folder = asset_dir("meshes")
    return _load(Path(folder).resolve())


def _number(value: object) -> float:
    """A material property from materials.json (a number, or a string of one)."""
    if isinstance(value, int | float | str):
        return float(value)
    raise ValueError(f"materials.json: expected a number, got {value!r}")
