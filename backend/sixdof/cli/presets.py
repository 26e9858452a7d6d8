"""`sixdof presets [NAME] [--json]`: list the presets, or print one as a file."""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from ..scenario import scenario_to_xml
from ..scenario.presets import DEFAULT_PRESET, PRESETS
from .common import EXIT_OK


def handle(args: argparse.Namespace, err: TextIO) -> int:
    if args.name is None:
        for preset in PRESETS.values():
            default = "  (default)" if preset.name == DEFAULT_PRESET else ""
            print(f"{preset.name:16} {preset.title}{default}\n{'':16} {preset.caption}")
        return EXIT_OK
    scenario = PRESETS[args.name].scenario()
    sys.stdout.write(
        scenario.model_dump_json(indent=2) + "\n" if args.json else scenario_to_xml(scenario)
    )
    return EXIT_OK
