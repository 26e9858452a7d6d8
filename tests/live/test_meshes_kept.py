"""An uploaded mesh outlives `sixdof serve --data DIR` (issues 42 and 46): kept in the store,
by its content; after a restart on the same folder it is served and weighed as before."""

from __future__ import annotations

import json
import urllib.parse
import urllib.request
from pathlib import Path

from support.meshes import box, stl_bytes
from support.serving import Served

TOKEN = "kept-tok"
ROD = stl_bytes(box(1.0, 0.0625, 0.0625, (0.5, 0.0, 0.0)))


def upload(server: Served, data: bytes, name: str = "rod.stl") -> dict:
    request = urllib.request.Request(
        f"{server.url}/api/meshes?name={urllib.parse.quote(name)}", data=data, method="POST",
        headers={"Authorization": f"Bearer {TOKEN}"},
    )  # fmt: skip
    with urllib.request.urlopen(request, timeout=30) as reply:
        return dict(json.loads(reply.read()))


def fetched(server: Served, mesh_id: str) -> bytes:
    with urllib.request.urlopen(f"{server.url}/api/meshes/{mesh_id}", timeout=30) as reply:
        return bytes(reply.read())


def test_an_uploaded_mesh_is_there_after_a_restart(tmp_path: Path) -> None:
    server = Served("--data", str(tmp_path / "data"), token=TOKEN)
    try:
        first = upload(server, ROD)
        assert first["watertight"] and first["triangles"] == 12
        server.stop()
        server.start()  # the same --data, the same port
        assert fetched(server, first["id"]) == ROD
        again = upload(server, ROD)  # the same bytes: the same mesh, kept once
        assert again["id"] == first["id"] and again["volume"] == first["volume"]
        # a name a header cannot carry as it is (latin-1) is served all the same
        other = upload(server, stl_bytes(box(0.5, 0.5, 0.5)), "船.stl")
        with urllib.request.urlopen(f"{server.url}/api/meshes/{other['id']}") as reply:
            assert "UTF-8''%E8%88%B9.stl" in reply.headers["Content-Disposition"]
    finally:
        server.stop()
    server.check_log()
