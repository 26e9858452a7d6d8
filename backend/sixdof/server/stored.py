"""The server's side of its store (sixdof.store): opening it from the settings, and what a
client is told when a write is refused."""

from __future__ import annotations

from fastapi import HTTPException

from ..store import Store, StoreError, StoreFull, open_store
from .settings import Settings

#: HTTP 507 Insufficient Storage: the request was fine, the server has no room to keep it.
INSUFFICIENT_STORAGE = 507


def open_settings_store(settings: Settings) -> Store:
    """The store of `settings.data` (StoreRefused naming the file and why, at start)."""
    return open_store(settings.data)


def store_refusal(exc: StoreError) -> HTTPException:
    """A refused write as an HTTP answer: 507 with the store's sentence for a full disk,
    503 for any other failure of the store."""
    status = INSUFFICIENT_STORAGE if isinstance(exc, StoreFull) else 503
    return HTTPException(status, str(exc))
