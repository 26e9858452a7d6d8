"""The process that fits gyroscope recordings for the server: `python -m
sixdof.analysis.gyro_child`, talking over its standard input and output (server/fit_process.py
starts it, one job at a time).

A fit's compiled integration holds the GIL for as long as it runs; in a thread of the server
it froze every room, and nothing could stop it. Here it holds only this process, which the
server kills when a fit passes its wall-clock limit or the server stops.

Messages are frames: a 4-byte big-endian length, then that many bytes. Each request is a JSON
object, each answer a JSON object (`status` and `detail` when refused), perhaps followed by
one more frame:

- on start, once everything a fit needs is loaded: {"ready": true};
- {"do": "read"} and a frame with the file's bytes: the recording read and its cost counted
  (gyro_cost), kept for the fit: {"cost": {...}}, or 400 (not UTF-8) / 422 (a bad file, or
  a fit over the ceiling) with the sentence;
- {"do": "fit", "body": a BodySpec as JSON, "points": n}: the kept recording fitted and
  compared with the body (gyro_body.compare): {"ok": true, "payload": true} and a frame with
  the answer's JSON bytes, which the server passes on as they are.
"""

from __future__ import annotations

import json
import os
import signal
import struct
import sys
import time
import warnings
from typing import IO, Any

HEADER = struct.Struct("!I")
#: Largest frame read, bytes: the server sends at most its upload limit (4 MiB).
MAX_FRAME = 8 * 1024 * 1024


def read_frame(stream: IO[bytes]) -> bytes | None:
    """The next frame's bytes, or None at the end of the stream."""
    head = stream.read(HEADER.size)
    if len(head) < HEADER.size:
        return None
    (size,) = HEADER.unpack(head)
    if size > MAX_FRAME:
        raise ValueError(f"a frame of {size} bytes (at most {MAX_FRAME})")
    body = stream.read(size)
    return body if len(body) == size else None


def write_frames(stream: IO[bytes], *frames: bytes) -> None:
    stream.write(b"".join(HEADER.pack(len(f)) + f for f in frames))
    stream.flush()


def _die_with_parent(parent: int) -> None:
    """Be killed when the server dies, even mid-fit (Linux; elsewhere the end of standard
    input ends this process between jobs)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:  # it died before prctl took effect
        os._exit(0)


def _warm() -> None:
    """Load what a fit needs (scipy, the compiled integration, the headless runner's kernels)
    before saying ready: the server's wall-clock limit then counts the fit alone."""
    import numpy as np

    from ..scenario import BodySpec
    from .gyro import fit, read_gyro_text
    from .gyro_body import compare

    t = np.arange(40) * 0.01
    text = "\n".join(f"{ti} {10.0 + ti} {0.5 - ti} 0.3" for ti in t)
    compare(fit(read_gyro_text(text)), BodySpec(Name="B", Mass=1.0), 10)


class Jobs:
    """The state between a `read` and its `fit`: the recording read."""

    def __init__(self) -> None:
        self.data: Any = None

    def handle(self, request: dict[str, Any], stdin: IO[bytes]) -> list[bytes]:
        """The frames that answer `request`."""
        from pydantic import ValidationError

        from ..fields import FieldError
        from .gyro import GyroFileError, check_cost, fit, read_gyro_text
        from .gyro_body import compare

        if request.get("do") == "read":
            self.data = None
            raw = read_frame(stdin)
            if raw is None:
                raise EOFError
            try:
                text = raw.decode("utf-8-sig")
            except UnicodeDecodeError:
                return [_refusal(400, "the file: not UTF-8 text (a CSV export)")]
            try:
                data = read_gyro_text(text, name="the file")
                cost = check_cost(data, name="the file")
            except GyroFileError as exc:
                return [_refusal(422, str(exc))]
            self.data = data
            return [_json({"cost": cost.to_json()})]
        if request.get("do") == "fit" and self.data is not None:
            from ..scenario import BodySpec

            data, self.data = self.data, None
            spec = BodySpec.model_validate(request["body"])
            started = time.process_time()  # the fit is charged its CPU (server/gyro.py)
            try:
                reply = compare(fit(data), spec, int(request["points"]))
            except FieldError as exc:  # the fitted body is outside a field's limits
                return [_refusal(422, f"the fitted body: {exc.message}", started)]
            except ValidationError as exc:
                return [_refusal(422, f"the fitted body: {_first_error(exc)}", started)]
            cpu = time.process_time() - started
            return [_json({"ok": True, "payload": True, "cpu_s": cpu}), _json(reply)]
        return [_refusal(500, f"gyro: the fitting process was asked {request.get('do')!r}")]


def _first_error(exc: Any) -> str:
    """A pydantic ValidationError's first error as a sentence: `loc: message`."""
    err = exc.errors(include_url=False)[0]
    return f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}"


def _json(value: Any) -> bytes:
    return json.dumps(_finite(value), allow_nan=False, separators=(",", ":")).encode()


def _finite(value: Any) -> Any:
    """`value` with every infinite or NaN number made null (JSON has none: an uncertainty
    the Jacobian cannot give is infinite)."""
    if isinstance(value, float):
        return value if value - value == 0.0 else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def _refusal(status: int, detail: str, fit_started: float | None = None) -> bytes:
    """A refusal's head; after a fit began, with the CPU it took (`cpu_s`)."""
    head: dict[str, Any] = {"status": status, "detail": detail}
    if fit_started is not None:
        head["cpu_s"] = time.process_time() - fit_started
    return _json(head)


def main() -> int:
    parent = int(sys.argv[1]) if len(sys.argv) > 1 else os.getppid()
    _die_with_parent(parent)
    # the server stops this process itself; a Ctrl-C that reaches its whole process group
    # must not print a traceback here
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # the frames go out on a copy of standard output; whatever a library prints goes to
    # standard error instead of into them
    channel = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    stdin = sys.stdin.buffer
    warnings.simplefilter("ignore")  # overflow and impossible-inertia warnings of bad fits
    _warm()
    write_frames(channel, _json({"ready": True}))
    jobs = Jobs()
    while True:
        frame = read_frame(stdin)
        if frame is None:
            return 0  # the server closed its end: it stopped, or retired this process
        try:
            answer = jobs.handle(json.loads(frame), stdin)
        except EOFError:
            return 0
        except Exception as exc:  # the server answers 500 with the reason
            answer = [_refusal(500, f"gyro: the fit failed: {type(exc).__name__}: {exc}")]
        write_frames(channel, *answer)


if __name__ == "__main__":
    sys.exit(main())
