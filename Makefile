# sixdof: `make run` sets everything up and starts the app; `make test` sets everything up and runs every test (but the timing tier: `make test-timing`).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
HOST   ?= 127.0.0.1
PORT   ?= 8000

.PHONY: setup python frontend frontend-deps browser run test test-unit test-timing lint bench clean

setup: python frontend

python: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,notebook]'
	$(BIN)/pip install --quiet --group dev
	touch $@

frontend: frontend-deps
	cd frontend && npm run --silent build

frontend-deps: frontend/node_modules/.installed

frontend/node_modules/.installed: frontend/package-lock.json
	cd frontend && npm ci --no-audit --no-fund --loglevel=error
	touch $@

browser:
	@bash scripts/ensure-test-packages.sh

# The server answers at once: on a cold numba cache it compiles the physics in the background
# (across the cores, the free bodies' kernels first; its console says so and a viewer who
# comes meanwhile is told how far it is), then loads it with its first room. The package's
# bytecode first, as `sixdof warm` writes it (PYTHONDONTWRITEBYTECODE: docs/performance.md).
run: setup
	$(BIN)/python -m compileall -q backend/sixdof
	$(BIN)/sixdof serve --host $(HOST) --port $(PORT)

# ruff (lint and format), mypy with the pydantic plugin on backend/, the generated protocol
# files current, ESLint and tsc (// @ts-check) on the page.
lint: python frontend-deps
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/python scripts/gen_protocol.py --check
	$(BIN)/python scripts/stamp_kernels.py --check
	cd frontend && npm run --silent lint

# Every tier but `timing` (docs/testing.md): unit, live, browser, cluster, install. Three
# workers on two cores: the browser and live tests wait on real time for part of theirs.
# `sixdof warm` first, as `make run` does: the tests' servers then load the kernels from
# numba's cache instead of each compiling them; the install tier's wheel is the one cold
# compile (its free bodies' kernels; the whole of it is the timing tier's).
test: setup browser
	$(BIN)/sixdof warm
	$(BIN)/pytest -n 3 --dist loadgroup --durations=25

# The quick loop: pure Python and compiled physics, no server (~1 minute on two cores).
test-unit: python
	$(BIN)/sixdof warm
	$(BIN)/pytest -n 2 -m unit

# Wall-clock figures (frame rates, gaps, first answers), alone and on a quiet machine: they
# mean nothing when other work shares the cores, so it waits up to a minute for a quiet one
# and stops there if none comes (SIXDOF_TIMING_ANYWAY=1 measures regardless).
test-timing: setup browser
	$(BIN)/sixdof warm
	$(BIN)/python scripts/quiet_machine.py || [ -n "$$SIXDOF_TIMING_ANYWAY" ]
	$(BIN)/pytest -m timing tests/timing

bench: python
	$(BIN)/pip install --quiet -e '.[bench]'
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) frontend/node_modules frontend/dist
