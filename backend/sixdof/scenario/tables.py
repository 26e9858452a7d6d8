"""A timed load's (t, value) table from a CSV file named in a scenario file.

    {"kind": "load", "body": "B", "force": [0, 0, -1], "signal": "table", "csv": "thrust.csv"}

`csv` is a file-level convenience of `sixdof run` and `load_scenario_file`: the path is
resolved against the scenario file's folder and the table is put inline (`table`) before
the scenario is checked, so a live room or a saved scenario carries the numbers, never a
path on the server. The file has two columns, time (s, increasing) and value, with an
optional header row; anything else is refused with the row and column named.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path
from typing import Any

from .elements import MAX_TABLE_ROWS
from .file_errors import ScenarioFileError

#: Largest table file read, bytes (100,000 rows of two numbers fit easily).
MAX_TABLE_BYTES = 8 << 20


def read_table(path: Path) -> list[list[float]]:
    """The (t, value) rows of a CSV file; ScenarioFileError naming the row otherwise."""
    try:
        size = path.stat().st_size
        if size > MAX_TABLE_BYTES:
            raise ScenarioFileError(path, f"the table file is {size:,} bytes; at most "
                                    f"{MAX_TABLE_BYTES:,}")  # fmt: skip
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ScenarioFileError(path, f"cannot read the table: {reason}") from None
    rows: list[list[float]] = []
    for number, row in enumerate(csv.reader(text.splitlines()), start=1):
        if not row or all(not c.strip() for c in row):
            continue
        if len(row) != 2:
            raise ScenarioFileError(path, f"expected 2 columns (t, value), got {len(row)}",
                                    line=number)  # fmt: skip
        try:
            t, v = float(row[0]), float(row[1])
        except ValueError:
            if not rows and number == 1:  # a header row
                continue
            raise ScenarioFileError(path, f"expected two numbers, got {row!r}",
                                    line=number) from None  # fmt: skip
        if not (math.isfinite(t) and math.isfinite(v)):
            raise ScenarioFileError(path, f"t and value must be finite, got {row!r}",
                                    line=number)  # fmt: skip
        rows.append([t, v])
        if len(rows) > MAX_TABLE_ROWS:
            raise ScenarioFileError(path, f"more than {MAX_TABLE_ROWS:,} rows", line=number)
    return rows


def inline_tables(data: Any, folder: Path | None) -> None:
    """Replace each element's `csv` path by the `table` it holds (in place)."""
    if not isinstance(data, dict) or not isinstance(data.get("elements"), list):
        return
    for element in data["elements"]:
        if not isinstance(element, dict) or "csv" not in element:
            continue
        name = element.pop("csv")
        if folder is None or not isinstance(name, str):
            raise ScenarioFileError(
                "<string>" if folder is None else folder,
                "a load's csv names a table file next to a scenario file; send the table "
                "inline as table: [[t, value], …] instead",
            )
        element["table"] = read_table(folder / name)
        element.setdefault("signal", "table")
