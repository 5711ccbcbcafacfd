#!/usr/bin/env bash
# The one command to run on the lent GPU machine (issue 10), from the repository root, with
# `.whl` carried (bench/calibration/fetch_wheels.sh fills it here first):
#   run(command="bash bench/calibration/device_run.sh", carry=[".whl"], timeout_s=600)
# Installs the carried wheels outside the image's site-packages, prints what the machine has,
# then measures for at most BUDGET_S seconds (default 420; the file is rewritten after every
# point, so whatever finished comes back under $OUT even if the call is stopped).
# CALIBRATE_ARGS adds arguments (a CPU dry run here: CALIBRATE_ARGS="--device cpu --tiny").
set -uo pipefail
BUDGET_S="${BUDGET_S:-420}"
OUT="${OUT:-/tmp/calibration-out}"
mkdir -p "$OUT"
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl || exit 1
  export PYTHONPATH="/tmp/site:$PWD"
else
  export PYTHONPATH="$PWD"
fi
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
python3 -c "import torch, transformers, peft, pydantic; print('torch', torch.__version__, \
'cuda', torch.version.cuda, '| transformers', transformers.__version__, '| peft', \
peft.__version__, '| pydantic', pydantic.VERSION)" || exit 1
# shellcheck disable=SC2086  # CALIBRATE_ARGS is a list of words on purpose
python3 -m bench.calibrate_gpu --budget-s "$BUDGET_S" --output "$OUT/calibration.json" \
  ${CALIBRATE_ARGS:-} \
  2>&1 | tee "$OUT/calibrate.log"
exit "${PIPESTATUS[0]}"
