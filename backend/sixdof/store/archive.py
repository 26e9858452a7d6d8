"""`sixdof export` / `sixdof import`: a data directory's lessons (with the saved scenarios
and Share links their steps name) and its uploaded meshes, as one file to carry to another
machine.

The file is a SQLite database of the store's own schema (same application_id, same
`records` table) holding those records and a manifest record (kind `export`), in rollback
journal mode so it is one file. An import reads it read-only and refuses, naming the file,
anything that is not SQLite, another program's database, a corrupt one, a newer schema, or
a sixdof database that is not an export (a data directory's own `sixdof.db`: give it as
`--data` instead).
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path

from .. import __version__
from .base import Store, StoreRefused
from .kinds import LESSON, MESH, SCENARIO, SHARE, lesson_references
from .schema import check_header, migrate, refuse, transaction, version_of

EXPORT = "export"
#: The kinds an export carries, in the order an import writes them (what a lesson names
#: before the lesson).
CARRIED = (MESH, SCENARIO, SHARE, LESSON)


def _chosen(store: Store) -> list[tuple[str, str]]:
    """(kind, key) of every lesson, what the lessons name, and every mesh."""
    chosen: list[tuple[str, str]] = [(MESH, r.key) for r in store.info(MESH)]
    for info in store.info(LESSON):
        data = store.get(LESSON, info.key)
        if data is None:
            continue
        chosen.extend(lesson_references(data))
        chosen.append((LESSON, info.key))
    return list(dict.fromkeys(chosen))


def export_to(store: Store, target: Path) -> dict[str, int]:
    """Write the export of `store` to `target` (replaced whole, never left half-written);
    the number of records of each kind."""
    partial = target.with_name(f".{target.name}.partial")
    partial.unlink(missing_ok=True)
    counts = dict.fromkeys(CARRIED, 0)
    con = sqlite3.connect(partial, isolation_level=None)
    try:
        migrate(con, 0)
        pinned = {(r.kind, r.key): r for kind in CARRIED for r in store.info(kind)}
        with transaction(con):
            for kind, key in _chosen(store):
                value = store.get(kind, key)
                info = pinned.get((kind, key))
                if value is None or info is None:
                    continue  # named by a lesson but gone (never: a lesson pins it)
                con.execute(
                    "INSERT OR REPLACE INTO records (kind, key, pool, value, nbytes, pinned, "
                    "created) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (kind, key, info.pool, value, len(value), int(info.pinned), info.created),
                )
                counts[kind] += 1
            manifest = {"sixdof_version": __version__, "exported": time.time(), "counts": counts}
            con.execute(
                "INSERT INTO records (kind, key, value, nbytes, created) VALUES (?, ?, ?, ?, ?)",
                (EXPORT, "manifest", json.dumps(manifest).encode(), 0, time.time()),
            )
    finally:
        con.close()
    os.replace(partial, target)
    return counts


def import_from(source: Path, store: Store) -> dict[str, int]:
    """Add the records of export file `source` to `store` (a record of the same id is
    replaced); the number of each kind. StoreRefused naming `source` if it is not an
    export of sixdof."""
    where = str(source)
    try:
        with source.open("rb") as f:
            head = f.read(16)
    except OSError as exc:
        raise StoreRefused(f"{where}: cannot read it: {exc.strerror}") from None
    if not head:
        raise refuse(where, "empty, not an export of sixdof")
    check_header(where, head)
    con = sqlite3.connect(f"{source.resolve().as_uri()}?mode=ro", uri=True)
    try:
        if version_of(where, con) == 0:
            raise refuse(where, "a SQLite database without sixdof's records, not an export")
        try:
            manifest = con.execute(
                "SELECT value FROM records WHERE kind = ? AND key = 'manifest'", (EXPORT,)
            ).fetchone()
        except sqlite3.DatabaseError as exc:
            raise refuse(where, f"unreadable: {exc}") from None
        if manifest is None:
            raise refuse(
                where,
                "a sixdof data directory's database, not an export (`sixdof export` makes "
                "one; or serve it with --data)",
            )
        counts = dict.fromkeys(CARRIED, 0)
        for kind in CARRIED:
            rows = con.execute(
                "SELECT key, pool, value, pinned FROM records WHERE kind = ? ORDER BY seq",
                (kind,),
            ).fetchall()
            for key, pool, value, pinned in rows:
                store.put(kind, str(key), bytes(value), pool=str(pool), pinned=bool(pinned))
                counts[kind] += 1
    finally:
        con.close()
    return counts
