"""Layer 2: validated run descriptions, read from and written to FhSim XML and JSON."""

from .fhsim_xml import read_fhsim_xml, scenario_from_xml
from .fhsim_xml_write import scenario_to_xml
from .file_errors import ScenarioFileError, ScenarioFileWarning
from .files import atomic_write, load_scenario_file, save_scenario_file, scenario_from_json
from .model import BodySpec, Integration, Scenario, parse_toutput, toutput_rows

__all__ = [
    "BodySpec",
    "Integration",
    "Scenario",
    "ScenarioFileError",
    "ScenarioFileWarning",
    "atomic_write",
    "load_scenario_file",
    "parse_toutput",
    "read_fhsim_xml",
    "save_scenario_file",
    "scenario_from_json",
    "scenario_from_xml",
    "scenario_to_xml",
    "toutput_rows",
]
