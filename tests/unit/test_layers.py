"""The layers of DESIGN.md section 5 import only downward."""

import subprocess
import sys

import pytest

# Each layer, and the modules it must never pull in.
FORBIDDEN = {
    "sixdof.dynamics": ["fastapi", "uvicorn", "pydantic", "sixdof.scenario", "sixdof.simulation"],
    # the scenario models import numpy only to validate (the dynamics' checks) or to run
    "sixdof.scenario": ["fastapi", "uvicorn", "sixdof.simulation", "sixdof.server", "numpy"],
    "sixdof.simulation": ["fastapi", "uvicorn", "sixdof.server", "sixdof.cli", "numba"],
    # the store is the standard library's sqlite3: `sixdof export/import` run without the
    # web stack or the numerics
    "sixdof.store": ["fastapi", "pydantic", "numpy", "sixdof.server", "sixdof.simulation"],
    "sixdof": ["fastapi", "uvicorn", "pythreejs", "ipywidgets", "numba"],
    # numpy and numba (~90 MiB) load with the first room (Rooms.physics_ready), scipy with
    # Radau: a server nobody has joined, and the command line, hold none of them
    "sixdof.server.launch": [
        "numpy",
        "numba",
        "scipy",
        "pythreejs",
        "ipywidgets",
        "nats",
        "sixdof.cluster",
    ],  # the bus is an optional extra
    "sixdof.cli": ["numpy", "numba", "scipy", "fastapi", "pythreejs", "nats"],
}


@pytest.mark.parametrize("module", sorted(FORBIDDEN))
def test_layer_imports_only_downward(module: str) -> None:
    code = (
        f"import sys, {module}\n"
        f"bad = [m for m in {FORBIDDEN[module]!r} if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"{module} imported {out.stdout.strip()}"


def _imports() -> dict[str, set[str]]:
    """Every sixdof module and the sixdof modules it imports (anywhere in the file)."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "backend" / "sixdof"
    names = {}
    for path in root.rglob("*.py"):
        parts = path.relative_to(root.parent).with_suffix("").parts
        names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph: dict[str, set[str]] = {}
    for module, path in names.items():
        package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = package.split(".")
                if node.level:
                    base = base[: len(base) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    found.add(sub if sub in names else target)
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
        graph[module] = {m for m in found if m in names and m != module}
    return graph


def test_no_import_circles_between_modules() -> None:
    """No module imports, directly or through others, a module that imports it (packages'
    __init__ re-exports aside): the house has no staircases going round."""
    graph = {m: {d for d in deps if d != m.rsplit(".", 1)[0]} for m, deps in _imports().items()}
    graph = {m: {d for d in deps if not m.startswith(d + ".")} for m, deps in graph.items()}
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for dep in sorted(graph.get(node, ())):
            if state.get(dep) == 1:
                cycles.append([*path[path.index(dep) :], dep] if dep in path else [node, dep])
            elif dep not in state:
                visit(dep, [*path, dep])
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert cycles == [], cycles


def test_no_test_module_imports_another() -> None:
    """Tests share helpers through their tiers' kits and `support/`, never through another test
    module: editing one test must not break another's collection (a helper moved out of
    test_elements_e2e once failed two other modules' imports, in CI only)."""
    import ast
    from pathlib import Path

    tests = Path(__file__).resolve().parents[1]
    found = []
    for path in sorted(tests.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                modules = [node.module or ""] + [alias.name for alias in node.names]
            elif isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            else:
                continue
            if any(m.rsplit(".", 1)[-1].startswith("test_") for m in modules):
                found.append(f"{path.relative_to(tests)}:{node.lineno}")
    assert found == [], found
