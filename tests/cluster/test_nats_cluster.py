"""Three clustered nats-servers (JetStream, buckets of 3 replicas), two workers and a
gateway given all three URLs: each NATS node is SIGKILLed in turn (the one before started
again first). Every time the viewer's frames resume, the room stays with its worker (its
clock never goes back, as a takeover from a snapshot would make it), neither the worker's
event loop nor the gateway's is held long (their loop probes), and the pushed body stays on
its exact trajectory v_y = F/m (t − t₀). How long the frames paused is a figure on the clock:
tests/timing/test_cluster_timing.py.

Losing a node that leads a bucket leaves the bucket without writes for several seconds
(4–7 s measured) while its copies elect a new leader: nobody can renew a lease meanwhile,
and the idle worker must not take that silence for a dead owner (leases.py)."""

from __future__ import annotations

import asyncio
import itertools
import time

from .conftest import CLUSTER_HELD_S, Cluster, Held, needs_the_bus
from .nodes import NODES, beating, replicated, three
from .viewers import FORCE, MASS, Viewer, launch_time, push

needs_the_bus()

__all__ = ["three"]  # the fixture, used by name


def test_losing_each_nats_node_in_turn_pauses_the_room_and_never_resets_it(
    three: Cluster,
) -> None:
    urls = three.nodes.urls
    base = three.gateways[0]
    viewer = Viewer(base, "lab")
    try:
        viewer.wait(lambda: len(viewer.frames) > 30, timeout=60)
        push(viewer)
        pushed = time.monotonic()
        viewer.wait(lambda: sum(f[2] > 0 for f in viewer.frames_since(pushed)) >= 10)
        t0 = launch_time([f for f in viewer.frames if f[2] > 0])
        owner = three.owner("lab")
        owner_id = owner.wait_for(r"worker (w-\w+) owns room lab").group(1)
        asyncio.run(replicated(urls))

        for node in range(NODES):
            if node > 0:
                three.nodes.restart(node - 1)
                asyncio.run(replicated(urls))
            with Held(base) as gateway, Held(base, "lab") as worker:
                killed = time.monotonic()
                three.nodes.kill(node)
                # frames come again (from the same worker) …
                viewer.wait(lambda k=killed: len(viewer.frames_since(k + 0.5)) >= 30, timeout=60)
                # … and once the buckets elected their leaders again, the owner beats again,
                # the lease still its own (the other worker did not take the silence for death)
                asyncio.run(beating(urls, "lab", owner_id, 4, timeout=60))
            print(f"node {node} lost: the loops held {gateway.longest * 1e3:.1f} ms (gateway), "
                  f"{worker.longest * 1e3:.1f} ms (worker) of CPU at most")  # fmt: skip
            assert worker.first["server"] == owner_id, worker.first  # the room's own worker …
            # … and its gateway never held their loops long, whichever node they lost
            held = gateway.longest
            assert held <= CLUSTER_HELD_S, f"node {node}: gateway {held:.3f} s"
            assert worker.longest <= CLUSTER_HELD_S, f"node {node}: worker {worker.longest:.3f} s"
            assert not viewer.disconnected, viewer.ended

        three.nodes.restart(NODES - 1)
        frames = viewer.frames_since(pushed)
        # the clock never went back: no resume from an older snapshot, no reset (two frames
        # may show the same t: a tick that comes right after a late one has no step to make)
        backwards = [(a[1], b[1]) for a, b in itertools.pairwise(viewer.frames) if b[1] < a[1]]
        assert not backwards, f"the room's clock went back: {backwards[:5]}"
        assert viewer.frames[-1][1] > 10.0, viewer.frames[-1]  # it ran all along
        # continuous: every frame since the push on the one trajectory
        for _, t, v_y in frames:
            assert abs(v_y - FORCE / MASS * (t - t0)) < 1e-6 * max(1.0, v_y), (t, v_y, t0)
        # every node was lost once, so the owner and the gateway each lost theirs and
        # failed over to another (nats-py picks the first at random)
        for proc in (owner, three.gateway_procs[0]):
            assert "reconnected to NATS" in proc.output, proc.output[-2000:]
        # and it never left its worker
        for proc in three.workers:
            assert "takes over room lab" not in proc.output, proc.output[-2000:]
            assert "is silent; taking over" not in proc.output, proc.output[-2000:]
            assert "lost the lease" not in proc.output, proc.output[-2000:]
    finally:
        viewer.close()
