"""`sixdof serve`: the page, its websocket and the REST API, with the rooms in this process."""

from __future__ import annotations

import argparse
from typing import TextIO

from ..store import StoreRefused
from .common import EXIT_FAILED, BadInput, data_dir, serve_page

COLD_CACHE = (
    "sixdof: numba's cache is cold: compiling the kernels now, in the background (~1 min, a "
    "child process); a viewer who comes meanwhile is told so and waits for the rest. "
    "`sixdof warm` fills the cache beforehand (after each install or upgrade)"
)


def handle(args: argparse.Namespace, err: TextIO) -> int:
    try:
        from ..server.launch import serve  # the web stack; numpy waits for the first room
    except ImportError as exc:
        print(f"sixdof: the live server is not available: {exc}", file=err)
        return EXIT_FAILED
    from ..dynamics.kernel_cache import is_cold  # reads numba's index files, imports nothing

    if is_cold():
        print(COLD_CACHE, file=err, flush=True)
    data = data_dir(args)
    print(f"sixdof: Share links and lessons are kept in {data}", file=err, flush=True)
    try:
        return serve_page(args, serve, data=data)
    except StoreRefused as exc:  # a foreign, corrupt or newer database: left untouched
        raise BadInput(str(exc)) from None
