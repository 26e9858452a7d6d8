"""The server's log lines are formatted and written by a thread of their own, not the event
loop: uvicorn writes an access line per request from the loop, and a write to a terminal or a
pipe blocks until it is taken.

With the server's output in a pipe that nobody read (`sixdof serve | …`, or a terminal
paused by Ctrl-S), the loop blocked in that write once the pipe was full: every room stopped
and the 1,050th request on /api/health was never answered. Now the loop only puts the record
in a queue (its filters, such as guard.TokenScrubber, still run first, on the loop); a
thread formats and writes it. The queue holds `MAX_QUEUED` records: beyond them, while the
output is not read, lines are dropped and counted (`LogThread.dropped`) instead of the
server's memory growing with a flood of requests (a line saying so would wait on the same
output). `LogThread.stop` writes what is queued and puts the handlers back.

The loop's CPU for `GET /api/health`, 3,000 requests on one connection (2026-12-07): 530-593
µs a request with the access line written on the loop, 460-467 µs with it written here, and
317-330 µs with no access line at all (making the record on the loop costs the rest).
"""

from __future__ import annotations

import contextlib
import logging
import queue
from collections.abc import Iterator
from logging.handlers import QueueHandler, QueueListener

#: The loggers uvicorn writes to (access lines, errors, start-up and shutdown), and sixdof's
#: own (a refused connection, a flooding client closed: a line each, on the loop).
SERVER_LOGGERS = ("uvicorn", "uvicorn.access", "uvicorn.error", "sixdof")
#: Records waiting to be written, per logger, before new ones are dropped (~5 MB at most).
MAX_QUEUED = 10_000
#: How long a stop waits for the queued lines to be written (then they are lost).
STOP_SECONDS = 0.5


class _AsIs(QueueHandler):
    """Hands the record over unformatted: the handler behind the queue formats it in the
    listener's thread (uvicorn's records carry strings and numbers, which do not change).
    A full queue drops the record and counts it."""

    def __init__(self, records: queue.Queue[logging.LogRecord]) -> None:
        super().__init__(records)
        self.dropped = 0

    def prepare(self, record: logging.LogRecord) -> logging.LogRecord:
        return record

    def enqueue(self, record: logging.LogRecord) -> None:
        try:
            self.queue.put_nowait(record)
        except queue.Full:
            self.dropped += 1


class _Listener(QueueListener):
    """A QueueListener whose stop gives up after `STOP_SECONDS` when its output is not read
    (its thread, a daemon, then ends with the process): a server stops within a second."""

    def __init__(self, records: queue.Queue[logging.LogRecord], *handlers: logging.Handler):
        super().__init__(records, *handlers, respect_handler_level=True)
        self.records = records

    def enqueue_sentinel(self) -> None:
        with contextlib.suppress(queue.Full):  # the stop's mark: None (QueueListener's)
            self.records.put(None, timeout=STOP_SECONDS)  # type: ignore[arg-type]

    def stop(self) -> None:
        if self._thread is not None:
            self.enqueue_sentinel()
            self._thread.join(STOP_SECONDS)
            self._thread = None


class LogThread:
    """The listeners that write the moved handlers' records, one per logger (each logger
    keeps its own handlers and formats: uvicorn's access lines go to stdout, the rest to
    stderr)."""

    def __init__(self, names: tuple[str, ...] = SERVER_LOGGERS) -> None:
        self._moved: list[tuple[logging.Logger, list[logging.Handler], _AsIs]] = []
        self._listeners: list[_Listener] = []
        for name in names:
            logger = logging.getLogger(name)
            handlers = list(logger.handlers)
            if not handlers:
                continue
            records: queue.Queue[logging.LogRecord] = queue.Queue(MAX_QUEUED)
            feed = _AsIs(records)
            for handler in handlers:
                logger.removeHandler(handler)
            logger.addHandler(feed)
            listener = _Listener(records, *handlers)
            listener.start()
            self._moved.append((logger, handlers, feed))
            self._listeners.append(listener)

    @property
    def dropped(self) -> int:
        """Lines dropped so far because the output was not read."""
        return sum(feed.dropped for _, _, feed in self._moved)

    def stop(self) -> None:
        """Write every record queued so far, end the threads, and give each logger its own
        handlers back (what is logged from now on is written where it is logged)."""
        for listener in self._listeners:
            listener.stop()
        for logger, handlers, feed in self._moved:
            logger.removeHandler(feed)
            for handler in handlers:
                logger.addHandler(handler)
        self._listeners.clear()
        self._moved.clear()


@contextlib.contextmanager
def own_stderr(name: str = "sixdof") -> Iterator[None]:
    """While inside, give logger `name` a handler of its own that writes its warnings and
    errors to stderr, as Python's last resort did for it (the same lines), but one
    `logs_off_loop` can move. On leaving, the logger is as it was: a `serve()` called in a
    process that logs on (a notebook, a test) does not keep sixdof's lines from its handlers."""
    logger = logging.getLogger(name)
    if logger.handlers:
        yield
        return
    handler = logging.StreamHandler()  # stderr, "%(message)s": what the last resort wrote
    handler.setLevel(logging.WARNING)
    logger.addHandler(handler)
    propagated, logger.propagate = logger.propagate, False
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagated


def logs_off_loop(names: tuple[str, ...] = SERVER_LOGGERS) -> LogThread:
    """Move the named loggers' handlers behind queues written by threads (`LogThread.stop`)."""
    return LogThread(names)
