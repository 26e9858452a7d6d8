"""Share links of token holders are not pushed out by watchers' (issue 40, finding 13): the
store keeps the watchers' links apart, with caps of their own."""

from __future__ import annotations

from sixdof.server.snapshots import Snapshots

KEYFRAME = {"t_base": 0.0, "n_steps": 0, "step_size": 0.001, "x": [[0.0] * 13]}


def test_a_flood_of_watchers_links_pushes_out_no_token_holders_link() -> None:
    store = Snapshots(max_count=4, max_watcher_count=8)
    lecturer = [store.put("now", KEYFRAME, None) for _ in range(3)]
    watchers = [store.put("now", KEYFRAME, None, by_watcher=True) for _ in range(300)]
    assert all(store.get(sid) is not None for sid in lecturer)
    # the watchers' own: the latest 8 kept, the oldest dropped first
    assert [store.get(sid) is not None for sid in watchers] == [False] * 292 + [True] * 8
    assert len(store) == 3 + 8


def test_token_holders_links_are_capped_among_themselves() -> None:
    store = Snapshots(max_count=4, max_watcher_count=8)
    watcher = store.put("start", KEYFRAME, None, by_watcher=True)
    held = [store.put("now", KEYFRAME, None) for _ in range(10)]
    assert [store.get(sid) is not None for sid in held] == [False] * 6 + [True] * 4
    assert store.get(watcher) is not None


def test_the_watchers_bytes_are_capped_apart() -> None:
    big = {**KEYFRAME, "x": [[0.0] * 13] * 100}  # ~5 KB of JSON
    store = Snapshots(max_bytes=10**9, max_watcher_bytes=20_000)
    lecturer = store.put("now", big, None)
    watchers = [store.put("now", big, None, by_watcher=True) for _ in range(50)]
    assert store.get(lecturer) is not None and store.get(watchers[-1]) is not None
    assert store.get(watchers[0]) is None
    assert store.nbytes <= 20_000 + 2 * len(str(big)) + 10_000
