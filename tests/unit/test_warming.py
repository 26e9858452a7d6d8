"""The kernels' groups compiled across processes (simulation/warming.py): two groups at once,
one after the group it calls, a failing group's stderr told; the groups a server and
`sixdof warm` compile; the progress `sixdof warm` shows. The real cold compile is the install
tier's (tests/install/test_packaging.py)."""

from __future__ import annotations

import io
import os
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from sixdof.cli.warm import HEADLESS, WARM_GROUPS, KernelBar
from sixdof.dynamics import kernel_cache
from sixdof.dynamics.kernel_warm import FREE, GROUPS, SYSTEM, Group
from sixdof.server import physics_loading as registry
from sixdof.simulation import warming
from sixdof.simulation.warming import WarmFailed, compile_groups

#: Targets for the workers: `a` and `b` each wait until the other has started, so they pass
#: only when they run at once; `c` checks that `a`, which it comes after, is done.
FAKES = """
import os
import time
from pathlib import Path

HERE = Path(os.environ["WARM_FAKES"])


def _wait_for(name):
    deadline = time.monotonic() + 120  # a failure bound: the other never started
    while not (HERE / name).exists():
        if time.monotonic() > deadline:
            raise SystemExit(f"{name} never came")
        time.sleep(0.01)


def a(done):
    (HERE / "a.started").touch()
    _wait_for("b.started")
    done("a1")
    (HERE / "a.done").touch()


def b(done):
    (HERE / "b.started").touch()
    _wait_for("a.started")
    done("b1")
    done("b2")


def c(done):
    assert (HERE / "a.done").exists(), "c ran before a was done"
    done("c1")


def broken(done):
    done("half")
    raise RuntimeError("no such kernel: test")
"""


@pytest.fixture
def fakes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The module of fake targets, importable by the workers (which inherit the env)."""
    (tmp_path / "warm_fakes.py").write_text(textwrap.dedent(FAKES))
    monkeypatch.setenv("WARM_FAKES", str(tmp_path))
    path = os.pathsep.join(p for p in (str(tmp_path), os.environ.get("PYTHONPATH", "")) if p)
    monkeypatch.setenv("PYTHONPATH", path)
    return "warm_fakes"


def test_groups_run_at_once_and_after_what_they_call(fakes: str) -> None:
    groups = [
        Group("a", ("a1",), f"{fakes}:a"),
        Group("c", ("c1",), f"{fakes}:c", ("a",)),  # listed before b, but waits for a
        Group("b", ("b1", "b2"), f"{fakes}:b"),
    ]
    seen: list[tuple[int, int, str]] = []
    compile_groups(groups, workers=2, progress=lambda *told: seen.append(told))
    assert [n for n, _, _ in seen] == [1, 2, 3, 4]
    assert {total for _, total, _ in seen} == {4}
    names = [name for _, _, name in seen]
    assert sorted(names) == ["a1", "b1", "b2", "c1"]
    assert names.index("c1") > names.index("a1")


def test_the_workers_run_this_module_also_when_it_runs_as_main() -> None:
    # a server runs it as `python -m`, where its __name__ is "__main__"
    assert warming.MODULE == warming.__name__ == "sixdof.simulation.warming"


def test_a_failing_group_says_why(fakes: str) -> None:
    groups = [Group("broken", ("half", "rest"), f"{fakes}:broken")]
    with pytest.raises(WarmFailed, match="'broken' failed") as raised:
        compile_groups(groups, workers=1)
    assert "no such kernel: test" in str(raised.value)


def test_the_groups_cover_the_entry_kernels_in_an_order_that_runs() -> None:
    # the server's child compiles what `_load` loads: every live group, by name
    assert registry.WARM_GROUPS == tuple(g.name for g in GROUPS)
    # the kernels counted are the ones whose cache files kernel_cache reads
    by_source = {source.stem: set(names) for source, names in kernel_cache.KERNELS if names}
    assert set(FREE.kernels) == by_source["kernel_compiled"]
    assert {k for g in SYSTEM for k in g.kernels} == by_source["system_compiled"]
    # each group comes after the groups it calls, so a list in this order never waits
    for groups in (GROUPS, WARM_GROUPS):
        names = [g.name for g in groups]
        for i, group in enumerate(groups):
            assert set(group.after) <= set(names[:i]), group
    assert set(WARM_GROUPS) == set(GROUPS) | set(HEADLESS) and WARM_GROUPS[0] == FREE


def test_the_progress_is_a_bar_on_a_terminal_and_lines_elsewhere() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    lines = io.StringIO()
    bar = KernelBar(lines)
    bar(1, 3, "_derivative_batch")
    bar(3, 3, "system_serial")
    bar.close()
    told = lines.getvalue().splitlines()
    assert [line.split(" (")[0] for line in told] == [
        "sixdof: kernel 1/3 ready",
        "sixdof: kernel 3/3 ready",
    ]
    assert "_derivative_batch" in told[0] and "\r" not in lines.getvalue()
    screen = Terminal()
    bar = KernelBar(screen, width=10)
    bar(1, 2, "_derivative_batch")
    assert screen.getvalue().startswith("\r[#####.....] 1/2 kernels")
    bar(2, 2, "submerged")
    assert "[##########] 2/2 kernels" in screen.getvalue()
    bar.close()
    assert screen.getvalue().endswith("\r") and "\n" not in screen.getvalue()


#: Two processes save different signatures of one cached function at once: `a` holds its
#: save open, before it writes the index, until `b` has read the index in its own save, or
#: is blocked on the workers' lock (seen in /proc/locks); `b` saves once `a` is in its save.
RACE = """
import os, sys, time
from pathlib import Path
from numba.core import caching

role, here, locked = sys.argv[1], Path(sys.argv[2]), sys.argv[3] == "locked"
sys.path.insert(0, str(here))
if locked:
    from sixdof.simulation.warming import lock_the_index
    lock_the_index()


def wait_until(test, what):
    deadline = time.monotonic() + 120  # a failure bound
    while not test():
        if time.monotonic() > deadline:
            raise SystemExit(f"{role}: {what} never came")
        time.sleep(0.005)


def b_blocked():
    pid = (here / "b-pid").read_text()
    return any("->" in line and f" {pid} " in line for line in open("/proc/locks"))


cls = caching.IndexDataCacheFile
save, load_index, save_index = cls.save, cls._load_index, cls._save_index
if role == "a":
    def held(self, overloads):
        (here / "a-in-save").touch()
        wait_until(lambda: (here / "b-pid").exists(), "b")
        wait_until(lambda: (here / "b-read-index").exists() or b_blocked(), "b's save")
        return save_index(self, overloads)
    cls._save_index = held
else:
    (here / "b-pid").write_text(str(os.getpid()))
    def late(self, key, data):
        wait_until(lambda: (here / "a-in-save").exists(), "a's save")
        cls._load_index = read
        return save(self, key, data)
    def read(self):
        found = load_index(self)
        (here / "b-read-index").touch()
        return found
    cls.save = late
import shared
shared.f(1 if role == "a" else 1.5)
"""


def _race(tmp_path: Path, locked: bool) -> dict[object, str]:
    """Race `a` and `b` into a fresh cache; the function's index (key: data file)."""
    (tmp_path / "shared.py").write_text(
        "from numba import njit\n\n\n@njit(cache=True)\ndef f(x):\n    return x + 1\n"
    )
    (tmp_path / "race.py").write_text(RACE)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    mode = "locked" if locked else "unlocked"
    procs = [
        subprocess.Popen([sys.executable, str(tmp_path / "race.py"), role, str(tmp_path), mode],
                         env=env, stderr=subprocess.PIPE, text=True)
        for role in ("a", "b")
    ]  # fmt: skip
    for proc in procs:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
    import numba  # noqa: F401  (the index's keys are numba's types)

    (index,) = (tmp_path / "cache").rglob("shared.f-*.nbi")
    with index.open("rb") as stream:
        pickle.load(stream)  # numba's version
        _stamp, overloads = pickle.loads(stream.read())
    assert all((index.parent / name).is_file() for name in overloads.values())
    return dict(overloads)


def test_two_workers_saving_one_function_at_once_keep_both_signatures(tmp_path: Path) -> None:
    """numba's cache index of a function is read, extended and written back unlocked: two
    workers compiling different signatures of one function (a step the free bodies' and the
    elements' kernels both call) could both name data file 1. With the workers' lock (as
    `sixdof warm` runs them) each signature keeps its own file."""
    index = _race(tmp_path, locked=True)
    assert len(index) == 2 and len(set(index.values())) == 2, index


def test_the_stepping_kernels_parts_compile_the_calls_it_makes() -> None:
    """Each part of the stepping kernel (parts_compiled.py) compiles its callee for the very
    signature `system_serial` calls it with, else a cold compile would compile it twice: in
    the warm cache (`sixdof warm`), each callee holds one signature, and a part finds it
    there instead of compiling one of its own."""
    from sixdof.dynamics import parts_compiled as parts
    from sixdof.dynamics import system_compiled as s
    from sixdof.dynamics import tree_run_compiled as tree
    from sixdof.dynamics.kernel_warm import SYSTEM_PARTS, _serial_arguments

    assert kernel_cache.holds(kernel_cache.KERNELS[1][0], "system_serial"), "run `sixdof warm`"
    assert set(SYSTEM[1].after) == {g.name for g in SYSTEM_PARTS}
    callees = {"tree_run": tree.run, "run_one": s._run_one, "group_run": s._group_run}
    for name, callee in callees.items():
        parts.compile_part(getattr(parts, name), *_serial_arguments())
        assert len(callee._cache._cache_file._load_index()) == 1, name  # system_serial's alone
        assert callee._cache_hits and not callee._cache_misses, (name, callee._cache_misses)
