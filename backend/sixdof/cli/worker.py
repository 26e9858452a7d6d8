"""`sixdof worker`: run rooms for the gateways on a NATS bus."""

from __future__ import annotations

import argparse
from typing import TextIO

from .common import EXIT_FAILED, EXIT_OK, room_settings


def handle(args: argparse.Namespace, err: TextIO) -> int:
    try:
        from ..cluster.worker import run_worker
    except ImportError as exc:
        print(f"sixdof: the worker needs the cluster extra (pip install 'sixdof[cluster]'): "
              f"{exc}", file=err)  # fmt: skip
        return EXIT_FAILED
    run_worker(args.nats, room_settings(args))
    return EXIT_OK
