"""The timing tier: wall-clock figures, run alone (`make test-timing`, after a check that the
machine is quiet enough for them to mean something). The adversarial server and its bystander
are the live tier's (support/adversary.py)."""

from __future__ import annotations

from support.adversary import bystander, many_bodies, server

__all__ = ["bystander", "many_bodies", "server"]
