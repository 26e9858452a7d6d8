"""sixdof: a live, browser-based lab for a rigid body in six degrees of freedom.

`sixdof.run(...)` runs a scenario headless in one call (sixdof.api); `sixdof serve` starts
the live lab. Nothing heavy is imported until it is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from .api import run as run
    from .api import stability as stability


def __getattr__(name: str) -> Any:
    if name in ("run", "stability"):  # lazy: `import sixdof` stays light (no numpy, no pydantic)
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'sixdof' has no attribute {name!r}")


__all__ = ["__version__", "run", "stability"]
