"""sixdof: a live, browser-based lab for a rigid body in six degrees of freedom.

`sixdof.run(...)` runs a scenario headless in one call (sixdof.api); `sixdof serve` starts
the live lab. Nothing heavy is imported until it is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from .api import lqr as lqr
    from .api import run as run
    from .api import stability as stability
    from .scenario.body_mesh import mass_properties as mass_properties


def __getattr__(name: str) -> Any:
    # lazy: `import sixdof` stays light (no numpy, no pydantic)
    if name in ("run", "stability", "lqr"):
        from . import api

        return getattr(api, name)
    if name == "mass_properties":
        from .scenario.body_mesh import mass_properties

        return mass_properties
    raise AttributeError(f"module 'sixdof' has no attribute {name!r}")


__all__ = ["__version__", "lqr", "mass_properties", "run", "stability"]
