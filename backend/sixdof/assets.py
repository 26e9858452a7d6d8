"""Where the page, its catalogues and the meshes live: inside the installed package, or in a
source checkout.

A wheel carries them in `sixdof/_assets/{web,locales,meshes}` (copied there by setup.py at
build time); a source checkout (editable install) serves `frontend/dist`,
`frontend/src/locales` and `meshes/` from the repository itself, so a rebuilt page shows up
without reinstalling. The locale catalogues give the presets' English text.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent
_REPO = _PACKAGE.parent.parent  # backend/sixdof -> repository root

_SOURCE_LAYOUT = {
    "web": _REPO / "frontend" / "dist",
    "locales": _REPO / "frontend" / "src" / "locales",
    "meshes": _REPO / "meshes",
}


def asset_dir(kind: str) -> Path:
    """The directory of `kind` ("web", "locales" or "meshes"); "web" may not exist if the page
    was never built."""
    if kind not in _SOURCE_LAYOUT:
        raise ValueError(f"unknown asset kind {kind!r}; expected one of {sorted(_SOURCE_LAYOUT)}")
    packaged = _PACKAGE / "_assets" / kind
    if packaged.is_dir():
        return packaged
    return _SOURCE_LAYOUT[kind]
