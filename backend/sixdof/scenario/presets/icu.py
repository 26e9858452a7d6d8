"""English text of the page's ICU messages, formatted as the page's intl-messageformat does.

The subset the preset captions use: literal text, `{name}` (a string value), `{name, number}`
and `{name, number, ::SKELETON}` with the skeleton tokens `.00` (that many fraction digits),
`precision-integer` and `group-off`. Numbers round half away from zero on their shortest
decimal form (V8's Intl.NumberFormat: 1.0005 gives 1.001) and group thousands with a comma
unless `group-off`; without a precision they keep up to 3 fraction digits. Anything else
(plural, select, quoting with an apostrophe) is refused, so the page and this module never
read one message two ways (tests/browser/test_i18n.py compares the two on every preset).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import ROUND_HALF_UP, Decimal

_ARGUMENT = re.compile(r"\{\s*(\w+)\s*(?:,\s*(\w+)\s*(?:,\s*::([\w.\- ]+))?)?\s*\}")
_FRACTION = re.compile(r"\.(0+)")


def placeholders(message: str) -> list[str]:
    """The names of `message`'s arguments, in order (repeats kept)."""
    return [m.group(1) for m in _ARGUMENT.finditer(message)]


def literal_text(message: str) -> str:
    """`message` without its arguments: the words a translator wrote."""
    return _ARGUMENT.sub("", message)


def number(x: float, skeleton: str = "") -> str:
    """`x` as the English number formatter writes it with `skeleton` (see the module)."""
    fraction, grouping = None, True
    for token in skeleton.split():
        if token == "precision-integer":
            fraction = 0
        elif token == "group-off":
            grouping = False
        elif m := _FRACTION.fullmatch(token):
            fraction = len(m.group(1))
        else:
            raise ValueError(f"number skeleton token {token!r} is not in the subset")
    step = Decimal(1).scaleb(-(3 if fraction is None else fraction))
    value = Decimal(repr(float(x))).quantize(step, ROUND_HALF_UP)
    text = f"{abs(value):f}"
    if fraction is None and "." in text:
        text = text.rstrip("0").rstrip(".")
    whole, dot, part = text.partition(".")
    if grouping:
        whole = f"{int(whole):,}"
    return ("-" if value.is_signed() else "") + whole + dot + part


def format_message(message: str, values: Mapping[str, float | str]) -> str:
    """`message` with its arguments filled from `values` (KeyError naming a missing one)."""
    if re.search(r"'[{}]", message) or re.search(r"[{}]", literal_text(message)):
        raise ValueError(f"message outside the subset (quoting or nesting): {message!r}")

    def fill(m: re.Match[str]) -> str:
        name, kind, skeleton = m.groups()
        value = values[name]
        if kind is None:
            return str(value)
        if kind != "number" or isinstance(value, str):
            raise ValueError(f"argument {m.group(0)} is not in the subset (value {value!r})")
        return number(value, skeleton or "")

    return _ARGUMENT.sub(fill, message).replace("''", "'")
