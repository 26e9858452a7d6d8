"""The notebook's live run keeps the real-time factor it is asked for (a wall-clock figure,
measured alone by `make test-timing`)."""

from __future__ import annotations

import asyncio
import re

import pytest

pytest.importorskip("pythreejs")

from support.notebook_runs import status_while_running

from sixdof.notebook import BodyView


def test_a_live_run_is_paced_at_the_scaled_rate() -> None:
    scenario = {"name": "t", "bodies": [{"Name": "B", "Gravity": 0.0}],
                "integration": {"method": "rk4", "stepsize": 1e-3}}  # fmt: skip
    view = BodyView(scenario)
    view.set_time_scale(0.11)
    seen = asyncio.run(status_while_running(view))
    match = re.search(r"real-time factor ([0-9.]+)", seen)
    assert match is not None and float(match.group(1)) == pytest.approx(0.11, abs=0.02), seen
