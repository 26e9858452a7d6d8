"""Write the files generated from the protocol's pydantic models.

python scripts/gen_protocol.py          # rewrite docs/protocol.md and frontend/src/protocol.gen.js
python scripts/gen_protocol.py --check  # exit 1 if either is out of date
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sixdof.server.protocol_docs import render
from sixdof.server.protocol_js import render_js

ROOT = Path(__file__).resolve().parent.parent
TARGETS = {
    ROOT / "docs" / "protocol.md": render,
    ROOT / "frontend" / "src" / "protocol.gen.js": render_js,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
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
