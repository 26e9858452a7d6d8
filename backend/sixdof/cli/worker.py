"""`sixdof worker`: run rooms for the gateways on a NATS bus."""

from __future__ import annotations

import argparse
from typing import TextIO

from .common import EXIT_FAILED, EXIT_OK, BadInput, needs_cluster, room_settings


def handle(args: argparse.Namespace, err: TextIO) -> int:
    try:
        from ..cluster.login import login
        from ..cluster.worker_process import run_worker
    except ImportError as exc:
        return needs_cluster("worker", exc, err)
    try:  # the bus's credentials and TLS files (SIXDOF_NATS_*), checked before starting
        login(args.nats)
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    try:
        run_worker(args.nats, room_settings(args), replicas=args.nats_replicas)
    except ConnectionError as exc:  # refused by the bus, or no bus: said in one line
        print(f"sixdof: {exc}", file=err)
        return EXIT_FAILED
    return EXIT_OK
