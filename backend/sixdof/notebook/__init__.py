"""The body in a Jupyter notebook: a pythreejs view, live in the kernel.

    pip install sixdof[notebook]          # or, in a checkout: pip install -e '.[notebook]'

    from sixdof.notebook import BodyView
    view = BodyView("tennis_racket")
    view
    view.run(20, realtime=False)

    from sixdof.notebook import live
    live(room="physics1")                 # the page of a running `sixdof serve`, in an IFrame

Only this package needs pythreejs and ipywidgets; `import sixdof` never does.
"""

from __future__ import annotations

try:
    import ipywidgets  # noqa: F401
    import pythreejs  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the installation
    raise ImportError(
        f"sixdof.notebook needs pythreejs and ipywidgets ({exc.name} is missing): "
        "pip install 'sixdof[notebook]' (or pip install -e '.[notebook]' in a checkout)"
    ) from exc

from ..scenario.sources import as_scenario
from .catalogue import Catalogue, load_catalogue
from .frames import NED_TO_THREE, quat_to_three, vec_to_three, world_pose
from .live_page import live
from .playback import LiveLoop, Recording
from .plot import CHANNELS, ChannelPlot, svg_line_plot
from .scene import VisualWarning
from .view import BodyView

__all__ = [
    "CHANNELS",
    "NED_TO_THREE",
    "BodyView",
    "Catalogue",
    "ChannelPlot",
    "LiveLoop",
    "Recording",
    "VisualWarning",
    "as_scenario",
    "live",
    "load_catalogue",
    "quat_to_three",
    "svg_line_plot",
    "vec_to_three",
    "world_pose",
]
