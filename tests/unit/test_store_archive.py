"""`sixdof export` / `sixdof import`: a data directory's lessons, what they name, and its
meshes carried to another data directory in one file; anything else refused by name."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from sixdof.cli import main
from sixdof.store import DB_NAME, open_store
from sixdof.store.meshes import StoredMeshes

LESSON = {"title": "Tops", "steps": [
    {"preset": "spin_up", "question": "which way?"},
    {"scenario": "s1", "question": ""},
    {"share": "link1", "question": "what happens next?"},
]}  # fmt: skip


def _filled(folder: Path) -> bytes:
    store = open_store(folder)
    store.put("scenario", "s1", b'{"name": "mine"}', pinned=True)
    store.put("scenario", "loose", b'{"name": "not in a lesson"}')
    store.put("share", "link1", b'{"kind": "now"}', pool="held", pinned=True)
    store.put("share", "other", b'{"kind": "now"}', pool="held")
    store.put("lesson", "L1", json.dumps(LESSON).encode(), pinned=True)
    mesh = StoredMeshes(store).put(b"solid cube\nendsolid\n")
    store.close()
    return mesh.encode()


def test_export_then_import_carries_lessons_what_they_name_and_meshes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mesh_id = _filled(tmp_path / "a").decode()
    out = tmp_path / "week1.sixdof"
    assert main(["export", "--data", str(tmp_path / "a"), str(out)]) == 0
    assert "exported 1 lessons, 1 scenarios, 1 Share links, 1 meshes" in capsys.readouterr().err
    assert not list(tmp_path.glob(".*partial"))
    assert main(["import", "--data", str(tmp_path / "b"), str(out)]) == 0
    store = open_store(tmp_path / "b")
    assert json.loads(store.get("lesson", "L1") or b"") == LESSON
    assert store.get("scenario", "s1") == b'{"name": "mine"}'
    assert store.get("share", "link1") == b'{"kind": "now"}'
    assert store.get("scenario", "loose") is None and store.get("share", "other") is None
    assert StoredMeshes(store).get(mesh_id) == b"solid cube\nendsolid\n"
    assert all(r.pinned for r in store.info("share"))  # a lesson's link stays pinned
    assert store.info("share")[0].pool == "held"
    store.close()
    # importing twice replaces, it does not duplicate
    assert main(["import", "--data", str(tmp_path / "b"), str(out)]) == 0
    assert open_store(tmp_path / "b").usage("lesson") == (1, len(json.dumps(LESSON)))


def _refused(tmp_path: Path, file: Path, words: str, capsys: pytest.CaptureFixture[str]) -> None:
    before = file.read_bytes()
    assert main(["import", "--data", str(tmp_path / "b"), str(file)]) == 2
    err = capsys.readouterr().err
    assert f"sixdof: error: {file}: " in err and words in err, err
    assert file.read_bytes() == before
    assert open_store(tmp_path / "b").usage("lesson") == (0, 0)


def test_import_refuses_by_name_what_is_not_an_export(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = tmp_path / "notes.sixdof"
    text.write_text("not a database at all")
    _refused(tmp_path, text, "not a SQLite database", capsys)
    other = tmp_path / "places.sqlite"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE moz_places (url TEXT)")
    con.commit()
    con.close()
    _refused(tmp_path, other, "another program", capsys)
    _filled(tmp_path / "a")
    _refused(tmp_path, tmp_path / "a" / DB_NAME, "not an export", capsys)
    empty = tmp_path / "empty.sixdof"
    empty.write_bytes(b"")
    _refused(tmp_path, empty, "empty", capsys)


def test_export_of_a_directory_without_data_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["export", "--data", str(tmp_path / "none"), str(tmp_path / "x.sixdof")]) == 2
    assert "holds nothing" in capsys.readouterr().err
    assert not (tmp_path / "none").exists()
