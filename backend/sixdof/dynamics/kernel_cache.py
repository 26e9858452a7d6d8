"""Whether numba's on-disk cache holds the engine's kernels, told without importing numba or
numpy (the server asks at start-up and when its first viewer joins).

numba keeps, for each cached function, an index file `<module>.<name>-<line>.pyXY.nbi` in
the directory its cache locator picks (numba/core/caching.py): `$NUMBA_CACHE_DIR/<dir>_<sha1
of the source directory>` when NUMBA_CACHE_DIR is set, else the `__pycache__` beside the
source when it is writable, else the user-wide cache (`$XDG_CACHE_HOME/numba/…`). The index
starts with numba's version and then the source file's sha256; a kernel whose index is
missing, of another numba or of an older source is compiled again (~30 s of CPU for them
all, 10 s of it the free bodies' kernels).
"""

from __future__ import annotations

import ast
import hashlib
import io
import os
import pickletools
import sys
import threading
from functools import lru_cache
from importlib import metadata
from pathlib import Path

SOURCE = Path(__file__).with_name("kernel_compiled.py")
_HERE = Path(__file__).parent
_KINDS = _HERE / "kinds"


def _stamped(path: Path) -> bool:
    """Whether a module carries a COMPILED_FROM stamp (a kind's, with compiled functions)."""
    return "\nCOMPILED_FROM = " in path.read_text(encoding="utf-8")


#: The kernels `kernel.warm_up` calls (the others are compiled into them), by source file,
#: in the order it calls them: the free bodies' first, then the elements'.
KERNELS: tuple[tuple[Path, tuple[str, ...]], ...] = (
    (
        SOURCE,
        (
            "_derivative_batch",
            "_applied_batch",
            "_spans_serial",
            "_spans_parallel",
            "_uniform_serial",
            "_uniform_parallel",
            "_each_serial",
            "_each_parallel",
        ),
    ),
    (Path(__file__).with_name("system_compiled.py"), ("system_serial", "system_derivative")),
    # compiled into the kernels above, not called on their own: listed for their stamps
    (Path(__file__).with_name("stepper_compiled.py"), ()),
    (Path(__file__).with_name("constraints_compiled.py"), ()),
    (Path(__file__).with_name("tree_compiled.py"), ()),
    (Path(__file__).with_name("tree_run_compiled.py"), ()),
    (Path(__file__).with_name("states_compiled.py"), ()),
    (Path(__file__).with_name("lone_compiled.py"), ()),
    (Path(__file__).with_name("parts_compiled.py"), ()),
    *(
        (path, ())
        for path in sorted(_KINDS.glob("*.py"))
        if "\nCOMPILED_FROM = " in path.read_text()
    ),
)
ENTRY_POINTS = tuple(name for _, names in KERNELS for name in names)


#: The name of the constant each compiled module carries: a hash of the modules it compiles
#: in (`dependency_stamp`). numba keys its cache on the compiled module's own text, and the
#: constants it reads from `layout` and the rest are frozen into the cached code, so a change
#: there alone would leave stale kernels in a developer's cache; the stamp, kept current by
#: `scripts/stamp_kernels.py` (make lint checks it), changes the module's text with them.
STAMP_NAME = "COMPILED_FROM"


#: ast.parse held by one thread at a time: CPython 3.11 before 3.11.8 keeps the depth of its
#: AST-to-object conversion per interpreter, not per thread, and two parses at once fail with
#: "SystemError: AST constructor recursion depth mismatch" (CPython gh-106905). The server
#: asks is_cold() from its request threads; a test run saw a PUT answered 500 by it.
_PARSING = threading.Lock()


def _parse(source: bytes) -> ast.Module:
    with _PARSING:
        return ast.parse(source)


def _root(source: Path) -> Path:
    """The `dynamics` folder `source` is in (itself, or the folder above kinds/)."""
    return source.parent.parent if source.parent.name == _KINDS.name else source.parent


def _imported(module: Path, node: ast.ImportFrom, root: Path) -> list[Path]:
    """The files under `root` a relative import in `module` names (a module, or a package's
    __init__ and the modules imported from it by name)."""
    base = module.parent
    for _ in range(node.level - 1):
        base = base.parent
    target = base.joinpath(*node.module.split(".")) if node.module else base
    names = [target.with_suffix(".py"), target / "__init__.py"] if node.module else []
    names += [target / f"{alias.name}.py" for alias in node.names]
    return [p for p in names if p.is_file() and p.resolve().is_relative_to(root.resolve())]


def dependencies(source: Path) -> list[Path]:
    """The modules of `dynamics` that `source` imports, and theirs (relative imports), sorted
    by their path in it: what numba compiles into `source`'s kernels."""
    root = _root(source)
    found: set[Path] = set()
    todo = [source]
    while todo:
        module = todo.pop()
        for node in _parse(module.read_bytes()).body:
            if isinstance(node, ast.ImportFrom) and node.level >= 1:
                for path in _imported(module, node, root):
                    if path not in found and path != source:
                        found.add(path)
                        todo.append(path)
    return sorted(found, key=lambda p: p.relative_to(root).as_posix())


def dependency_stamp(source: Path) -> str:
    """sha256 (16 hex digits) of the names and texts of `source`'s dependencies."""
    digest = hashlib.sha256()
    for path in dependencies(source):
        name = path.relative_to(_root(source)).as_posix()
        digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def written_stamp(source: Path) -> str | None:
    """The value of `source`'s STAMP_NAME constant, or None."""
    for node in _parse(source.read_bytes()).body:
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == STAMP_NAME for t in node.targets)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            return node.value.value
    return None


def cache_dir(source: Path = SOURCE) -> Path:
    """The directory numba caches `source`'s functions in."""
    folder = str(source.resolve().parent)
    subpath = f"{os.path.basename(folder)}_{hashlib.sha1(folder.encode()).hexdigest()}"
    chosen = os.environ.get("NUMBA_CACHE_DIR", "")
    if chosen:
        return Path(chosen) / subpath
    in_tree = Path(folder) / "__pycache__"
    if os.access(in_tree if in_tree.is_dir() else folder, os.W_OK):
        return in_tree
    user = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return Path(user) / "numba" / subpath


@lru_cache(maxsize=64)  # a source's text: asked on every first viewer, parsed once
def _first_lines(source: bytes) -> dict[str, int]:
    """Each decorated top-level function's first line (its code object's co_firstlineno,
    which names its index file)."""
    tree = _parse(source)
    return {
        node.name: node.decorator_list[0].lineno
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.decorator_list
    }


def _index_fresh(path: Path, version: str, stamp: bytes) -> bool:
    """Whether numba's index file `path` is of numba `version` and source hash `stamp`: read
    with pickletools, which executes nothing."""
    try:
        stream = io.BytesIO(path.read_bytes())
        found = [arg for op, arg, _ in pickletools.genops(stream) if isinstance(arg, str)]
        if found[:1] != [version]:
            return False
        for _op, arg, _ in pickletools.genops(stream):  # (stamp, overloads)
            if isinstance(arg, bytes):
                return arg == stamp
    except (OSError, ValueError, IndexError):
        pass
    return False


def is_cold() -> bool:
    """True when running the kernels would compile them first: numba's cache lacks a fresh
    index for one of them (`sixdof warm` fills it)."""
    return fresh() < len(ENTRY_POINTS)


def fresh() -> int:
    """How many of ENTRY_POINTS numba's cache holds fresh: while a compilation fills the
    cache (`sixdof warm`, in the order warm_up calls them), its progress."""
    return sum(_fresh_in(source, names) for source, names in KERNELS)


def holds(source: Path, name: str) -> bool:
    """Whether numba's cache holds `source`'s kernel `name` fresh."""
    return _fresh_in(source, (name,)) == 1


def _fresh_in(source: Path, names: tuple[str, ...]) -> int:
    try:
        version = metadata.version("numba")
        text = source.read_bytes()
    except (OSError, metadata.PackageNotFoundError):
        return 0
    stamp = hashlib.sha256(text).digest()
    lines = _first_lines(text)
    folder = cache_dir(source)
    python = f"py{sys.version_info[0]}{sys.version_info[1]}{sys.abiflags}"
    count = 0
    for name in names:
        index = folder / f"{source.stem}.{name}-{lines.get(name, 0)}.{python}.nbi"
        count += name in lines and _index_fresh(index, version, stamp)
    return count
