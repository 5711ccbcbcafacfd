"""Run NVIDIA AIConfigurator (pip `aiconfigurator`, its own venv) on reference rows.

Reads a JSON list of specs on stdin — {"workload", "model_path", "system", "backend", "mode",
"isl", "osl", "batch_size", "tp", "gemm", "kvcache", "metric", "replicas"} — and prints a JSON
list of {"workload", "value", "unit", "note"}: decode tok/s per user (1000 / TPOT), TTFT in ms,
or output tok/s of all replicas, whichever the row measures. Runs offline (HF_HUB_OFFLINE=1)
from AIConfigurator's bundled model configs and measured kernel databases. A spec whose batch
does not fit AIConfigurator's KV model is retried at half the batch (noted).
"""

from __future__ import annotations

import json
import sys
from typing import Any


def _estimate(spec: dict[str, Any], batch: int) -> Any:
    from aiconfigurator.cli.api import cli_estimate

    kwargs: dict[str, Any] = {
        "mode": spec["mode"],
        "backend_name": spec["backend"],
        "isl": max(1, int(spec["isl"])),
        "osl": max(2, int(spec["osl"])),
        "batch_size": batch,
        "tp_size": int(spec["tp"]),
        "gemm_quant_mode": spec["gemm"],
        "kvcache_quant_mode": spec["kvcache"],
    }
    if spec.get("ctx_tokens"):
        kwargs["ctx_tokens"] = int(spec["ctx_tokens"])
    if spec.get("moe"):
        kwargs["moe_quant_mode"] = spec["gemm"]
        kwargs["moe_tp_size"] = int(spec["tp"])
        kwargs["moe_ep_size"] = 1
    return cli_estimate(spec["model_path"], spec["system"], **kwargs)


def run(spec: dict[str, Any]) -> dict[str, Any]:
    batch = int(spec["batch_size"])
    note = f"AIConfigurator {spec['backend']} on {spec['system']}, {spec['mode']}"
    while True:
        try:
            result = _estimate(spec, batch)
            break
        except RuntimeError as exc:
            if "OOM" not in str(exc) or batch <= 1:
                return {"workload": spec["workload"], "value": None, "note": str(exc)[:200]}
            batch //= 2
    if batch != int(spec["batch_size"]):
        note += f" (batch {spec['batch_size']} does not fit its KV model: run at {batch})"
    metric = spec["metric"]
    if metric == "decode":
        value, unit = 1000.0 / float(result.tpot), "tok/s"
    elif metric == "ttft":
        value, unit = float(result.ttft), "ms"
    else:
        value = float(result.raw["tokens/s"]) * int(spec.get("replicas", 1))
        unit = "tok/s"
    return {"workload": spec["workload"], "value": value, "unit": unit, "note": note}


def main() -> None:
    specs = json.loads(sys.stdin.read())
    out = []
    for spec in specs:
        try:
            out.append(run(spec))
        except Exception as exc:  # a peer failure is a result row, never a crash of the bench
            out.append({"workload": spec["workload"], "value": None, "note": repr(exc)[:200]})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
