"""The wheel, installed outside the source tree, serves the whole page on its own.

What a user does: `pip install sixdof-*.whl && sixdof serve`, on a machine without Node.js
and without the repository. The test builds the wheel from the repository
(`pip wheel --no-deps`; frontend/dist exists after `make setup` and setup.py copies it
and meshes/ into sixdof/_assets), installs it into a fresh virtual environment in a
temporary directory, starts the installed `sixdof serve --port 0` there with a PATH that
holds only the venv (so no node, no npm), and checks that the page, every file it refers
to, every shipped mesh and the websocket hello come from the installed copy.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest
from support.adversary import replies
from support.coldcache import alive_in_group, held_compile
from support.serving import Proc
from websockets.sync.client import connect

import sixdof
from sixdof.scenario.presets import FOLDER as PRESET_FOLDER
from sixdof.scenario.presets import PRESETS

#: Whichever test comes first builds the wheel, installs it into a fresh venv and starts it
#: (the module's fixtures): minutes of pip beside the rest of the suite, more than the
#: suite's 300 s a test at a load of 25, so every test here has the cold compile's bound.
pytestmark = pytest.mark.timeout(900)

REPO = Path(__file__).resolve().parents[2]
URL_LINE = re.compile(r"sixdof: serving (http://127\.0\.0\.1:(\d+)/)")
#: Files a built JS or CSS file loads: "./x" and "../x" relative to that file (chunks, CSS
#: url()), "assets/x" and "meshes/x" relative to the page (the code builds them on
#: window.location), "/assets/x" and "/meshes/x" from the root.
ASSET_REF = re.compile(
    r"""["'`(]((?:\.{1,2}/[\w.\-/]+|/?(?:assets|meshes)/[\w.\-/]+)\.[A-Za-z0-9]{2,5})["'`)]"""
)


@dataclass
class Installed:
    root: Path  # the temporary directory: the wheel, the venv, the server's cwd
    wheel: Path
    venv: Path
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def bin(self) -> Path:
        return self.venv / "bin"

    def bare_env(self) -> dict[str, str]:
        """What the installed commands run with: the venv on PATH and nothing else."""
        return {"PATH": str(self.bin), "HOME": str(self.root), "LANG": "C.UTF-8"}


def _run(cmd: list[str | Path], **kw: object) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=600, **kw)
    assert done.returncode == 0, f"{cmd} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    """Built and installed once per test run: with `pytest -n 2` the first worker to get here
    builds (setuptools' build/ directory in the repository takes one build at a time) and
    the other reuses its venv, under a file lock in the run's shared temporary directory."""
    if not (REPO / "frontend" / "dist" / "index.html").is_file():
        pytest.fail("frontend/dist is missing: run `make setup` (npm ci && npm run build)")
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # the directory all workers of this run share
    root = (shared / "wheel-shared").resolve()
    assert not root.is_relative_to(REPO)
    with (shared / "wheel.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (root / "done").is_file():
            root.mkdir(exist_ok=True)
            _build_and_install(root)
            (root / "done").write_text("built\n")
        fcntl.flock(lock, fcntl.LOCK_UN)
    (wheel,) = root.glob("sixdof-*.whl")
    yield Installed(root, wheel, root / "venv", json.loads((root / "seconds.json").read_text()))


def _build_and_install(root: Path) -> None:
    # pip's own settings (index, find-links, certificates) stay; nothing points at the repo.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    seconds: dict[str, float] = {}
    start = time.perf_counter()
    _run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", root, "."],
        cwd=REPO,
        env=env,
    )
    seconds["build"] = time.perf_counter() - start
    (wheel,) = root.glob("sixdof-*.whl")
    start = time.perf_counter()
    _run([sys.executable, "-m", "venv", root / "venv"], cwd=root, env=env)
    # --no-compile: byte-compiling all of scipy and numba would double the install time;
    # the server compiles the few modules it imports when it starts.
    pip = root / "venv" / "bin" / "pip"
    _run([pip, "install", "-q", "--no-compile", wheel], cwd=root, env=env)
    seconds["install"] = time.perf_counter() - start
    (root / "seconds.json").write_text(json.dumps(seconds))


def test_the_wheel_carries_the_built_page_and_every_mesh(installed: Installed) -> None:
    with zipfile.ZipFile(installed.wheel) as archive:
        names = set(archive.namelist())
    dist = REPO / "frontend" / "dist"
    page = {
        f"sixdof/_assets/web/{p.relative_to(dist).as_posix()}"
        for p in dist.rglob("*")
        if p.is_file()
    }
    assert len(page) >= 3 and page - names == set()
    catalogue = json.loads((REPO / "meshes" / "meshes.json").read_text())
    listed = catalogue["meshes"] if isinstance(catalogue, dict) else catalogue
    meshes = {f"sixdof/_assets/meshes/{m['file']}" for m in listed}
    assert len(meshes) >= 5 and meshes - names == set()
    assert {"sixdof/_assets/meshes/materials.json", "sixdof/cli/__init__.py"} <= names
    # every preset's file, and the catalogue its English captions are formatted from
    presets = {f"sixdof/scenario/presets/{p.name}" for p in PRESET_FOLDER.glob("*.json")}
    assert len(presets) >= 20 and presets | {"sixdof/_assets/locales/en.json"} <= names
    # nothing from the build machine's checkout beyond the package: no tests, no sources
    assert not [n for n in names if n.startswith(("tests/", "frontend/", "backend/"))]
    # nor the code generators (scripts/protocol_gen): they run at development time only
    assert not [n for n in names if "protocol_gen" in n or "protocol_docs" in n]
    assert not [n for n in names if n.startswith("sixdof/_assets/") and n.endswith(".py")]
    size_mb = installed.wheel.stat().st_size / 1e6
    assert 0.1 < size_mb < 5.0, f"wheel is {size_mb:.2f} MB"


def test_the_installed_package_and_its_assets_live_in_the_venv(installed: Installed) -> None:
    probe = (
        "import json, sixdof, sixdof.assets as a; print(json.dumps({'pkg': sixdof.__file__,"
        " 'web': str(a.asset_dir('web')), 'meshes': str(a.asset_dir('meshes')),"
        " 'locales': str(a.asset_dir('locales')), 'version': sixdof.__version__,"
        " 'caption': __import__('sixdof.scenario.presets').scenario.presets"
        ".preset_scenario('heeled_ship').caption}))"
    )
    env = installed.bare_env()
    out = json.loads(
        _run([installed.bin / "python", "-c", probe], cwd=installed.root, env=env).stdout
    )
    for key in ("pkg", "web", "meshes", "locales"):
        where = Path(out[key]).resolve()
        assert where.is_relative_to(installed.venv) and not where.is_relative_to(REPO), out
    assert (Path(out["web"]) / "index.html").is_file()
    assert out["caption"] == PRESETS["heeled_ship"].caption  # the files and catalogue came along
    assert out["version"] == sixdof.__version__
    shown = _run([installed.bin / "sixdof", "--version"], cwd=installed.root, env=env).stdout
    assert shown.strip() == f"sixdof {sixdof.__version__}"


class _Refs(HTMLParser):
    """The URLs a page loads by itself: script src, link href, img src."""

    def __init__(self) -> None:
        super().__init__()
        self.refs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        ref = a.get("src") if tag in ("script", "img") else a.get("href") if tag == "link" else None
        if ref and not ref.startswith(("data:", "http:", "https:", "#")):
            self.refs.append(ref)


@pytest.fixture(scope="module")
def served(installed: Installed) -> Iterator[tuple[str, Proc]]:
    env = installed.bare_env()
    assert shutil.which("node", path=env["PATH"]) is None  # the wheel must not need Node.js
    start = time.perf_counter()
    proc = Proc([str(installed.bin / "sixdof"), "serve", "--port", "0"], cwd=installed.root,
                whole_env=env)  # fmt: skip
    try:
        url = proc.wait_for(URL_LINE.pattern, 180.0).group(1)
        installed.seconds["first start"] = time.perf_counter() - start
        yield url, proc
    finally:
        proc.stop()
    assert "Traceback" not in proc.output, proc.output


def _next(ws: object, kind: str) -> dict:
    """The next message of type `kind` on websocket `ws` (others skipped)."""
    while True:
        msg = json.loads(ws.recv(timeout=60))  # type: ignore[attr-defined]
        if msg["type"] == kind:
            return msg  # type: ignore[no-any-return]


def _health(url: str) -> dict:
    """The installed server's /api/health."""
    return json.loads(urllib.request.urlopen(url + "api/health", timeout=30).read())  # type: ignore[no-any-return]


def _get(url: str) -> tuple[int, bytes, str]:
    with urllib.request.urlopen(url, timeout=30) as reply:
        return reply.status, reply.read(), reply.headers.get("content-type", "")


def test_the_installed_server_serves_every_asset_it_refers_to(
    installed: Installed, served: tuple[str, Proc]
) -> None:
    url, _ = served
    web = installed.venv / "lib"
    (web,) = web.glob("python3*/site-packages/sixdof/_assets/web")
    status, body, kind = _get(url)
    assert status == 200 and kind.startswith("text/html")
    assert body == (web / "index.html").read_bytes()  # the venv's copy, byte for byte
    parser = _Refs()
    parser.feed(body.decode())
    assert any(r.endswith(".js") for r in parser.refs) and any(
        r.endswith(".css") for r in parser.refs
    )
    checked: set[str] = set()
    todo = [urljoin(url, r) for r in parser.refs]
    while todo:  # the page's files, then whatever those files load in turn
        asset = todo.pop()
        path = urlsplit(asset).path
        if path in checked:
            continue
        checked.add(path)
        status, data, _ = _get(asset)
        assert status == 200, asset
        if path.startswith("/assets/"):
            assert data == (web / path.lstrip("/")).read_bytes(), path
        if path.endswith((".js", ".css")):
            for ref in (m.group(1) for m in ASSET_REF.finditer(data.decode())):
                todo.append(urljoin(asset if ref.startswith(".") else url, ref))
    status, data, _ = _get(urljoin(url, "api/meshes"))
    catalogue = json.loads(data)
    files = {m["file"] for m in catalogue["meshes"]}
    assert len(files) >= 5 and catalogue["materials"]
    meshes = web.parent / "meshes"
    for name in [*sorted(files), "meshes.json", "materials.json"]:
        status, data, _ = _get(urljoin(url, f"meshes/{name}"))
        assert status == 200 and data == (meshes / name).read_bytes(), name
    health = json.loads(_get(urljoin(url, "api/health"))[1])
    assert health["status"] == "ok" and health["version"] == sixdof.__version__


# The suite's one cold compile: the installed server compiles its kernels in a child, the free
# bodies' first (~12 s of CPU alone). The elements' kernels (~70 s more of both cores) are
# not waited for here: the server is stopped while it compiles them (held, so that it cannot
# end first), which must end the compile too. Their whole cold compile, loaded by the server
# once its child is done, is the timing tier's (tests/timing/test_cold_start_timing.py), and
# `make test`'s own `sixdof warm` compiles them all on a fresh clone.
def test_the_installed_server_says_hello_on_the_websocket(
    installed: Installed, served: tuple[str, Proc]
) -> None:
    url, proc = served
    ws_url = url.replace("http://", "ws://") + "ws?room=wheel"
    with connect(ws_url, open_timeout=30) as ws:
        opened = time.monotonic()
        hello = json.loads(ws.recv(timeout=30))
        deadline = time.monotonic() + 800  # a bound on failure: the free bodies' compile
        while hello["type"] == "preparing" and time.monotonic() < deadline:
            hello = json.loads(ws.recv(timeout=60))  # told so again every second
        installed.seconds["first hello"] = time.monotonic() - opened
        assert hello["type"] == "hello" and hello["room"] == "wheel"
        assert hello["version"] == sixdof.__version__ and hello["can_control"] is True
        assert hello["scenario"]["bodies"] and not hello["scenario"].get("elements"), hello
        frame = _next(ws, "state")
        assert frame["t"] >= 0 and len(frame["bodies"]) == len(hello["scenario"]["bodies"])
    # the default room (a free body) runs on the free bodies' kernels; a scenario with
    # elements is refused (`preparing`) until theirs are compiled
    health = _health(url)
    assert health["kernels_compiled_here"] == 0, health  # the child's work, not the server's
    load = {"type": "load_scenario", "preset": "floating_box", "id": 1}
    if health["physics"] == "all":  # a machine fast enough to have compiled it all by now
        with connect(ws_url, open_timeout=30) as ws:
            _next(ws, "hello")
            ws.send(json.dumps(load))
            assert replies(ws, {1}, timeout=120)[1]["type"] == "ack"
            assert _next(ws, "hello")["scenario"].get("elements")
    else:
        assert health["physics"] == "free bodies", health
        # the elements' compile held (SIGSTOP) so that it cannot end first, however fast
        with held_compile(proc.pid) as child:
            with connect(ws_url, open_timeout=30) as ws:
                _next(ws, "hello")
                ws.send(json.dumps(load))
                answer = replies(ws, {1}, timeout=120)[1]
            # refused before anything is charged or built
            assert answer["type"] == "error" and answer["code"] == "preparing", answer
            assert answer["field"] == "elements", answer
            assert "try again in about" in answer["message"], answer
            # stopped meanwhile: the compile ends with the server, the cache left cold
            proc.proc.send_signal(signal.SIGTERM)
            proc.proc.wait(60)  # a failure bound; the timing tier asks for a second
        assert not alive_in_group(child), "the compile lives on after its server"
    times = ", ".join(f"{k} {v:.1f} s" for k, v in installed.seconds.items())
    size = installed.wheel.stat().st_size / 1e6
    print(f"\nwheel {installed.wheel.name}: {size:.2f} MB; {times}; physics at first hello "
          f"{health['physics']!r}")  # fmt: skip
