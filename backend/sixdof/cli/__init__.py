"""The `sixdof` command: headless runs, the live server, presets.

    sixdof run --input-file MODEL.xml [--output-file modeloutput.csv|-] [--t-end T] [--quiet]
    sixdof serve [--host 127.0.0.1] [--port 8000] [--scenario FILE] [--token T]
                 [--allow-origin ORIGIN ...] [--open] [--data DIR]
    sixdof warm
    sixdof presets [NAME] [--json]
    sixdof convert IN OUT
    sixdof fmu SCENARIO -o OUT.fmu
    sixdof fit GYRO.csv [--json] [--scenario-file FILE]
    sixdof bem SCENARIO -o OUT.nc [--body NAME] [--omega FIRST:LAST:COUNT] [--heading DEG]
    sixdof export|import FILE.sixdof [--data DIR]
    sixdof inspect MESH [--density RHO | --mass KG] [--shell] [--units mm] [--json]
    sixdof --version

Exit status: 0 on success, 2 for bad input (command line or scenario file: the
message on stderr names the file, line, element and attribute), 1 when a
valid run fails (the integration cannot go on, the output cannot be written).
Warnings (unknown attributes, impossible inertia) go to stderr and the run
goes on.

Environment: SIXDOF_TOKEN is `serve`'s --token when the option is not given (empty: no
token), so a container or service file can hold the secret instead of the command line;
SIXDOF_DATA is the data directory when --data is not given.

The parser is in `parser`; each sub-command is the `handle(args, err)` of the module of its
name (`run`, `serve`, `gateway`, `worker`, `warm`, `presets`, `convert`, `fmu`, `fit`, `bem`,
`inspect`),
imported only when that command runs: numpy, the integrators and the web stack load with the
commands that use them, and `serve` answers its first request without the numerics (its first
room loads them).
"""

from __future__ import annotations

import argparse
import importlib
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import TextIO, cast

from .common import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK, TOKEN_ENV, BadInput
from .interrupt import EXIT_INTERRUPTED, stop_at_once
from .parser import build_parser

__all__ = ["EXIT_BAD_INPUT", "EXIT_FAILED", "EXIT_OK", "TOKEN_ENV", "build_parser", "main"]

Handler = Callable[[argparse.Namespace, TextIO], int]


#: Sub-commands whose module is not named after them (`import` is a keyword).
MODULES = {"export": "data", "import": "data"}
#: Sub-commands that compute, then write one file: Ctrl-C or SIGTERM ends them at once
#: (cli/interrupt.py). The servers stop by their own handlers; `warm` kills its
#: compiling children first (simulation/warming.py); `import` and `export` are SQLite
#: transactions.
STOP_AT_ONCE = frozenset({"run", "convert", "fit", "bem", "fmu"})


def _handler(command: str) -> Handler:
    """The sub-command's `handle`, from the module named after it (imported now, not before)."""
    module = MODULES.get(command, command)
    return cast(Handler, importlib.import_module(f"{__name__}.{module}").handle)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `sixdof` console script; returns the exit status."""
    args = build_parser().parse_args(argv)
    err = sys.stderr

    def show(
        message: Warning | str, category: type[Warning], *_rest: object, **_kw: object
    ) -> None:
        print(f"sixdof: warning: {message}", file=err)

    # a signal ends the process only when it is ours (the console script, `python -m`): a
    # caller of main([...]) (a notebook, a test) keeps its own Ctrl-C
    with warnings.catch_warnings(), stop_at_once(args.command in STOP_AT_ONCE and argv is None):
        warnings.simplefilter("default")
        warnings.showwarning = show
        try:
            return int(_handler(args.command)(args, err))
        except BadInput as exc:
            print(f"sixdof: error: {exc}", file=err)
            return EXIT_BAD_INPUT
        except KeyboardInterrupt:
            print("sixdof: interrupted", file=err)
            return EXIT_INTERRUPTED
