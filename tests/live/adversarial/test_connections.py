"""Connection-level attacks on a server of its own with small caps: slowloris and floods.

uvicorn has no timeout for a request's headers: connections that trickle their headers a
byte at a time used to pile up until new requests failed. With `header_timeout` they get
408 and are closed; beyond `max_connections_per_ip` a new connection gets 503 naming the
limit, and service resumes as soon as the crowd leaves.
"""

from __future__ import annotations

import contextlib
import json
import socket
import time
import urllib.request
from collections.abc import Iterator

import pytest
from support.serving import FLOAT, Served

PER_IP = 40


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    path = tmp_path_factory.mktemp("connections") / "float.json"
    path.write_text(json.dumps(FLOAT.model_dump(mode="json")))
    live = Served(
        "--limit", "header_timeout=1", "--limit", f"max_connections_per_ip={PER_IP}",
        scenario=path,
    )  # fmt: skip
    try:
        yield live
    finally:
        live.stop()
        assert "Traceback" not in "".join(live.lines)


def healthy(server: Served) -> bool:
    with urllib.request.urlopen(f"{server.url}/api/health", timeout=5) as reply:
        return reply.status == 200


def read_all(sock: socket.socket, timeout: float) -> bytes:
    sock.settimeout(timeout)
    data = b""
    with contextlib.suppress(OSError):
        while chunk := sock.recv(4096):
            data += chunk
    return data


def test_trickled_headers_get_408_and_service_continues(small: Served) -> None:
    with contextlib.ExitStack() as stack:
        socks = [
            stack.enter_context(socket.create_connection(("127.0.0.1", small.port)))
            for _ in range(30)
        ]
        started = time.monotonic()
        for sock in socks:
            sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-a: ")
        while time.monotonic() - started < 0.6:  # keep trickling, one byte per socket
            for sock in socks:
                with contextlib.suppress(OSError):
                    sock.sendall(b"a")
            assert healthy(small)  # the server still answers others meanwhile
        answers = [read_all(sock, 60.0) for sock in socks]  # a bound on failure, not a figure
    assert all(a.startswith(b"HTTP/1.1 408") for a in answers), answers[0][:200]
    assert b"not complete within 1 s" in answers[0]


def test_connections_beyond_the_per_address_cap_get_503_naming_it(small: Served) -> None:
    with contextlib.ExitStack() as stack:
        idle = [
            stack.enter_context(socket.create_connection(("127.0.0.1", small.port)))
            for _ in range(PER_IP)
        ]
        extra = stack.enter_context(socket.create_connection(("127.0.0.1", small.port)))
        refused = read_all(extra, 5.0)
        assert refused.startswith(b"HTTP/1.1 503")
        assert f"limit {PER_IP} per address".encode() in refused
        for sock in idle:
            sock.close()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:  # the closed ones are released: service resumes
        with contextlib.suppress(OSError):
            if healthy(small):
                break
    assert healthy(small)
