# sixdof: `make run` sets everything up and starts the app; `make test` sets everything up and runs every test.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
HOST   ?= 127.0.0.1
PORT   ?= 8000

.PHONY: setup python frontend browser run test lint bench clean

setup: python frontend

python: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,notebook]'
	touch $@

frontend:
	@if [ -f frontend/package.json ]; then \
	  (cd frontend && npm ci --no-audit --no-fund --loglevel=error && npm run --silent build); \
	fi

browser:
	@bash scripts/ensure-chromium.sh

run: setup
	$(BIN)/sixdof serve --host $(HOST) --port $(PORT)

lint: python
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

test: setup browser
	$(BIN)/ruff check .
	$(BIN)/pytest

bench: python
	$(BIN)/pip install --quiet -e '.[bench]'
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) frontend/node_modules frontend/dist
