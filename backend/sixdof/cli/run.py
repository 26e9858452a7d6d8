"""`sixdof run`: a scenario (or a room's recording) run headless to the CSV FhSim writes."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TextIO

from ..dynamics import IntegrationError
from ..headless import ProgressBar, run_scenario, write_csv
from ..headless.csv_output import write_csv_to
from ..headless.runner import cost_lines
from ..scenario.sources import with_overrides
from . import interrupt
from .common import EXIT_FAILED, EXIT_OK, BadInput, cannot_write, load


def handle(args: argparse.Namespace, err: TextIO) -> int:
    if str(args.output_file) != "-" and _same_file(args.input_file, Path(args.output_file)):
        raise BadInput(
            f"--output-file: {args.output_file} is the input file; the CSV would replace it "
            "(choose another name)"
        )
    recording = _recording(args.input_file)
    if recording is not None:
        return _resimulate(recording, args, err)
    scenario = load(args.input_file)
    if args.t_end is not None:
        try:
            scenario = with_overrides(scenario, t_end=args.t_end)
        except ValueError as exc:
            raise BadInput(f"--t-end: {exc}") from None
    t_end = float(scenario.integration.output_times()[-1])
    if not args.quiet:
        for line in cost_lines(scenario):
            print(f"sixdof: {line}", file=err)
    estimate = getattr(args, "estimate_error", False)
    if estimate and scenario.integration.method not in ("dopri5", "radau"):
        raise BadInput("--estimate-error: for dopri5 and radau (for a fixed step, run it "
                       "again at step/2)")  # fmt: skip
    bar = ProgressBar(t_end, err, force=args.progress and not args.quiet)
    bar.enabled = bar.enabled and not args.quiet
    try:
        result = run_scenario(scenario, progress=bar,
                              estimate_error=estimate)  # fmt: skip
    except (IntegrationError, MemoryError) as exc:
        reason = (
            str(exc)
            if isinstance(exc, IntegrationError)
            else "out of memory (fewer TOutput times?)"
        )
        print(f"sixdof: the run failed: {reason}; {args.output_file} was not written", file=err)
        return EXIT_FAILED
    finally:
        bar.close()
    try:
        with interrupt.writing():  # Ctrl-C or SIGTERM now: the temporary file is removed
            if str(args.output_file) == "-":
                rows = write_csv_to(sys.stdout, result.columns, result.table())
                sys.stdout.flush()
            else:
                rows = write_csv(args.output_file, result.columns, result.table())
    except BrokenPipeError:  # `| head` read what it wanted: not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except OSError as exc:
        return cannot_write(args.output_file, exc, err)
    if not args.quiet:
        for note in scenario.notes():  # e.g. an initial Quater that is not unit
            print(f"sixdof: warning: {note}", file=err)
        print(
            f"sixdof: {result.summary}; {rows} row{'' if rows == 1 else 's'} written to "
            f"{args.output_file}",
            file=err,
        )
    return EXIT_OK


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (b.exists() and a.samefile(b))
    except OSError:
        return False


def _recording(path: Path) -> dict | None:
    """The file's JSON if it is a sixdof recording (GET /api/rooms/{room}/recording)."""
    if path.suffix.lower() != ".json":
        return None
    try:
        with path.open("rb") as f:
            head = f.read(4096)
    except OSError:
        return None  # load() reports what is wrong with the file
    if b'"sixdof-recording"' not in head:
        return None
    from ..simulation.recording import RecordingFormatError, read  # numpy-free

    try:  # a hostile file is refused naming what is wrong, before anything is simulated
        return read(path)
    except (OSError, UnicodeDecodeError, RecordingFormatError) as exc:
        raise BadInput(f"{path}: {exc}") from None


def _resimulate(data: dict, args: argparse.Namespace, err: TextIO) -> int:
    """Re-simulate a recording's last run and write it in the room's history.csv layout."""
    # the live engine, only for a recording
    from ..simulation.recording import RecordingFormatError
    from ..simulation.resimulation import last_run_table

    try:
        header, table = last_run_table(data)
    except (RecordingFormatError, KeyError, TypeError, ValueError) as exc:
        raise BadInput(f"{args.input_file}: {exc}") from None
    try:
        with interrupt.writing():
            if str(args.output_file) == "-":
                rows = write_csv_to(sys.stdout, header, table)
            else:
                rows = write_csv(args.output_file, header, table)
    except OSError as exc:
        return cannot_write(args.output_file, exc, err)
    if not args.quiet:
        print(
            f"sixdof: re-simulated the recording's last run: {rows} frames written to "
            f"{args.output_file}",
            file=err,
        )
    return EXIT_OK
