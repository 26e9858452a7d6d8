"""Write the radiation memory into the presets that name a shipped BEM file: each radiation
element with a `file` (backend/sixdof/scenario/presets/bem/) gets its `fit`, as reading the
preset as a scenario file would make it (scenario/radiation_files.fit_of).

A preset is read at every load and by every hello (server/presets.origin); fitting a file
there costs 1-2 s of a core on the event loop, so the fit is shipped in the preset instead.
tests/unit/test_radiation_presets.py checks that it is the file's: run this after changing a
BEM file or the fit (dynamics/radiation_fit.py).

    python scripts/fit_presets.py           # rewrite the fits
    python scripts/fit_presets.py --check   # exit 1 when a preset names a file but has no fit
"""

from __future__ import annotations

import json
import math
import re
import sys
from typing import Any

from sixdof.scenario.presets import FOLDER
from sixdof.scenario.presets.hydrodynamics import BARGE, natural_frequency
from sixdof.scenario.radiation_files import fit_of


def fitted(data: dict[str, Any]) -> bool:
    """Fit each radiation element of `data` that names a file (in place), and give a twin's
    (body `Ghost` + a body's name, no file) its original's; whether any was fitted. A twin
    names no file: with linear hydrostatics and a file without a stiffness (the sphere's),
    reading FhSim XML would fit the file again for it, and a preset has no folder there."""
    radiation = [e for e in data.get("elements", []) if e.get("kind") == "radiation"]
    by_body = {}
    for element in radiation:
        if "file" in element:
            raw = (FOLDER / element["file"]).read_bytes()
            rho = (data.get("water") or {}).get("density", 1025.0)
            element["fit"] = fit_of(raw, element["file"], element, rho=rho)
            by_body[element["body"]] = element["fit"]
    for element in radiation:
        original = by_body.get(element["body"].removeprefix("Ghost"))
        if "file" not in element and element["body"].startswith("Ghost") and original:
            # the file's samples stay with the original (the card draws them): a preset is
            # sent whole in every hello
            element["fit"] = {k: v for k, v in original.items() if k != "samples"}
    if BARGE[0] in by_body:
        undamped(data, by_body[BARGE[0]])
    return bool(by_body)


def undamped(data: dict[str, Any], fit: dict[str, Any]) -> None:
    """The barge preset's `Undamped`: the fit's A∞ as its constant added mass, and the waves
    at its natural heave period (presets/hydrodynamics.py says why)."""
    a_inf = [fit["infinite"][i][i] for i in range(6)]
    for element in data["elements"]:
        if element["kind"] == "added_mass" and element["body"] == BARGE[1]:
            element["diagonal"] = a_inf
    body = next(b for b in data["bodies"] if b["Name"] == BARGE[1])
    rho, g = data["water"]["density"], body.get("Gravity", 9.81)
    w0 = natural_frequency(body["Mass"], a_inf[2], body["Size"], rho, g)
    data["water"]["waves"][0]["period"] = 2 * math.pi / w0


def dumps(data: dict[str, Any]) -> str:
    """JSON as the presets are written, a matrix's rows, the water and the view on one line
    each."""
    one_line = {k: json.dumps(data[k], ensure_ascii=False) for k in ("water", "view") if k in data}
    text = json.dumps({**data, **{k: f"@{k}@" for k in one_line}}, indent=2, ensure_ascii=False)
    for key, value in one_line.items():
        text = text.replace(f'"@{key}@"', value)
    # innermost lists of numbers (a matrix row, a vector) on one line
    number_list = re.compile(r"\[\s*((?:-?[\d.eE+-]+,\s*)*-?[\d.eE+-]+)\s*\]")
    text = number_list.sub(lambda m: "[" + re.sub(r",\s*", ", ", m.group(1)) + "]", text)
    return text + "\n"


def main(argv: list[str]) -> int:
    check = "--check" in argv
    missing = []
    for path in sorted(FOLDER.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        radiation = [e for e in data.get("elements", []) if e.get("kind") == "radiation"]
        if not any("file" in e for e in radiation):
            continue
        if check:
            missing += [path.name for e in radiation if "file" in e and "fit" not in e]
            continue
        fitted(data)
        path.write_text(dumps(data), encoding="utf-8")
        print(f"fitted {path.name}")
    if missing:
        print("no fit in " + ", ".join(missing) + ": run python scripts/fit_presets.py")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
