"""Layer 2: validated run descriptions, read from and written to FhSim XML and JSON."""

from .model import LIMITS, BodySpec, Integration, Scenario, parse_toutput

__all__ = ["LIMITS", "BodySpec", "Integration", "Scenario", "parse_toutput"]
