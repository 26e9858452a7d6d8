"""Whether this process may build a world with elements yet.

At a cold start a server compiles the kernels in a child process, the free bodies' first
(~13 s of CPU) and the elements' after them (~75 s more on two cores): rooms of free bodies
run as soon as theirs are loaded (server/registry.py), and until the elements' are, a world
with elements is refused here, before anything is built, rather than compiled again in the
server's own process, which would hold every room for the minutes the compile takes. Nothing
holds the gate outside a server's cold start: a script compiles what it calls when it calls.
"""

from __future__ import annotations

from collections.abc import Callable, Sized

from ..fields import FieldError

#: Why the elements cannot be built yet (a sentence, computed when asked); None: they can.
_held: Callable[[], str] | None = None


def hold(why: Callable[[], str]) -> None:
    """Refuse worlds with elements from now on, saying `why()`."""
    global _held
    _held = why


def release() -> None:
    """The elements' kernels are loaded: worlds with elements are built again."""
    global _held
    _held = None


def check(elements: Sized) -> None:
    """FieldError (`preparing`, naming `elements`) while the gate is held and there are
    elements to build."""
    why = _held
    if why is not None and len(elements):
        raise FieldError("elements", "preparing", f"elements: {why()}")
