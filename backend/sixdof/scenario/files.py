"""Scenario files: FhSim XML (.xml) and Scenario JSON (.json), read and written safely.

`load_scenario_file` picks the reader by suffix and raises ScenarioFileError
naming the file, the line and the field; `save_scenario_file` and
`atomic_write` write to a temporary file in the target's directory and rename
it into place, so a failed write never leaves a half-written file and never
replaces a good one.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from pydantic import ValidationError

from ..fields import FieldError
from .errors import first_error, reason, untagged
from .fhsim_xml import read_fhsim_xml
from .fhsim_xml_write import scenario_to_xml
from .file_errors import ScenarioFileError
from .mesh_names import inline_meshes
from .model import Scenario
from .named_files import NamedFileError
from .tables import inline_tables

SUFFIXES = (".xml", ".json")


def load_scenario_file(path: str | Path) -> Scenario:
    """Read a scenario from an FhSim XML input file or a Scenario JSON file."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise ScenarioFileError(
            path,
            f"unknown file type {path.suffix!r}; expected .xml (an FhSim input "
            "file) or .json (a Scenario in sixdof's JSON)",
        )
    if suffix == ".xml":
        return read_fhsim_xml(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ScenarioFileError(path, f"cannot read the file: {reason}") from None
    return scenario_from_json(text, path, default_name=path.stem)


def scenario_from_json(
    text: str, path: str | Path = "<string>", *, default_name: str = "custom"
) -> Scenario:
    """Parse Scenario JSON; errors name the line and the field path (bodies[0] Mass)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ScenarioFileError(
            path,
            f"not valid JSON ({exc.msg}, column {exc.colno}); expected a Scenario object "
            '{"name": …, "bodies": [{"Name": "B", "Mass": 1, …}], "integration": {…}}',
            line=exc.lineno,
        ) from None
    if not isinstance(data, dict):
        raise ScenarioFileError(
            path, f"expected a JSON object (a Scenario), got {type(data).__name__}", line=1
        )
    data.setdefault("name", default_name[:64])
    try:
        folder = Path(path).parent if str(path) != "<string>" else None
        inline_tables(data, folder)
        inline_meshes(data, folder)
    except NamedFileError as exc:
        element, attribute = _json_where(exc.loc)
        raise ScenarioFileError(
            path,
            exc.reason,
            line=_json_line(text, exc.loc),
            element=element,
            attribute=attribute,
        ) from None
    try:
        return Scenario.model_validate(data)
    except ValidationError as exc:
        err = first_error(exc)
        loc = untagged(tuple(err["loc"]))  # elements[0].stiffness, not elements[0].spring.…
        _, msg = reason(err)
        inner = err.get("ctx", {}).get("error")
        if isinstance(inner, FieldError) and inner.field not in loc:  # a validator's own field
            loc = (*loc, inner.field)
        element, attribute = _json_where(loc)
        raise ScenarioFileError(
            path, msg, line=_json_line(text, loc), element=element, attribute=attribute
        ) from None


def _json_where(loc: tuple) -> tuple[str | None, str | None]:
    """('bodies', 0, 'Mass', 1) -> ('bodies[0]', 'Mass[1]'), for messages."""
    parts: list[str] = []
    for item in loc:
        if isinstance(item, int) and parts:
            parts[-1] += f"[{item}]"
        else:
            parts.append(str(item))
    if not parts:
        return None, None
    return (".".join(parts[:-1]) or None), parts[-1]


def _json_line(text: str, loc: tuple) -> int | None:
    """The line of the value at `loc` (or its nearest enclosing value) in valid JSON text."""
    positions = _value_positions(text)
    for end in range(len(loc), -1, -1):
        if loc[:end] in positions:
            return text.count("\n", 0, positions[loc[:end]]) + 1
    return None


_SCALAR = re.compile(r'-?\d[\d.eE+\-]*|true|false|null|"(?:[^"\\]|\\.)*"')
_SPACE = re.compile(r"[\s,:]*")


def _value_positions(text: str) -> dict[tuple, int]:
    """Offsets of every value in valid JSON, keyed by path (keys and list indices)."""
    positions: dict[tuple, int] = {}

    def value(i: int, path: tuple) -> int:
        i = _SPACE.match(text, i).end()  # type: ignore[union-attr]  # the pattern matches the empty string
        positions[path] = i
        if text[i] in "{[":
            is_object, i, index = text[i] == "{", i + 1, 0
            while True:
                i = _SPACE.match(text, i).end()  # type: ignore[union-attr]  # the pattern matches the empty string
                if text[i] in "}]":
                    return i + 1
                if is_object:
                    key, i = json.decoder.scanstring(text, i + 1)  # type: ignore[attr-defined]  # public in json.decoder, not in its stubs
                    i = value(i, (*path, key))
                else:
                    i = value(i, (*path, index))
                    index += 1
        return _SCALAR.match(text, i).end()  # type: ignore[union-attr]  # the pattern matches the empty string

    with contextlib.suppress(IndexError, AttributeError, ValueError, RecursionError):
        value(0, ())
    return positions


def save_scenario_file(scenario: Scenario, path: str | Path) -> None:
    """Write `scenario` as FhSim XML (.xml) or Scenario JSON (.json), atomically."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise ScenarioFileError(path, f"unknown file type {path.suffix!r}; expected .xml or .json")
    text = (
        scenario_to_xml(scenario) if suffix == ".xml" else scenario.model_dump_json(indent=2) + "\n"
    )
    with atomic_write(path) as out:
        out.write(text)


@contextlib.contextmanager
def atomic_write(path: str | Path, newline: str | None = None) -> Iterator[IO[str]]:
    """A text file that replaces `path` only when the `with` block ends without error.

    It is written under a hidden temporary name in the same directory (so the
    final rename is atomic on POSIX and Windows), flushed to disk, then renamed
    over `path`. On any exception the temporary file is removed and `path` is
    left as it was. The file is created with the usual permissions (umask).
    """
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline=newline) as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
