"""Write docs/protocol.md from the protocol's pydantic models (sixdof.server.protocol_docs).

python scripts/gen_protocol_docs.py          # rewrite docs/protocol.md
python scripts/gen_protocol_docs.py --check  # exit 1 if it is out of date
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sixdof.server.protocol_docs import render

DOC = Path(__file__).resolve().parent.parent / "docs" / "protocol.md"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check, write nothing")
    args = parser.parse_args()
    text = render()
    if args.check:
        current = DOC.read_text(encoding="utf-8") if DOC.exists() else ""
        if current != text:
            print(f"{DOC} is out of date: run python scripts/gen_protocol_docs.py")
            return 1
        print(f"{DOC} is up to date")
        return 0
    DOC.write_text(text, encoding="utf-8")
    print(f"wrote {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
