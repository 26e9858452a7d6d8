"""What the server keeps across restarts: Share links, saved scenarios, lessons, uploaded
meshes. One interface (`Store`, base.py) with an embedded SQLite implementation (sqlite.py)
in a data directory; cluster mode's NATS JetStream one (cluster/records.py) is behind the
same interface. Standard library only: the command line's `export`/`import` use it without the
web stack."""

from __future__ import annotations

from .base import (
    MEMORY,
    Caps,
    Change,
    Delete,
    Pin,
    Put,
    RecordInfo,
    Store,
    StoreError,
    StoreFull,
    StoreMissing,
    StoreRefused,
)
from .paths import DB_NAME, default_data_dir
from .sqlite import SqliteStore, open_store

__all__ = [
    "DB_NAME",
    "MEMORY",
    "Caps",
    "Change",
    "Delete",
    "Pin",
    "Put",
    "RecordInfo",
    "SqliteStore",
    "Store",
    "StoreError",
    "StoreFull",
    "StoreMissing",
    "StoreRefused",
    "default_data_dir",
    "open_store",
]
