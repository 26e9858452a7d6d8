"""`sixdof fmu SCENARIO -o OUT.fmu`: the scenario as an FMI 2.0 co-simulation FMU."""

from __future__ import annotations

import argparse
from typing import TextIO

from ..fields import FieldError
from . import interrupt
from .common import EXIT_FAILED, EXIT_OK, BadInput, cannot_write, load


def handle(args: argparse.Namespace, err: TextIO) -> int:
    if args.output.suffix.lower() != ".fmu":
        raise BadInput(f"-o: {args.output} must end in .fmu")
    scenario = load(args.scenario)
    try:
        from ..fmu.build import build_fmu
    except ImportError as exc:
        print(f"sixdof: `fmu` needs pythonfmu (pip install 'sixdof[fmu]'): {exc}", file=err)
        return EXIT_FAILED
    try:
        # pythonfmu zips in a temporary folder: Ctrl-C inside it must let it remove that
        with interrupt.writing():
            build_fmu(scenario, args.output)
    except FieldError as exc:
        raise BadInput(f"{args.scenario}: {exc.message}") from None
    except OSError as exc:
        return cannot_write(args.output, exc, err)
    if not args.quiet:
        bodies = ", ".join(b.Name for b in scenario.bodies)
        print(
            f"sixdof: wrote {args.output} (FMI 2.0 co-simulation; bodies {bodies}; "
            f"{scenario.integration.method}, stepsize {scenario.integration.stepsize:g} s)",
            file=err,
        )
    return EXIT_OK
