"""deploy/haproxy.cfg in front of two gateways, as the compose `scale` profile runs it (with the
gateways' addresses on loopback): a viewer whose gateway is killed reconnects through the
proxy, as the page does, and finds its room running on the other gateway: its first attempt
is redispatched there (how soon is a figure on the clock: tests/timing/test_cluster_timing.py).

Needs Debian's haproxy (`make test` installs it with Chromium); skipped without it (by the
fixture, so that the timing tier can import it)."""

from __future__ import annotations

from websockets.sync.client import connect

from .conftest import Cluster, needs_the_bus
from .proxy import kill_the_viewers_gateway, proxied, rooms, state_t

needs_the_bus()

__all__ = ["proxied"]  # the fixture, used by name


def test_a_viewer_reconnects_through_the_proxy_when_its_gateway_dies(
    proxied: tuple[Cluster, str],
) -> None:
    cluster, url = proxied
    before, left = kill_the_viewers_gateway(cluster, url)
    # the page reconnects at once: its first attempt goes through (the proxy redispatches
    # it to the other gateway, not yet knowing the first one dead) …
    again = connect(url.replace("http", "ws") + "ws?room=lb", open_timeout=30).__enter__()
    try:
        after = state_t(again)
        assert "lb" in rooms(cluster.gateways[left])  # … to the gateway left
        assert after > before  # the same room, still running on its worker
    finally:
        again.close()
