"""`sixdof serve`: the page, its websocket and the REST API, with the rooms in this process."""

from __future__ import annotations

import argparse
from typing import TextIO

from .common import EXIT_FAILED, serve_page


def handle(args: argparse.Namespace, err: TextIO) -> int:
    try:
        from ..server.launch import serve  # the web stack; numpy waits for the first room
    except ImportError as exc:
        print(f"sixdof: the live server is not available: {exc}", file=err)
        return EXIT_FAILED
    return serve_page(args, serve)
