"""A real `sixdof serve --token` on a loopback port, attacked; a bystander watching another room.

Every attack test runs against the same server process and asserts the defended outcome;
where an attack could stall the server, it asserts on the server's loop probe that the event
loop was never held longer than MAX_HELD_S of CPU at a stretch (support/adversary.py). At the
end of the session the server's log must hold no traceback, no HTTP 500 and never the token.
"""

from __future__ import annotations

from support.adversary import bystander, many_bodies, server

__all__ = ["bystander", "many_bodies", "server"]
