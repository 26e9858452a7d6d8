"""A numba cache that lacks some of the free bodies' kernels: what a server finds after an
upgrade that changed them, and what the live, browser and cluster tiers start on to see a
cold start (the `preparing` message, the banner, the gateway passing it on) with a real
compile instead of the whole ~60 s of CPU. A wheel installed in a new venv starts from an
empty cache (tests/install/test_wheel.py: the free bodies' compile); the whole cold start,
to the elements' kernels loaded, is the timing tier's (`all_cold`).

It is a copy of the cache `sixdof warm` filled (make test runs it first), without the index
and data files of one kernel (ONE_KERNEL, the default: ~0.1 s to compile, its callees come
from the cache; the tests that hold the compile while a viewer comes need no more) or of all
the free bodies' (FREE_BODIES: ~12 s of CPU, for a test that watches the compile's progress
go by, or times it); the server is pointed at it with NUMBA_CACHE_DIR.
"""

from __future__ import annotations

import os
import shutil
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from sixdof.dynamics import kernel_cache

#: What is left out, as the start of the cache files' names: every kernel of the free bodies'
#: module (kernel_cache.KERNELS' first), or one of its entry points.
FREE_BODIES = f"{kernel_cache.SOURCE.stem}."
ONE_KERNEL = f"{kernel_cache.SOURCE.stem}.{kernel_cache.KERNELS[0][1][1]}-"


def partly_cold(
    folder: Path, monkeypatch: pytest.MonkeyPatch, left_out: str = ONE_KERNEL, only: str = ""
) -> Path:
    """Point NUMBA_CACHE_DIR (of this process and the servers it starts) at `folder`, filled
    with the warm cache but for the files whose names start with `left_out` (or, given
    `only`, with just the files whose names start with that: FREE_BODIES, the free bodies'
    kernels without the elements'); the folder."""
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    warm = kernel_cache.cache_dir()
    if kernel_cache.is_cold():
        pytest.fail(f"numba's cache in {warm} is cold: run `sixdof warm` first (make test does)")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(folder))
    cold = kernel_cache.cache_dir()
    cold.mkdir(parents=True, exist_ok=True)
    for path in warm.iterdir():
        kept = path.name.startswith(only) if only else not path.name.startswith(left_out)
        if path.suffix in (".nbi", ".nbc") and kept:
            shutil.copy2(path, cold / path.name)
    assert kernel_cache.is_cold() and 0 < kernel_cache.fresh(), os.listdir(cold)
    return folder


def all_cold(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point NUMBA_CACHE_DIR (of this process and the servers it starts) at `folder`, empty:
    a fresh install's cache, for the timing tier's whole cold start; the folder."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(folder))
    kernel_cache.cache_dir().mkdir(parents=True, exist_ok=True)
    assert kernel_cache.fresh() == 0, os.listdir(kernel_cache.cache_dir())
    return folder


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(c) for c in (task / "children").read_text().split()]
    return found


#: What the command line of a server's compiling child holds (server/registry.py).
COMPILER = b"sixdof.simulation.warming"


def compiling_child(pid: int, timeout: float = 60.0) -> int:
    """The pid of the child process in which server `pid` compiles the kernels (waited for):
    the leader of a process group of its own, with its workers."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for child in _children(pid):
            try:
                if COMPILER in Path(f"/proc/{child}/cmdline").read_bytes():
                    return child
            except OSError:
                continue  # it ended meanwhile
        time.sleep(0.01)
    raise AssertionError(f"process {pid} started no compile within {timeout} s")


def alive_in_group(pgid: int) -> list[int]:
    """The processes of process group `pgid` that still run (zombies, ended but not yet
    reaped, do not): a compiling child and its workers."""
    alive = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue  # it ended meanwhile
        if int(fields[2]) == pgid and fields[0] != "Z":
            alive.append(int(stat.parent.name))
    return alive


@contextmanager
def held_compile(pid: int) -> Iterator[int]:
    """The compile of server `pid` stopped (SIGSTOP, the child and its workers) for the
    `with` block, then let go: a viewer is sure to come while it compiles, however fast or
    loaded the machine."""
    child = compiling_child(pid)
    os.killpg(child, signal.SIGSTOP)
    try:
        yield child
    finally:
        try:
            os.killpg(child, signal.SIGCONT)
        except ProcessLookupError:
            pass
