"""kernel_cache parses its sources one thread at a time (CPython gh-106905 in 3.11 < 3.11.8)."""

from __future__ import annotations

import ast
import gc
import sys
import threading
from collections.abc import Callable

import pytest

from sixdof.dynamics import kernel_cache

SOURCE = kernel_cache.SOURCE.read_bytes()


def parse_while_another_parses(parse: Callable[[bytes], ast.Module]) -> list[BaseException]:
    """Thread A parses; a garbage collection in the middle of it (thresholds at 1) lets thread
    B parse too (up to 0.5 s, if B gets to): what each raised."""
    raised: list[BaseException] = []
    go, done = threading.Event(), threading.Event()
    inside = threading.local()

    def b() -> None:
        go.wait()
        try:
            parse(SOURCE)
        except BaseException as err:
            raised.append(err)
        done.set()

    def in_collection(phase: str, info: dict) -> None:
        if phase == "start" and getattr(inside, "parsing", False) and not go.is_set():
            go.set()
            done.wait(0.5)  # B parses now, unless a lock keeps it out

    thread = threading.Thread(target=b)
    thread.start()
    thresholds = gc.get_threshold()
    gc.callbacks.append(in_collection)
    gc.set_threshold(1, 1, 1)
    try:
        inside.parsing = True
        try:
            parse(SOURCE)
        except BaseException as err:
            raised.append(err)
        inside.parsing = False
    finally:
        gc.set_threshold(*thresholds)
        gc.callbacks.remove(in_collection)
        go.set()
        thread.join(10)
    return raised


def test_two_threads_parsing_at_once_break_the_interpreter_without_the_lock() -> None:
    if sys.version_info[:3] >= (3, 11, 8):
        pytest.skip("fixed in this Python")
    assert any(isinstance(e, SystemError) for e in parse_while_another_parses(ast.parse))


def test_kernel_cache_parses_one_thread_at_a_time() -> None:
    assert parse_while_another_parses(kernel_cache._parse) == []
