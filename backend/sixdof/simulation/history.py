"""A bounded history of the live run for plots and CSV export: a ring buffer in numpy.

One row per recorded frame: the simulated time t and, per body, the outputs the one
output table (`dynamics.output_table`) gives the history: WIDTH numbers. The buffer keeps
the last `capacity` rows (default 60 s at 60 frames per second = 3600 rows) and
overwrites the oldest; memory is capacity × (1 + WIDTH N) numbers, fixed up front.

Precision: `float64` (the default) keeps every number as computed, so a recording's
re-simulation equals the history exactly (docs/recording.md). `float32` halves the memory
of the outputs (t stays float64: 1 ms steps over an hour need more than float32's 7 digits)
and keeps ~7 significant digits of each; the CSV then writes 9, enough to give back the
stored float32 exactly.

CSV columns: `Time`, then per body the headless run's columns (FhSim's ports: `B.Pos[0]`,
…, `B.AngVel[2]`), then per body the extra columns (`B.Euler[0]`, …). Units SI, angles in
rad, frames as in DESIGN.md.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from ..dynamics.output_table import HISTORY_EXTRA, PORTS
from ..dynamics.quaternion import Array
from ..scenario.csv_columns import column_names

#: (output name, width): the columns of a headless run, in its order.
STANDARD_COLUMNS = PORTS
#: Extra columns of the live history, after the standard ones of every body.
EXTRA_COLUMNS = HISTORY_EXTRA
COLUMNS = STANDARD_COLUMNS + EXTRA_COLUMNS
Precision = Literal["float64", "float32"]
PRECISIONS: tuple[Precision, ...] = ("float64", "float32")
#: Significant digits the CSV writes of a number stored at each precision: enough to read
#: back the stored value exactly, no more. float64: None, the shortest text that reads back
#: as the same double (Python's repr), as `sixdof run` writes (headless/csv_output.py), so a
#: history.csv and a re-run's CSV compare digit for digit (15 digits lost up to ~5e-15).
CSV_DIGITS: dict[Precision, int | None] = {"float64": None, "float32": 9}
WIDTH = sum(w for _, w in COLUMNS)  # floats per body and row
_N_STANDARD = sum(w for _, w in STANDARD_COLUMNS)


def _slices() -> dict[str, slice]:
    out, start = {}, 0
    for name, width in COLUMNS:
        out[name] = slice(start, start + width)
        start += width
    return out


SLICES = _slices()


def row_plan(n: int, per_row: int, capacity: int) -> tuple[list[int], bool]:
    """Split n steps into batches of `per_row` steps, one history row after each.

    Rows that a buffer of `capacity` rows would overwrite before the end are
    not worth computing: their steps come first as one batch, and the flag
    says that batch's row is not to be recorded.
    """
    skipped = max(0, n // per_row - capacity)
    batches = [skipped * per_row] if skipped else []
    rest = n - skipped * per_row
    batches += [per_row] * (rest // per_row) + ([rest % per_row] if rest % per_row else [])
    return batches, skipped > 0


class History:
    """The last `capacity` rows of (t, per-body outputs) of N bodies."""

    def __init__(
        self, names: Sequence[str], capacity: int, precision: Precision = "float64"
    ) -> None:
        if capacity < 1:
            raise ValueError("capacity must be at least 1 row")
        self.names = list(names)
        self.capacity = capacity
        self.precision: Precision = precision
        self._t = np.zeros(capacity)
        self._data = np.zeros((capacity, len(self.names), WIDTH), dtype=precision)
        self._next = 0  # where the next row goes
        self._count = 0
        # while a `Mark` is held (an undo may still return): slot -> (t, row) as it was
        # before the first write after the mark, so the marked history can come back
        self._kept: dict[int, tuple[float, NDArray[np.floating]]] | None = None

    def __len__(self) -> int:
        return self._count

    @staticmethod
    def row_bytes(bodies: int, precision: Precision = "float64") -> int:
        """Bytes one row of `bodies` bodies takes (t, and WIDTH numbers per body)."""
        return 8 + np.dtype(precision).itemsize * WIDTH * bodies

    @property
    def nbytes(self) -> int:
        return self._t.nbytes + self._data.nbytes

    def clear(self) -> None:
        self._next = 0
        self._count = 0
        self._kept = None

    def truncate_after(self, t: float) -> None:
        """Forget the rows later than t (the time axis went back to t)."""
        times = self.times
        keep = int(np.searchsorted(times, t, side="right"))
        start = (self._next - self._count) % self.capacity
        self._count = keep
        self._next = (start + keep) % self.capacity

    def copy(self) -> History:
        other = History(self.names, self.capacity, self.precision)
        other._t, other._data = self._t.copy(), self._data.copy()
        other._next, other._count = self._next, self._count
        return other

    def mark(self) -> Mark:
        """The history as it is now, to come back to with `restore` (an undo of a go back),
        without copying it: from now on a slot about to be overwritten is copied first
        (one row per new row, ~µs; at most `capacity` rows in all). A new mark replaces
        the last one."""
        self._kept = {}
        return Mark(self, self._next, self._count)

    def restore(self, mark: Mark) -> None:
        """Be again exactly (bit for bit) what this history was at `mark`; the rows taken
        since are forgotten. ValueError if the mark is not this history's current one."""
        kept = self._kept
        if mark.history is not self or kept is None:
            raise ValueError("history: that mark is gone (a clear or a newer mark)")
        for slot, (t, row) in kept.items():
            self._t[slot] = t
            self._data[slot] = row
        self._next, self._count = mark.next, mark.count
        self._kept = None

    def unmark(self) -> None:
        """Stop keeping overwritten rows for a mark (the undo it served is gone)."""
        self._kept = None

    def _slot(self) -> int:
        """Where the next row goes, its old content kept first while marked."""
        slot = self._next
        kept = self._kept
        if kept is not None and slot not in kept:
            kept[slot] = (float(self._t[slot]), self._data[slot].copy())
        return slot

    def record(self, t: float, outputs: Mapping[str, Array]) -> None:
        """Append one row; `outputs` as `dynamics.outputs` returns for a batch (N, …)."""
        row = self._data[self._slot()]
        for name, width in COLUMNS:
            row[:, SLICES[name]] = np.reshape(outputs[name], (len(self.names), width))
        self._append(t)

    def record_row(self, t: float, row: Array) -> None:
        """Append one row already laid out as (N, WIDTH) in COLUMNS order.

        The hub lays out every room's rows at once; one copy here (~1 µs) replaces
        `record`'s column-by-column copy (~30 µs).
        """
        self._data[self._slot()] = row
        self._append(t)

    def _append(self, t: float) -> None:
        self._t[self._next] = t
        self._next = (self._next + 1) % self.capacity
        self._count = min(self._count + 1, self.capacity)

    def _order(self) -> NDArray[np.intp]:
        """Row indices oldest first."""
        start = (self._next - self._count) % self.capacity
        return (start + np.arange(self._count)) % self.capacity

    @property
    def times(self) -> Array:
        """t of the rows, oldest first, shape (T,)."""
        return self._t[self._order()]

    def arrays(self) -> dict[str, Array]:
        """`Time` (T,) and `B.Pos` (T, 3), `B.TotalEnergy` (T,), … for every body, float64
        copies."""
        order = self._order()
        data = self._data[order].astype(float, copy=False)
        out: dict[str, Array] = {"Time": self._t[order]}
        for i, body in enumerate(self.names):
            for name, width in COLUMNS:
                block = data[:, i, SLICES[name]]
                out[f"{body}.{name}"] = block[:, 0].copy() if width == 1 else block.copy()
        return out

    def header(self) -> list[str]:
        names = ["Time"]
        for body in self.names:
            names += column_names(body, STANDARD_COLUMNS)
        for body in self.names:
            names += column_names(body, EXTRA_COLUMNS)
        return names

    def table(self) -> Array:
        """The CSV's numbers, shape (T, 1 + WIDTH·N), columns as `header()`, float64."""
        order = self._order()
        data = self._data[order]  # (T, N, WIDTH)
        rows = len(order)
        standard = data[:, :, :_N_STANDARD].reshape(rows, -1)
        extra = data[:, :, _N_STANDARD:].reshape(rows, -1)
        return np.concatenate([self._t[order, None], standard, extra], axis=1, dtype=float)

    @property
    def digits(self) -> int | None:
        """Significant digits of the outputs in the CSV (CSV_DIGITS)."""
        return CSV_DIGITS[self.precision]

    def csv(self) -> str:
        """The history as CSV text: one header line, then one line per row, oldest first."""
        return "".join(csv_pieces(self.header(), self.table(), digits=self.digits))


class Mark:
    """Where a History was (`History.mark`): its ring's position and row count."""

    __slots__ = ("count", "history", "next")

    def __init__(self, history: History, next_slot: int, count: int) -> None:
        self.history = history
        self.next = next_slot
        self.count = count


def csv_pieces(
    header: Sequence[str], table: Array, cells: int = 50_000, digits: int | None = None
) -> Iterator[str]:
    """The CSV text of `header` and `table` (as `History.csv`) in pieces of about `cells`
    numbers each, so a server can hand a large export out without one long stall. Time (the
    first column) in the shortest round-trip text (repr), the rest with `digits` significant
    digits, or repr too when None."""
    yield ",".join(header) + "\n"
    rows = max(1, cells // max(1, table.shape[1]))
    for a in range(0, table.shape[0], rows):
        block = table[a : a + rows]
        if digits is None:  # repr is exact and fast, as headless/csv_output.py writes
            yield "".join(",".join(map(repr, row)) + "\n" for row in block.tolist())
            continue
        fmt = f"%.{digits}g"
        yield "".join(
            repr(row[0]) + "".join("," + fmt % v for v in row[1:]) + "\n" for row in block.tolist()
        )
