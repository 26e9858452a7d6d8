"""Proof of control on the bus: a worker decides itself who may control its rooms.

A gateway checks the token of every viewer, but a worker does not take its word for it:
anyone who can publish on the bus could say the same. When the workers have a token, a
control message on `room.<room>.cmd` and a request on `sixdof.open` for a room of someone
who may control carry a proof only the holder of the token can make, an HMAC-SHA256 keyed
by the token over what the message asks, the room, when it was made and which message of
its sender it is:

- a message without a good proof is refused (`forbidden`, naming the token) before
  anything in it is validated; an open without one makes a watcher's room, capped apart
  (`max_watcher_rooms`) whatever the request says;
- a proof made more than PROOF_TTL s before (or after: clocks of the bus's machines are
  trusted to within that) is refused, and so is each message a second time: every proof
  names its sender (a gateway's room, `session`) and its number there (`seq`, one more
  for each message), and the worker keeps, per sender, the highest number it took and
  which of the WINDOW before it it took (RFC 4303's anti-replay window, for messages that
  overtake each other).

Without a token everybody may control, as under `sixdof serve`, and no proof is asked for;
the bus's credentials (login.py) are then the only lock on the bus.

Nor is the budget a message says its sender has left taken as it comes: a worker spends on
one message at most what one address may ever bank (`work_burst`, `budget`).
"""

from __future__ import annotations

import hashlib
import hmac
import math
import secrets
import time
from collections.abc import Callable
from typing import Any

from ..server.errors import Refusal, read_client_message

PROOF_TTL = 30.0  # s a proof is good for (and the most two machines' clocks may differ)
WINDOW = 64  # messages of one sender that may arrive out of order


def _mac(token: str, parts: tuple[str, ...]) -> str:
    text = "\n".join(("sixdof-bus/1", *parts)).encode()
    return hmac.new(token.encode(), text, hashlib.sha256).hexdigest()


class Signer:
    """A gateway's side: proofs for the messages of one of its rooms (a sender)."""

    def __init__(self, token: str | None, clock: Callable[[], float] = time.time) -> None:
        self.token = token
        self.clock = clock
        self.session = secrets.token_hex(8)
        self.seq = 0

    def proof(self, kind: str, room: str, text: str = "") -> dict[str, Any] | None:
        """The proof of one message (None without a token: nobody asks for one)."""
        if self.token is None:
            return None
        self.seq += 1
        at = repr(self.clock())
        mac = _mac(self.token, (kind, room, self.session, str(self.seq), at, text))
        return {"session": self.session, "seq": self.seq, "at": at, "mac": mac}


class _Seen:
    """One sender's numbers: the highest taken and a bitmap of the WINDOW before it."""

    __slots__ = ("bits", "last_at", "top")

    def __init__(self) -> None:
        self.top = 0
        self.bits = 0
        self.last_at = 0.0


class Checker:
    """A worker's side: whether a message's proof is good, fresh and new."""

    def __init__(self, token: str | None, clock: Callable[[], float] = time.time) -> None:
        self.token = token
        self.clock = clock
        self._seen: dict[str, _Seen] = {}
        self._forget_at = 0.0

    @property
    def required(self) -> bool:
        return self.token is not None

    def check(self, proof: Any, kind: str, room: str, text: str = "") -> str | None:
        """None if `proof` shows its sender holds the token (and takes its number), else
        why not, for the refusal."""
        if self.token is None:
            return None
        if not isinstance(proof, dict):
            return "no proof that its sender holds the token"
        try:
            session, seq, at = str(proof["session"]), int(proof["seq"]), str(proof["at"])
            mac, made = str(proof["mac"]), float(at)
        except (KeyError, TypeError, ValueError):
            return "a malformed proof"
        expected = _mac(self.token, (kind, room, session, str(seq), at, text))
        if not hmac.compare_digest(mac, expected):
            return "a proof made without this worker's token"
        now = self.clock()
        if not abs(now - made) <= PROOF_TTL:  # also refuses NaN
            return (f"a proof {abs(now - made):.0f} s old or early by this worker's clock "
                    f"(good for {PROOF_TTL:g} s)")  # fmt: skip
        self._forget(now)
        seen = self._seen.setdefault(session, _Seen())
        if seq > seen.top:
            shift = seq - seen.top
            seen.bits = ((seen.bits << shift) | 1) & ((1 << WINDOW) - 1) if shift < WINDOW else 1
            seen.top = seq
        else:
            back = seen.top - seq
            if seq <= 0 or back >= WINDOW or seen.bits >> back & 1:
                return "a message sent before (a replay)"
            seen.bits |= 1 << back
        seen.last_at = now
        return None

    def _forget(self, now: float) -> None:
        """Drop senders silent for 2 PROOF_TTL: any message of theirs is stale by then,
        whatever the clocks (a gateway's room gets a new sender when it opens again)."""
        if now < self._forget_at:
            return
        self._forget_at = now + 1.0
        for session in [s for s, seen in self._seen.items() if now - seen.last_at > 2 * PROOF_TTL]:
            del self._seen[session]


def forbidden(text: str, why: str) -> str:
    """The `forbidden` reply to a command whose proof failed (`why`), with its id."""
    try:
        mid = read_client_message(text)[2]
    except Refusal:
        mid = None
    return Refusal("forbidden", (
        f"token: this room's worker refused the command: {why} (the gateways and workers "
        "of one bus must share one --token)"
    ), "token", mid).text()  # fmt: skip


def budget(claimed: Any, burst: float) -> float:
    """The seconds of budget a control message may use: what its gateway says its sender
    has left, but never more than one address may bank (work_burst), nor a number that is
    none (NaN, a string): a message is not trusted with the worker's time."""
    try:
        left = float(claimed)
    except (TypeError, ValueError):
        return 0.0
    return min(left, burst) if math.isfinite(left) else 0.0
