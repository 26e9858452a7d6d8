"""`python -m sixdof.cli` is the `sixdof` command (as `python -m sixdof` is)."""

import sys

from . import main

sys.exit(main())
