"""The NATS servers of `--nats`, read without nats-py (the command line checks them before
the cluster extra is imported)."""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlsplit


def parse_urls(values: str | Sequence[str]) -> list[str]:
    """The NATS servers of `--nats`: each value one URL or a comma-separated list of them.
    Raises ValueError naming the option and the bad URL."""
    items = [values] if isinstance(values, str) else list(values)
    urls = [u.strip() for item in items for u in item.split(",") if u.strip()]
    if not urls:
        raise ValueError("--nats: give at least one server, e.g. nats://127.0.0.1:4222")
    for url in urls:
        parts = urlsplit(url if "://" in url else f"nats://{url}")
        try:
            port = parts.port
        except ValueError:
            port = -1
        if (
            parts.scheme not in ("nats", "tls", "ws", "wss")
            or not parts.hostname
            or (port is not None and not 0 < port < 65536)
        ):
            raise ValueError(
                f"--nats: {url!r} is not a NATS server URL (nats://HOST:PORT; several: "
                "comma-separated or --nats repeated)"
            )
    return urls
