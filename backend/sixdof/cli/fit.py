"""`sixdof fit GYRO.csv [--json] [--scenario-file FILE]`: a body's inertia ratios from a
gyroscope recording of its free flight (analysis/gyro.py). A recording whose fit would cost
more than the server accepts (analysis/gyro_cost.py) is refused the same way, before it runs."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TextIO

from pydantic import ValidationError

from ..fields import FieldError
from ..scenario import ScenarioFileError, save_scenario_file
from . import interrupt
from .common import EXIT_OK, BadInput, cannot_write


def handle(args: argparse.Namespace, err: TextIO) -> int:
    from ..analysis.gyro import GyroFileError, check_cost, fit, read_gyro_text
    from ..analysis.gyro_body import fitted_scenario

    path: Path = args.input
    for option, value, unit in (("--mass", args.mass, "kg"), ("--radius", args.radius, "m")):
        if not value > 0.0:
            raise BadInput(f"{option}: must be a number > 0 {unit}, got {value:g}")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise BadInput(f"{path}: cannot read the file: {reason}") from None
    try:
        data = read_gyro_text(text, name=str(path))
        check_cost(data, name=str(path))  # the server's ceiling: an absurd file is refused
    except GyroFileError as exc:
        raise BadInput(str(exc)) from None
    result = fit(data)
    try:
        scenario = fitted_scenario(result, mass=args.mass, radius=args.radius)
    except (FieldError, ValidationError) as exc:
        raise BadInput(f"--mass/--radius: {_first_line(exc)}") from None
    if args.scenario_file is not None:
        try:
            with interrupt.writing():  # Ctrl-C now: the temporary file is removed
                save_scenario_file(scenario, args.scenario_file)
        except ScenarioFileError as exc:
            raise BadInput(str(exc)) from None
        except OSError as exc:
            return cannot_write(args.scenario_file, exc, err)
    out = None  # standard output
    if args.json:
        body = result.to_json()
        body["scenario"] = scenario.model_dump(mode="json")
        print(json.dumps(body, indent=2), file=out)
        return EXIT_OK
    for line in report(result):
        print(line, file=out)
    if args.scenario_file is not None:
        print(f"scenario of the fitted body written to {args.scenario_file}", file=out)
    else:
        print("scenario of the fitted body (save it as .json, or use --scenario-file):", file=out)
        print(scenario.model_dump_json(indent=2), file=out)
    return EXIT_OK


def report(result: object) -> list[str]:
    """The fit in a few lines, for people."""
    from ..analysis.gyro import GyroFit

    assert isinstance(result, GyroFit)
    d = result.data
    (a, b), (sa, sb) = result.ratios, result.ratio_sigma
    w, sw = result.omega0, result.omega0_sigma
    lines = [
        f"{len(d.t)} samples over {d.t[-1]:.3g} s ({d.rate:.4g} Hz), columns "
        + ", ".join(repr(c) for c in d.columns),
        *(f"note: {n}" for n in d.notes),
        f"inertia ratios    Ix/Iz = {a:.5g} ± {sa:.2g}    Iy/Iz = {b:.5g} ± {sb:.2g}",
        "initial AngVel    ("
        + ", ".join(f"{v:.5g} ± {s:.2g}" for v, s in zip(w, sw, strict=True))
        + ") rad/s",
        f"residual          {result.rms:.3g} rad/s RMS",
    ]
    if result.intermediate is None:
        lines.append("flip period       none: two of the moments are equal (a symmetric body)")
    else:
        axis = "xyz"[result.intermediate]
        measured = (
            f"{result.flip_measured:.4g} s ({result.flips_measured} flips)"
            if result.flip_measured is not None
            else f"not measured ({result.flips_measured} flip(s) recorded)"
        )
        predicted = (
            f"{result.flip_predicted:.4g} s" if result.flip_predicted is not None else "no flip"
        )
        lines.append(
            f"flip period       measured {measured}, predicted {predicted} "
            f"(intermediate axis {axis}; time from one flip to the next)"
        )
    return lines


def _first_line(exc: Exception) -> str:
    if isinstance(exc, FieldError):
        return exc.message
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    return " ".join(lines[1:3]) if len(lines) >= 3 else str(exc)
