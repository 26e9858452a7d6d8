"""A small XML tree with line numbers, built with the standard library's expat parser.

xml.etree's C parser does not keep source lines, and lxml is not a dependency,
so this builds its own light tree from expat's events, recording
`CurrentLineNumber` for every element and, for messages that point at an
attribute written on a later line of a multi-line tag, the line of each
attribute. DTDs are refused, so no entity expansion can happen.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from xml.parsers import expat

from .file_errors import ScenarioFileError


@dataclass
class XmlNode:
    """One element: tag, attributes in file order, its line and its children."""

    tag: str
    attrib: dict[str, str]
    line: int
    children: list[XmlNode] = field(default_factory=list)
    attr_lines: dict[str, int] = field(default_factory=dict)

    def line_of(self, attribute: str | None) -> int:
        """The line where `attribute` is written, else the element's own line."""
        return self.attr_lines.get(attribute, self.line) if attribute else self.line

    def label(self) -> str:
        """How messages name the element: ``<Lib Name="B">`` when it has a Name."""
        name = self.attrib.get("Name")
        return f'<{self.tag} Name="{name}">' if name and self.tag == "Lib" else f"<{self.tag}>"


class _DtdRefused(Exception):
    pass


def parse_xml(data: bytes, path: str | Path) -> XmlNode:
    """Parse `data` into XmlNodes; raise ScenarioFileError (with the line) if it is not XML."""
    parser = expat.ParserCreate()
    stack: list[XmlNode] = []
    roots: list[XmlNode] = []

    def start(tag: str, attrib: dict[str, str]) -> None:
        node = XmlNode(tag, dict(attrib), parser.CurrentLineNumber)
        node.attr_lines = _attribute_lines(data, parser.CurrentByteIndex, node.line, attrib)
        (stack[-1].children if stack else roots).append(node)
        stack.append(node)

    def end(_tag: str) -> None:
        stack.pop()

    def doctype(*_args: object) -> None:
        raise _DtdRefused

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.StartDoctypeDeclHandler = doctype
    try:
        parser.Parse(data, True)
    except expat.ExpatError as exc:
        raise ScenarioFileError(
            path,
            f"not a well-formed XML file ({expat.ErrorString(exc.code)}, column "
            f"{exc.offset + 1}); expected an FhSim input file: <Contents> with "
            "<OBJECTS>, <INTERCONNECTIONS>, <INITIALIZATION> and <INTEGRATION>",
            line=exc.lineno,
        ) from None
    except _DtdRefused:
        raise ScenarioFileError(
            path,
            "a <!DOCTYPE> declaration is not allowed in an input file (no DTDs or entities)",
            line=parser.CurrentLineNumber,
        ) from None
    return roots[0]


_ATTRIBUTE = re.compile(rb"""\s([^\s=/>]+)\s*=\s*(?:"[^"]*"|'[^']*')""")


def _attribute_lines(data: bytes, start: int, line: int, attrib: dict[str, str]) -> dict[str, int]:
    """Line of each attribute of the start tag beginning at byte `start`.

    A literal '<' cannot occur inside an attribute value, so the tag ends before
    the next '<'. One pass over the tag (linear in its length, however many attributes
    it has). Files in encodings other than ASCII-compatible ones (UTF-16) simply fall
    back to the element's line.
    """
    if start < 0 or not attrib:
        return {}
    stop = data.find(b"<", start + 1)
    tag = data[start : stop if stop >= 0 else len(data)]
    lines: dict[str, int] = {}
    seen, newlines = 0, 0
    for match in _ATTRIBUTE.finditer(tag):
        newlines += tag.count(b"\n", seen, match.start() + 1)
        seen = match.start() + 1
        name = match.group(1).decode("utf-8", "replace")
        if name in attrib:
            lines[name] = line + newlines
    return lines
