"""The embedded store (sixdof.store): bounded pools, pins, what survives a reopen, and the
files it must refuse without touching them."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from sixdof.store import (
    DB_NAME,
    MEMORY,
    Caps,
    StoreFull,
    StoreRefused,
    default_data_dir,
    open_store,
    schema,
)


def test_a_pool_drops_its_oldest_unpinned_records_first_and_keeps_pinned_ones() -> None:
    store = open_store(MEMORY)
    store.limit("share", "held", Caps(max_count=3, max_bytes=10**6))
    store.put("share", "pinned", b"p", pool="held", pinned=True)
    for i in range(6):
        store.put("share", f"k{i}", b"x" * 10, pool="held")
    store.put("share", "other-pool", b"w", pool="watched")  # no caps of its own: kept
    keys = [r.key for r in store.info("share", "held")]
    assert keys == ["pinned", "k3", "k4", "k5"]
    assert store.get("share", "other-pool") == b"w"
    assert store.usage("share", "held") == (4, 31)


def test_a_pool_is_bounded_in_bytes_and_keeps_a_record_larger_than_its_cap() -> None:
    store = open_store(MEMORY)
    store.limit("mesh", "", Caps(max_count=100, max_bytes=25))
    for i in range(4):
        store.put("mesh", f"m{i}", b"y" * 10)
    assert [r.key for r in store.info("mesh")] == ["m2", "m3"]
    store.put("mesh", "huge", b"z" * 100)
    assert [r.key for r in store.info("mesh")] == ["huge"]  # alone, over the cap, the newest


def test_unpinning_lets_a_record_go_with_the_next_trim() -> None:
    store = open_store(MEMORY)
    store.limit("share", "held", Caps(max_count=1, max_bytes=10**6))
    store.put("share", "a", b"a", pool="held", pinned=True)
    store.put("share", "b", b"b", pool="held")
    assert store.pin("share", "a", False) and not store.pin("share", "none", True)
    store.put("share", "c", b"c", pool="held")
    assert [r.key for r in store.info("share")] == ["c"]
    assert store.delete("share", "c") and store.get("share", "c") is None


def test_records_survive_a_reopen_of_the_data_directory(tmp_path: Path) -> None:
    store = open_store(tmp_path / "data")
    store.put("lesson", "week1", b'{"title": "tops"}', pinned=True)
    store.close()
    again = open_store(tmp_path / "data")
    assert again.get("lesson", "week1") == b'{"title": "tops"}'
    assert again.integrity() == "ok"
    con = sqlite3.connect(tmp_path / "data" / DB_NAME)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert con.execute("PRAGMA application_id").fetchone()[0] == schema.APPLICATION_ID
    assert con.execute("SELECT max(version) FROM schema_version").fetchone()[0] == 1
    con.close()
    again.close()


def _refused(folder: Path, *words: str) -> None:
    path = folder / DB_NAME
    before = path.read_bytes()
    with pytest.raises(StoreRefused) as info:
        open_store(folder)
    message = str(info.value)
    assert message.startswith(f"{path}: ") and "left as it is" in message, message
    for word in words:
        assert word in message, message
    assert path.read_bytes() == before  # never overwritten
    assert not (folder / f"{DB_NAME}-wal").exists()


def test_a_file_that_is_not_sqlite_is_refused_untouched(tmp_path: Path) -> None:
    (tmp_path / DB_NAME).write_text("lecture notes, not a database\n" * 100)
    _refused(tmp_path, "not a SQLite database", "lecture notes")


def test_another_programs_database_is_refused_untouched(tmp_path: Path) -> None:
    con = sqlite3.connect(tmp_path / DB_NAME)
    con.execute("CREATE TABLE moz_places (url TEXT)")
    con.commit()
    con.close()
    _refused(tmp_path, "another program", "moz_places")


def test_a_corrupt_database_is_refused_untouched(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    for i in range(200):
        store.put("share", f"k{i}", bytes([i % 256]) * 2000)
    store.close()  # the last connection checkpoints the WAL into the file
    path = tmp_path / DB_NAME
    data = bytearray(path.read_bytes())
    page = 4096
    data[2 * page : 6 * page] = b"\xa5" * (4 * page)  # pages of the table and its index
    path.write_bytes(bytes(data))
    _refused(tmp_path)  # the reason is SQLite's: "corrupt", "malformed", "unreadable"


def test_a_newer_schema_is_refused_not_downgraded(tmp_path: Path) -> None:
    open_store(tmp_path).close()
    con = sqlite3.connect(tmp_path / DB_NAME)
    con.execute("INSERT INTO schema_version VALUES (7, 0, '99.0')")
    con.commit()
    con.close()
    _refused(tmp_path, "newer sixdof (schema 7", "not downgraded")


def test_an_older_schema_is_migrated_forward_in_steps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = open_store(tmp_path)
    store.put("share", "old", b"kept")
    store.close()
    monkeypatch.setattr(
        schema, "MIGRATIONS", [*schema.MIGRATIONS, "ALTER TABLE records ADD COLUMN note TEXT"]
    )
    store = open_store(tmp_path)
    assert store.get("share", "old") == b"kept"
    store.close()
    con = sqlite3.connect(tmp_path / DB_NAME)
    assert [v for (v,) in con.execute("SELECT version FROM schema_version")] == [1, 2]
    assert "note" in [row[1] for row in con.execute("PRAGMA table_info(records)")]
    con.close()


def test_a_data_directory_that_is_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "data").write_text("x")
    with pytest.raises(StoreRefused, match="is a file, not a data directory"):
        open_store(tmp_path / "data")


def test_a_full_disk_refuses_new_writes_and_keeps_what_is_there(tmp_path: Path) -> None:
    open_store(tmp_path).close()
    pages = sqlite3.connect(tmp_path / DB_NAME).execute("PRAGMA page_count").fetchone()[0]
    store = open_store(tmp_path, max_page_count=pages + 8)  # ~32 KiB more, as a full disk
    store.put("share", "small", b"s" * 100)
    with pytest.raises(StoreFull, match=r"the disk is full .* the rooms go on"):
        for i in range(100):
            store.put("share", f"big{i}", b"b" * 8000)
    assert store.get("share", "small") == b"s" * 100  # still readable
    assert store.integrity() == "ok"
    store.delete("share", "small")  # deleting still works, and frees its page
    store.close()


def test_the_default_data_folder_follows_xdg(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.platform", "linux")
    monkeypatch.setenv("XDG_DATA_HOME", "/srv/share")
    assert default_data_dir() == Path("/srv/share/sixdof")
    monkeypatch.setenv("XDG_DATA_HOME", "relative/ignored")
    assert default_data_dir() == Path.home() / ".local" / "share" / "sixdof"


def test_serve_refuses_a_foreign_database_before_it_listens(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sixdof.cli import main

    (tmp_path / DB_NAME).write_text("not ours")
    assert main(["serve", "--port", "0", "--data", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"sixdof: error: {tmp_path / DB_NAME}: not a SQLite database" in err
    assert (tmp_path / DB_NAME).read_text() == "not ours"
