"""`sixdof bem SCENARIO -o hull.nc [--body NAME] [--omega FIRST:LAST:COUNT] [--heading DEG …]`:
the hull of a scenario's floating body through Capytaine (analysis/bem_run.py), written as the
NetCDF Capytaine writes, for a `radiation` element to read."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from . import interrupt
from .common import EXIT_OK, BadInput, cannot_write


def add_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    command: Callable[..., argparse.ArgumentParser],
) -> None:
    """`sixdof bem`'s arguments; `command` is the parser's maker of a sub-command."""
    bem = command(
        sub,
        "bem",
        "compute a floating body's added mass, damping and wave forces with Capytaine",
        "Float the body's hull upright at its still-water draft, run Capytaine (the 'bem' "
        "extra) over a range of wave frequencies and headings, and write the NetCDF file "
        "Capytaine writes: A(ω), B(ω), A∞, the wave excitation and the hydrostatic stiffness, "
        "about the body's reference point (docs/physics.md, radiation).",
        [
            "sixdof bem barge.json -o barge.nc",
            "sixdof bem fleet.json --body Ship -o ship.nc --omega 0.1:3:80 --heading 0 "
            "--heading 90",
        ],
    )
    bem.add_argument("scenario", type=Path, metavar="SCENARIO", help=".json or .xml scenario")
    bem.add_argument("-o", "--output", type=Path, required=True, metavar="OUT.nc")
    bem.add_argument("--body", help="the body (default: the only one with buoyancy)")
    bem.add_argument(
        "--omega",
        metavar="FIRST:LAST:COUNT",
        help="frequencies in rad/s (default: from the hull's size and its panels)",
    )
    bem.add_argument(
        "--heading",
        type=float,
        action="append",
        metavar="DEG",
        help="a wave heading, degrees as the scenario's waves give it (repeatable; default 0)",
    )
    bem.add_argument(
        "--panel",
        type=float,
        metavar="SIZE",
        help="split the hull's triangles until the largest panel's radius is SIZE m or less "
        "(default: the mesh as drawn; a box is 12 triangles, too few for BEM)",
    )
    bem.add_argument("--quiet", action="store_true", help="no progress bar or summary")


def _omega(text: str | None) -> tuple[float, float, int] | None:
    if text is None:
        return None
    try:
        first, last, count = text.split(":")
        return float(first), float(last), int(count)
    except ValueError:
        raise BadInput(
            f"--omega: expected FIRST:LAST:COUNT (e.g. 0.1:3:80), got {text!r}"
        ) from None


def handle(args: argparse.Namespace, err: TextIO) -> int:
    from ..analysis.bem_run import BemError, job_for, run, write
    from ..scenario import ScenarioFileError, load_scenario_file

    try:
        scenario = load_scenario_file(args.scenario)
    except ScenarioFileError as exc:
        raise BadInput(str(exc)) from None
    try:
        headings = tuple(args.heading or (0.0,))
        job = job_for(
            scenario, args.body, omega=_omega(args.omega), headings_deg=headings, panel=args.panel
        )
        if not args.quiet:
            print(
                f"{job.body}: {len(job.faces)} panels, {len(job.omega)} frequencies "
                f"{job.omega[0]:.3g}-{job.omega[-1]:.3g} rad/s and infinity, "
                f"{len(job.wave_directions)} heading(s)",
                file=err,
            )
        dataset = run(job, progress=not args.quiet and sys.stderr.isatty(), quiet=args.quiet)
    except BemError as exc:
        raise BadInput(str(exc)) from None
    try:
        with interrupt.writing():  # Ctrl-C now: the temporary file is removed
            write(dataset, args.output)
    except OSError as exc:
        return cannot_write(args.output, exc, err)
    if not args.quiet:
        print(f"wrote {args.output}", file=err)
    return EXIT_OK
