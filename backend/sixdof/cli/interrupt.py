"""Ctrl-C and SIGTERM (a `kill`, a container stopping) during a command that computes and then
writes a file (`run`, `convert`, `fit`, `bem`, `fmu`: cli.STOP_AT_ONCE): it stops at once,
with exit status 130, and leaves nothing half-written.

A KeyboardInterrupt raised wherever the main thread happens to be (Python's own Ctrl-C)
lands inside library internals more often than not: importlib's weakref callbacks and
llvmlite's finalizers swallow it (the run went on to its end), an extension module's import
turns it into an ImportError (`numba._devicearray failed to import`), and numba interrupted
half-way crashed the interpreter at exit (SIGSEGV): 4 of 100 terminations at a random moment
of a run's start. Before the command writes its output there is nothing on disk to clean up, so
the process leaves at once (`os._exit`); only while it writes (`writing()`) is the signal a
KeyboardInterrupt, so that the writer removes its temporary file.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator
from types import FrameType

#: The exit status of a run stopped by Ctrl-C or SIGTERM (128 + SIGINT, as a shell reports).
EXIT_INTERRUPTED = 130
SIGNALS = (signal.SIGINT, signal.SIGTERM)

_writing = threading.Event()


@contextlib.contextmanager
def writing() -> Iterator[None]:
    """While the output is written, a signal is a KeyboardInterrupt (the writer cleans up)."""
    _writing.set()
    try:
        yield
    finally:
        _writing.clear()


def _on_signal(_signum: int, _frame: FrameType | None) -> None:
    if _writing.is_set():
        raise KeyboardInterrupt
    try:  # a progress bar may hold the line: the message goes on a line of its own
        sys.stderr.write(("\n" if sys.stderr.isatty() else "") + "sixdof: interrupted\n")
        sys.stderr.flush()
    finally:
        os._exit(EXIT_INTERRUPTED)


@contextlib.contextmanager
def stop_at_once(active: bool) -> Iterator[None]:
    """Within: Ctrl-C and SIGTERM end the process at once, but while `writing()`. Only where
    the process is the command's own (`active`): os._exit would end a notebook's kernel."""
    if not active or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.signal(signum, _on_signal) for signum in SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
