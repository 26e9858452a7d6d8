"""Build hook: put the built page, its catalogues and the meshes in the wheel (sixdof/_assets).

Everything else about the package is in pyproject.toml. The page is built with npm
when frontend/dist is missing and npm is available; a wheel without the page would
serve a blank site, so the build stops with a clear message instead.
"""

import shutil
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


def _ensure_frontend_built() -> Path:
    dist = ROOT / "frontend" / "dist"
    if (dist / "index.html").is_file():
        return dist
    frontend = ROOT / "frontend"
    npm = shutil.which("npm")
    if not (frontend / "package.json").is_file() or npm is None:
        raise SystemExit(
            "frontend/dist is missing and cannot be built here (needs frontend/package.json and "
            "npm): run `make setup` first, or build from a tree that contains frontend/dist"
        )
    subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=frontend, check=True)
    subprocess.run([npm, "run", "build"], cwd=frontend, check=True)
    return dist


class BuildPyWithAssets(build_py):
    def run(self) -> None:
        if not self.editable_mode:
            # build/lib outlives builds: a module deleted or renamed in backend/ would
            # otherwise still ship in the next wheel.
            shutil.rmtree(Path(self.build_lib) / "sixdof", ignore_errors=True)
        super().run()
        if self.editable_mode:
            return  # a source checkout serves frontend/dist and meshes/ in place
        target = Path(self.build_lib) / "sixdof" / "_assets"
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(_ensure_frontend_built(), target / "web")
        # the presets' English captions are the page's catalogue messages (sixdof.scenario.presets)
        shutil.copytree(ROOT / "frontend" / "src" / "locales", target / "locales")
        shutil.copytree(
            ROOT / "meshes", target / "meshes", ignore=shutil.ignore_patterns("*.py", "__pycache__")
        )


setup(cmdclass={"build_py": BuildPyWithAssets})
