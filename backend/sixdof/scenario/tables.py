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
    previous = -math.inf
    # strictly inside both ranges: the common row takes no call; the rest are checked whole
    (_, _, t_in), (_, _, v_in) = _COLUMNS
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        for row in reader:
            if len(row) != 2:
                if not row or all(not c.strip() for c in row):
                    continue
                raise NamedFileError(
                    f"{what}:{reader.line_num}: expected 2 columns (t, value), got {len(row)}"
                )
            try:
                t, v = float(row[0]), float(row[1])
            except ValueError:
                if not row[0].strip() and not row[1].strip():
                    continue
                if not rows and reader.line_num == 1:  # a header row
                    continue
                column = 2 if _is_number(row[0]) else 1
                raise NamedFileError(
                    f"{what}:{reader.line_num}: expected two numbers (t in s, value); "
                    f"column {column} is not a number"
                ) from None
            if not (previous < t and t_in.lo < t < t_in.hi and v_in.lo < v < v_in.hi):
                _check(t, v, previous, what, reader.line_num)
            previous = t
            rows.append([t, v])
            if len(rows) > MAX_TABLE_ROWS:
                raise NamedFileError(f"{what}:{reader.line_num}: more than {MAX_TABLE_ROWS:,} rows")
    except csv.Error as exc:  # its messages name the rule broken, not the text
        raise NamedFileError(f"{what}:{reader.line_num}: not a CSV row ({exc})") from None
    return rows


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def _check(t: float, v: float, previous: float, what: str, line: int) -> None:
    """A row's numbers against the limits a table has, checked here rather than by the
    model, whose messages show the number: these name the line, the column and the range."""
    for column, name, limit in _COLUMNS:
        x = t if column == 1 else v
        if not math.isfinite(x):
            raise NamedFileError(f"{what}:{line}: column {column} ({name}) must be finite")
        if not limit.admits(x):
            raise NamedFileError(f"{what}:{line}: column {column} ({name}) must be {limit.text()}")
    if not t > previous:
        raise NamedFileError(
            f"{what}:{line}: times must increase; t here is not after the row before's"
        )


def inline_tables(data: Any, folder: Path | None) -> None:
    """Replace each element's `csv` name by the `table` it holds, and a radiation's BEM `file`
    by its `fit` (in place); NamedFileError with its `loc` (("elements", 3, "csv"))
    otherwise."""
    from .radiation_files import inline_fits

    if not isinstance(data, dict) or not isinstance(data.get("elements"), list):
        return
    files = None if folder is None else NamedFiles(folder)
    inline_fits(data, files)
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
