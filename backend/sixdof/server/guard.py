"""The connection layer's defences, below the app: connection caps, a header timeout, clear
closing errors, and a log that never shows the token.

uvicorn takes its HTTP and websocket protocol classes as options; `protocols(settings)`
returns its own two (httptools and websockets-sansio) with these additions and nothing else
changed:

- a connection beyond `max_connections` in total or `max_connections_per_ip` from one
  address gets HTTP 503 naming the limit, before any request is read;
- a request whose headers are not complete within `header_timeout` seconds gets 408 and
  is closed, so connections that trickle headers (slowloris) cannot pile up;
- a websocket message that is not UTF-8 text (close 1007) or is over the protocol layer's
  size limit (1009) gets an `error` message naming the reason just before the close;
- an accepted websocket offers the app a `wire.Wire` in its scope, through which the rooms
  write each tick's state frame straight to the transport (wire.py says why).

A connection is counted from its first byte to its close, across the upgrade from HTTP to
websocket (both protocol objects share the transport, which is what is counted).
"""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.frames import Frame, Opcode

from .errors import Refusal
from .settings import Settings
from .wire import Wire

log = logging.getLogger("sixdof.server")


class ConnectionCount:
    """Open connections in total and per address, keyed by their transport."""

    def __init__(self, total: int, per_address: int) -> None:
        self.total_cap = total
        self.per_address_cap = per_address
        self._address_of: dict[int, str] = {}
        self._per_address: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self._address_of)

    def of(self, address: str) -> int:
        return self._per_address.get(address, 0)

    def admit(self, transport: asyncio.BaseTransport, address: str) -> str | None:
        """Count the connection; None if it may stay, else why not (the count is unchanged)."""
        key = id(transport)
        if key in self._address_of:
            return None
        if len(self._address_of) >= self.total_cap:
            return f"the server holds its maximum of {self.total_cap} connections"
        if self.of(address) >= self.per_address_cap:
            return f"too many connections from {address} (limit {self.per_address_cap} per address)"
        self._address_of[key] = address
        self._per_address[address] = self.of(address) + 1
        return None

    def release(self, transport: asyncio.BaseTransport) -> None:
        address = self._address_of.pop(id(transport), None)
        if address is None:
            return
        left = self._per_address[address] - 1
        if left:
            self._per_address[address] = left
        else:
            del self._per_address[address]


def _plain_response(status: str, text: str) -> bytes:
    body = text.encode()
    return (
        f"HTTP/1.1 {status}\r\ncontent-type: text/plain; charset=utf-8\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    ).encode() + body


def _address(transport: asyncio.BaseTransport) -> str:
    peer = transport.get_extra_info("peername")
    if isinstance(peer, tuple) and peer:
        return str(peer[0])
    return "unknown"


def protocols(settings: Settings) -> tuple[type[HttpToolsProtocol], type[WebSocketsSansIOProtocol]]:
    """uvicorn's `http` and `ws` protocol classes with the defences of this module."""
    count = ConnectionCount(settings.max_connections, settings.max_connections_per_ip)
    header_timeout = settings.header_timeout

    class GuardedHttp(HttpToolsProtocol):
        _header_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]  # uvicorn's own signature
            super().connection_made(transport)
            refused = count.admit(transport, _address(transport))
            if refused is not None:
                log.warning("refused a connection: %s", refused)
                transport.write(_plain_response("503 Service Unavailable", refused + "\n"))
                transport.close()
                return
            self._arm_header_timer()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm_header_timer()
            if self.transport.get_protocol() is self:  # not upgraded: the websocket counts it
                count.release(self.transport)
            super().connection_lost(exc)

        def on_message_begin(self) -> None:
            super().on_message_begin()
            if self._header_timer is None:
                self._arm_header_timer()

        def on_headers_complete(self) -> None:
            self._disarm_header_timer()
            super().on_headers_complete()

        def handle_websocket_upgrade(self) -> None:
            self._disarm_header_timer()
            super().handle_websocket_upgrade()

        def _arm_header_timer(self) -> None:
            self._header_timer = self.loop.call_later(header_timeout, self._headers_too_slow)

        def _disarm_header_timer(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _headers_too_slow(self) -> None:
            self._header_timer = None
            if self.transport.is_closing() or (self.cycle and not self.cycle.response_complete):
                return
            text = f"request headers not complete within {header_timeout:g} s\n"
            self.transport.write(_plain_response("408 Request Timeout", text))
            self.transport.close()

    class GuardedWebSocket(WebSocketsSansIOProtocol):
        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            count.admit(transport, _address(transport))  # counted already by GuardedHttp

        def connection_lost(self, exc: Exception | None) -> None:
            count.release(self.transport)
            super().connection_lost(exc)

        def handle_connect(self, event: Any) -> None:
            super().handle_connect(event)
            scope = getattr(self, "scope", None)
            if scope is not None:  # accepted: the app may write state frames directly
                scope["extensions"]["sixdof.wire"] = Wire(self)

        def send_receive_event_to_app(self) -> None:
            if self.curr_msg_data_type == "text" and not self.close_sent:
                try:
                    b"".join(self.frames).decode()
                except UnicodeDecodeError:  # uvicorn would log a traceback: answer instead
                    self.frames = []
                    self.transport.write(_error_frame(1007, ""))
                    self.conn.send_close(1007, "invalid UTF-8")
                    self.handle_parser_exception()
                    return
            super().send_receive_event_to_app()

        def data_received(self, data: bytes) -> None:
            self.conn.receive_data(data)
            if self.conn.parser_exc is not None:
                close = self.conn.close_sent
                if close is not None and close.code in (1007, 1009):
                    self.transport.write(_error_frame(close.code, close.reason))
                self.handle_parser_exception()
                return
            if self.conn.handshake_exc is not None and not self.handshake_initiated:
                self.handle_handshake_exception()
                return
            self.handle_events()

    return GuardedHttp, GuardedWebSocket


def _error_frame(code: int, reason: str) -> bytes:
    """An unmasked text frame holding the protocol's `error` for a close the parser chose."""
    if code == 1007:
        refusal = Refusal("bad_json", "message: the text is not valid UTF-8; closing (1007)")
    else:
        refusal = Refusal("too_large", f"message: {reason or 'too big'}; closing (1009)")
    return Frame(Opcode.TEXT, refusal.text().encode()).serialize(mask=False)


#: `token=…` in a URL's query, as uvicorn logs it ("GET /?room=a&token=s3cret HTTP/1.1").
_TOKEN_IN_QUERY = re.compile(r"([?&]token=)[^&\s\"]*")


def scrub(text: str) -> str:
    """`text` with the value of every token query parameter replaced by `***`."""
    return _TOKEN_IN_QUERY.sub(r"\1***", text)


class TokenScrubber(logging.Filter):
    """Keeps the token out of access and error logs (as Jupyter Server scrubs its own)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = scrub(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(scrub(a) if isinstance(a, str) else a for a in record.args)
        return True


def scrub_logs(*names: str) -> None:
    """Add a TokenScrubber to the named loggers (uvicorn's by default)."""
    for name in names or ("uvicorn.access", "uvicorn.error", "uvicorn", "sixdof.server"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, TokenScrubber) for f in logger.filters):
            logger.addFilter(TokenScrubber())
