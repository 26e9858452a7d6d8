"""`python -m sixdof` is the `sixdof` command."""

import sys

from .cli import main

sys.exit(main())
