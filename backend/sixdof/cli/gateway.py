"""`sixdof gateway`: the page, REST and /ws as `serve` has them, the rooms on workers (NATS)."""

from __future__ import annotations

import argparse
import asyncio
from typing import TextIO

from .common import EXIT_FAILED, BadInput, needs_cluster, serve_page


def handle(args: argparse.Namespace, err: TextIO) -> int:
    try:
        from ..cluster.bus import try_login
        from ..cluster.gateway import create_gateway_app
        from ..cluster.login import login
        from ..server.launch import serve
    except ImportError as exc:
        return needs_cluster("gateway", exc, err)
    try:  # the bus's credentials and TLS files (SIXDOF_NATS_*), checked before starting
        login(args.nats)
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    try:  # refused by the bus, or no bus: said in one line, not a web server's traceback
        asyncio.run(try_login(args.nats, "sixdof-gateway-check"))
    except ConnectionError as exc:
        print(f"sixdof: {exc}", file=err)
        return EXIT_FAILED
    return serve_page(
        args,
        serve,
        make_app=lambda settings: create_gateway_app(
            settings, args.nats, replicas=args.nats_replicas
        ),
    )
