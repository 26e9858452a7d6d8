"""Errors and warnings about scenario files, located by file, line, element and attribute."""

from __future__ import annotations

import warnings
from pathlib import Path


class ScenarioFileError(ValueError):
    """A scenario file that cannot be read. The message names where and what was expected.

    `path` is the file (or "<string>"), `line` the 1-based line or None, `element`
    the XML element as written (e.g. ``<Lib Name="B">``) or a JSON path (e.g.
    ``bodies[0]``), `attribute` the XML attribute or JSON key, `reason` what is wrong
    and what was expected.
    """

    def __init__(
        self,
        path: str | Path,
        reason: str,
        *,
        line: int | None = None,
        element: str | None = None,
        attribute: str | None = None,
    ) -> None:
        self.path = str(path)
        self.line = line
        self.element = element
        self.attribute = attribute
        self.reason = reason
        super().__init__(format_location(self.path, line, element, attribute) + reason)


class ScenarioFileWarning(UserWarning):
    """Something in a scenario file that is read but not used (an unknown attribute, …)."""


def format_location(path: str, line: int | None, element: str | None, attribute: str | None) -> str:
    """'file:line: element attribute: ' — the prefix of every located message."""
    head = f"{path}:{line}: " if line is not None else f"{path}: "
    where = " ".join(part for part in (element, attribute) if part)
    return head + (f"{where}: " if where else "")


def warn_at(
    path: str,
    reason: str,
    *,
    line: int | None = None,
    element: str | None = None,
    attribute: str | None = None,
    category: type[Warning] = ScenarioFileWarning,
) -> None:
    """Issue a located warning (the CLI prints these to stderr)."""
    warnings.warn(format_location(path, line, element, attribute) + reason, category, stacklevel=3)
