"""A numba cache that lacks the free bodies' kernels: what a server finds after an upgrade
that changed them, and what the live, browser and cluster tiers start on to see a cold start
(the `preparing` message, the banner, the gateway passing it on) with a real compile of
~12 s of CPU instead of the whole ~60 s. The whole cold compile is the install tier's: a wheel
installed in a new venv (tests/install/test_wheel.py).

It is a copy of the cache `sixdof warm` filled (make test runs it first), without the index
and data files of `kernel_compiled`; the server is pointed at it with NUMBA_CACHE_DIR.
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

#: The module whose kernels are left out: the free bodies' (kernel_cache.KERNELS' first).
LEFT_OUT = kernel_cache.SOURCE.stem


def partly_cold(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point NUMBA_CACHE_DIR (of this process and the servers it starts) at `folder`, filled
    with the warm cache but for `LEFT_OUT`'s kernels; the folder."""
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    warm = kernel_cache.cache_dir()
    if kernel_cache.is_cold():
        pytest.fail(f"numba's cache in {warm} is cold: run `sixdof warm` first (make test does)")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(folder))
    cold = kernel_cache.cache_dir()
    cold.mkdir(parents=True, exist_ok=True)
    for path in warm.iterdir():
        if path.suffix in (".nbi", ".nbc") and not path.name.startswith(f"{LEFT_OUT}."):
            shutil.copy2(path, cold / path.name)
    assert kernel_cache.is_cold() and 0 < kernel_cache.fresh(), os.listdir(cold)
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
