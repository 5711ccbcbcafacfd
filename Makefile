# The README's two commands: `make run` and `make test`. Both create .venv if missing.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP_RUN := $(VENV)/.installed-run
STAMP_DEV := $(VENV)/.installed-dev

.PHONY: run test lint typecheck pytest bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(STAMP_RUN): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e .
	touch $@

$(STAMP_DEV): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $@ $(STAMP_RUN)

run: $(STAMP_RUN)
	$(BIN)/gpu-sizer

lint: $(STAMP_DEV)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check assistant tools tests bench

typecheck: $(STAMP_DEV)
	$(BIN)/mypy tools assistant

pytest: $(STAMP_DEV)
	$(BIN)/python -m pytest

test: lint typecheck pytest

bench: $(STAMP_DEV)
	$(BIN)/python -m bench.run

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
