"""docs/protocol.md: the prose is written by hand, the generated parts sit between markers.

scripts/protocol_gen/docs.py rewrites what lies between `<!-- generated: NAME -->` and
`<!-- end generated: NAME -->` and keeps everything else as written.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
from protocol_gen.docs import render  # noqa: E402

DOC = ROOT / "docs" / "protocol.md"


def test_a_stale_part_is_rewritten_and_the_prose_kept() -> None:
    text = DOC.read_text(encoding="utf-8")
    edited = text.replace("## Connecting", "## Connecting, by hand")
    stale = re.sub(
        r"(<!-- generated: (rest|max_rooms) -->).*?(<!-- end generated: \2 -->)",
        r"\1 stale \3",
        edited,
        flags=re.DOTALL,
    )
    assert stale != edited
    assert render(stale) == edited


@pytest.mark.parametrize("name", ["rest", "max_rooms"])
def test_a_document_without_a_part_is_refused(name: str) -> None:
    text = DOC.read_text(encoding="utf-8").replace(f"<!-- generated: {name} -->", "", 1)
    with pytest.raises(ValueError, match=name):
        render(text)


def test_a_part_nobody_generates_is_refused() -> None:
    text = (
        DOC.read_text(encoding="utf-8")
        + "<!-- generated: nonsense -->x<!-- end generated: nonsense -->"
    )
    with pytest.raises(ValueError, match="nonsense"):
        render(text)


def test_a_json_file_whose_numbers_differ_in_their_last_bits_is_current() -> None:
    # the presets' values come from numpy and LAPACK, whose last bits differ between CPUs
    # (a fresh machine's `make lint` failed on 4e-16 of one number before)
    from gen_protocol import same

    current = '{"a": {"period": 4.349494662182913, "name": "x", "n": [1, 2.5]}}\n'
    nearly = '{"a": {"period": 4.349494662182915, "name": "x", "n": [1, 2.5]}}\n'
    changed = '{"a": {"period": 4.3495, "name": "x", "n": [1, 2.5]}}\n'
    renamed = '{"a": {"period": 4.349494662182913, "name": "y", "n": [1, 2.5]}}\n'
    json_file, doc = Path("values.gen.json"), Path("protocol.md")
    assert same(json_file, current, nearly)
    assert not same(json_file, current, changed)
    assert not same(json_file, current, renamed)
    assert not same(json_file, current, current.replace("[1, 2.5]", "[1]"))
    assert not same(doc, current, nearly), "a document is compared byte for byte"
