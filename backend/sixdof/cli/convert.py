"""`sixdof convert IN OUT`: a scenario from .xml to .json or back."""

from __future__ import annotations

import argparse
from typing import TextIO

from ..scenario import ScenarioFileError, save_scenario_file
from . import interrupt
from .common import EXIT_OK, BadInput, cannot_write, load


def handle(args: argparse.Namespace, err: TextIO) -> int:
    scenario = load(args.input)
    try:
        with interrupt.writing():  # Ctrl-C now: the temporary file is removed
            save_scenario_file(scenario, args.output)
    except ScenarioFileError as exc:
        raise BadInput(str(exc)) from None
    except OSError as exc:
        return cannot_write(args.output, exc, err)
    return EXIT_OK
