"""Write the files generated from the protocol's pydantic models and the registry of kinds.

python scripts/gen_protocol.py          # rewrite docs/protocol.md's generated parts and the
                                        # page's protocol.gen.js, messages.gen.d.ts and
                                        # kinds.gen.js (the element kinds' page facts), and
                                        # the numbers the presets' captions quote
python scripts/gen_protocol.py --check  # exit 1 if any is out of date
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))  # protocol_gen, also when imported by the tests

from protocol_gen.docs import render  # noqa: E402
from protocol_gen.kinds import render_kinds  # noqa: E402
from protocol_gen.page import render_constants, render_types  # noqa: E402
from protocol_gen.presets import render_preset_values  # noqa: E402

TARGETS: dict[Path, Callable[[], str]] = {
    ROOT / "docs" / "protocol.md": render,
    ROOT / "frontend" / "src" / "net" / "protocol.gen.js": render_constants,
    ROOT / "frontend" / "src" / "net" / "messages.gen.d.ts": render_types,
    ROOT / "frontend" / "src" / "core" / "kinds.gen.js": render_kinds,
    ROOT / "backend" / "sixdof" / "scenario" / "presets" / "values" / "values.gen.json": (
        render_preset_values
    ),
}


def same(path: Path, current: str, text: str) -> bool:
    """Whether `current` already says what `text` does. A JSON file's numbers may differ in
    their last bits: the presets' values come from numpy and LAPACK, whose rounding differs
    from one CPU to the next, so a byte compare would make `make lint` fail on another
    machine for no change at all (relative 1e-9 is far below any figure a caption quotes)."""
    if current == text:
        return True
    if path.suffix != ".json":
        return False
    try:
        return _close(json.loads(current), json.loads(text))
    except json.JSONDecodeError:
        return False


def _close(a: object, b: object) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float | int) and isinstance(b, float | int) and not isinstance(a, bool):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    return a == b


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check, write nothing")
    args = parser.parse_args()
    stale = 0
    for path, make in TARGETS.items():
        text = make()
        current = path.read_text(encoding="utf-8") if path.exists() else ""
        if args.check:
            if not same(path, current, text):
                print(f"{path} is out of date: run python scripts/gen_protocol.py")
                stale += 1
            else:
                print(f"{path} is up to date")
        elif not same(path, current, text):
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
