"""`sixdof export FILE` and `sixdof import FILE`: a data directory's lessons and meshes as
one file (sixdof.store.archive)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

from .common import EXIT_FAILED, EXIT_OK, BadInput, cannot_write, data_dir


def _summary(counts: dict[str, int]) -> str:
    return (
        f"{counts['lesson']} lessons, {counts['scenario']} scenarios, "
        f"{counts['share']} Share links, {counts['mesh']} meshes"
    )


def handle(args: argparse.Namespace, err: TextIO) -> int:
    from ..store import DB_NAME, MEMORY, StoreError, StoreRefused, open_store
    from ..store.archive import export_to, import_from

    data = data_dir(args)
    if data == MEMORY:
        raise BadInput("--data :memory: holds nothing to export or import into")
    if args.command == "export" and not (Path(data) / DB_NAME).exists():
        raise BadInput(f"{Path(data) / DB_NAME}: no such file: this data directory holds nothing")
    try:
        store = open_store(data)
    except StoreRefused as exc:
        raise BadInput(str(exc)) from None
    try:
        if args.command == "export":
            try:
                counts = export_to(store, args.file)
            except OSError as exc:
                return cannot_write(args.file, exc, err)
            print(f"sixdof: exported {_summary(counts)} to {args.file}", file=err)
        else:
            try:
                counts = import_from(args.file, store)
            except StoreRefused as exc:
                raise BadInput(str(exc)) from None
            print(f"sixdof: imported {_summary(counts)} into {data}", file=err)
    except StoreError as exc:
        print(f"sixdof: {exc}", file=err)
        return EXIT_FAILED
    finally:
        store.close()
    return EXIT_OK
