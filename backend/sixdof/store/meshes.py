"""Uploaded meshes in the store, content-addressed: `put(bytes) -> id` (the SHA-256 of the
bytes, `sha256:…` as `sixdof.meshstore` names them, so the same file uploaded twice is kept
once) and `get(id)`. The server makes it the process's mesh store (`meshstore.use_store`), so
an uploaded mesh outlives a restart of `sixdof serve --data DIR`.

A scenario's validation reads a mesh wherever it runs (on the event loop for a small
message), so the meshes used lately are kept in memory in front of the database: a read from
SQLite (up to 32 MiB) happens once per mesh and process, not per load."""

from __future__ import annotations

import threading
from collections import OrderedDict

from ..meshstore import MESH_ID, PREFIX, mesh_id
from .base import Caps, Store
from .kinds import MESH

#: Uploaded meshes kept at most (the oldest unpinned go first); a lesson's are pinned.
MESH_CAPS = Caps(max_count=512, max_bytes=256 * 1024 * 1024)
#: Bytes of meshes kept in memory in front of the database (the latest used).
MEMORY_BYTES = 128 << 20


class StoredMeshes:
    def __init__(self, store: Store, caps: Caps = MESH_CAPS, memory: int = MEMORY_BYTES) -> None:
        self.store = store
        store.limit(MESH, "", caps)
        self._memory: OrderedDict[str, bytes] = OrderedDict()
        self._memory_bytes = 0
        self._limit = memory
        self._lock = threading.Lock()

    def put(self, data: bytes) -> str:
        key = mesh_id(data)
        if self.store.get(MESH, key[len(PREFIX) :]) is None:  # the same bytes: kept once
            self.store.put(MESH, key[len(PREFIX) :], data)
        self._remember(key, data)
        return key

    def get(self, key: str) -> bytes | None:
        if not key.startswith(PREFIX):
            key = PREFIX + key  # an export's bare digest
        if not MESH_ID.fullmatch(key):
            return None
        with self._lock:
            data = self._memory.get(key)
            if data is not None:
                self._memory.move_to_end(key)
                return data
        data = self.store.get(MESH, key[len(PREFIX) :])
        if data is not None:
            self._remember(key, data)
        return data

    def _remember(self, key: str, data: bytes) -> None:
        with self._lock:
            if key in self._memory:
                self._memory.move_to_end(key)
                return
            self._memory[key] = data
            self._memory_bytes += len(data)
            while self._memory_bytes > self._limit and len(self._memory) > 1:
                _, old = self._memory.popitem(last=False)
                self._memory_bytes -= len(old)
