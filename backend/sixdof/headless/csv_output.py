"""The CSV FhSim writes: a header of port names, one row per output time, exact doubles.

Numbers are written with Python's repr, the shortest text that reads back as
the same double, so nothing is lost between the run and the file. The file
is written to a temporary name beside the target and renamed at the end
(scenario.files.atomic_write): a failed run never leaves a half-written file
and never replaces a good one.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import IO

import numpy as np

from ..scenario.files import atomic_write

#: Rows turned into text at a time: the table as Python floats would take 4× its size.
BLOCK_ROWS = 4096


def format_number(x: float) -> str:
    """repr-exact text of a double: float(format_number(x)) == x for every finite x."""
    return repr(float(x))


def write_csv(path: str | Path, columns: Sequence[str], table: np.ndarray) -> int:
    """Write `columns` and the rows of `table` (T, C) to `path` atomically; return T."""
    table = np.asarray(table, dtype=float)
    if table.ndim != 2 or table.shape[1] != len(columns):
        raise ValueError(f"table shape {table.shape} does not match {len(columns)} columns")
    with atomic_write(path, newline="") as out:
        return write_csv_to(out, columns, table)


def write_csv_to(out: IO[str], columns: Sequence[str], table: np.ndarray) -> int:
    """Write `columns` and the rows of `table` (T, C) to an open text stream; return T."""
    table = np.asarray(table, dtype=float)
    out.write(",".join(columns) + "\n")
    for a in range(0, table.shape[0], BLOCK_ROWS):  # blocks: Python floats for a few rows only
        for row in table[a : a + BLOCK_ROWS].tolist():  # repr is exact and fast
            out.write(",".join(map(repr, row)) + "\n")
    return table.shape[0]
