"""`sixdof gateway`: the page, REST and /ws as `serve` has them, the rooms on workers (NATS)."""

from __future__ import annotations

import argparse
from typing import TextIO

from .common import needs_cluster, serve_page


def handle(args: argparse.Namespace, err: TextIO) -> int:
    try:
        from ..cluster.gateway import create_gateway_app
        from ..server.launch import serve
    except ImportError as exc:
        return needs_cluster("gateway", exc, err)
    return serve_page(
        args,
        serve,
        make_app=lambda settings: create_gateway_app(
            settings, args.nats, replicas=args.nats_replicas
        ),
    )
