"""A lesson's pins, its inline scenarios and the lesson itself are written in one
transaction (server/lessons.py through Store.apply): a failure injected as the lesson is
written, a kill -9 at that moment, or a link dropped between the check and the write leave
no pin without its lesson and no scenario the lesson brought."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from sixdof.scenario.presets import PRESETS
from sixdof.server import lessons
from sixdof.store import MEMORY, Delete, Pin, Put, SqliteStore, StoreError, StoreMissing, open_store

#: A trigger that fails the write of any lesson: the failure comes after the pins and the
#: inline scenario in the same transaction.
FAIL_LESSON = (
    "CREATE TEMP TRIGGER fail_lesson BEFORE INSERT ON main.records "
    "WHEN NEW.kind = 'lesson' BEGIN SELECT RAISE(ABORT, 'injected failure'); END"
)


def _lesson() -> lessons.Lesson:
    inline = PRESETS["free_fall"].scenario()
    return lessons.Lesson.model_validate(
        {"title": "t", "steps": [{"share": "link1", "question": "q"}, {"scenario": inline}]}
    )


def _no_trace(store: SqliteStore) -> None:
    assert store.usage("lesson") == (0, 0)
    assert store.usage("scenario") == (0, 0)  # the inline scenario went with the lesson
    assert [r.pinned for r in store.info("share")] == [False]


def test_apply_makes_every_change_or_none() -> None:
    store = open_store(MEMORY)
    store.put("share", "a", b"a")
    with pytest.raises(StoreMissing) as missing:
        store.apply([Put("scenario", "s", b"s"), Pin("share", "a"), Pin("share", "gone")])
    assert (missing.value.kind, missing.value.key) == ("share", "gone")
    assert store.get("scenario", "s") is None and not store.info("share")[0].pinned
    store.apply([Put("scenario", "s", b"s"), Pin("share", "a"), Pin("share", "gone", False)])
    assert store.info("share")[0].pinned and store.get("scenario", "s") == b"s"
    store.apply([Delete("scenario", "s"), Delete("scenario", "never")])
    assert store.get("scenario", "s") is None


def test_a_failure_writing_the_lesson_leaves_no_pin_and_no_inline_scenario() -> None:
    store = open_store(MEMORY)
    store.put("share", "link1", b"x", pool="held")
    store._con.execute(FAIL_LESSON)
    with pytest.raises(StoreError, match="injected failure"):
        lessons.save_lesson(store, _lesson())
    _no_trace(store)
    store._con.execute("DROP TRIGGER fail_lesson")
    lid = lessons.save_lesson(store, _lesson())  # the same lesson, nothing in the way: kept
    assert store.info("share")[0].pinned and store.usage("scenario")[0] == 1
    assert lessons.delete_lesson(store, lid)
    assert not store.info("share")[0].pinned and not store.info("scenario")[0].pinned


def test_a_link_dropped_after_the_check_refuses_the_lesson_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = open_store(MEMORY)
    store.put("share", "other", b"x", pool="held")
    real_get = store.get
    # The check sees link1 (as it was a moment before a burst of newer links dropped it).
    monkeypatch.setattr(store, "get", lambda k, key: b"x" if key == "link1" else real_get(k, key))
    with pytest.raises(lessons.LessonRefused) as refused:
        lessons.save_lesson(store, _lesson())
    assert refused.value.field == "steps.0.share" and "make the link again" in refused.value.message
    _no_trace(store)


#: A writer that stops inside the lesson's transaction (after the pins and the scenario,
#: as the lesson row goes in) and says so; the test kills it there.
WRITER = """
import sys
from pathlib import Path
from sixdof.scenario.presets import PRESETS
from sixdof.server import lessons
from sixdof.store import open_store

data = Path(sys.argv[1])
store = open_store(data)
store.put("share", "link1", b"x", pool="held")

def hold():  # inside the lesson's transaction: say so, then wait to be killed
    print("inside", flush=True)
    sys.stdin.read()

store._con.create_function("hold", 0, hold)
store._con.execute(
    "CREATE TEMP TRIGGER hold_lesson BEFORE INSERT ON main.records "
    "WHEN NEW.kind = 'lesson' BEGIN SELECT hold(); END"
)
lesson = lessons.Lesson.model_validate({"title": "t", "steps": [
    {"share": "link1", "question": "q"}, {"scenario": PRESETS["free_fall"].scenario()}]})
lessons.save_lesson(store, lesson)
"""


def test_a_kill_9_while_the_lesson_is_written_leaves_no_pin_without_it(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(data)], env=os.environ.copy(),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert writer.stdout is not None
        # its line once inside the transaction; "" if it ended before reaching it
        assert writer.stdout.readline().strip() == "inside", "the writer never reached the lesson"
    finally:
        writer.send_signal(signal.SIGKILL)
        writer.communicate()  # reaped, its pipes closed
    store = open_store(data)
    try:
        assert store.integrity() == "ok"
        assert store.get("share", "link1") == b"x"  # acknowledged before: kept
        _no_trace(store)
    finally:
        store.close()
