"""The database's schema, its version and the migrations between versions, and the checks
that refuse a file this version must not touch.

A sixdof database carries `PRAGMA application_id` APPLICATION_ID in its header (so another
program's SQLite file is told apart from ours by its first 100 bytes) and the versions it
went through in `schema_version`. Opening a database:

- a file that is not SQLite, or SQLite of another program, or corrupt: refused, untouched;
- a schema newer than this version knows: refused, never downgraded;
- an older one: migrated forward, each step in one transaction with its version row;
- an empty file or none: made at the current version.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager

from .. import __version__
from .base import StoreRefused

#: "6DOF" in ASCII: SQLite's header field for the application that owns the file.
APPLICATION_ID = 0x36444F46
SQLITE_MAGIC = b"SQLite format 3\x00"

#: MIGRATIONS[n] takes a database from schema n to n + 1 (0: an empty database).
MIGRATIONS: list[str] = [
    """
    CREATE TABLE schema_version (
        version INTEGER PRIMARY KEY,
        applied REAL NOT NULL,
        by_version TEXT NOT NULL
    );
    CREATE TABLE records (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        kind TEXT NOT NULL,
        key TEXT NOT NULL,
        pool TEXT NOT NULL DEFAULT '',
        value BLOB NOT NULL,
        nbytes INTEGER NOT NULL,
        pinned INTEGER NOT NULL DEFAULT 0,
        created REAL NOT NULL,
        UNIQUE (kind, key)
    );
    CREATE INDEX records_by_pool ON records (kind, pool, pinned, seq);
    """,
]


def current_version() -> int:
    return len(MIGRATIONS)


def refuse(location: str, why: str) -> StoreRefused:
    return StoreRefused(
        f"{location}: {why}; it is left as it is (move it away, or give --data another directory)"
    )


def check_header(location: str, head: bytes) -> None:
    """Refuse a non-empty file that is not SQLite (`head`: its first 16 bytes)."""
    if head and head != SQLITE_MAGIC[: len(head)]:
        raise refuse(location, f"not a SQLite database (it begins {head[:16]!r})")


def _tables(con: sqlite3.Connection) -> list[str]:
    rows = con.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    return [str(name) for (name,) in rows if not str(name).startswith("sqlite_")]


def version_of(location: str, con: sqlite3.Connection) -> int:
    """The schema version of an open database (0: empty), refusing a foreign or corrupt
    one and one newer than this version knows."""
    try:
        app_id = int(con.execute("PRAGMA application_id").fetchone()[0])
        tables = _tables(con)
        if app_id != APPLICATION_ID:
            if tables:
                raise refuse(
                    location,
                    f"a SQLite database of another program (application_id {app_id:#x}, "
                    f"tables {', '.join(sorted(tables)[:5])})",
                )
            return 0
        check = con.execute("PRAGMA quick_check").fetchall()
        if [tuple(row) for row in check] != [("ok",)]:
            raise refuse(location, f"corrupt: {'; '.join(str(r[0]) for r in check[:3])}")
        row = con.execute("SELECT max(version) FROM schema_version").fetchone()
    except sqlite3.DatabaseError as exc:
        raise refuse(location, f"unreadable as a database: {exc}") from None
    version = int(row[0] or 0)
    if version > current_version():
        raise refuse(
            location,
            f"written by a newer sixdof (schema {version}; sixdof {__version__} knows up to "
            f"{current_version()}); it is not downgraded: upgrade sixdof",
        )
    return version


@contextmanager
def transaction(con: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction on a connection in autocommit mode (isolation_level None):
    committed whole when the block ends, rolled back whole if it raises."""
    con.execute("BEGIN IMMEDIATE")
    try:
        yield con
    except BaseException:
        if con.in_transaction:  # SQLite has rolled back itself after some errors (a full disk)
            con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")


def migrate(con: sqlite3.Connection, version: int) -> None:
    """Bring the database from `version` to the current one, a transaction per step."""
    for target in range(version + 1, current_version() + 1):
        with transaction(con):  # a step is applied whole or not at all
            for statement in MIGRATIONS[target - 1].split(";"):
                if statement.strip():
                    con.execute(statement)
            if target == 1:
                con.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            con.execute(
                "INSERT INTO schema_version (version, applied, by_version) VALUES (?, ?, ?)",
                (target, time.time(), __version__),
            )
