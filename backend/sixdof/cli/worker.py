"""`sixdof worker`: run rooms for the gateways on a NATS bus."""

from __future__ import annotations

import argparse
from typing import TextIO

from .common import EXIT_OK, needs_cluster, room_settings


def handle(args: argparse.Namespace, err: TextIO) -> int:
    try:
        from ..cluster.worker import run_worker
    except ImportError as exc:
        return needs_cluster("worker", exc, err)
    run_worker(args.nats, room_settings(args), replicas=args.nats_replicas)
    return EXIT_OK
