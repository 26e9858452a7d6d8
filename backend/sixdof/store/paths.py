"""Where a user's data lives by default, as platformdirs would put it (without the
dependency): ~/.local/share/sixdof ($XDG_DATA_HOME) on Linux, ~/Library/Application
Support/sixdof on macOS, %LOCALAPPDATA%\\sixdof on Windows."""

from __future__ import annotations

import os
import sys
from pathlib import Path

#: The database file inside a data directory.
DB_NAME = "sixdof.db"


def default_data_dir() -> Path:
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(base) / "sixdof"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "sixdof"
    xdg = os.environ.get("XDG_DATA_HOME", "")
    # the XDG spec: a relative value is invalid and is ignored
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".local" / "share"
    return base / "sixdof"
