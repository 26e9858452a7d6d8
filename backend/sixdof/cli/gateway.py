"""`sixdof gateway`: the page, REST and /ws as `serve` has them, the rooms on workers (NATS)."""

from __future__ import annotations

import argparse
from typing import TextIO

from .common import EXIT_FAILED, serve_page


def handle(args: argparse.Namespace, err: TextIO) -> int:
    try:
        from ..cluster.gateway import create_gateway_app
        from ..server.launch import serve
    except ImportError as exc:
        print(f"sixdof: the gateway needs the cluster extra (pip install 'sixdof[cluster]'): "
              f"{exc}", file=err)  # fmt: skip
        return EXIT_FAILED
    return serve_page(
        args, serve, make_app=lambda settings: create_gateway_app(settings, args.nats)
    )
