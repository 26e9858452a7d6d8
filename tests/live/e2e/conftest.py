"""A real `sixdof serve` on a free loopback port, as a separate process, for end-to-end tests
(the launcher is tests/support/serving.py). Clients use the `websockets` library."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from support.serving import FLOAT, MASS, Served, scenario_file

__all__ = ["FLOAT", "MASS", "Served"]


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    server = Served(scenario=scenario_file(tmp_path_factory.mktemp("e2e")))
    try:
        yield server
    finally:
        server.stop()
        assert server.proc.returncode is not None
        assert "Traceback" not in server.output, server.output[-4000:]
