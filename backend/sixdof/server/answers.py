"""A room's prediction question and its students' answers, tallied for the lecturer's view.

A room asks a question when a preset with one is loaded (its English question) or when the
lecturer's view loads a lesson step (the step's question). Each question gets a new id,
sent in the hello; an `answer` names that id, so an answer typed while the lecturer moved
the room on is refused rather than counted under the next question. Answers are bounded:
one per connection per question (a second replaces the first: a student may change their
mind), at most MAX_ANSWERS connections per question, MAX_ANSWER_CHARS characters each, and
each charged to its address's budget as any message is. Watchers may answer: answering is
what students do.

The tally counts answers alike after folding case, spaces and the punctuation at the ends
("Drop." and " drop" are one answer); the lecturer sees the most common first.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from dataclasses import dataclass
from typing import Any

from .errors import Refusal

MAX_ANSWER_CHARS = 200
MAX_ANSWERS = 512
#: The tally's entries shown at most; the rest are counted as `others`.
TALLY_SHOWN = 12
#: The least an answer costs its address's budget, s.
ANSWER_COST = 0.002

_SPACES = re.compile(r"\s+")
_ENDS = ".,;:!?\"'()[] "


def fold(text: str) -> str:
    """An answer as it is tallied."""
    return _SPACES.sub(" ", text).strip(_ENDS + "\t\n").casefold()


@dataclass(frozen=True)
class Question:
    id: int
    text: str
    preset: str | None  # the preset whose question it is (the page shows it in its language)


class Answers:
    """One room's current question and the answers to it. Answers arrive on the event loop;
    the lecturer's view reads the tally in the requests' pool: under a lock."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._next = 1
        self.question: Question | None = None
        self._by_client: dict[int | str, str] = {}

    def ask(self, text: str, preset: str | None = None) -> None:
        """Ask `text` from now on (none if empty), forgetting the answers to the last one."""
        with self._lock:
            self._by_client.clear()
            if not text:
                self.question = None
                return
            self.question = Question(self._next, text, preset)
            self._next += 1

    def answer(self, client: int | str, question: int, text: str, mid: Any = None) -> None:
        """Record `client`'s answer to question `question`; Refusal naming why not."""
        folded = fold(text)
        with self._lock:
            asked = self.question
            if asked is None:
                raise Refusal(
                    "invalid", "question: this room asks no question now", "question", mid
                )
            if asked.id != question:
                raise Refusal(
                    "invalid",
                    f"question: the room has moved on to question {asked.id}; answer that one",
                    "question",
                    mid,
                )
            if not folded:
                raise Refusal("invalid", "text: an empty answer", "text", mid)
            if client not in self._by_client and len(self._by_client) >= MAX_ANSWERS:
                raise Refusal(
                    "forbidden", f"question: {MAX_ANSWERS} answers are in already", "question", mid
                )
            self._by_client[client] = folded

    def tally(self) -> dict[str, Any] | None:
        """{"question": {id, text, preset}, "answers": n, "tally": [[answer, count], …],
        "others": n} (most common first), or None while no question is asked."""
        with self._lock:
            asked = self.question
            counts = Counter(self._by_client.values())
        if asked is None:
            return None
        top = counts.most_common(TALLY_SHOWN)
        total = sum(counts.values())
        return {
            "question": {"id": asked.id, "text": asked.text, "preset": asked.preset},
            "answers": total,
            "tally": [[text, n] for text, n in top],
            "others": total - sum(n for _, n in top),
        }
