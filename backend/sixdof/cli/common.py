"""What the sub-commands share: the exit statuses, the error the user can fix, reading a
scenario file, and the settings of the commands that hold rooms (`serve`, `gateway`,
`worker`)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from ..scenario import Scenario, ScenarioFileError, load_scenario_file

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2
TOKEN_ENV = "SIXDOF_TOKEN"
DATA_ENV = "SIXDOF_DATA"


class BadInput(Exception):
    """A problem the user can fix in the command line or the input file (exit 2)."""


def load(path: Path) -> Scenario:
    try:
        return load_scenario_file(path)
    except ScenarioFileError as exc:
        raise BadInput(str(exc)) from None


def cannot_write(path: object, exc: OSError, err: TextIO) -> int:
    """Say that `path` could not be written, and why; the exit status of a failed run."""
    print(f"sixdof: cannot write {path}: {exc.strerror or exc}", file=err)
    return EXIT_FAILED


def needs_cluster(role: str, exc: ImportError, err: TextIO) -> int:
    """Say that `gateway` or `worker` cannot start without nats-py; a failed run's status."""
    print(
        f"sixdof: the {role} needs the cluster extra (pip install 'sixdof[cluster]'): {exc}",
        file=err,
    )
    return EXIT_FAILED


def room_settings(args: argparse.Namespace) -> dict[str, Any]:
    """Settings fields from the options `serve`, `gateway` and `worker` share: --token (or
    $SIXDOF_TOKEN), --limit and, where the command has it, --scenario."""
    from ..server.settings import server_limits

    # An explicit --token (even an empty one) wins over the environment.
    token = args.token if args.token is not None else os.environ.get(TOKEN_ENV, "")
    try:
        limits = server_limits(args.limit)
    except ValueError as exc:
        raise BadInput(f"--limit: {exc}") from None
    scenario = getattr(args, "scenario", None)
    return {
        "token": token or None,
        "scenario": load(scenario) if scenario is not None else None,
        **limits,
    }


def data_dir(args: argparse.Namespace) -> str:
    """The data directory of --data, else $SIXDOF_DATA, else the user's data folder."""
    from ..store.paths import default_data_dir

    return str(args.data or os.environ.get(DATA_ENV) or default_data_dir())


def serve_page(args: argparse.Namespace, serve: Callable[..., None], **options: Any) -> int:
    """Serve the page on --host/--port with the room settings of `args` (`serve`, `gateway`)."""
    fields = room_settings(args)
    serve(
        host=args.host,
        port=args.port,
        scenario=fields.pop("scenario"),
        token=fields.pop("token"),
        allowed_origins=list(args.allow_origin),
        open_browser=args.open,
        limits=fields,
        **options,
    )
    return EXIT_OK
