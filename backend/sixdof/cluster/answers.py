"""A worker's REST answers on the bus: one NATS message, or for an answer larger than one
(`max_payload`) a first message with its head and first bytes and where to ask for the rest,
the answer kept meanwhile (bus.py: `more`)."""

from __future__ import annotations

import secrets
import time

from nats.aio.msg import Msg

from . import bus


class _Kept:
    """A large answer being sent in pieces, until `expires` (monotonic s)."""

    __slots__ = ("expires", "payload")

    def __init__(self, payload: bytes, expires: float) -> None:
        self.payload = payload
        self.expires = expires


def error(status: int, detail: str) -> bytes:
    """A JSON error answer on the bus, as a REST request's answer is packed."""
    body = bus.encode({"detail": detail})
    headers = [["content-type", "application/json"], ["content-length", str(len(body))]]
    return bus.pack_http({"status": status, "headers": headers}, body)


class LargeAnswers:
    """The answers of one worker being sent in pieces, asked for on `subject`."""

    def __init__(self, worker_id: str) -> None:
        self.subject = f"{bus.ANSWERS}.{worker_id}"
        self._kept: dict[str, _Kept] = {}

    async def respond(
        self, msg: Msg, max_payload: int, status: int, headers: list[list[str]], payload: bytes
    ) -> None:
        """Answer request `msg` with the REST answer (status, headers, payload): whole if it
        fits in one message of `max_payload` bytes, else its first piece."""
        answer = bus.pack_http({"status": status, "headers": headers}, payload)
        if len(answer) <= max_payload:
            await msg.respond(answer)
            return
        now = time.monotonic()
        for sid in [sid for sid, kept in self._kept.items() if kept.expires < now]:
            del self._kept[sid]
        if len(self._kept) >= bus.ANSWERS_KEPT:
            await msg.respond(error(503, (
                f"answer: {len(self._kept)} large answers are being sent already (at most "
                f"{bus.ANSWERS_KEPT}); try again in a few seconds"
            )))  # fmt: skip
            return
        sid = secrets.token_hex(8)
        more = {"subject": self.subject, "id": sid, "size": len(payload)}
        first = bus.encode({"status": status, "headers": headers, "more": more})
        piece = max(1024, max_payload - len(first) - 1024)
        self._kept[sid] = _Kept(payload, now + bus.ANSWER_TTL)
        await msg.respond(first + b"\n" + payload[:piece])

    async def on_more(self, msg: Msg, max_payload: int) -> None:
        """The next piece of a large answer: {"id", "offset"} -> its bytes from there, as
        many as one NATS message carries; nothing (b"") for an answer not kept."""
        try:
            ask = bus.decode(msg.data)
            kept, offset = self._kept.get(str(ask["id"])), int(ask["offset"])
        except (ValueError, KeyError, TypeError):
            kept, offset = None, 0
        if kept is None or not 0 <= offset < len(kept.payload):
            await msg.respond(b"")
            return
        end = offset + max_payload - 1024
        if end >= len(kept.payload):
            del self._kept[str(ask["id"])]  # the last piece: nothing more to keep
        else:
            kept.expires = time.monotonic() + bus.ANSWER_TTL
        await msg.respond(kept.payload[offset:end])
