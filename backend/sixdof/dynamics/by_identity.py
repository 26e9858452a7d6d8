"""Tables derived from objects, kept for as long as those objects live and no longer.

The kernels' inputs (a `Bodies`, a `System`) are frozen dataclasses of numpy arrays, replaced
whole on every change and load. What is derived from them (packed parameter rows) is worth
remembering while they are in use, but they are not hashable (a `WeakKeyDictionary` needs a
hash), and a dict keyed by `id()` must either hold its objects, to tell a live one from a
new one at a dead one's address, and then keeps every object it ever saw (issue 40: a
server's memory grew by ~5 MB with each scenario loaded), or mistake a new object for a dead
one. Here an entry holds its objects by weak reference only, is dropped as soon as any of
them dies, and answers only the very objects it was made from.

A value must not refer to its objects, or they never die: keep the derived table alone and
put it together with the objects at each look-up.
"""

from __future__ import annotations

import weakref
from typing import Any, Generic, TypeVar

V = TypeVar("V")

_Refs = tuple["weakref.ref[Any] | None", ...]  # None stands for a None object


class ByIdentity(Generic[V]):
    """Values by the identity of a tuple of objects (None allowed among them), each
    forgotten when one of its objects dies."""

    def __init__(self) -> None:
        self._entries: dict[tuple[int, ...], tuple[_Refs, V]] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, *objects: object) -> V | None:
        """The value put for exactly these objects, or None."""
        entry = self._entries.get(tuple(map(id, objects)))
        if entry is None:
            return None
        refs, value = entry
        for ref, obj in zip(refs, objects, strict=True):
            same = obj is None if ref is None else ref() is obj
            if not same:  # a new object where a dead one was
                return None
        return value

    def put(self, objects: tuple[object, ...], value: V) -> V:
        """Keep `value` for these objects (it must not refer to them) until one dies."""
        key = tuple(map(id, objects))
        entries = self._entries

        def forget(ref: weakref.ref[Any]) -> None:
            # an entry replaced meanwhile took its refs with it (a dead ref calls nobody),
            # so this is the entry's own object dying: drop it, unless a later entry for the
            # same ids holds other refs
            entry = entries.get(key)
            if entry is not None and any(r is ref for r in entry[0]):
                entries.pop(key, None)

        refs = tuple(None if obj is None else weakref.ref(obj, forget) for obj in objects)
        entries[key] = (refs, value)
        return value


__all__ = ["ByIdentity"]
