"""server/wire.py: the ready-made websocket frame, and latest-wins on a transport."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from websockets.frames import Frame, Opcode
from websockets.protocol import State
from websockets.streams import StreamReader

from sixdof.server.wire import MAX_BUFFER, STUCK_SECONDS, Wire, text_frame


def parse(data: bytes) -> Frame:
    reader = StreamReader()
    reader.feed_data(data)
    reader.feed_eof()
    parser = Frame.parse(reader.read_exact, mask=False)
    try:
        next(parser)
    except StopIteration as done:
        return done.value
    raise AssertionError("the frame was not complete")


@pytest.mark.parametrize("size", [0, 1, 125, 126, 1000, 65535, 65536, 200_000])
def test_text_frame_is_what_a_websocket_parser_reads(size: int) -> None:
    payload = bytes(ord("a") + i % 26 for i in range(size))
    frame = parse(text_frame(payload))
    assert frame.opcode is Opcode.TEXT and frame.fin and frame.data == payload


class FakeTransport:
    def __init__(self) -> None:
        self.buffered = 0
        self.written: list[bytes] = []
        self.aborted = False

    def get_write_buffer_size(self) -> int:
        return self.buffered

    def write(self, data: bytes) -> None:
        self.written.append(data)

    def is_closing(self) -> bool:
        return self.aborted

    def abort(self) -> None:
        self.aborted = True


def connection(transport: Any, state: State = State.OPEN) -> Any:
    return SimpleNamespace(transport=transport, conn=SimpleNamespace(state=state),
                           handshake_complete=True, close_sent=False)  # fmt: skip


def test_a_backed_up_client_skips_frames_and_a_stuck_one_is_cut_off() -> None:
    transport = FakeTransport()
    wire = Wire(connection(transport))
    assert wire.offer(b"f1", now=0.0) and transport.written == [b"f1"]
    transport.buffered = MAX_BUFFER + 1
    assert not wire.offer(b"f2", now=1.0)  # skipped: latest-wins, nothing queued
    assert not wire.offer(b"f3", now=1.0 + STUCK_SECONDS / 2) and not transport.aborted
    transport.buffered = 0
    assert wire.offer(b"f4", now=2.0 + STUCK_SECONDS / 2)  # drained: the clock restarts
    transport.buffered = MAX_BUFFER + 1
    wire.offer(b"f5", now=100.0)
    wire.offer(b"f6", now=100.0 + STUCK_SECONDS + 0.1)
    assert transport.aborted and transport.written == [b"f1", b"f4"]


def test_nothing_is_written_to_a_closing_connection() -> None:
    transport = FakeTransport()
    assert not Wire(connection(transport, State.CLOSING)).write(b"hello")  # a reply: exact check
    closed = connection(transport)
    closed.close_sent = True
    assert not Wire(closed).offer(b"f", now=0.0) and not Wire(closed).write(b"f")
    transport.aborted = True  # the transport is closing
    assert not Wire(connection(transport)).offer(b"f", now=0.0)
    assert transport.written == []
