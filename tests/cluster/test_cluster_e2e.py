"""Two workers and two gateways on a real NATS server: one room seen through both gateways,
driven through one, surviving the SIGKILL of its worker and of a gateway.

The body floats (no gravity, mass 2 kg); after a push of F = 50 N along y its velocity is
v_y = F/m (t − t₀) exactly (RK4 integrates a constant acceleration exactly), which is what
"the state is continuous" is checked against after the room moves to the other worker.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
import urllib.request

from .conftest import Cluster, needs_the_bus
from .viewers import FORCE, MASS, Viewer, launch_time, push, snapshot_after

needs_the_bus()


def test_one_room_through_two_gateways_survives_its_worker_and_a_gateway(
    cluster: Cluster,
) -> None:
    a = Viewer(cluster.gateways[0], "lab")
    b = Viewer(cluster.gateways[1], "lab")
    try:
        a.wait(lambda: len(a.frames) > 30)
        b.wait(lambda: len(b.frames) > 30)
        # both gateways relay the same frames of the one simulation
        common = {f[1] for f in a.frames} & {f[1] for f in b.frames}
        assert len(common) >= 20, (a.frames[-3:], b.frames[-3:])

        push(a)  # a command through gateway A …
        pushed = time.monotonic()
        b.wait(lambda: sum(f[2] > 0 for f in b.frames_since(pushed)) >= 10)
        t0 = launch_time([f for f in b.frames if f[2] > 0])  # … moves the body seen via B

        # SIGKILL the worker that owns the room: the other one resumes it
        owner = cluster.owner("lab")
        asyncio.run(snapshot_after(cluster.nats_url, "lab", t0))  # it holds the push
        killed = time.monotonic()
        owner.kill()
        for v in (a, b):
            v.wait(lambda v=v: any(f[0] > killed + 0.1 for f in v.frames), timeout=10)
        survivor = cluster.owner("lab")
        assert survivor is not owner
        for v in (a, b):
            v.wait(lambda v=v: len([f for f in v.frames if f[0] > killed]) >= 10)
            before = [f for f in v.frames if f[0] <= killed]
            after = [f for f in v.frames if f[0] > killed]
            arrivals = [f[0] for f in before[-1:] + after]
            gap = max(y - x for x, y in itertools.pairwise(arrivals))
            print(f"a viewer saw the room pause {gap:.2f} s")
            assert gap < 3.0, f"the room paused {gap:.2f} s"
            # continuous: resumed from a snapshot at most ~1 s old, on the same trajectory
            assert after[0][1] >= before[-1][1] - 1.5, (before[-1], after[0])
            for _, t, v_y in after[-5:]:
                assert abs(v_y - FORCE / MASS * (t - t0)) < 1e-6 * max(1.0, v_y), (t, v_y)
            # the snapshot carried the recording: the timeline still reaches back to t = 0
            assert v.recorded_from[-1] == 0.0, v.recorded_from[-3:]
            assert not v.disconnected

        # SIGKILL gateway A: B's viewer keeps its full frame rate
        cluster.gateway_procs[0].kill()
        a.wait(lambda: a.disconnected, timeout=10)
        start = time.monotonic()
        b.wait(lambda: b.frames[-1][0] > start + 2.0, timeout=10)
        rate = len([f for f in b.frames_since(start) if f[0] <= start + 2.0]) / 2.0
        assert rate >= 50.0, f"gateway B's viewer got {rate:.1f} fps"
        assert not b.disconnected

        # REST through the other gateway reaches the room on its worker
        with urllib.request.urlopen(f"{cluster.gateways[1]}api/rooms/lab/stats") as r:
            stats = json.loads(r.read())
        assert stats["room"] == "lab" and stats["clients"] >= 1
    finally:
        a.close()
        b.close()
