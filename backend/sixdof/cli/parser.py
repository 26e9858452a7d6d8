"""The command line of `sixdof`: its sub-commands, their options, help texts and examples.

Each sub-command's work is in the module of its name (`run` in `sixdof.cli.run`, …), which
`main` imports only once the command is chosen.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from .. import __version__
from ..cluster.urls import parse_urls
from ..scenario.csv_columns import DEFAULT_OUTPUT_FILE
from ..scenario.presets import DEFAULT_PRESET, PRESETS
from ..store import MEMORY
from ..store.paths import default_data_dir
from .common import DATA_ENV, TOKEN_ENV


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number 0–65535, got {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port number 0–65535, got {port}")
    return port


def _shown(path: Path) -> str:
    """`path` with the home folder written ~ (help texts)."""
    try:
        return str(Path("~") / path.relative_to(Path.home()))
    except ValueError:
        return str(path)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number ≥ 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number ≥ 1, got {value}")
    return value


def _command(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    name: str,
    summary: str,
    description: str,
    examples: Sequence[str],
) -> argparse.ArgumentParser:
    """A sub-command: its line in `sixdof --help`, its description and its examples (one
    a line, laid out as written)."""
    heading = "examples:" if len(examples) > 1 else "example:"
    return sub.add_parser(
        name,
        help=summary,
        description=description,
        epilog="\n  ".join([heading, *examples]),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


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


def _nats_urls(text: str) -> list[str]:
    try:
        return parse_urls(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("--nats: ")) from None


def _replicas(text: str) -> int:
    try:
        replicas = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number 1–5, got {text!r}") from None
    if not 1 <= replicas <= 5:  # JetStream keeps at most 5 copies of a stream
        raise argparse.ArgumentTypeError(f"expected a whole number 1–5, got {replicas}")
    return replicas


def _nats_option(parser: argparse.ArgumentParser) -> None:
    """The bus of `gateway` and `worker`: the servers of one NATS cluster, and how many
    copies of the buckets JetStream keeps."""
    parser.add_argument(
        "--nats",
        required=True,
        action="extend",
        type=_nats_urls,
        metavar="URL[,URL…]",
        help="the NATS server, or several servers of one NATS cluster (comma-separated or "
        "the option repeated): the connection fails over between them",
    )
    parser.add_argument(
        "--nats-replicas",
        type=_replicas,
        default=1,
        metavar="N",
        help="copies JetStream keeps of the leases, snapshots and shares buckets, when this "
        "process is the first to make them (default 1; 3 on a cluster of three servers, so "
        "that losing one loses nothing)",
    )


#: `export` and `import`: a data directory's lessons and meshes, as one file.
DATA_COMMANDS = [
    (
        "export",
        "write a data directory's lessons, their scenarios and shares, and meshes to a file",
        "Write the lessons of a data directory (`serve --data`), the saved scenarios and "
        "Share links their steps name, and the uploaded meshes, into FILE: a SQLite "
        "database of its own (docs/data.md), to carry to another machine and `import` "
        "there. The server may keep running meanwhile.",
        ["sixdof export lessons.sixdof", "sixdof export --data /srv/sixdof week3.sixdof"],
    ),
    (
        "import",
        "add the lessons and meshes of an exported file to a data directory",
        "Add what `sixdof export` wrote into FILE to a data directory: its lessons (pinned), "
        "their scenarios and Share links, and its meshes. A record of the same id is "
        "replaced; anything that is not an export of sixdof is refused by name.",
        ["sixdof import lessons.sixdof", "sixdof import --data /srv/sixdof week3.sixdof"],
    ),
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sixdof",
        description="A live, browser-based lab for a rigid body in six degrees of freedom "
        "(FhSim's Body/6DBody), and a headless runner for FhSim XML input files.",
    )
    parser.add_argument("--version", action="version", version=f"sixdof {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = _command(
        sub,
        "run",
        "run a scenario headless and write the CSV FhSim writes",
        "Integrate an FhSim XML input file (or Scenario JSON) from t = 0, faster than real "
        "time, and write the output ports of every body at the TOutput times as CSV (columns "
        "Time, B.Pos[0], …, B.AngVel[2], as FhSim names them).",
        [
            "sixdof run --input-file examples/tennis_racket.xml",
            "sixdof run --input-file examples/free_fall.xml --output-file fall.csv --t-end 2",
            "sixdof run --input-file model.xml --output-file - | head   # CSV to stdout",
        ],
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
        "--estimate-error",
        action="store_true",
        help="dopri5/radau: run again at AbsTol/10, RelTol/10 and print the largest difference "
        "in the summary, an estimate of the global error (costs the second run)",
    )
    run.add_argument(
        "--progress",
        action="store_true",
        help="show the progress bar even when stderr is not a terminal",
    )

    serve = _command(
        sub,
        "serve",
        "start the live lab (web page + websocket)",
        "Serve the live lab: the three.js page, its websocket and the REST API. Open the URL "
        "it prints; add ?room=NAME to share one simulation, ?token=T to control a server "
        "started with --token.",
        [
            "sixdof serve                              # http://127.0.0.1:8000/",
            "sixdof serve --scenario examples/tennis_racket.xml --open",
            "sixdof serve --host 0.0.0.0 --token lecture42   # a classroom: students watch",
        ],
    )
    _listening_options(serve)
    _room_options(serve, scenario=True)
    serve.add_argument(
        "--data",
        metavar="DIR",
        help=f"keep Share links, saved scenarios and lessons in DIR/sixdof.db (default: "
        f"${DATA_ENV}, else the user's data folder, {_shown(default_data_dir())}; "
        f"{MEMORY}: in memory only, gone when the server stops). docs/data.md",
    )

    gateway = _command(
        sub,
        "gateway",
        "serve the page, REST and /ws with the rooms on workers (NATS; the cluster extra)",
        "Serve the live lab as `serve` does, with every room run by a `sixdof worker` on the "
        "same NATS bus. Start as many gateways as the viewers need; any of them serves any "
        "room. docs/scaling.md has the design.",
        [
            "sixdof gateway --nats nats://127.0.0.1:4222 --port 8000",
            "sixdof gateway --nats nats://n1:4222,nats://n2:4222,nats://n3:4222 --nats-replicas 3",
        ],
    )
    _nats_option(gateway)
    _listening_options(gateway)
    _room_options(gateway, scenario=False)

    worker = _command(
        sub,
        "worker",
        "run rooms for the gateways on a NATS bus (the cluster extra)",
        "Run rooms' simulations for `sixdof gateway`s on the same NATS bus. Rooms are claimed "
        "by one worker each; when a worker dies, another resumes its rooms from their last "
        "snapshot (at most a second old).",
        [
            "sixdof worker --nats nats://127.0.0.1:4222",
            "sixdof worker --nats nats://n1:4222 --nats nats://n2:4222 --nats nats://n3:4222 "
            "--nats-replicas 3",
        ],
    )
    _nats_option(worker)
    _room_options(worker, scenario=True)

    warm = _command(
        sub,
        "warm",
        "compile the physics kernels into numba's cache and exit (e.g. in a Docker build)",
        "Compile (or load) every numba kernel once, in groups across the cores with their "
        "progress on stderr, so the first `serve` or `run` starts without compiling, and "
        "write the package's bytecode where Python can (so `serve` starts warm even where "
        "PYTHONDONTWRITEBYTECODE is set). NUMBA_CACHE_DIR chooses where the kernels' cache "
        "goes.",
        ["NUMBA_CACHE_DIR=/var/cache/sixdof sixdof warm", "sixdof warm --jobs 1"],
    )
    warm.add_argument(
        "--jobs",
        type=_positive_int,
        default=None,
        metavar="N",
        help="compile in N processes (default: one per core this process may use)",
    )

    for verb, summary, description, examples in DATA_COMMANDS:
        data_command = _command(sub, verb, summary, description, examples)
        data_command.add_argument("file", type=Path, metavar="FILE.sixdof")
        data_command.add_argument(
            "--data",
            metavar="DIR",
            help=f"the data directory (default: ${DATA_ENV}, else the user's data folder)",
        )

    presets = _command(
        sub,
        "presets",
        "list the presets, or print one as a file",
        "List the presets (name, title, what to watch), or print one as an FhSim XML input "
        "file (or Scenario JSON) to start your own from.",
        [
            "sixdof presets",
            "sixdof presets tennis_racket > racket.xml",
            "sixdof presets hover --json",
        ],
    )
    presets.add_argument(
        "name",
        nargs="?",
        choices=list(PRESETS),
        metavar="NAME",
        help="print this preset as an FhSim XML input file",
    )
    presets.add_argument("--json", action="store_true", help="print it as Scenario JSON")

    convert = _command(
        sub,
        "convert",
        "convert a scenario between .xml and .json",
        "Read a scenario (.xml or .json) and write it in the format OUT's suffix names; the "
        "written file reads back to the same scenario.",
        ["sixdof convert examples/offset_cg.xml offset_cg.json"],
    )
    convert.add_argument("input", type=Path, metavar="IN")
    convert.add_argument("output", type=Path, metavar="OUT")

    fmu = _command(
        sub,
        "fmu",
        "export a scenario as an FMI 2.0 co-simulation FMU (the fmu extra)",
        "Build an FMI 2.0 co-simulation FMU of a scenario with pythonfmu: inputs B.Force[0..2] "
        "and B.Moment[0..2] (global, at the CG), outputs named as `sixdof run`'s CSV columns, "
        "tunable parameters B.Mass, B.InertiaRadi[0..2], B.CGOffset[0..2]. It runs where "
        "sixdof is installed (docs/fmu.md).",
        [
            "sixdof fmu examples/tennis_racket.xml -o racket.fmu",
            "sixdof fmu examples/free_fall.xml -o fall.fmu && python -m fmpy simulate fall.fmu",
        ],
    )
    fmu.add_argument("scenario", type=Path, metavar="SCENARIO", help=".xml or .json scenario")
    fmu.add_argument(
        "-o", "--output", type=Path, required=True, metavar="OUT.fmu", help="the FMU to write"
    )
    fmu.add_argument("--quiet", action="store_true", help="no summary line")

    inspect = _command(
        sub,
        "inspect",
        "print a mesh file's mass properties (volume, CG, inertia, principal axes)",
        "Read a mesh (STL, OBJ, PLY, glTF/GLB) with the checks a scenario's mesh gets and print "
        "its triangles, whether it is closed, its bounds, volume and area, and the mass "
        "properties of the uniform solid (or, with --shell, the thin shell) it makes: mass, "
        "CG from the file's origin, the inertia tensor about the CG (Ixy = −∫xy dm), its "
        "principal moments and axes (docs/physics.md).",
        [
            "sixdof inspect bracket.stl --units mm --density 2700",
            "sixdof inspect hull.glb --mass 1200 --json",
        ],
    )
    inspect.add_argument("input", type=Path, metavar="FILE", help="the mesh file")
    weight = inspect.add_mutually_exclusive_group()
    weight.add_argument("--density", type=float, metavar="RHO",
                        help="kg/m³ (kg/m² with --shell); default 1000")  # fmt: skip
    weight.add_argument("--mass", type=float, metavar="KG", help="the body's mass instead")
    inspect.add_argument("--shell", action="store_true", help="a thin shell, not a solid")
    inspect.add_argument("--units", choices=["m", "mm", "in"], default="m",
                         help="the file's unit (default m)")  # fmt: skip
    inspect.add_argument("--json", action="store_true", help="print the result as JSON")

    fit = _command(
        sub,
        "fit",
        "fit a body's inertia ratios to a gyroscope recording (e.g. phyphox)",
        "Read a gyroscope file (phyphox's CSV export, or plain columns t, ωx, ωy, ωz in "
        "s and rad/s), fit the torque-free Euler equations to it (least squares over the "
        "initial ω and the inertia ratios Ix/Iz, Iy/Iz) and print the ratios with their "
        "uncertainty, the residual, the flip period measured and predicted, and a scenario "
        "of the fitted body (docs/gyroscope.md).",
        [
            "sixdof fit examples/gyro_flip.csv",
            "sixdof fit 'Raw Data.csv' --json",
            "sixdof fit gyro.csv --scenario-file phone.xml && sixdof serve --scenario phone.xml",
        ],
    )
    fit.add_argument("input", type=Path, metavar="GYRO.csv", help="the gyroscope recording")
    fit.add_argument("--json", action="store_true", help="print the result as JSON")
    fit.add_argument(
        "--scenario-file",
        type=Path,
        metavar="FILE",
        help="also write the fitted body's scenario to FILE (.xml or .json)",
    )
    fit.add_argument(
        "--mass", type=float, default=0.2, metavar="KG", help="the scenario's Mass (default 0.2)"
    )
    fit.add_argument(
        "--radius",
        type=float,
        default=0.05,
        metavar="M",
        help="the scenario's radius of gyration about z (default 0.05 m, a phone's scale; "
        "the fit gives only the ratios)",
    )
    from . import bem

    bem.add_parser(sub, _command)
    return parser
