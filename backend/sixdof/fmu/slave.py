"""The Fmi2Slave an FMU of `sixdof fmu` runs: a `ScenarioModel` behind pythonfmu's facade.

The FMU holds a generated script (`build.SCRIPT`) whose class derives from `ScenarioSlave`
and its scenario as `resources/scenario.json`; at run time it needs a Python with sixdof
(and so numpy, numba, scipy) importable, pythonfmu itself travels inside the FMU.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any
from xml.etree.ElementTree import Element, SubElement

from pythonfmu import DefaultExperiment, Fmi2Causality, Fmi2Slave, Fmi2Variability, Real
from pythonfmu.enums import Fmi2Status

from ..dynamics import IntegrationError
from ..fields import FieldError
from ..scenario.files import scenario_from_json
from .body import ScenarioModel, Variable

#: The scenario's file inside the FMU's resources folder.
SCENARIO_RESOURCE = "scenario.json"

_CAUSALITY = {
    "input": (Fmi2Causality.input, Fmi2Variability.continuous),
    "output": (Fmi2Causality.output, Fmi2Variability.continuous),
    "parameter": (Fmi2Causality.parameter, Fmi2Variability.tunable),
}
_DESCRIPTION = {
    "Force": "global force at the CG, N",
    "Moment": "global moment about the CG, N·m",
    "Mass": "kg",
    "InertiaRadi": "radius of gyration about the CG, m",
    "CGOffset": "CG relative to the reference point, body frame, m",
}


class ScenarioSlave(Fmi2Slave):
    """A sixdof scenario as an FMI 2.0 co-simulation slave."""

    author = "sixdof"
    description = "A sixdof scenario: rigid bodies in six degrees of freedom (FhSim's 6DBody)"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        _release_script_module(type(self).__module__)
        path = Path(self.resources) / SCENARIO_RESOURCE
        with warnings.catch_warnings():  # warned once already, when the FMU was built
            warnings.simplefilter("ignore")
            scenario = scenario_from_json(path.read_text(encoding="utf-8"), path)
        self.model = ScenarioModel(scenario)
        times = scenario.integration.output_times()
        step = float(times[1] - times[0]) if times.size > 1 else None
        self.default_experiment = DefaultExperiment(0.0, float(times[-1]), step)
        for v in self.model.variables:
            causality, variability = _CAUSALITY[v.kind]
            self.register_variable(
                Real(
                    v.name,
                    causality=causality,
                    variability=variability,
                    description=_DESCRIPTION.get(v.field),
                    getter=self._getter(v),
                    setter=None if v.kind == "output" else self._setter(v),
                ),
                nested=False,
            )

    def to_xml(self, model_options: dict[str, str] | None = None) -> Element:
        """pythonfmu's modelDescription, with the outputs listed as InitialUnknowns (FMI 2.0
        asks for every output whose initial is `calculated`; fmpy's validation checks it)."""
        root = super().to_xml(model_options or {})
        structure = root.find("ModelStructure")
        outputs = structure.find("Outputs") if structure is not None else None
        if structure is not None and outputs is not None:
            unknowns = SubElement(structure, "InitialUnknowns")
            for unknown in outputs:
                SubElement(unknowns, "Unknown", attrib={"index": unknown.get("index", "")})
        return root

    def _getter(self, v: Variable) -> Any:
        return lambda: self.model.get(v)

    def _setter(self, v: Variable) -> Any:
        return lambda value: self.model.set(v, value)

    def do_step(self, current_time: float, step_size: float) -> bool:
        try:
            self.model.step(float(step_size), float(current_time))
        except (FieldError, IntegrationError) as exc:
            self.log(f"t = {current_time:g} s: {exc}", Fmi2Status.error)
            return False
        return True


def _release_script_module(name: str) -> None:
    """Take the FMU's script module out of `sys.modules`, so that the next instance (of this
    FMU or of another with the same model identifier) imports the script afresh.

    pythonfmu 0.7's binary, at each instantiation, imports the script module, runs it once
    more and then releases a reference to the module's namespace that it does not own. The
    script holds one reference to its own namespace (`_NAMESPACE = globals()`, build.SCRIPT),
    which pays for one such release: one instantiation per import. Left in `sys.modules`, a
    second instance would release the namespace again, leaving an empty `<module '?'>` ("module
    has no attribute …") or a corrupted heap at exit."""
    if name.startswith("sixdof_") and name in sys.modules:
        del sys.modules[name]
