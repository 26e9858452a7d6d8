"""Build the FMU of a scenario: validate, lay out a script and the scenario, let pythonfmu
zip them, and move the .fmu into place only when it is whole."""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import sys
import tempfile
from pathlib import Path

from ..scenario import Scenario
from .body import check_fmu_elements, check_fmu_names
from .slave import SCENARIO_RESOURCE

#: The script the FMU runs: a class named after the scenario (the FMU's model identifier,
#: also the name of its binary) deriving from ScenarioSlave.
SCRIPT = '''"""A sixdof scenario as an FMU (made by `sixdof fmu`); needs sixdof importable."""

from sixdof.fmu.slave import ScenarioSlave

# pythonfmu 0.7's binary releases one reference to this module's namespace that it does not
# own each time it instantiates the FMU; this one pays for it (sixdof/fmu/slave.py).
_NAMESPACE = globals()


class {name}(ScenarioSlave):
    """The scenario in resources/{resource}."""
'''


def model_identifier(scenario: Scenario) -> str:
    """A C identifier from the scenario's name, prefixed so that it names no other Python
    module (pythonfmu imports the script by it): `tennis_racket` → `sixdof_tennis_racket`,
    `my run 2` → `sixdof_my_run_2`."""
    return "sixdof_" + re.sub(r"[^A-Za-z0-9_]", "_", scenario.name)


def build_fmu(scenario: Scenario, out: str | Path) -> Path:
    """Write the FMU of `scenario` to `out` (atomically: a failure leaves no file there and
    an existing one untouched); returns `out`. FieldError for a body Name that cannot
    name FMU variables; ImportError without pythonfmu (the `fmu` extra)."""
    check_fmu_elements(scenario)
    from pythonfmu import FmuBuilder  # the `fmu` extra: imported only to build

    check_fmu_names(scenario)
    out = Path(out)
    name = model_identifier(scenario)
    with tempfile.TemporaryDirectory(prefix="sixdof-fmu-") as tmp:
        folder = Path(tmp)
        script = folder / f"{name}.py"
        script.write_text(SCRIPT.format(name=name, resource=SCENARIO_RESOURCE), encoding="utf-8")
        data = folder / SCENARIO_RESOURCE
        data.write_text(scenario.model_dump_json(indent=2), encoding="utf-8")
        partial = out.with_name(f".{out.name}.{secrets.token_hex(4)}.tmp.fmu")
        path = list(sys.path)
        try:
            FmuBuilder.build_FMU(script, dest=partial, project_files=[data])
            os.replace(partial, out)
        finally:
            sys.path[:] = path  # pythonfmu puts the script's folder first and leaves it
            with contextlib.suppress(FileNotFoundError):
                partial.unlink()
    return out
