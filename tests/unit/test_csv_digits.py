"""history.csv and `sixdof run` write numbers the same way: the shortest text that reads
back as the same double (issue 31: 15 digits against 17 made ~5e-15 differences appear)."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

import sixdof
from sixdof.headless.csv_output import format_number
from sixdof.scenario.presets import PRESETS
from sixdof.simulation import LiveSimulation


def _cells(text: str) -> list[str]:
    return [v for line in text.splitlines()[1:] for v in line.split(",")]


def test_history_csv_reads_back_every_double_and_writes_it_as_sixdof_run() -> None:
    sim = LiveSimulation(PRESETS["tennis_racket"].scenario(), running=False)
    sim.step(2000)
    text = sim.history.csv()
    table = np.loadtxt(io.StringIO(text), delimiter=",", skiprows=1)
    assert np.array_equal(table, sim.history.table())  # bit for bit
    cells = _cells(text)
    assert all(c == format_number(float(c)) for c in cells)  # the shortest round trip
    assert max(len(c.lstrip("-").replace(".", "").split("e")[0]) for c in cells) > 15
    assert "".join(sim.history.csv_pieces(cells=700)) == text  # the server's streamed export


def test_sixdof_run_csv_uses_the_same_text(tmp_path: Path) -> None:
    path = tmp_path / "out.csv"
    sixdof.run("tennis_racket", t_end=1.0).to_csv(path)
    assert all(c == format_number(float(c)) for c in _cells(path.read_text()))
