"""A real `sixdof serve --token` on a loopback port, attacked; a bystander watching another room.

Every attack test a worker runs goes to the same server process (one per worker, stopped
when the worker leaves this folder, a package for that) and asserts the defended outcome;
where an attack could stall the server, it asserts on the server's loop probe that the event
loop was never held longer than MAX_HELD_S of CPU at a stretch (support/adversary.py). When
the server stops, its log must hold no traceback, no HTTP 500 and never the token.
"""

from __future__ import annotations

from support.adversary import bystander, many_bodies, server

__all__ = ["bystander", "many_bodies", "server"]
