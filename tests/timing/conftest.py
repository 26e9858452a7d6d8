"""The timing tier: wall-clock figures, run alone (`make test-timing`, after a check that the
machine is quiet enough for them to mean something). The adversarial server and its bystander
are the live tier's (support/adversary.py)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest
from support.adversary import bystander, many_bodies, server

__all__ = ["bystander", "many_bodies", "server"]


@pytest.fixture(autouse=True)
def heap_as_the_servers() -> Iterator[None]:
    """This process's heap out of the collector's sight for each test, as a server's is from
    its start (launch.quiet_garbage_collector). The bystander's frames are timed here, in the
    test process: late in the tier a full collection of the earlier tests' leftovers held
    its reader (seek/undo's first burst: a 65-66 ms gap in two tier runs, 24-29 ms again or
    alone), and one ran inside a 0.2 s look back (106 ms of CPU against 7.5 ms alone): costs
    of the test process that the server does not have."""
    thresholds = gc.get_threshold()
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 10)
    try:
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)
