"""POST /api/meshes: a mesh uploaded, checked and kept by its content, usable as a body's Mesh
in this server's rooms; authorised and bounded before it is read; hostile files refused
with the file and the reason, nothing stored, the server up. A rod whose inertia follows its
shape changes it live when its Size does."""

from __future__ import annotations

import json
import struct
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from support.meshes import box, stl_bytes

from sixdof.meshfiles import MAX_MESH_BYTES
from sixdof.meshstore import mesh_store
from sixdof.server import Settings, create_app

with warnings.catch_warnings():  # starlette asks for httpx2; httpx still works
    warnings.filterwarnings("ignore", message=".*httpx2.*")
    from fastapi.testclient import TestClient

pytestmark = pytest.mark.live
ROD = stl_bytes(box(1.0, 0.0625, 0.0625, (0.5, 0.0, 0.0)))  # a 1 m rod from its datum along x


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(Settings(token="tok"))) as c:
        yield c


def upload(client: TestClient, data: bytes, name: str) -> Any:
    return client.post(f"/api/meshes?token=tok&name={name}", content=data)


def test_upload_answers_id_and_what_it_is(client: TestClient) -> None:
    r = upload(client, ROD, "rod.stl")
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["id"].startswith("sha256:") and len(out["id"]) == 71
    assert out["triangles"] == 12 and out["watertight"] is True
    assert out["volume"] == pytest.approx(1.0 * 0.0625**2, rel=1e-12)
    assert out["bounds"] == [[0.0, -0.03125, -0.03125], [1.0, 0.03125, 0.03125]]
    assert upload(client, ROD, "again.stl").json()["id"] == out["id"]  # one mesh
    back = client.get(f"/api/meshes/{out['id']}")
    assert back.status_code == 200 and back.content == ROD
    assert client.get("/api/meshes/sha256:" + "0" * 64).status_code == 404


def test_token_origin_and_size_before_reading(client: TestClient) -> None:
    assert client.post("/api/meshes?name=rod.stl", content=ROD).status_code == 403
    evil = {"Origin": "http://evil.example"}
    r = client.post("/api/meshes?token=tok&name=rod.stl", content=ROD, headers=evil)
    assert r.status_code == 403
    r = client.post("/api/meshes?token=tok&name=big.stl", content=b"\0" * (MAX_MESH_BYTES + 1))
    assert r.status_code == 413
    r = upload(client, ROD, "rod.mesh")
    assert r.status_code == 422 and "unsupported mesh format" in r.json()["detail"]


def hostile() -> list[tuple[str, bytes, str]]:
    liar = bytearray(ROD)
    liar[80:84] = struct.pack("<I", 10**9)
    nan = box(1.0, 1.0, 1.0)
    nan[2, 1, 1] = np.inf
    external = json.dumps({"asset": {"version": "2.0"}, "buffers": [{"uri": "/etc/passwd"}]})
    return [
        ("liar.stl", bytes(liar), "liar.stl: its STL header claims 1,000,000,000 triangles"),
        ("inf.stl", stl_bytes(nan), "inf.stl: vertex coordinates must be finite"),
        ("ext.gltf", external.encode(), "ext.gltf: buffers[0] points at another file"),
        ("junk.glb", b"glTF\x02\0\0\0" + b"\xff" * 40, "junk.glb: "),
    ]


@pytest.mark.parametrize(("name", "data", "reason"), hostile(), ids=lambda v: str(v)[:12])
def test_hostile_files_refused_with_the_reason(
    client: TestClient, name: str, data: bytes, reason: str
) -> None:
    r = upload(client, data, name)
    assert r.status_code == 422 and reason in r.json()["detail"]
    from sixdof.meshstore import mesh_id

    assert mesh_store().get(mesh_id(data)) is None  # nothing half-stored
    assert upload(client, ROD, "rod.stl").status_code == 200  # the server is up


def test_open_mesh_is_kept_but_refused_as_a_solid(client: TestClient) -> None:
    r = upload(client, stl_bytes(box(1.0, 1.0, 1.0)[:-1]), "lid.stl")
    assert r.status_code == 200 and r.json()["watertight"] is False and r.json()["volume"] is None
    body = {"Name": "L", "Mesh": r.json()["id"], "InertiaFrom": "solid"}
    put = client.put("/api/rooms/lid/scenario?token=tok", json={"bodies": [body]})
    assert put.status_code == 422
    assert "lid.stl is open: 3 boundary edges" in json.dumps(put.json())


def recv(ws: Any, *types: str) -> dict[str, Any]:
    for _ in range(400):
        msg = ws.receive_json()
        if msg["type"] in types:
            return dict(msg)
    raise AssertionError(f"no {types}")


def test_rod_inertia_follows_its_size_live(client: TestClient) -> None:
    """A solid rod of length L about its CG: I = m L²/12 (+ its thickness); doubling Size
    along the rod at the same Mass gives 4× the transverse inertia, CG twice as far out."""
    rod = upload(client, ROD, "rod.stl").json()["id"]
    body = {"Name": "Rod", "Mesh": rod, "InertiaFrom": "solid", "Mass": 2.0}
    assert client.put("/api/rooms/rod/scenario?token=tok", json={"bodies": [body]}).is_success
    with client.websocket_connect("/ws?room=rod&token=tok") as ws:
        spec = recv(ws, "hello")["scenario"]["bodies"][0]
        t = 0.0625
        assert spec["Inertia"][1] == pytest.approx(2.0 * (1.0 + t * t) / 12, rel=1e-12)
        assert spec["CGOffset"] == pytest.approx([0.5, 0.0, 0.0])
        ws.send_text(json.dumps({"type": "set_params", "Size": [2.0, 1.0, 1.0]}))
        assert recv(ws, "ack", "error")["type"] == "ack"
        spec = recv(ws, "hello")["scenario"]["bodies"][0]
        assert spec["Inertia"][1] == pytest.approx(2.0 * (4.0 + t * t) / 12, rel=1e-12)
        assert spec["CGOffset"] == pytest.approx([1.0, 0.0, 0.0])
        assert spec["MeshOrigin"] == pytest.approx([-1.0, 0.0, 0.0])
        ws.send_text(json.dumps({"type": "set_params", "Inertia": [1, 1, 1, 0, 0, 0]}))
        refused = recv(ws, "ack", "error")
        assert refused["type"] == "error" and "follows the shape" in refused["message"]
