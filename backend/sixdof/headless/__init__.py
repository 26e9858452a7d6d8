"""Layer 3 (beside `simulation`): headless runs of a Scenario, faster than real time, to CSV."""

from .csv_output import format_number, write_csv
from .progress import ProgressBar
from .runner import OUTPUT_PORTS, RunResult, output_columns, run_scenario

__all__ = [
    "OUTPUT_PORTS",
    "ProgressBar",
    "RunResult",
    "format_number",
    "output_columns",
    "run_scenario",
    "write_csv",
]
