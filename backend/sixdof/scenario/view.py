"""What the page shows of a scenario: its camera, follow mode, overlays and plots.

A preset's file carries its view (issue 45) so the class sees what its question is about: the
tennis racket opens on AngVel, a water preset on the water plot, a pinned or floating body with
the camera still (following it hides the swing or the heave). The engine ignores it: a view
changes nothing that is integrated. Names are the page's: the overlays of its Show folder
(frontend/src/teach/teach.js OVERLAYS) and its plot channels (frontend/src/panel/plots.js).
"""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from .bounded import Vec3

__all__ = ["OVERLAY_NAMES", "PLOT_NAMES", "CameraSpec", "ViewSpec"]

Overlay = Literal[
    "forces", "omegaL", "poinsot", "energy", "ground", "triad", "worldAxes", "inertia"
]
Plot = Literal["Pos", "Height", "Vel", "Euler", "AngVel", "OmegaGlobal", "Energy",
               "AngularMomentum", "Water", "Cable", "Seabed", "Ghost", "Divergence"]  # fmt: skip
OVERLAY_NAMES: tuple[str, ...] = get_args(Overlay)
PLOT_NAMES: tuple[str, ...] = get_args(Plot)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class CameraSpec(_Strict):
    """Where the camera stands and what it looks at, NED metres."""

    position: Vec3
    target: Vec3


class ViewSpec(_Strict):
    """The page's view of a scenario; what is left out stays as the viewer has it."""

    camera: CameraSpec | None = Field(
        None, description="null: the page frames the bodies (the Frame key does it any time)"
    )
    follow: bool | None = Field(None, description="the camera rides the selected body")
    overlays: list[Overlay] | None = Field(
        None, max_length=8, description="the Show folder's overlays on (the others off)"
    )
    plots: list[Plot] | None = Field(None, max_length=11, description="the plot channels chosen")
