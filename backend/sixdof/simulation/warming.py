"""Filling numba's cache with the kernels' groups (dynamics/kernel_warm.py) in worker
processes, one per core, each group as soon as the groups it calls are done: `sixdof warm`
and a server's cold start (server/registry.py, which runs this module as its child).

A worker is `python -m sixdof.simulation.warming --worker`: it reads a group's target from
its stdin, compiles it and answers a line per kernel ready and one when the group is done,
so numba is imported once per worker, not once per group. Run with group names instead
(`python -m sixdof.simulation.warming free hull system`), this module compiles those groups
across the cores and prints a line per kernel.
"""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import IO, Any

from ..dynamics.kernel_warm import GROUPS, Group, run_group

#: Told (kernels done, of total, the one just done) as each kernel is ready.
Progress = Callable[[int, int, str], None]

WORKER_FLAG, SHARED_FLAG = "--worker", "--shared"
#: This module's name, also when it runs as a server's child (`python -m`: then `__main__`).
MODULE = f"{__package__}.warming"


class WarmFailed(RuntimeError):
    """A worker ended (or failed) before its group was compiled; the message has its stderr."""


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class _Worker:
    """One worker process; its lines go to `events` as (worker, kind, value)."""

    def __init__(self, index: int, events: queue.Queue[tuple[int, str, str]], shared: bool):
        self.index = index
        self.proc = subprocess.Popen(
            [sys.executable, "-m", MODULE, WORKER_FLAG, *([SHARED_FLAG] if shared else [])],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        self.err: list[str] = []
        assert self.proc.stdout is not None and self.proc.stderr is not None
        self._readers = [
            threading.Thread(target=self._read, args=(self.proc.stdout, events), daemon=True),
            threading.Thread(target=self._keep, args=(self.proc.stderr,), daemon=True),
        ]
        for reader in self._readers:
            reader.start()

    def _read(self, stream: IO[str], events: queue.Queue[tuple[int, str, str]]) -> None:
        for line in stream:
            kind, _, value = line.rstrip("\n").partition(" ")
            events.put((self.index, kind, value))
        events.put((self.index, "exit", str(self.proc.wait())))

    def _keep(self, stream: IO[str]) -> None:
        self.err.extend(stream)

    def stderr(self) -> str:
        """What it wrote on stderr (once it has ended)."""
        self._readers[1].join(timeout=5.0)
        return "".join(self.err)

    def send(self, group: Group) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(group.target + "\n")
        self.proc.stdin.flush()

    def end(self, kill: bool) -> None:
        """Tell it to exit (the end of its input), or kill it."""
        if kill and self.proc.poll() is None:
            self.proc.kill()
        try:
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        except OSError:
            pass

    def close(self) -> None:
        """Wait for it to exit; close its streams."""
        self.proc.wait()
        for reader in self._readers:  # at the end of its stream, now the worker has ended
            reader.join(timeout=5.0)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


def compile_groups(
    groups: Sequence[Group] = GROUPS, workers: int | None = None, progress: Progress | None = None
) -> float:
    """Compile (or load) `groups` in `workers` processes (one per core by default), each
    group once the groups it names in `after` are done, in `groups`' order otherwise; the
    seconds taken. WarmFailed if a worker fails."""
    start = time.perf_counter()
    names = {g.name for g in groups}
    total = sum(len(g.kernels) for g in groups)
    events: queue.Queue[tuple[int, str, str]] = queue.Queue()
    size = max(1, min(workers or cores(), len(groups)))
    pool = [_Worker(i, events, shared=size > 1) for i in range(size)]
    pending, finished, busy, count = list(groups), set[str](), dict[int, Group](), 0
    ok = False
    try:
        while pending or busy:
            for worker in pool:
                ready = [g for g in pending if names.isdisjoint(set(g.after) - finished)]
                if worker.index not in busy and ready:
                    pending.remove(ready[0])
                    busy[worker.index] = ready[0]
                    worker.send(ready[0])
            if not busy:
                raise WarmFailed(f"groups wait on each other: {[g.name for g in pending]}")
            index, kind, value = events.get()
            if kind == "kernel":
                count += 1
                if progress is not None:
                    progress(count, total, value)
            elif kind == "group":
                finished.add(busy.pop(index).name)
            elif kind == "exit" and index in busy:
                raise WarmFailed(
                    f"compiling the kernels of {busy[index].name!r} failed (exit {value}):\n"
                    + pool[index].stderr()[-3000:]
                )
        ok = True
    finally:
        for worker in pool:
            worker.end(kill=not ok)
        for worker in pool:
            worker.close()
    return time.perf_counter() - start


_locked = False


def lock_the_index() -> None:
    """Make numba's updates of a function's cache index atomic across these workers.

    numba reads a function's index, adds the new signature under the first free data-file
    name and writes it back (numba/core/caching.py, `IndexDataCacheFile.save`), without a
    lock: two processes compiling different signatures of one function at once (the step
    both the free bodies' and the elements' kernels call, each with its own derivative)
    could each name the same data file for their own signature, and one index would then
    point at the other's code. Here a save holds an exclusive
    lock on the cache directory (flock, released when the process dies) and a load a shared
    one, so each save sees the other's entries and a load never sees an index ahead of its
    data. Without flock (not POSIX) or without the methods (a numba that changed them), the
    workers cannot share the cache: WarmFailed, which says to compile in one process."""
    global _locked
    if _locked:  # once: a second wrapper would wait on the first one's lock
        return
    from numba.core import caching

    cache_file: Any = getattr(caching, "IndexDataCacheFile", None)
    try:
        import fcntl
    except ImportError:  # not POSIX
        cache_file = None
    if not (hasattr(cache_file, "save") and hasattr(cache_file, "load")):
        raise WarmFailed(
            "cannot lock numba's cache index here (no flock, or another numba's caching): "
            "compile in one process (sixdof warm --jobs 1)"
        )
    save, load = cache_file.save, cache_file.load

    def locked(method: Callable[..., object], mode: int) -> Callable[..., object]:
        def call(self: object, *args: object) -> object:
            folder = os.open(getattr(self, "_cache_path", "."), os.O_RDONLY)
            try:
                fcntl.flock(folder, mode)
                return method(self, *args)
            finally:
                os.close(folder)  # releases the lock

        return call

    cache_file.save = locked(save, fcntl.LOCK_EX)
    cache_file.load = locked(load, fcntl.LOCK_SH)
    _locked = True


def _serve(shared: bool) -> None:
    """A worker: compile each group whose target comes on stdin, telling stdout; `shared`:
    other workers compile into the same cache at once."""
    if shared:
        lock_the_index()
    for line in sys.stdin:
        target = line.strip()
        run_group(Group(target, (), target), lambda name: print(f"kernel {name}", flush=True))
        print("group done", flush=True)
    # Its work is on disk: skip the interpreter's tear-down of numba and LLVM's objects, which
    # took seconds after a large compile, with the one waiting for it
    os._exit(0)


def main(argv: list[str]) -> None:
    if argv[:1] == [WORKER_FLAG]:
        _serve(shared=SHARED_FLAG in argv)
        return
    by_name = {g.name: g for g in GROUPS}
    chosen = [by_name[name] for name in argv] if argv else list(GROUPS)
    seconds = compile_groups(chosen, progress=lambda n, total, name: print(
        f"{n}/{total} {name}", flush=True))  # fmt: skip
    print(f"compiled in {seconds:.1f} s", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
