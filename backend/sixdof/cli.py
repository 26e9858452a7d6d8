"""The `sixdof` command: headless runs, the live server, presets.

    sixdof run --input-file MODEL.xml [--output-file modeloutput.csv|-] [--t-end T] [--quiet]
    sixdof serve [--host 127.0.0.1] [--port 8000] [--scenario FILE] [--token T]
                 [--allow-origin ORIGIN ...] [--open]
    sixdof warm
    sixdof presets [NAME] [--json]
    sixdof convert IN OUT
    sixdof --version

Exit status: 0 on success, 2 for bad input (command line or scenario file: the
message on stderr names the file, line, element and attribute), 1 when a
valid run fails (the integration cannot go on, the output cannot be written).
Warnings (unknown attributes, impossible inertia) go to stderr and the run
goes on.

Environment: SIXDOF_TOKEN is `serve`'s --token when the option is not given (empty: no
token), so a container or service file can hold the secret instead of the command line.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

from . import __version__
from .scenario import (
    Scenario,
    ScenarioFileError,
    load_scenario_file,
    save_scenario_file,
    scenario_to_xml,
)
from .scenario.csv_columns import DEFAULT_OUTPUT_FILE
from .scenario.presets import DEFAULT_PRESET, PRESETS

# numpy, the integrators and the web stack are imported by the commands that use them:
# `serve` answers its first request without the numerics (its first room loads them).

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2
TOKEN_ENV = "SIXDOF_TOKEN"


class _BadInput(Exception):
    """A problem the user can fix in the command line or the input file (exit 2)."""


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number 0–65535, got {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port number 0–65535, got {port}")
    return port


def _listening_options(parser: argparse.ArgumentParser) -> None:
    """Where a server of the page listens (`serve`, `gateway`)."""
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="interface to bind (default 127.0.0.1: this machine only)",
    )
    parser.add_argument("--port", type=_port, default=8000, help="TCP port (default 8000)")
    parser.add_argument(
        "--allow-origin",
        action="extend",
        nargs="+",
        default=[],
        metavar="ORIGIN",
        help="extra allowed browser origin(s)",
    )
    parser.add_argument("--open", action="store_true", help="open the page in a browser")


def _room_options(parser: argparse.ArgumentParser, *, scenario: bool) -> None:
    """The token and limits (`serve`, `gateway`, `worker`) and the rooms' first scenario."""
    if scenario:
        parser.add_argument(
            "--scenario",
            type=Path,
            metavar="FILE",
            help=f"start with this .xml or .json scenario (default: preset {DEFAULT_PRESET})",
        )
    parser.add_argument(
        "--token",
        help=f"controlling needs ?token=TOKEN, anyone may watch (default: ${TOKEN_ENV}; "
        "empty: no token, anyone may control)",
    )
    parser.add_argument(
        "--limit",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="change one of the server's limits, e.g. --limit max_connections_per_ip=2000 "
        "(docs/security.md lists them with their defaults)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sixdof",
        description="A live, browser-based lab for a rigid body in six degrees of freedom "
        "(FhSim's Body/6DBody), and a headless runner for FhSim XML input files.",
    )
    parser.add_argument("--version", action="version", version=f"sixdof {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    raw = argparse.RawDescriptionHelpFormatter
    run = sub.add_parser(
        "run",
        help="run a scenario headless and write the CSV FhSim writes",
        description="Integrate an FhSim XML input file (or Scenario JSON) from t = 0, faster "
        "than real time, and write the output ports of every body at the TOutput times as "
        "CSV (columns Time, B.Pos[0], …, B.AngVel[2], as FhSim names them).",
        epilog="examples:\n"
        "  sixdof run --input-file examples/tennis_racket.xml\n"
        "  sixdof run --input-file examples/free_fall.xml --output-file fall.csv --t-end 2\n"
        "  sixdof run --input-file model.xml --output-file - | head   # CSV to stdout",
        formatter_class=raw,
    )
    run.add_argument(
        "--input-file",
        required=True,
        type=Path,
        metavar="MODEL",
        help="FhSim XML input file (.xml) or Scenario JSON (.json)",
    )
    run.add_argument(
        "--output-file",
        type=Path,
        default=Path(DEFAULT_OUTPUT_FILE),
        metavar="CSV",
        help=f"results file, - for standard output (default: {DEFAULT_OUTPUT_FILE})",
    )
    run.add_argument(
        "--t-end",
        type=float,
        metavar="T",
        help="end the run at T s instead of the file's last TOutput time (outputs keep the "
        "file's spacing)",
    )
    run.add_argument("--quiet", action="store_true", help="no progress bar, no summary line")
    run.add_argument(
        "--progress",
        action="store_true",
        help="show the progress bar even when stderr is not a terminal",
    )
    run.set_defaults(handler=_run)

    serve = sub.add_parser(
        "serve",
        help="start the live lab (web page + websocket)",
        description="Serve the live lab: the three.js page, its websocket and the REST API. "
        "Open the URL it prints; add ?room=NAME to share one simulation, ?token=T to "
        "control a server started with --token.",
        epilog="examples:\n"
        "  sixdof serve                              # http://127.0.0.1:8000/\n"
        "  sixdof serve --scenario examples/tennis_racket.xml --open\n"
        "  sixdof serve --host 0.0.0.0 --token lecture42   # a classroom: students watch",
        formatter_class=raw,
    )
    _listening_options(serve)
    _room_options(serve, scenario=True)
    serve.set_defaults(handler=_serve)

    gateway = sub.add_parser(
        "gateway",
        help="serve the page, REST and /ws with the rooms on workers (NATS; the cluster extra)",
        description="Serve the live lab as `serve` does, with every room run by a `sixdof "
        "worker` on the same NATS bus. Start as many gateways as the viewers need; any of "
        "them serves any room. docs/scaling.md has the design.",
        epilog="example:\n  sixdof gateway --nats nats://127.0.0.1:4222 --port 8000",
        formatter_class=raw,
    )
    gateway.add_argument("--nats", required=True, metavar="URL", help="the NATS server")
    _listening_options(gateway)
    _room_options(gateway, scenario=False)
    gateway.set_defaults(handler=_gateway)

    worker = sub.add_parser(
        "worker",
        help="run rooms for the gateways on a NATS bus (the cluster extra)",
        description="Run rooms' simulations for `sixdof gateway`s on the same NATS bus. Rooms "
        "are claimed by one worker each; when a worker dies, another resumes its rooms from "
        "their last snapshot (at most a second old).",
        epilog="example:\n  sixdof worker --nats nats://127.0.0.1:4222",
        formatter_class=raw,
    )
    worker.add_argument("--nats", required=True, metavar="URL", help="the NATS server")
    _room_options(worker, scenario=True)
    worker.set_defaults(handler=_worker)

    warm = sub.add_parser(
        "warm",
        help="compile the physics kernels into numba's cache and exit (e.g. in a Docker build)",
        description="Compile (or load) every numba kernel once, so the first `serve` or `run` "
        "starts without compiling, and write the package's bytecode where Python can (so "
        "`serve` starts warm even where PYTHONDONTWRITEBYTECODE is set). NUMBA_CACHE_DIR "
        "chooses where the kernels' cache goes.",
        epilog="example:\n  NUMBA_CACHE_DIR=/var/cache/sixdof sixdof warm",
        formatter_class=raw,
    )
    warm.set_defaults(handler=_warm)

    presets = sub.add_parser(
        "presets",
        help="list the presets, or print one as a file",
        description="List the presets (name, title, what to watch), or print one as an FhSim "
        "XML input file (or Scenario JSON) to start your own from.",
        epilog="examples:\n"
        "  sixdof presets\n"
        "  sixdof presets tennis_racket > racket.xml\n"
        "  sixdof presets hover --json",
        formatter_class=raw,
    )
    presets.add_argument(
        "name",
        nargs="?",
        choices=list(PRESETS),
        metavar="NAME",
        help="print this preset as an FhSim XML input file",
    )
    presets.add_argument("--json", action="store_true", help="print it as Scenario JSON")
    presets.set_defaults(handler=_presets)

    convert = sub.add_parser(
        "convert",
        help="convert a scenario between .xml and .json",
        description="Read a scenario (.xml or .json) and write it in the format OUT's suffix "
        "names; the written file reads back to the same scenario.",
        epilog="example:\n  sixdof convert examples/offset_cg.xml offset_cg.json",
        formatter_class=raw,
    )
    convert.add_argument("input", type=Path, metavar="IN")
    convert.add_argument("output", type=Path, metavar="OUT")
    convert.set_defaults(handler=_convert)
    return parser


def _load(path: Path) -> Scenario:
    try:
        return load_scenario_file(path)
    except ScenarioFileError as exc:
        raise _BadInput(str(exc)) from None


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (b.exists() and a.samefile(b))
    except OSError:
        return False


def _run(args: argparse.Namespace, err: TextIO) -> int:
    from .dynamics import IntegrationError
    from .headless import ProgressBar, run_scenario, write_csv
    from .headless.csv_output import write_csv_to
    from .headless.runner import cost_lines
    from .scenario.sources import with_overrides

    if str(args.output_file) != "-" and _same_file(args.input_file, Path(args.output_file)):
        raise _BadInput(
            f"--output-file: {args.output_file} is the input file; the CSV would replace it "
            "(choose another name)"
        )
    recording = _recording(args.input_file)
    if recording is not None:
        return _resimulate(recording, args, err)
    scenario = _load(args.input_file)
    if args.t_end is not None:
        try:
            scenario = with_overrides(scenario, t_end=args.t_end)
        except ValueError as exc:
            raise _BadInput(f"--t-end: {exc}") from None
    t_end = float(scenario.integration.output_times()[-1])
    if not args.quiet:
        for line in cost_lines(scenario):
            print(f"sixdof: {line}", file=err)
    bar = ProgressBar(t_end, err, force=args.progress and not args.quiet)
    bar.enabled = bar.enabled and not args.quiet
    try:
        result = run_scenario(scenario, progress=bar)
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
        if str(args.output_file) == "-":
            rows = write_csv_to(sys.stdout, result.columns, result.table())
            sys.stdout.flush()
        else:
            rows = write_csv(args.output_file, result.columns, result.table())
    except BrokenPipeError:  # `| head` read what it wanted: not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except OSError as exc:
        print(f"sixdof: cannot write {args.output_file}: {exc.strerror or exc}", file=err)
        return EXIT_FAILED
    if not args.quiet:
        for note in scenario.notes():  # e.g. an initial Quater that is not unit
            print(f"sixdof: warning: {note}", file=err)
        print(
            f"sixdof: {result.summary}; {rows} row{'' if rows == 1 else 's'} written to "
            f"{args.output_file}",
            file=err,
        )
    return EXIT_OK


def _recording(path: Path) -> dict | None:
    """The file's JSON if it is a sixdof recording (GET /api/rooms/{room}/recording)."""
    if path.suffix.lower() != ".json":
        return None
    try:
        with path.open("rb") as f:
            head = f.read(4096)
        if b'"sixdof-recording"' not in head:
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None  # _load reports what is wrong with the file
    return data if isinstance(data, dict) else None


def _resimulate(data: dict, args: argparse.Namespace, err: TextIO) -> int:
    """Re-simulate a recording's last run and write it in the room's history.csv layout."""
    from .headless import write_csv
    from .headless.csv_output import write_csv_to
    from .simulation.recording import RecordingFormatError
    from .simulation.replay import last_run_table

    try:
        header, table = last_run_table(data)
    except (RecordingFormatError, KeyError, TypeError, ValueError) as exc:
        raise _BadInput(f"{args.input_file}: {exc}") from None
    try:
        if str(args.output_file) == "-":
            rows = write_csv_to(sys.stdout, header, table)
        else:
            rows = write_csv(args.output_file, header, table)
    except OSError as exc:
        print(f"sixdof: cannot write {args.output_file}: {exc.strerror or exc}", file=err)
        return EXIT_FAILED
    if not args.quiet:
        print(
            f"sixdof: re-simulated the recording's last run: {rows} frames written to "
            f"{args.output_file}",
            file=err,
        )
    return EXIT_OK


def _room_settings(args: argparse.Namespace) -> dict[str, Any]:
    """Settings fields from the options `serve`, `gateway` and `worker` share: --token (or
    $SIXDOF_TOKEN), --limit and, where the command has it, --scenario."""
    from .server.settings import server_limits

    # An explicit --token (even an empty one) wins over the environment.
    token = args.token if args.token is not None else os.environ.get(TOKEN_ENV, "")
    try:
        limits = server_limits(args.limit)
    except ValueError as exc:
        raise _BadInput(f"--limit: {exc}") from None
    scenario = getattr(args, "scenario", None)
    return {
        "token": token or None,
        "scenario": _load(scenario) if scenario is not None else None,
        **limits,
    }


def _serve_page(args: argparse.Namespace, serve: Callable[..., None], **options: Any) -> int:
    """Serve the page on --host/--port with the room settings of `args` (`serve`, `gateway`)."""
    fields = _room_settings(args)
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


def _serve(args: argparse.Namespace, err: TextIO) -> int:
    try:
        from .server.launch import serve  # lazy: only `serve` needs the web stack
    except ImportError as exc:
        print(f"sixdof: the live server is not available: {exc}", file=err)
        return EXIT_FAILED
    return _serve_page(args, serve)


def _gateway(args: argparse.Namespace, err: TextIO) -> int:
    try:
        from .cluster.gateway import create_gateway_app
        from .server.launch import serve
    except ImportError as exc:
        print(f"sixdof: the gateway needs the cluster extra (pip install 'sixdof[cluster]'): "
              f"{exc}", file=err)  # fmt: skip
        return EXIT_FAILED
    return _serve_page(
        args, serve, make_app=lambda settings: create_gateway_app(settings, args.nats)
    )


def _worker(args: argparse.Namespace, err: TextIO) -> int:
    try:
        from .cluster.worker import run_worker
    except ImportError as exc:
        print(f"sixdof: the worker needs the cluster extra (pip install 'sixdof[cluster]'): "
              f"{exc}", file=err)  # fmt: skip
        return EXIT_FAILED
    run_worker(args.nats, _room_settings(args))
    return EXIT_OK


def _warm(args: argparse.Namespace, err: TextIO) -> int:
    """Compile (or load from numba's on-disk cache) the kernels and run the default preset
    for a moment, as a server's first room does; write the package's bytecode; print the
    seconds it took and where the caches are."""
    from .simulation import LiveSimulation, warm_up

    start = time.perf_counter()
    warm_up()
    sim = LiveSimulation(PRESETS[DEFAULT_PRESET].scenario(), frame_rate=60.0)
    sim.step(100)
    sim.frame()
    from .api import run  # the headless integrators too: dopri5 is compiled on first use

    run(PRESETS[DEFAULT_PRESET].scenario(), integrator="dopri5", t_end=0.05)
    seconds = time.perf_counter() - start
    from numba.core import config as numba_config

    cache_dir = getattr(numba_config, "CACHE_DIR", "")  # set from NUMBA_CACHE_DIR at import
    where = f"numba cache: {cache_dir or 'next to the package'}"
    print(f"sixdof: kernels warm in {seconds:.1f} s ({where})", flush=True)
    print(f"sixdof: bytecode {_write_bytecode()}", flush=True)
    return EXIT_OK


def _write_bytecode() -> str:
    """Compile the package's modules to bytecode beside them; what happened, in words.

    Python writes bytecode itself on import unless PYTHONDONTWRITEBYTECODE is set (as in many
    containers and CI machines); then every `serve` would compile ~80 modules again (~0.15 s
    of its start-up). A wheel installed by pip has its bytecode already; an editable install
    does not. A package directory nobody may write to is left as it is.
    """
    import compileall

    package = Path(__file__).resolve().parent
    # quiet=2: a read-only install prints nothing; the result says whether all were written
    written = compileall.compile_dir(package, quiet=2, workers=1)
    return f"current in {package}" if written else f"not writable in {package} (left as it is)"


def _presets(args: argparse.Namespace, err: TextIO) -> int:
    if args.name is None:
        for preset in PRESETS.values():
            default = "  (default)" if preset.name == DEFAULT_PRESET else ""
            print(f"{preset.name:16} {preset.title}{default}\n{'':16} {preset.caption}")
        return EXIT_OK
    scenario = PRESETS[args.name].scenario()
    sys.stdout.write(
        scenario.model_dump_json(indent=2) + "\n" if args.json else scenario_to_xml(scenario)
    )
    return EXIT_OK


def _convert(args: argparse.Namespace, err: TextIO) -> int:
    scenario = _load(args.input)
    try:
        save_scenario_file(scenario, args.output)
    except ScenarioFileError as exc:
        raise _BadInput(str(exc)) from None
    except OSError as exc:
        print(f"sixdof: cannot write {args.output}: {exc.strerror or exc}", file=err)
        return EXIT_FAILED
    return EXIT_OK


@contextlib.contextmanager
def _terminate_as_interrupt(active: bool) -> Iterator[None]:
    """SIGTERM (a `kill`, a container stopping) ends a run as Ctrl-C does: the temporary
    output file is removed and nothing half-written is left behind."""
    if not active or threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(_signum: int, _frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `sixdof` console script; returns the exit status."""
    args = build_parser().parse_args(argv)
    err = sys.stderr

    def show(
        message: Warning | str, category: type[Warning], *_rest: object, **_kw: object
    ) -> None:
        print(f"sixdof: warning: {message}", file=err)

    with warnings.catch_warnings(), _terminate_as_interrupt(args.handler is _run):
        warnings.simplefilter("default")
        warnings.showwarning = show
        try:
            return int(args.handler(args, err))
        except _BadInput as exc:
            print(f"sixdof: error: {exc}", file=err)
            return EXIT_BAD_INPUT
        except KeyboardInterrupt:
            print("sixdof: interrupted", file=err)
            return 130


if __name__ == "__main__":
    sys.exit(main())
