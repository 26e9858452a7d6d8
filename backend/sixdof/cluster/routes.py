"""The REST routes of a room (`/api/rooms/<room>/…`) a gateway relays to the room's worker,
and what each needs before anything is sent: matched on the method and the whole path,
never on how a path ends (`PUT /api/rooms/R/x/share` once passed as a Share link and made
room R on a worker).

One row per route of the app (server/rest.py, server/gyro.py; a test compares them):
whether it needs the token (`control`), whether it may make the room (`opens`: only a new
scenario, as under `sixdof serve`) and whether it reads a body. Every route that is not a
GET also needs an Origin the server allows (the websocket's rule), as `serve` checks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from urllib.parse import parse_qsl

PREFIX = "/api/rooms/"


@dataclass(frozen=True)
class Route:
    """What a room's route needs at the gateway."""

    control: bool | Callable[[Mapping[str, str]], bool]  # the token; or whether, by query
    opens: bool = False  # may make the room (else: 404 for a room nobody runs)
    body: bool = False  # reads a request body (capped at max_message_bytes)

    def needs_token(self, query: str) -> bool:
        if callable(self.control):
            return self.control(dict(parse_qsl(query)))
        return self.control


#: (method, path after /api/rooms/<room>/) -> Route
ROUTES: dict[tuple[str, str], Route] = {
    ("GET", "stats"): Route(control=False),
    ("GET", "probe"): Route(control=False),
    ("GET", "scenario"): Route(control=False),
    ("PUT", "scenario"): Route(control=True, opens=True, body=True),
    ("GET", "history.csv"): Route(control=True),
    ("GET", "recording"): Route(control=True),
    ("GET", "recording/frame"): Route(control=False),
    # a Share link is open to watchers (the page's Share button), its recording is not
    ("POST", "share"): Route(control=lambda query: query.get("what") == "recording", body=True),
    ("POST", "gyro"): Route(control=True, body=True),
    # a BEM run for the room's floating body (server/bem.py): its progress open, its start not
    ("GET", "bem"): Route(control=False),
    ("POST", "bem"): Route(control=True, body=True),
    # the Hydrodynamics card's data (server/hydro.py): open, as the scenario is
    ("GET", "hydrodynamics"): Route(control=False),
    # the class view's (server/classroom.py), asked by a gateway's /api/class
    ("GET", "tile"): Route(control=True),
    ("POST", "act"): Route(control=True, body=True),
}

PATHS = frozenset(path for _, path in ROUTES)


def split(path: str) -> tuple[str, str] | None:
    """(room, the rest) of a path under /api/rooms/<room>/, or None for any other path."""
    if not path.startswith(PREFIX):
        return None
    room, _, rest = path[len(PREFIX) :].partition("/")
    return room, rest


def allowed(rest: str) -> list[str]:
    """The methods of the route `rest` (none: no such route)."""
    return sorted(method for method, path in ROUTES if path == rest)
