"""Ctrl-C and SIGTERM during `sixdof run` (cli/interrupt.py): before the output is written
the process leaves at once, while it is written the writer cleans up, and a caller of
`main([...])` keeps its own handlers. (A terminated run's whole process: test_cli_run.py.)"""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

#: A finalizer that is running when SIGTERM comes (llvmlite's run while numba loads): a
#: KeyboardInterrupt raised inside it is printed and ignored, and the run went on to its end.
SIGNAL_IN_A_FINALIZER = """
import gc, os, signal, sys
from sixdof.cli import interrupt

class Held:
    def __del__(self):
        os.kill(os.getpid(), signal.SIGTERM)
        for _ in range(100_000):  # the handler runs between two of these
            pass

with interrupt.stop_at_once(True):
    Held()
    gc.collect()
    print("went on", file=sys.stderr)
"""


def test_a_signal_inside_a_finalizer_still_stops_the_run() -> None:
    run = subprocess.run([sys.executable, "-c", SIGNAL_IN_A_FINALIZER], capture_output=True,
                         text=True, timeout=60)  # fmt: skip
    assert run.returncode == 130, run.stderr
    assert "sixdof: interrupted" in run.stderr and "went on" not in run.stderr, run.stderr


def test_a_signal_while_the_output_is_written_is_a_keyboard_interrupt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # then the writer's own clean-up removes its temporary file (atomic_write)
    from sixdof.cli import interrupt
    from sixdof.headless import csv_output

    def header_then_signal(out: io.TextIOBase, columns: list[str], table: np.ndarray) -> int:
        out.write(",".join(columns) + "\n")
        os.kill(os.getpid(), signal.SIGTERM)
        for _ in range(100_000):  # the handler runs between two of these
            pass
        raise AssertionError("the signal did not stop the writing")

    monkeypatch.setattr(csv_output, "write_csv_to", header_then_signal)
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt), interrupt.stop_at_once(True), interrupt.writing():
        csv_output.write_csv(tmp_path / "out.csv", ["t"], np.zeros((3, 1)))
    assert signal.getsignal(signal.SIGTERM) is before
    assert list(tmp_path.iterdir()) == []


def test_a_caller_of_main_keeps_its_own_ctrl_c(monkeypatch: pytest.MonkeyPatch) -> None:
    # a notebook's interrupt is SIGINT: the command's handler would end its kernel (os._exit)
    import sixdof.cli as cli

    seen: list[object] = []

    def handle(_args: object, _err: object) -> int:
        seen.extend([signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)])
        return 0

    monkeypatch.setattr(cli, "_handler", lambda _command: handle)
    before = [signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)]
    assert cli.main(["run", "--input-file", "in.xml", "--output-file", "out.csv"]) == 0
    assert seen == before
