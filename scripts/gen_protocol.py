"""Write the files generated from the protocol's pydantic models and the registry of kinds.

python scripts/gen_protocol.py          # rewrite docs/protocol.md's generated parts and the
                                        # page's protocol.gen.js, messages.gen.d.ts and
                                        # kinds.gen.js (the element kinds' page facts), and
                                        # the numbers the presets' captions quote
python scripts/gen_protocol.py --check  # exit 1 if any is out of date
"""

from __future__ import annotations

import argparse
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


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check, write nothing")
    args = parser.parse_args()
    stale = 0
    for path, make in TARGETS.items():
        text = make()
        current = path.read_text(encoding="utf-8") if path.exists() else ""
        if args.check:
            if current != text:
                print(f"{path} is out of date: run python scripts/gen_protocol.py")
                stale += 1
            else:
                print(f"{path} is up to date")
        elif current != text:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
