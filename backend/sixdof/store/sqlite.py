"""The embedded store: one SQLite database in a data directory (`DIR/sixdof.db`), in WAL
mode, each record written in a transaction of its own and synced before the write returns,
so a record acknowledged survives a `kill -9` (and a power cut) and a write cut short
leaves no trace. `:memory:` keeps everything in memory (tests).

One connection, shared by the request threads under a lock (SQLite serialises writers
anyway); several processes may open the same directory (a busy one is waited for).
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from .base import (
    MEMORY,
    Caps,
    Change,
    Delete,
    Pin,
    Put,
    RecordInfo,
    StoreError,
    StoreFull,
    StoreMissing,
    StoreRefused,
)
from .paths import DB_NAME
from .schema import check_header, migrate, refuse, transaction, version_of

#: How long a write waits for another process's transaction on the same database.
BUSY_TIMEOUT_S = 10.0
#: SQLite's result codes for a full disk / database and for an I/O error (which is how a
#: full disk shows up when the WAL file cannot grow).
SQLITE_FULL, SQLITE_IOERR = 13, 10


def database_path(data: str | Path) -> str:
    """The database file of a data directory (or MEMORY)."""
    return MEMORY if str(data) == MEMORY else str(Path(data) / DB_NAME)


def open_store(data: str | Path, *, max_page_count: int | None = None) -> SqliteStore:
    """The store of data directory `data` (made if missing), or an in-memory one for
    MEMORY. StoreRefused naming the file and the reason if it may not be opened.
    `max_page_count`: a bound on the database's size in pages (a full disk, in tests)."""
    if str(data) == MEMORY:
        return SqliteStore(MEMORY, max_page_count)
    folder = Path(data).expanduser()
    if folder.exists() and not folder.is_dir():
        raise refuse(str(folder), "is a file, not a data directory")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreRefused(f"{folder}: cannot make the data directory: {exc.strerror}") from None
    path = folder / DB_NAME
    if path.exists():
        try:
            with path.open("rb") as f:
                check_header(str(path), f.read(16))
        except OSError as exc:
            raise StoreRefused(f"{path}: cannot read it: {exc.strerror}") from None
    return SqliteStore(str(path), max_page_count)


def _failure(location: str, exc: sqlite3.Error) -> StoreError:
    code = getattr(exc, "sqlite_errorcode", None)
    text = str(exc)
    if code is not None:
        code &= 0xFF  # the primary code of an extended one
    if code in (SQLITE_FULL, SQLITE_IOERR) or "full" in text or "disk I/O" in text:
        return StoreFull(
            f"{location}: the disk is full ({text}): nothing new is saved until space is "
            "freed; what is saved stays, and the rooms go on"
        )
    return StoreError(f"{location}: {text}")


class SqliteStore:
    """The Store of one SQLite database (see the module's docstring)."""

    def __init__(self, location: str, max_page_count: int | None = None) -> None:
        self.location = location
        self._lock = threading.Lock()
        self._caps: dict[tuple[str, str], Caps] = {}
        try:
            con = sqlite3.connect(
                location, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as exc:
            raise refuse(location, f"cannot be opened: {exc}") from None
        try:
            version = version_of(location, con)
            if location != MEMORY:
                mode = con.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                if str(mode).lower() != "wal":
                    raise refuse(location, f"cannot be put in WAL mode (it stays {mode})")
            con.execute("PRAGMA synchronous = FULL")  # an acknowledged record is on disk
            if max_page_count is not None:
                con.execute(f"PRAGMA max_page_count = {int(max_page_count)}")
            migrate(con, version)
        except sqlite3.Error as exc:
            con.close()
            raise refuse(location, f"cannot be prepared: {exc}") from None
        except BaseException:
            con.close()
            raise
        self._con = con

    def limit(self, kind: str, pool: str, caps: Caps) -> None:
        self._caps[(kind, pool)] = caps

    def put(
        self, kind: str, key: str, value: bytes, *, pool: str = "", pinned: bool = False
    ) -> None:
        self.apply([Put(kind, key, value, pool, pinned)])

    def apply(self, changes: Sequence[Change]) -> None:
        with self._lock:
            try:
                with transaction(self._con):
                    for change in changes:
                        self._make(change)
            except sqlite3.Error as exc:
                raise _failure(self.location, exc) from None

    def _make(self, change: Change) -> int:
        """One change inside the caller's transaction; the number of records it touched."""
        if isinstance(change, Put):
            kind, pool = change.kind, change.pool
            self._con.execute(
                "INSERT OR REPLACE INTO records (kind, key, pool, value, nbytes, pinned, created) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (kind, change.key, pool, change.value, len(change.value), int(change.pinned),
                 time.time()),
            )  # fmt: skip
            caps = self._caps.get((kind, pool))
            if caps is not None and not change.pinned:
                self._trim(kind, pool, caps)
            return 1
        if isinstance(change, Pin):
            touched = self._con.execute(
                "UPDATE records SET pinned = ? WHERE kind = ? AND key = ?",
                (int(change.pinned), change.kind, change.key),
            ).rowcount
            if not touched and change.pinned:  # unpinning what is gone is nothing to undo
                raise StoreMissing(change.kind, change.key)
            return int(touched)
        return int(
            self._con.execute(
                "DELETE FROM records WHERE kind = ? AND key = ?", (change.kind, change.key)
            ).rowcount
        )

    def _trim(self, kind: str, pool: str, caps: Caps) -> None:
        """Drop the pool's oldest unpinned records while it is over a cap (the newest one,
        just written, stays: a record larger than the cap alone is kept, as before)."""
        rows = self._con.execute(
            "SELECT seq, nbytes FROM records WHERE kind = ? AND pool = ? AND pinned = 0 "
            "ORDER BY seq DESC",
            (kind, pool),
        ).fetchall()
        count, total, cut = 0, 0, None
        for seq, nbytes in rows:
            count += 1
            total += int(nbytes)
            if count > 1 and (count > caps.max_count or total > caps.max_bytes):
                cut = int(seq)
                break
        if cut is not None:
            self._con.execute(
                "DELETE FROM records WHERE kind = ? AND pool = ? AND pinned = 0 AND seq <= ?",
                (kind, pool, cut),
            )

    def get(self, kind: str, key: str) -> bytes | None:
        with self._lock:
            try:
                row = self._con.execute(
                    "SELECT value FROM records WHERE kind = ? AND key = ?", (kind, key)
                ).fetchone()
            except sqlite3.Error as exc:
                raise _failure(self.location, exc) from None
        return None if row is None else bytes(row[0])

    def info(self, kind: str, pool: str | None = None) -> list[RecordInfo]:
        where, args = self._where(kind, pool)
        with self._lock:
            rows = self._con.execute(
                f"SELECT kind, key, pool, nbytes, pinned, created FROM records {where} "
                "ORDER BY seq",
                args,
            ).fetchall()
        return [RecordInfo(k, key, p, int(n), bool(pin), float(c)) for k, key, p, n, pin, c in rows]

    def delete(self, kind: str, key: str) -> bool:
        return self._one(Delete(kind, key))

    def pin(self, kind: str, key: str, pinned: bool) -> bool:
        try:
            return self._one(Pin(kind, key, pinned))
        except StoreMissing:
            return False

    def _one(self, change: Change) -> bool:
        with self._lock:
            try:
                with transaction(self._con):
                    touched = self._make(change)
            except sqlite3.Error as exc:
                raise _failure(self.location, exc) from None
        return bool(touched)

    def usage(self, kind: str, pool: str | None = None) -> tuple[int, int]:
        where, args = self._where(kind, pool)
        with self._lock:
            count, nbytes = self._con.execute(
                f"SELECT count(*), coalesce(sum(nbytes), 0) FROM records {where}", args
            ).fetchone()
        return int(count), int(nbytes)

    @staticmethod
    def _where(kind: str, pool: str | None) -> tuple[str, tuple[str, ...]]:
        if pool is None:
            return "WHERE kind = ?", (kind,)
        return "WHERE kind = ? AND pool = ?", (kind, pool)

    def integrity(self) -> str:
        """`PRAGMA integrity_check`'s answer: "ok", or what is wrong."""
        with self._lock:
            rows = self._con.execute("PRAGMA integrity_check").fetchall()
        return "; ".join(str(r[0]) for r in rows)

    def backup(self, target: str | Path) -> None:
        """A consistent copy of the whole database into file `target` (SQLite's online
        backup: readers and writers may go on meanwhile)."""
        with self._lock:
            dest = sqlite3.connect(str(target))
            try:
                self._con.backup(dest)
            finally:
                dest.close()

    def close(self) -> None:
        with self._lock:
            self._con.close()
