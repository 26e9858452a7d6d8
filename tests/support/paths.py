"""Where things are, for every tier: the repository's root and the tests' own folder."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
REPO = TESTS.parent
