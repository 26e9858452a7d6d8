"""A timed load's (t, value) table from a CSV file named in a scenario file.

    {"kind": "load", "body": "B", "force": [0, 0, -1], "signal": "table", "csv": "thrust.csv"}

`csv` is a file-level convenience of `sixdof run` and `load_scenario_file`: the file is read
from the scenario file's own folder by `named_files` (its rules: no `..`, no absolute path,
no symlink out, a regular file, 8 MiB for all of a scenario's files) and the table is put
inline (`table`) before the scenario is checked, so a live room or a saved scenario carries
the numbers, never a path on the server. The file has two columns, time (s, increasing) and
value, with an optional header row; anything else is refused naming the line and column,
never what the line holds (the file may be one its reader should not see).
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path
from typing import Any

from ..fields import LIMITS
from .elements import MAX_TABLE_ROWS
from .named_files import NamedFileError, NamedFiles, shown

_COLUMNS = ((1, "t", LIMITS["start"]), (2, "value", LIMITS["table"]))


def read_table(files: NamedFiles, name: object) -> list[list[float]]:
    """The (t, value) rows of the CSV file `name` of a scenario; NamedFileError otherwise."""
    return parse_table(files.read(name), shown(str(name)))


def parse_table(data: bytes, what: str) -> list[list[float]]:
    """The rows of a table file's bytes; errors say 'what:line: …' and never the line."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise NamedFileError(f"{what}:{line}: not UTF-8 text") from None
    rows: list[list[float]] = []
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        for row in reader:
            line = reader.line_num
            if not row or all(not c.strip() for c in row):
                continue
            if len(row) != 2:
                raise NamedFileError(
                    f"{what}:{line}: expected 2 columns (t, value), got {len(row)}"
                )
            parsed = _numbers(row)
            if isinstance(parsed, int):
                if not rows and line == 1:  # a header row
                    continue
                raise NamedFileError(f"{what}:{line}: expected two numbers (t in s, value); "
                                     f"column {parsed} is not a number")  # fmt: skip
            _check(parsed, rows, what, line)
            rows.append(parsed)
            if len(rows) > MAX_TABLE_ROWS:
                raise NamedFileError(f"{what}:{line}: more than {MAX_TABLE_ROWS:,} rows")
    except csv.Error as exc:  # its messages name the rule broken, not the text
        raise NamedFileError(f"{what}:{reader.line_num}: not a CSV row ({exc})") from None
    return rows


def _numbers(row: list[str]) -> list[float] | int:
    """The row's two numbers, or the (1-based) column that is not one."""
    values = []
    for column, cell in enumerate(row, start=1):
        try:
            values.append(float(cell))
        except ValueError:
            return column
    return values


def _check(row: list[float], rows: list[list[float]], what: str, line: int) -> None:
    """The row's numbers against the limits a table has, checked here rather than by the
    model, whose messages show the number: these name the line, the column and the range."""
    for column, name, limit in _COLUMNS:
        x = row[column - 1]
        if not math.isfinite(x):
            raise NamedFileError(f"{what}:{line}: column {column} ({name}) must be finite")
        if not limit.admits(x):
            raise NamedFileError(f"{what}:{line}: column {column} ({name}) must be {limit.text()}")
    if rows and not row[0] > rows[-1][0]:
        raise NamedFileError(
            f"{what}:{line}: times must increase; t here is not after the row before's"
        )


def inline_tables(data: Any, folder: Path | None) -> None:
    """Replace each element's `csv` name by the `table` it holds (in place); NamedFileError
    with its `loc` (("elements", 3, "csv")) otherwise."""
    if not isinstance(data, dict) or not isinstance(data.get("elements"), list):
        return
    files = None if folder is None else NamedFiles(folder)
    for index, element in enumerate(data["elements"]):
        if not isinstance(element, dict) or "csv" not in element:
            continue
        loc = ("elements", index, "csv")
        name = element.pop("csv")
        if files is None:
            raise NamedFileError(
                "a load's csv names a table file next to a scenario file; send the table "
                "inline as table: [[t, value], …] instead",
                loc,
            )
        if "table" in element:
            raise NamedFileError("give csv or table, not both", loc)
        try:
            element["table"] = read_table(files, name)
        except NamedFileError as exc:
            raise exc.at(loc) from None
        element.setdefault("signal", "table")
