"""sixdof: a live, browser-based lab for a rigid body in six degrees of freedom."""

__version__ = "0.1.0"
