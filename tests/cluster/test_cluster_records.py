"""The store in cluster mode (cluster/records.py): Share links, saved scenarios, lessons and
uploaded meshes in JetStream, behind the store's one interface. On one NATS server: the
interface keeps SQLite's rules (bounded pools, pins, a batch all or none, a batch cut short
made whole by the next store opened). On three (buckets of three replicas): records made
through a gateway are there after their worker is restarted and one NATS node is lost."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from support.meshes import box, stl_bytes
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from .conftest import FLOAT, Cluster, NatsNodes, needs_the_bus, running

needs_the_bus()

from sixdof.cluster.records import TXN, NatsStore  # noqa: E402
from sixdof.store import Caps, Delete, Pin, Put, StoreMissing  # noqa: E402

TOKEN = "records-tok"
ROD = stl_bytes(box(1.0, 0.0625, 0.0625, (0.5, 0.0, 0.0)))


@pytest.fixture
def one_node(tmp_path: Path) -> Any:
    nodes = NatsNodes(tmp_path, 1)
    try:
        yield nodes
    finally:
        nodes.stop()


def test_the_bus_store_bounds_pools_and_keeps_pins_as_sqlite_does(one_node: NatsNodes) -> None:
    store = NatsStore(one_node.urls)
    try:
        store.limit("share", "held", Caps(max_count=3, max_bytes=10**6))
        store.put("share", "pinned", b"p", pool="held", pinned=True)
        for i in range(6):
            store.put("share", f"k{i}", b"x" * 10, pool="held")
        store.put("share", "other-pool", b"w", pool="watched")
        assert [r.key for r in store.info("share", "held")] == ["pinned", "k3", "k4", "k5"]
        assert store.usage("share", "held") == (4, 31)
        assert store.get("share", "k0") is None and store.get("share", "other-pool") == b"w"
        assert store.pin("share", "pinned", False) and not store.pin("share", "gone", True)
        store.put("share", "k6", b"x" * 10, pool="held")
        assert [r.key for r in store.info("share", "held")] == ["k4", "k5", "k6"]
        # a key NATS does not take as it is, and a value larger than one NATS message
        big = bytes(range(256)) * 8192  # 2 MiB
        store.put("mesh", "a/b é", big)
        assert store.get("mesh", "a/b é") == big
        assert store.delete("mesh", "a/b é") and store.get("mesh", "a/b é") is None
    finally:
        store.close()


def test_a_pool_evicts_in_the_order_of_the_puts_when_the_clock_stands_or_goes_back(
    one_node: NatsNodes, monkeypatch: pytest.MonkeyPatch
) -> None:
    # puts within one tick of the clock, or after it was set back, were ordered by their
    # objects' random names: a pool then evicted a newer record before an older one
    import sixdof.cluster.records as records

    readings = iter([100.0, 100.0, 100.0, 99.0, 99.0, 98.0])
    monkeypatch.setattr(records, "wall_clock", lambda: next(readings, 98.0))
    store = NatsStore(one_node.urls)
    try:
        store.limit("share", "held", Caps(max_count=3, max_bytes=10**6))
        for i in range(6):
            store.put("share", f"k{i}", b"x", pool="held")
        assert [r.key for r in store.info("share", "held")] == ["k3", "k4", "k5"]
    finally:
        store.close()


def test_a_batch_is_all_or_none_and_one_cut_short_is_made_whole(one_node: NatsNodes) -> None:
    store = NatsStore(one_node.urls)
    try:
        store.put("share", "a", b"a")
        with pytest.raises(StoreMissing):
            store.apply([Put("scenario", "s", b"s"), Pin("share", "a"), Pin("share", "gone")])
        assert store.get("scenario", "s") is None and not store.info("share")[0].pinned
        store.apply([Put("scenario", "s", b"s"), Pin("share", "a"), Delete("scenario", "x")])
        assert store.get("scenario", "s") == b"s" and store.info("share")[0].pinned
        # a writer killed after its journal entry, before its writes: the entry is all there
        # is of the batch; the next store opened on the bus makes them
        plan = {"lesson.l1": dict(json.loads(_meta(store, "scenario.s")), key="l1"),
                "share.a": None}  # fmt: skip
        store._call(store._kv.put(f"{TXN}.cut", json.dumps({"plan": plan, "drop": []}).encode()))  # type: ignore[union-attr]
    finally:
        store.close()
    again = NatsStore(one_node.urls)
    try:
        assert again.get("lesson", "l1") == b"s" and again.get("share", "a") is None
        assert again._call(again._list(TXN)) == {}
    finally:
        again.close()


def _meta(store: NatsStore, mkey: str) -> bytes:
    entry = store._call(store._kv.get(mkey))  # type: ignore[union-attr]
    return bytes(entry.value or b"")


def _request(base: str, method: str, path: str, body: bytes | None = None) -> Any:
    request = urllib.request.Request(
        base + path, body, method=method,
        headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"},
    )  # fmt: skip
    with urllib.request.urlopen(request, timeout=60) as reply:
        data = reply.read()
        return json.loads(data) if reply.headers["Content-Type"] == "application/json" else data


def _first_state(base: str, room: str, sid: str) -> dict[str, Any]:
    url = base.replace("http", "ws") + f"ws?room={room}&snapshot={sid}&token={TOKEN}"
    with connect(url, open_timeout=60, max_size=None) as ws:
        while True:
            msg = json.loads(ws.recv(timeout=60))
            assert msg["type"] != "error" or msg["code"] == "internal", msg  # 1013 follows
            if msg["type"] == "state":
                return msg  # type: ignore[no-any-return]


def test_records_outlive_a_worker_restart_and_a_lost_nats_node(tmp_path: Path) -> None:
    cluster = Cluster(tmp_path, workers=1, gateways=1, token=TOKEN, nats_nodes=3)
    with running(cluster):
        gate = cluster.gateways[0]
        _request(gate, "PUT", "api/rooms/lecture/scenario",
                 json.dumps(FLOAT.model_dump(mode="json")).encode())  # fmt: skip
        link = _request(gate, "POST", "api/rooms/lecture/share?what=now", b"")["id"]
        mesh = _request(gate, "POST", "api/meshes?name=rod.stl", ROD)["id"]
        saved = _request(gate, "POST", "api/scenarios",
                         json.dumps(FLOAT.model_dump(mode="json")).encode())["id"]  # fmt: skip
        lesson = {"title": "Floating", "steps": [
            {"preset": "gyroscope", "question": "Which way does it turn?"},
            {"share": link, "question": "Does it keep going?"},
            {"scenario": saved, "question": "And now?"}]}  # fmt: skip
        lid = _request(gate, "POST", "api/lessons", json.dumps(lesson).encode())["id"]

        worker = cluster.workers[0]
        worker.stop()
        cluster.workers[0] = cluster.start_worker(tmp_path / "float.json")
        cluster.nodes.kill(0)

        deadline = time.monotonic() + 60
        while True:  # the buckets elect new leaders (4-7 s): a read meanwhile is a 503
            try:
                kept = _request(gate, "GET", f"api/lessons/{lid}")
                break
            except urllib.error.HTTPError as exc:
                assert exc.code == 503 and time.monotonic() < deadline, exc
                time.sleep(0.5)
        assert [s.get("question") for s in kept["steps"]] == [
            s["question"] for s in lesson["steps"]
        ]
        assert _request(gate, "GET", f"api/meshes/{mesh}") == ROD
        assert (
            _request(gate, "GET", f"api/scenarios/{saved}")["bodies"][0]["Mass"]
            == FLOAT.bodies[0].Mass
        )
        while True:  # a viewer let in meanwhile is told to come back (1013), as the page does
            try:
                state = _first_state(gate, "from-link", link)
                break
            except ConnectionClosed as exc:
                assert exc.rcvd is not None and exc.rcvd.code == 1013, exc
                assert time.monotonic() < deadline, exc
                time.sleep(0.5)
        assert state["bodies"][0]["Name"] == FLOAT.bodies[0].Name
