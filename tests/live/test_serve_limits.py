"""`sixdof serve --limit NAME=VALUE` for every name it lists, including those `serve` also takes
as arguments (frame_rate, room_ttl): they crashed with "got multiple values for keyword"."""

from __future__ import annotations

from support.serving import Served
from websockets.sync.client import connect


def test_frame_rate_and_room_ttl_as_limits_start_the_server_with_them() -> None:
    server = Served("--limit", "frame_rate=20", "--limit", "room_ttl=7")
    try:
        assert server.get_json("/api/health")["status"] == "ok"
        with connect(f"{server.ws_url}?room=limits") as ws:
            while '"type":"state"' not in str(ws.recv(timeout=60)):  # joined, ticking
                pass
            assert server.get_json("/api/rooms/limits/stats")["frame_rate"] == 20.0
    finally:
        server.stop()
