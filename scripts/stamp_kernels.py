"""Keep each compiled module's COMPILED_FROM stamp current (dynamics/kernel_cache.py says why).

python scripts/stamp_kernels.py           # rewrite stale stamps
python scripts/stamp_kernels.py --check   # exit 1 naming the stale ones (make lint)
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from sixdof.dynamics.kernel_cache import KERNELS, STAMP_NAME, dependency_stamp, written_stamp


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say whether they are current")
    check = parser.parse_args().check
    stale: list[Path] = []
    # a stamp covers the text of the modules compiled in, their stamps too: rewrite until
    # nothing changes (a module is stamped after those it compiles in, within a few passes)
    for _ in range(len(KERNELS)):
        changed = False
        for source, _names in KERNELS:
            want = dependency_stamp(source)
            have = written_stamp(source)
            if have == want:
                continue
            if source not in stale:
                stale.append(source)
            if check:
                continue
            changed = True
            text = source.read_text(encoding="utf-8")
            line = re.compile(rf'^{STAMP_NAME} = "[0-9a-f]*"$', re.M)
            if have is None or not line.search(text):
                sys.exit(f'{source}: no `{STAMP_NAME} = "…"` line to rewrite')
            source.write_text(line.sub(f'{STAMP_NAME} = "{want}"', text), encoding="utf-8")
            print(f"{source.name}: {STAMP_NAME} {have} -> {want}")
        if not changed:
            break
    if check and stale:
        names = ", ".join(s.name for s in stale)
        print(
            f"stale {STAMP_NAME} in {names}: the modules they compile in changed; run "
            "python scripts/stamp_kernels.py (numba would keep stale kernels in its cache)",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
