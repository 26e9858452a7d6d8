"""Two workers and two gateways on a real NATS server: one room seen through both gateways,
driven through one, surviving the SIGKILL of its worker and of a gateway.

The body floats (no gravity, mass 2 kg); after a push of F = 50 N along y its velocity is
v_y = F/m (t − t₀) exactly (RK4 integrates a constant acceleration exactly), which is what
"the state is continuous" is checked against after the room moves to the other worker.

How long the room paused at the takeover and the frame rate through the other gateway are
figures on the clock: tests/timing/test_cluster_timing.py. Here: the frames come again, the
room's state is continuous, and a gateway's death holds neither the other gateway's event
loop nor the worker's (their loop probes).
"""

from __future__ import annotations

import asyncio
import json
import time
import urllib.request

from .conftest import CLUSTER_HELD_S, Cluster, Held, needs_the_bus
from .viewers import FORCE, MASS, Viewer, launch_time, push, snapshot_after

needs_the_bus()


def test_one_room_through_two_gateways_survives_its_worker_and_a_gateway(
    cluster: Cluster,
) -> None:
    from sixdof.cluster.bus import PRESENCE_TIMEOUT

    a = Viewer(cluster.gateways[0], "lab")
    b = Viewer(cluster.gateways[1], "lab")
    try:
        # both gateways relay the same frames of the one simulation (a wait: which frames a
        # viewer that is behind skips is the load's, latest-wins)
        a.wait(lambda: len({f[1] for f in a.frames} & {f[1] for f in b.frames}) >= 20)

        push(a)  # a command through gateway A …
        pushed = time.monotonic()
        b.wait(lambda: sum(f[2] > 0 for f in b.frames_since(pushed)) >= 10)
        t0 = launch_time([f for f in b.frames if f[2] > 0])  # … moves the body seen via B

        # SIGKILL the worker that owns the room: the other one resumes it
        owner = cluster.owner("lab")
        asyncio.run(snapshot_after(cluster.nats_url, "lab", t0))  # it holds the push
        killed = time.monotonic()
        owner.kill()
        survivor = cluster.owner("lab")  # it says so once it owns the room
        assert survivor is not owner
        taken = time.monotonic()  # the dead owner's last frames came ≥ 1.5 s ago
        for v in (a, b):
            # frames come again (how long they paused is the timing tier's) …
            v.wait(lambda v=v: len(v.frames_since(taken)) >= 10, timeout=60)
            before = [f for f in v.frames if f[0] <= killed]
            after = v.frames_since(taken)
            # … continuous: resumed from a snapshot at most ~1 s old, on the same trajectory
            assert after[0][1] >= before[-1][1] - 1.5, (before[-1], after[0])
            for _, t, v_y in after[-5:]:
                assert abs(v_y - FORCE / MASS * (t - t0)) < 1e-6 * max(1.0, v_y), (t, v_y)
            # the snapshot carried the recording: the timeline still reaches back to t = 0
            assert v.recorded_from[-1] == 0.0, v.recorded_from[-3:]
            assert not v.disconnected

        # SIGKILL gateway A: B's viewer goes on, neither B's loop nor the worker's is held
        said = survivor.output.count("room lab")
        with Held(cluster.gateways[1]) as gateway, Held(cluster.gateways[1], "lab") as worker:
            cluster.gateway_procs[0].kill()
            a.wait(lambda: a.disconnected, timeout=30)
            t_kill = b.frames[-1][1]
            # until A's presence has lapsed (simulated time runs no faster than the clock)
            b.wait(lambda: b.frames[-1][1] > t_kill + PRESENCE_TIMEOUT + 1.0, timeout=60)
        print(f"gateway A killed: gateway B's loop held {gateway.longest * 1e3:.1f} ms, the "
              f"worker's {worker.longest * 1e3:.1f} ms of CPU at most")  # fmt: skip
        assert gateway.longest <= CLUSTER_HELD_S, f"gateway B's loop held {gateway.longest:.3f} s"
        assert worker.longest <= CLUSTER_HELD_S, f"the worker's loop held {worker.longest:.3f} s"
        assert not b.disconnected, b.ended
        clock = [t for _, t, _ in b.frames if t > t_kill]
        assert len(clock) >= 30 and clock == sorted(clock), clock[:10]
        for _, t, v_y in b.frames[-5:]:  # the same room, on its trajectory
            assert abs(v_y - FORCE / MASS * (t - t0)) < 1e-6 * max(1.0, v_y), (t, v_y)
        # the worker kept the room for B's viewer: no takeover, no close
        assert "left room lab" not in survivor.output, survivor.output[-2000:]
        assert survivor.output.count("room lab") == said, survivor.output[-2000:]

        # REST through the other gateway reaches the room on its worker
        with urllib.request.urlopen(f"{cluster.gateways[1]}api/rooms/lab/stats") as r:
            stats = json.loads(r.read())
        assert stats["room"] == "lab" and stats["clients"] >= 1
    finally:
        a.close()
        b.close()
