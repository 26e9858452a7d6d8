"""Ctrl-C and SIGTERM during `sixdof run` and the other commands that write one file
(cli/interrupt.py): before the output is written the process leaves at once, while it is
written the writer cleans up, and a caller of `main([...])` keeps its own handlers. (A
terminated run's whole process: test_cli_run.py; a terminated `bem` job's: here.)"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from support.worlds import FLOATING_SPHERE

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


@pytest.mark.parametrize(
    ("command", "stops"),
    [("run", True), ("convert", True), ("fit", True), ("bem", True), ("fmu", True),
     ("serve", False), ("warm", False), ("export", False)],
)  # fmt: skip
def test_the_commands_that_write_a_file_stop_at_once(
    monkeypatch: pytest.MonkeyPatch, command: str, stops: bool
) -> None:
    # as the console script calls it (argv from sys.argv); the servers keep uvicorn's
    # handlers, `warm` kills its children first, `export` and `import` are transactions
    import sixdof.cli as cli
    from sixdof.cli import interrupt

    seen: list[object] = []

    def handle(_args: object, _err: object) -> int:
        seen.extend([signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)])
        return 0

    args = {"run": ["--input-file", "in.xml"], "convert": ["in.xml", "out.json"],
            "fit": ["gyro.csv"], "bem": ["s.json", "-o", "out.nc"],
            "fmu": ["s.json", "-o", "o.fmu"],
            "serve": [], "warm": [], "export": ["out.sixdof"]}[command]  # fmt: skip
    monkeypatch.setattr(sys, "argv", ["sixdof", command, *args])
    monkeypatch.setattr(cli, "_handler", lambda _command: handle)
    before = [signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)]
    assert cli.main() == 0
    assert seen == ([interrupt._on_signal] * 2 if stops else before)
    assert [signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)] == before


def test_a_terminated_bem_job_stops_and_leaves_no_file(tmp_path: Path) -> None:
    (tmp_path / "s.json").write_text(json.dumps(FLOATING_SPHERE))  # 400 frequencies: a while
    proc = subprocess.Popen(
        [sys.executable, "-m", "sixdof.cli", "bem", "s.json", "-o", "out.nc",
         "--omega", "0.1:3:400"],
        cwd=tmp_path, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stderr is not None
    first = proc.stderr.readline()  # the job is printed before Capytaine starts on it
    assert "400 frequencies" in first, first
    proc.terminate()
    rest = proc.stderr.read()
    proc.stderr.close()
    assert proc.wait(30) == 130 and "sixdof: interrupted" in rest, rest
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.json"]
