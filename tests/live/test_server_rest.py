"""REST endpoints: health, scenarios (GET/PUT with field errors and the token), presets,
meshes, history CSV, the page and its 503 when it is not built, OpenAPI."""

from __future__ import annotations

import csv
import io
import json
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import sixdof
from sixdof.scenario import BodySpec, Scenario
from sixdof.scenario.presets import PRESETS
from sixdof.server import Settings, create_app
from sixdof.simulation.history import History

with warnings.catch_warnings():  # starlette asks for httpx2; httpx still works
    warnings.filterwarnings("ignore", message=".*httpx2.*")
    from fastapi.testclient import TestClient

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(Settings(room_ttl=2.0))) as c:
        yield c


def join(client: TestClient, room: str) -> Any:
    """Open a websocket to make the room; the caller closes it."""
    ws = client.websocket_connect(f"/ws?room={room}").__enter__()
    first = ws.receive_json()
    if first["type"] == "preparing":  # the process's first join: the physics loads first
        first = ws.receive_json()
    assert first["type"] == "hello"
    return ws


def test_health(client: TestClient) -> None:
    body = client.get("/api/health").json()
    assert body["status"] == "ok" and body["version"] == sixdof.__version__
    assert isinstance(body["rooms"], int)


def test_health_tells_an_address_what_its_own_budget_holds() -> None:
    # a client (and a test on a shared server) can wait for its budget to be whole again
    with TestClient(create_app(Settings(work_rate=0.001, work_burst=1.0))) as c:
        first = c.get("/api/health").json()
        assert first["work_left_s"] == first["work_burst_s"] == 1.0  # an address not seen yet
        ws = join(c, "spent")
        try:
            ws.send_json({"type": "step", "n": 2000, "id": 1})
            reply = ws.receive_json()
            while reply.get("id") != 1:
                reply = ws.receive_json()
            assert reply["type"] == "ack", reply
        finally:
            ws.__exit__(None, None, None)
        later = c.get("/api/health").json()
    spent = 1.0 - later["work_left_s"]
    assert spent > 1e-4, later  # the step's CPU, refilled at 0.001 s a second
    assert later["work_left_all_s"] <= later["work_burst_all_s"] - spent + 1e-3, later


def test_the_loop_probe_counts_beats_and_refuses_a_bad_since(client: TestClient) -> None:
    first = client.get("/api/probe").json()
    assert first["server"] is None and first["interval_s"] == 0.005
    ws = join(client, "probed")  # a room's first join loads the physics: the loop works
    try:
        later = client.get(f"/api/rooms/probed/probe?since={first['beat']}").json()
    finally:
        ws.__exit__(None, None, None)
    assert later["since"] == first["beat"] and later["beat"] >= first["beat"]
    assert 0 < later["beats"] == later["beat"] - first["beat"] and later["complete"]
    assert 0.0 <= later["longest_cpu_s"] < 60.0
    refused = client.get("/api/probe?since=-1")
    assert refused.status_code == 422 and refused.json()["detail"][0]["loc"] == ["query", "since"]
    assert client.get("/api/rooms/nobody/probe").status_code == 404


def test_presets_list_and_each_scenario(client: TestClient) -> None:
    listed = client.get("/api/presets").json()
    assert [p["name"] for p in listed] == list(PRESETS)
    assert all(p["title"] and p["caption"] for p in listed)
    for name in PRESETS:
        got = client.get(f"/api/presets/{name}").json()
        assert Scenario.model_validate(got) == PRESETS[name].scenario()
    missing = client.get("/api/presets/nope")
    assert missing.status_code == 404 and "hover" in missing.json()["detail"]


def test_room_scenario_get_put_and_field_errors(client: TestClient) -> None:
    assert client.get("/api/rooms/r1/scenario").status_code == 404
    ws = join(client, "r1")
    try:
        got = client.get("/api/rooms/r1/scenario").json()
        assert got["name"] == "hover"  # rooms start from the default preset
        new = Scenario(name="heavy", bodies=[BodySpec(Name="X", Mass=12.0, Gravity=0.0)])
        put = client.put("/api/rooms/r1/scenario", json=new.model_dump(mode="json"))
        assert put.status_code == 200 and put.json()["bodies"][0]["Mass"] == 12.0
        hello = ws.receive_json()
        while hello["type"] != "hello":
            hello = ws.receive_json()
        assert hello["scenario"]["name"] == "heavy"  # clients were told
        bad = new.model_dump(mode="json")
        bad["bodies"][0]["Mass"] = -3
        bad["bodies"][0]["InertiaRadi"] = [1, 2]
        reply = client.put("/api/rooms/r1/scenario", json=bad)
        assert reply.status_code == 422
        locs = {tuple(e["loc"]) for e in reply.json()["detail"]}
        assert ("body", "bodies", 0, "Mass") in locs
        assert any(loc[:4] == ("body", "bodies", 0, "InertiaRadi") for loc in locs)
        unstable = new.model_dump(mode="json")
        unstable["integration"]["stepsize"] = 0.1
        reply = client.put("/api/rooms/r1/scenario", json=unstable)
        assert reply.status_code == 422 and "stability limit" in reply.text
        assert client.get("/api/rooms/r1/scenario").json()["name"] == "heavy"  # unchanged
    finally:
        ws.__exit__(None, None, None)


def test_put_creates_a_room_and_bad_names_are_422(client: TestClient) -> None:
    body = Scenario(name="made").model_dump(mode="json")
    assert client.put("/api/rooms/fresh/scenario", json=body).status_code == 200
    assert client.get("/api/rooms/fresh/scenario").json()["name"] == "made"
    reply = client.put("/api/rooms/bad%20name/scenario", json=body)
    assert reply.status_code == 422 and reply.json()["detail"][0]["loc"] == ["path", "room"]


def test_put_needs_the_token_when_the_server_has_one() -> None:
    with TestClient(create_app(Settings(token="tok"))) as client:
        body = Scenario(name="t").model_dump(mode="json")
        assert client.put("/api/rooms/a/scenario", json=body).status_code == 403
        assert client.put("/api/rooms/a/scenario?token=bad", json=body).status_code == 403
        assert client.put("/api/rooms/a/scenario?token=tok", json=body).status_code == 200
        headers = {"Authorization": "Bearer tok"}
        assert client.put("/api/rooms/a/scenario", json=body, headers=headers).status_code == 200
        assert client.get("/api/rooms/a/scenario").status_code == 200  # reading is open
        evil = {"Authorization": "Bearer tok", "Origin": "http://evil.example"}
        assert client.put("/api/rooms/a/scenario", json=body, headers=evil).status_code == 403


def test_history_csv(client: TestClient) -> None:
    ws = join(client, "hist")
    try:
        ws.send_text(json.dumps({"type": "pause"}))
        ws.send_text(json.dumps({"type": "reset", "state": None}))
        ws.send_text(json.dumps({"type": "step", "n": 200}))
        acks = 0
        while acks < 3:
            acks += ws.receive_json()["type"] == "ack"
        reply = client.get("/api/rooms/hist/history.csv")
        assert reply.status_code == 200 and reply.headers["content-type"].startswith("text/csv")
        rows = list(csv.DictReader(io.StringIO(reply.text)))
        assert "B.Pos[2]" in rows[0]
        assert float(rows[0]["Time"]) == 0.0
        assert float(rows[-1]["Time"]) == pytest.approx(0.2, abs=1e-9)
    finally:
        ws.__exit__(None, None, None)
    assert client.get("/api/rooms/none/history.csv").status_code == 404


def test_history_precision_float32_is_a_server_limit() -> None:
    """--limit history_precision=float32: every room keeps half the history memory, and its
    history.csv writes the 9 digits that give the stored float32 back."""
    with TestClient(create_app(Settings(history_precision="float32"))) as client:
        ws = join(client, "half")
        try:
            ws.send_text(json.dumps({"type": "set_input", "body": "B", "Moment": [0, 0.3, 1]}))
            ws.send_text(json.dumps({"type": "step", "n": 300}))
            acks = 0
            while acks < 2:
                acks += ws.receive_json()["type"] == "ack"
            history = client.app.state.rooms.get("half").sim.history  # type: ignore[attr-defined]
            assert history.precision == "float32"
            assert history.nbytes == history.capacity * History.row_bytes(1, "float32")
            rows = list(csv.reader(io.StringIO(client.get("/api/rooms/half/history.csv").text)))
        finally:
            ws.__exit__(None, None, None)
    numbers = [v for row in rows[1:] for v in row[1:]]  # all but Time
    digits = [len(v.lstrip("-").split("e")[0].replace(".", "").lstrip("0")) for v in numbers]
    assert max(digits) == 9  # a float32 needs up to 9; float64 would write 15
    assert len(rows) > 5


def test_meshes_and_materials(client: TestClient) -> None:
    body = client.get("/api/meshes").json()
    on_disk = json.loads((REPO / "meshes" / "meshes.json").read_text())
    assert body["meshes"] == (on_disk["meshes"] if isinstance(on_disk, dict) else on_disk)
    assert "Simple/Red" in body["materials"]
    first = body["meshes"][0]["file"]
    got = client.get(f"/meshes/{first}")
    assert got.status_code == 200 and got.content == (REPO / "meshes" / first).read_bytes()


def test_page_503_until_built_then_served(tmp_path: Path) -> None:
    web = tmp_path / "dist"
    with TestClient(create_app(Settings(web_dir=web, meshes_dir=tmp_path / "m"))) as client:
        reply = client.get("/")
        assert reply.status_code == 503 and "make setup" in reply.text
        assert client.get("/api/meshes").status_code == 503
        assert client.get("/api/health").status_code == 200  # the API works regardless
        (web / "assets").mkdir(parents=True)
        (web / "index.html").write_text("<title>sixdof page</title>")
        (web / "assets" / "main.js").write_text("console.log(1)")
        assert client.get("/").text == "<title>sixdof page</title>"
        assert client.get("/assets/main.js").text == "console.log(1)"


def test_hashed_files_are_kept_and_pages_revalidated(tmp_path: Path) -> None:
    """A built file under assets/ is named by its hash: kept a year, never asked again; a page
    (index.html, class/) is asked again at every load, so a new build reaches every phone,
    and answered 304 when it has not changed."""
    web = tmp_path / "dist"
    (web / "assets").mkdir(parents=True)
    (web / "class").mkdir()
    (web / "index.html").write_text("<title>sixdof page</title>")
    (web / "class" / "index.html").write_text("<title>class</title>")
    (web / "assets" / "main-CzMYHB8a.js").write_text("console.log(1)")
    with TestClient(create_app(Settings(web_dir=web, meshes_dir=tmp_path / "m"))) as client:
        asset = client.get("/assets/main-CzMYHB8a.js")
        assert asset.headers["cache-control"] == "public, max-age=31536000, immutable"
        for page in ("/", "/index.html", "/class/"):
            reply = client.get(page)
            assert reply.status_code == 200 and reply.headers["cache-control"] == "no-cache"
        etag = client.get("/").headers["etag"]
        again = client.get("/", headers={"If-None-Match": etag})
        assert again.status_code == 304 and again.content == b""


def test_protocol_schema_and_openapi(client: TestClient) -> None:
    schema = client.get("/api/protocol.schema.json").json()
    assert set(schema["discriminator"]["mapping"]) == set(
        schema["x-server-to-client"] + schema["x-client-to-server"]
    )
    paths = client.get("/openapi.json").json()["paths"]
    for path in (
        "/api/health",
        "/api/rooms/{room}/scenario",
        "/api/presets/{name}",
        "/api/meshes",
        "/api/rooms/{room}/history.csv",
    ):
        assert path in paths
    assert "put" in paths["/api/rooms/{room}/scenario"]
    assert client.get("/docs").status_code == 200


def test_room_stats_report_tick_timing(client: TestClient) -> None:
    ws = join(client, "stats")
    try:
        for _ in range(30):
            ws.receive_json()
        stats = client.get("/api/rooms/stats/stats").json()
        assert stats["clients"] == 1 and stats["seq"] >= 29
        assert 0.0 <= stats["tick_error_p50"] < 1 / 60  # ticks start within a frame
    finally:
        ws.__exit__(None, None, None)
