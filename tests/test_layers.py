"""The layers of DESIGN.md section 5 import only downward."""

import subprocess
import sys

import pytest

# Each layer, and the modules it must never pull in.
FORBIDDEN = {
    "sixdof.dynamics": ["fastapi", "uvicorn", "pydantic", "sixdof.scenario", "sixdof.simulation"],
    "sixdof.scenario": ["fastapi", "uvicorn", "sixdof.simulation", "sixdof.server"],
    "sixdof.simulation": ["fastapi", "uvicorn", "sixdof.server", "sixdof.cli"],
    "sixdof": ["fastapi", "uvicorn", "pythreejs", "ipywidgets", "numba"],
}


@pytest.mark.parametrize("module", sorted(FORBIDDEN))
def test_layer_imports_only_downward(module: str) -> None:
    code = (
        f"import sys, {module}\n"
        f"bad = [m for m in {FORBIDDEN[module]!r} if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"{module} imported {out.stdout.strip()}"
