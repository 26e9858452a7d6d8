"""Layer 4: the live server (FastAPI app, websocket protocol, rooms, REST, static files).

No physics here: it translates messages into calls on layer 3 (sixdof.simulation).
"""

from .app import create_app
from .settings import Settings

__all__ = ["Settings", "create_app"]
