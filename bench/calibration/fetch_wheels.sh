#!/usr/bin/env bash
# Download, HERE (not on the device), the wheels the lent GPU machine lacks for the calibration
# run: its python3 (3.12) has torch, transformers and peft but not pydantic, which tools/ needs
# (.library/device/KINDS.md, "Python packages already there", read 2026-11-17). Versions are the
# ones this project's virtualenv resolved, so the device runs the code we test.
# Usage, from the repository root:  bash bench/calibration/fetch_wheels.sh
# Then name `.whl` in the run's `carry` (it is git-ignored) and start with device_run.sh.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
py=.venv/bin/python
[ -x "$py" ] || { echo "run 'make .venv/done' (or make test) first: versions come from .venv" >&2; exit 1; }
version() { "$py" -c "import importlib.metadata as m; print(m.version('$1'))"; }
rm -rf .whl && mkdir -p .whl
# typing_extensions too: pydantic needs >= 4.16 and the image's version is not recorded.
for pkg in pydantic pydantic_core annotated_types typing_inspection typing_extensions; do
  spec="$pkg==$(version "$pkg")"
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
    --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
    --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d .whl "$spec"
done
ls -l .whl
