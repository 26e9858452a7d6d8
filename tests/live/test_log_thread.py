"""The server's log lines are written by a thread, not the event loop (server/log_thread.py):
in order, formatted as before, dropped and counted when nobody reads them, and a stop that
does not wait for an output that is never read."""

from __future__ import annotations

import io
import logging
import threading
from collections.abc import Iterator

import pytest

from sixdof.server import log_thread


class Written(logging.Handler):
    """Keeps each line and the thread that wrote it; `hold` makes it wait (an unread pipe)."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[tuple[str, str]] = []
        self.hold = threading.Event()
        self.hold.set()
        self.setFormatter(logging.Formatter("%(levelname)s %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        self.hold.wait()
        self.lines.append((self.format(record), threading.current_thread().name))


@pytest.fixture
def logger() -> Iterator[tuple[logging.Logger, Written]]:
    log = logging.getLogger("sixdof.test.logthread")
    log.setLevel(logging.INFO)
    log.propagate = False
    written = Written()
    log.addHandler(written)
    yield log, written
    log.removeHandler(written)


def test_lines_are_written_by_another_thread_in_order_and_as_formatted(logger) -> None:  # type: ignore[no-untyped-def]
    log, written = logger
    writer = log_thread.logs_off_loop((log.name,))
    for k in range(200):
        log.info('%s - "%s %s" %d', "127.0.0.1:5", "GET", f"/api/{k}", 200)
    writer.stop()
    assert [line for line, _ in written.lines] == [
        f'INFO 127.0.0.1:5 - "GET /api/{k}" 200' for k in range(200)
    ]
    assert {thread for _, thread in written.lines} != {threading.current_thread().name}
    # given back: written where it is logged from now on
    assert written in log.handlers
    assert not any(isinstance(h, log_thread.QueueHandler) for h in log.handlers)
    log.info("after")
    assert written.lines[-1] == ("INFO after", threading.current_thread().name)


def test_an_unread_output_drops_lines_and_a_stop_does_not_wait_for_it(  # type: ignore[no-untyped-def]
    logger, monkeypatch: pytest.MonkeyPatch
) -> None:
    log, written = logger
    monkeypatch.setattr(log_thread, "MAX_QUEUED", 10)
    written.hold.clear()  # the output is not read
    writer = log_thread.logs_off_loop((log.name,))
    for k in range(50):  # the caller never waits: one in the writing thread, ten queued
        log.info("line %d", k)
    assert 39 <= writer.dropped <= 40
    stopped = threading.Thread(target=writer.stop)
    stopped.start()
    stopped.join(30)
    assert not stopped.is_alive()  # gave up on the output instead of hanging the shutdown
    written.hold.set()


def test_uvicorns_loggers_are_moved() -> None:
    # uvicorn's access lines (one a request) and errors: the handlers its Config installs
    access = logging.getLogger("uvicorn.access")
    stream = logging.StreamHandler(io.StringIO())
    access.addHandler(stream)
    try:
        writer = log_thread.logs_off_loop()
        assert stream not in access.handlers
        assert all(isinstance(h, log_thread.QueueHandler) for h in access.handlers)
        writer.stop()
        assert stream in access.handlers
    finally:
        access.removeHandler(stream)


def test_sixdofs_own_warnings_go_the_same_way(monkeypatch: pytest.MonkeyPatch) -> None:
    # without a handler they went to Python's last resort, written on the loop
    sixdof = logging.getLogger("sixdof")
    monkeypatch.setattr(sixdof, "handlers", [])
    monkeypatch.setattr(sixdof, "propagate", True)
    with log_thread.own_stderr():
        (handler,) = sixdof.handlers
        assert handler.level == logging.WARNING and not sixdof.propagate
        writer = log_thread.logs_off_loop()
        assert all(isinstance(h, log_thread.QueueHandler) for h in sixdof.handlers)
        writer.stop()
        assert sixdof.handlers == [handler]
    # a serve() called in process leaves sixdof's logger as it found it
    assert sixdof.handlers == [] and sixdof.propagate
