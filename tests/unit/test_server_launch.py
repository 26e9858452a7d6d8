"""`sixdof serve`'s launcher: the URL it prints and the socket it listens on."""

from __future__ import annotations

import socket

import pytest
import uvicorn

from sixdof.server.launch import SEND_BUFFER, listening_socket, page_url


@pytest.mark.parametrize(
    ("host", "token", "url"),
    [
        ("127.0.0.1", None, "http://127.0.0.1:8000/"),
        ("127.0.0.1", "a b&c", "http://127.0.0.1:8000/?token=a+b%26c"),
        ("0.0.0.0", None, "http://127.0.0.1:8000/"),  # a wildcard bind is shown as loopback
        ("::", None, "http://[::1]:8000/"),
        ("::1", None, "http://[::1]:8000/"),
        ("lab.example", "t", "http://lab.example:8000/?token=t"),
    ],
)
def test_page_url(host: str, token: str | None, url: str) -> None:
    assert page_url(host, 8000, token) == url


def test_accepted_connections_inherit_the_small_send_buffer() -> None:
    """Latest-wins only helps once the kernel stops absorbing frames for a slow client."""
    config = uvicorn.Config(app=lambda: None, host="127.0.0.1", port=0, log_level="error")
    listener = listening_socket(config)
    try:
        listener.listen()
        port = listener.getsockname()[1]
        with socket.create_connection(("127.0.0.1", port)) as _client:
            accepted, _ = listener.accept()
            with accepted:
                size = accepted.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
        # Linux doubles the requested size for its bookkeeping and no longer autotunes it
        assert SEND_BUFFER <= size <= 2 * SEND_BUFFER
    finally:
        listener.close()
