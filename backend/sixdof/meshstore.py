"""Meshes kept by their content: `put(bytes) -> "sha256:…"`, `get(id) -> bytes | None`.

A scenario names such a mesh as `"Mesh": "sha256:…"`: an upload to the server
(`POST /api/meshes`) or a file beside a scenario file, read when the scenario is. The same
bytes twice are one mesh. The store is behind the small `MeshStore` protocol so a
persistent one can replace the in-memory default (`use_store`); whatever is put has been
checked by the caller first (`meshfiles.checked`), so nothing unreadable is ever stored.

Below every layer: the scenario reads from it, the server puts into it.
"""

from __future__ import annotations

import hashlib
import re
import threading
from typing import Protocol

PREFIX = "sha256:"
MESH_ID = re.compile(r"sha256:[0-9a-f]{64}")
#: Bytes the in-memory store keeps in all (past it a put is refused, nothing evicted).
MAX_STORE_BYTES = 512 << 20


class MeshStoreFull(RuntimeError):
    """The store holds its limit of bytes; nothing was stored."""


class MeshStore(Protocol):
    def put(self, data: bytes) -> str: ...

    def get(self, mesh_id: str) -> bytes | None: ...


def mesh_id(data: bytes) -> str:
    return PREFIX + hashlib.sha256(data).hexdigest()


def is_mesh_id(name: str) -> bool:
    return bool(MESH_ID.fullmatch(name))


class MemoryMeshStore:
    """Content-addressed bytes in this process, up to `limit` bytes in all."""

    def __init__(self, limit: int = MAX_STORE_BYTES) -> None:
        self.limit = limit
        self._items: dict[str, bytes] = {}
        self._bytes = 0
        self._lock = threading.Lock()

    def put(self, data: bytes) -> str:
        key = mesh_id(data)
        with self._lock:
            if key in self._items:
                return key
            if self._bytes + len(data) > self.limit:
                raise MeshStoreFull(
                    f"the mesh store holds {self._bytes:,} of its {self.limit:,} bytes; "
                    f"a mesh of {len(data):,} bytes does not fit"
                )
            self._items[key] = bytes(data)
            self._bytes += len(data)
        return key

    def get(self, mesh_id: str) -> bytes | None:
        with self._lock:
            return self._items.get(mesh_id)


_store: MeshStore = MemoryMeshStore()
#: The name a mesh came with (an upload's or a scenario's file name), for messages.
_names: dict[str, str] = {}


def mesh_store() -> MeshStore:
    return _store


def use_store(store: MeshStore) -> MeshStore:
    """Make `store` the process's mesh store; returns the one it replaces."""
    global _store
    old, _store = _store, store
    return old


def remember_name(key: str, name: str) -> None:
    """The name the mesh came with last: a refusal names the file the user just gave (the
    same bytes uploaded before under another name would name that one)."""
    _names[key] = name[:128]


def display_name(key: str) -> str:
    """The file name a mesh id came with, else the id shortened (sha256:1a2b3c4d…)."""
    return _names.get(key, key[:15] + "…")


__all__ = [
    "PREFIX",
    "MemoryMeshStore",
    "MeshStore",
    "MeshStoreFull",
    "display_name",
    "is_mesh_id",
    "mesh_id",
    "mesh_store",
    "remember_name",
    "use_store",
]
