"""server/guard.py: connection counting and the token scrubber, without a network."""

from __future__ import annotations

import logging

from sixdof.server.guard import ConnectionCount, TokenScrubber, scrub


class T:
    """A stand-in transport: only its identity matters to the count."""


def test_the_total_and_the_per_address_caps_name_their_limit() -> None:
    count = ConnectionCount(total=3, per_address=2)
    a1, a2, a3, b1, c1 = T(), T(), T(), T(), T()
    assert count.admit(a1, "10.0.0.1") is None and count.admit(a2, "10.0.0.1") is None
    assert count.admit(a1, "10.0.0.1") is None  # the same connection again: no double count
    assert count.admit(a3, "10.0.0.1") == "too many connections from 10.0.0.1 (limit 2 per address)"
    assert count.admit(b1, "10.0.0.2") is None
    assert count.admit(c1, "10.0.0.3") == "the server holds its maximum of 3 connections"
    count.release(a1)
    count.release(a1)  # released twice (HTTP, then the websocket): counted once
    assert len(count) == 2 and count.of("10.0.0.1") == 1
    assert count.admit(c1, "10.0.0.3") is None


def test_the_token_is_scrubbed_from_log_records() -> None:
    assert scrub("GET /?room=a&token=s3cret HTTP/1.1") == "GET /?room=a&token=*** HTTP/1.1"
    assert scrub('"WebSocket /ws?token=s3cret&room=b"') == '"WebSocket /ws?token=***&room=b"'
    args = ("127.0.0.1:5", "GET", "/api/x?token=abc", "1.1", 200)
    fmt = '%s - "%s %s HTTP/%s" %d'
    record = logging.LogRecord("uvicorn.access", logging.INFO, __file__, 1, fmt, args, None)
    assert TokenScrubber().filter(record)
    assert "abc" not in record.getMessage() and "token=***" in record.getMessage()
