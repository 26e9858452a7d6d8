"""A server whose output nobody reads (`sixdof serve | …` with a stalled reader, a terminal
paused by Ctrl-S) keeps answering: its log lines are written by a thread, not the event loop
(server/log_thread.py). With the access lines written on the loop, the loop blocked once the
pipe was full: the 1,050th request was never answered and every room stopped."""

from __future__ import annotations

import http.client
import os
import subprocess
import sys
from pathlib import Path

from support.adversary import wait_until
from support.serving import free_port

#: An access line is ~70 bytes: a 64 KiB pipe is full after ~950 requests.
REQUESTS = 3000


def test_a_server_whose_output_nobody_reads_still_answers(tmp_path: Path) -> None:
    port = free_port()
    unread, output = os.pipe()
    proc = subprocess.Popen(
        [sys.executable, "-m", "sixdof.cli", "serve", "--host", "127.0.0.1", "--port",
         str(port), "--token", ""],
        stdout=output, stderr=output, cwd=tmp_path,
    )  # fmt: skip
    os.close(output)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:

        def answers() -> bool:
            try:
                conn.request("GET", "/api/health")
                return conn.getresponse().read() != b""
            except OSError:
                conn.close()
                return False

        assert wait_until(answers, 120)
        for k in range(REQUESTS):
            conn.request("GET", "/api/health")
            reply = conn.getresponse()
            assert reply.status == 200, (k, reply.status)
            reply.read()
    finally:
        conn.close()
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:  # its stop may wait on the output it cannot write
            proc.kill()
            proc.wait(30)
        os.close(unread)
