"""The compiled modules' COMPILED_FROM stamps (dynamics/kernel_cache.py): numba keys its cache on
a module's own text, so the constants it compiles in from `layout` and the rest would go stale
in a developer's cache without them."""

from __future__ import annotations

import shutil
from pathlib import Path

from sixdof.dynamics import kernel_cache


def test_every_compiled_module_carries_its_current_stamp() -> None:
    for source, _names in kernel_cache.KERNELS:
        assert kernel_cache.written_stamp(source) == kernel_cache.dependency_stamp(source), (
            f"{source.name}: run python scripts/stamp_kernels.py"
        )


def test_the_stamp_follows_what_is_compiled_in(tmp_path: Path) -> None:
    here = Path(kernel_cache.__file__).parent
    names = {p.name for p in kernel_cache.dependencies(here / "system_compiled.py")}
    assert {"layout.py", "names.py", "methods.py", "borrow.py", "kernel_compiled.py"} <= names
    assert "system_compiled.py" not in names and "water.py" not in names
    for path in here.glob("*.py"):
        shutil.copy(path, tmp_path / path.name)
    copy = tmp_path / "system_compiled.py"
    before = kernel_cache.dependency_stamp(copy)
    layout = tmp_path / "layout.py"
    layout.write_text(layout.read_text() + "\nE_EXTRA = 99\n")
    assert kernel_cache.dependency_stamp(copy) != before
