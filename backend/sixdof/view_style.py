"""How the scene looks, shared by the page and the notebook: one place for both.

The page reads these from `frontend/src/net/protocol.gen.js` (generated from this module by
scripts/gen_protocol.py); the notebook (`sixdof.notebook`) imports them. Colours are CSS
strings; directions are NED (x north, y east, z down).
"""

from __future__ import annotations

#: The view's background.
BACKGROUND = "#e8edf2"
#: Default direction from the target to the camera, NED: from the south-west and above.
VIEW_FROM = (-0.8, -0.32, -0.5)
#: World axes N, E, D: thin and grey, told apart by their labels, so that the body's
#: coloured axes are the only red, green and blue in the view.
WORLD_AXIS_COLOURS = {"N": "#6c757d", "E": "#6c757d", "D": "#6c757d"}
#: Body axes x, y, z.
BODY_AXIS_COLOURS = {"x": "#d0312d", "y": "#2e9d4a", "z": "#2660c9"}
#: World axis length, in grid cells.
WORLD_AXIS_CELLS = 2.0
#: Grid lines: every tenth, and the others.
GRID_MAJOR = "#8996a3"
GRID_MINOR = "#bcc6d0"
#: Glyphs drawn on a body.
GLYPH_COLOURS = {
    "force": "#e8590c",
    "weight": "#8c5a2b",
    "net": "#212529",
    "moment": "#7b3fe4",
    "velocity": "#0a9396",
    "drag": "#495057",
    "trail": "#1d3557",
    # ω and L: two colours no other glyph uses
    "omega": "#e0a800",
    "angular_momentum": "#c2255c",
}
#: A body whose Mesh or Material is unknown is drawn in this colour.
FALLBACK_COLOUR = "#8a9099"


def as_dict() -> dict[str, object]:
    """Every constant above, by name (for the generated page module)."""
    return {
        "BACKGROUND": BACKGROUND,
        "VIEW_FROM": list(VIEW_FROM),
        "WORLD_AXIS_COLOURS": WORLD_AXIS_COLOURS,
        "BODY_AXIS_COLOURS": BODY_AXIS_COLOURS,
        "WORLD_AXIS_CELLS": WORLD_AXIS_CELLS,
        "GRID_MAJOR": GRID_MAJOR,
        "GRID_MINOR": GRID_MINOR,
        "GLYPH_COLOURS": GLYPH_COLOURS,
        "FALLBACK_COLOUR": FALLBACK_COLOUR,
    }
