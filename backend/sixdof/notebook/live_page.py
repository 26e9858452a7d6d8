"""The full page of a running `sixdof serve`, for one room, inside a notebook (an IFrame)."""

from __future__ import annotations

from urllib.parse import urlencode

from IPython.display import IFrame

from ..fields import check_room


def live(
    room: str = "main",
    *,
    url: str = "http://127.0.0.1:8000/",
    token: str | None = None,
    width: str | int = "100%",
    height: int = 640,
) -> IFrame:
    """The page of the server at `url` for `room` (with `token` to control it), as meshcat
    shows its viewer in a notebook. The server must allow the notebook's origin when it is
    not the same host (`sixdof serve --allow-origin …`)."""
    check_room(room)
    query = {"room": room, **({"token": token} if token else {})}
    return IFrame(f"{url.rstrip('/')}/?{urlencode(query)}", width=width, height=height)
