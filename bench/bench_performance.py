"""The performance model against the published measurements of bench/data/perf_references.json.

Every covered row is predicted through the same public functions the recommender uses
(tools.performance decode_step / prefill_time / steady_state / training_time, and the memory
calculator's KV pool), with the calibrated constants of catalog/performance.toml. The summary
gives, per group, the median and worst |error| at those constants (fit) and with each row
predicted by constants refitted without it (held-out, bench/fit_performance.py), against the
targets: median ≤ 10% and worst ≤ 25% in every group with at least 3 rows. Rows the model
cannot run are listed with the reason.
"""

from __future__ import annotations

import math
import statistics
from typing import Any

from bench.fit_performance import chunk_tokens, compare, fit_all
from bench.harness import percent_error
from bench.perf_rows import (
    DECODE_GROUPS,
    FAMILIES,
    GROUP_TITLES,
    GROUPS,
    Setup,
    family_of,
    setups,
    source_of,
    split,
)
from tools.memory import MemoryRequest, estimate_memory
from tools.performance import (
    decode_step,
    prefill_time,
    resolve,
    steady_state,
    training_time,
)
from tools.performance.calibration import calibration, calibration_path, parse_calibration
from tools.units import GiB

MEDIAN_TARGET_PCT = 10.0
WORST_TARGET_PCT = 25.0
MIN_SCORED_ROWS = 3
HELDOUT_RATIO_TARGET = 1.3
"""Issue 31's target on held-out rows, per source family with at least MIN_SCORED_ROWS of
them: median |error| ≤ MEDIAN_TARGET_PCT and every prediction within 1/1.3 … 1.3 of the
measurement."""


def _kv_request(s: Setup) -> MemoryRequest:
    row = s.row
    fields: dict[str, Any] = {
        "model": row["model"],
        "gpu": row["gpu"],
        "gpus": int(row["tp"]),
        "tp": int(row["tp"]),
        "engine": "vllm",
        "weights": s.model.weight_format,
        "kv_dtype": row.get("kv_dtype") or "bf16",
        "context": int(row.get("max_model_len") or s.input_tokens + s.output_tokens),
        "gpu_memory_utilization": row.get("gpu_memory_utilization"),
        "prefill_chunk_tokens": row.get("max_num_batched_tokens"),
        "max_num_seqs": row.get("max_num_seqs"),
        "cuda_graph_bytes": row.get("cuda_graph_bytes"),
    }
    return MemoryRequest.model_validate({k: v for k, v in fields.items() if v is not None})


def kv_prediction(s: Setup) -> float:
    """The KV pool the memory calculator leaves on one GPU, in the row's unit."""
    est = estimate_memory(_kv_request(s))
    pool = est.budget_bytes_per_gpu - (est.per_gpu_bytes - est.breakdown["kv_cache"])
    per_token = est.kv_cache_bytes_per_token_per_gpu
    if s.row["metric"] == "kv_tokens":
        return float(pool // per_token // 16 * 16)
    if s.row["unit"] == "GiB":
        return float(pool / GiB)
    context = int(s.row.get("max_model_len") or 1)
    return float(pool / per_token / context)


def training_prediction(s: Setup) -> float:
    row = s.row
    seq = int(row["seq_len"])
    batch = int(row["global_batch"])
    tokens = float(row.get("train_tokens") or seq * batch * 100)
    tt = training_time(
        s.model, "full", int(row["gpus"]), seq, batch, tokens, bool(row.get("checkpointing"))
    )
    assert tt is not None
    if row["unit"] == "GPU-h":
        return tt.gpu_hours
    return tt.tokens_per_s_per_gpu


def predict(s: Setup) -> float:
    """The model's figure for the row, in the row's unit."""
    m = s.model
    if s.group in DECODE_GROUPS:
        return 1.0 / decode_step(m, int(s.row["batch"]), s.decode_context).seconds
    if s.group == "ttft":
        step = prefill_time(m, s.input_tokens, chunk_tokens(s))
        assert step is not None
        return s.input_tokens / step.seconds if s.is_prefill_rate else step.seconds * 1000
    if s.group == "throughput":
        replicas = int(s.row["gpus"]) // (m.tp * m.pp)
        point = steady_state(
            m, int(s.row["batch"]), s.input_tokens, s.output_tokens, chunk_tokens(s)
        )
        return point.output_tokens_per_s * replicas
    if s.group == "kv":
        return kv_prediction(s)
    if s.group == "training":
        return training_prediction(s)
    raise ValueError(s.group)


def basis_of(s: Setup) -> str:
    if s.group in ("kv",):
        return "formula"
    if s.group == "training":
        from tools.performance import training_mfu

        return training_mfu(s.gpu).basis
    eff = resolve(s.gpu, s.model.weight_format, s.model.engine)
    return eff.decode_basis if s.group in DECODE_GROUPS else eff.prefill_basis


def held_out_value(s: Setup, fit: Any) -> float | None:
    """The row's figure predicted by constants fitted without it: a held-out row's own
    prediction (no fit saw it), a fit row's leave-one-out refit (None: neither)."""
    if split().get(s.id) == "held-out":
        return predict(s)
    if s.id not in fit.heldout_pred or s.id not in fit.measured:
        return None
    ratio = fit.heldout_pred[s.id] / fit.measured[s.id]
    if s.group in DECODE_GROUPS or s.group == "throughput" or s.is_prefill_rate:
        return s.value / ratio  # the row's unit is a rate: inverse of time
    return s.value * ratio


def _summary(errors: list[float]) -> dict[str, float | None]:
    if not errors:
        return {"median": None, "worst": None}
    return {"median": statistics.median(errors), "worst": max(errors)}


def run() -> dict[str, Any]:
    ok, skipped = setups()
    fit = fit_all()
    part = split()
    drift = compare(fit, parse_calibration(calibration_path().read_text(encoding="utf-8")))
    rows: list[dict[str, Any]] = []
    for s in ok:
        ours = predict(s)
        held = held_out_value(s, fit)
        rows.append(
            {
                "group": s.group,
                "id": s.id,
                "quantity": s.row["metric"],
                "setup": f"{s.row.get('model') or s.row.get('params')} {s.model.weight_format} "
                f"on {s.row['gpus']}x {s.gpu.id} (TP={s.model.tp}) {s.row['engine']}",
                "predicted": ours,
                "reference": s.value,
                "unit": s.row["unit"],
                "error_pct": percent_error(ours, s.value),
                "heldout_error_pct": None if held is None else percent_error(held, s.value),
                "basis": basis_of(s),
                "source": s.row["source_url"],
                "gap": s.row.get("gap"),
                "part": part[s.id],
                "family": family_of(s.row),
                "publication": source_of(s.row),
                "ratio": ours / s.value,
            }
        )
    groups = []
    for g in GROUPS:
        mine = [r for r in rows if r["group"] == g and r["part"] == "fit"]
        fit_err = [abs(r["error_pct"]) for r in mine]
        held_err = [
            abs(r["error_pct"]) for r in rows if r["group"] == g and r["part"] == "held-out"
        ]
        f, h = _summary(fit_err), _summary(held_err)
        scored = len(mine) >= MIN_SCORED_ROWS
        meets = (
            scored
            and f["median"] is not None
            and f["median"] <= MEDIAN_TARGET_PCT
            and f["worst"] is not None
            and f["worst"] <= WORST_TARGET_PCT
        )
        groups.append(
            {
                "group": g,
                "title": GROUP_TITLES[g],
                "rows": len(mine),
                "not_covered": sum(1 for u in skipped if u.group == g),
                "median_pct": f["median"],
                "worst_pct": f["worst"],
                "heldout_median_pct": h["median"],
                "heldout_worst_pct": h["worst"],
                "meets_target": meets if scored else None,
            }
        )
    families = family_summaries(rows, skipped)
    uncovered = [
        {"group": u.group, "id": u.id, "reason": u.reason, "source": u.row["source_url"]}
        for u in skipped
    ]
    constants = [
        {
            "table": c.table,
            "key": c.key,
            "value": c.value,
            "rows": len(c.rows),
            "fit_error_pct": c.fit_error_pct,
            "heldout_error_pct": c.heldout_error_pct,
        }
        for c in calibration().all()
        if c.fit_error_pct is not None
    ]
    return {
        "perf_rows": rows,
        "perf_groups": groups,
        "perf_uncovered": uncovered,
        "perf_families": families,
        "perf_heldout_ratio_target": HELDOUT_RATIO_TARGET,
        "perf_constants": constants,
        "perf_worst_target_pct": WORST_TARGET_PCT,
        "perf_calibration_drift": drift,
        "measurements": {
            "performance reference rows covered / listed": f"{len(ok)} / {len(ok) + len(skipped)}",
            "calibration in sync with a fresh fit": "yes" if not drift else f"NO ({len(drift)})",
        },
    }


FAMILY_NOTES: dict[str, str] = {
    "TensorRT-LLM": "the held-out publication is MLPerf v4.0 (Llama-2-70B offline); the GEMM "
    "MFU of TensorRT-LLM FP8 on Hopper rests on NIM's and MLPerf v4.1's rows. The H100 NVL "
    "computes at 0.80 of its datasheet peak (its 400 W board: 132 SMs × 1,080 MHz base clock "
    "against the H100 SXM's 132 × 1,590 MHz; tools.performance.hardware.power_limited_share), "
    "1.11×; the GH200 0.85× (its larger module power is not modelled). In the fit, Mixtral "
    "comes out 1.56-1.69×: MoE expert GEMMs run at the dense efficiency, since v4.1's two "
    "Mixtral rows are too few for a MoE constant",
    "llama.cpp Metal": "five geerlingguy/ai-benchmarks publications were added (Ollama on an "
    "M1 Max and an M4 in Oct-Nov 2024, an M1 Ultra 48-core in Jan 2025 and an M1 Max in Oct "
    "2025; llama-bench on an M3 Ultra in Dec 2025); by the split rule the 2024 README, issue 2 "
    "and PR 11 are held out, and normiebench 3 and beowulf 17 moved to the held-out part, "
    "normiebench 40 and PR 2995 to the fit. The held-out rows show the 2023-24 build era is "
    "not one kernel generation: on the M1 Max the same Llama 3.1 8B / 70B Q4_K_M run 34.49 / "
    "4.09 tok/s on May-2024 build 2797 (XiongjieDai) and 45.32 / 7.25 on Oct-2024 Ollama, so "
    "no one era constant meets both (1.17x and 1.33x above the first, 0.89x and 0.75x below "
    "the second); the Nov-2024 M4 decodes at the 2026 builds' speed (20.89 against normiebench "
    "3's 20.87 tok/s) where the era's base-tier constant, fitted on July-2023 PRs, gives 0.62x. "
    "No fit publication dates the 2024 Metal K-quant speed-up, so the era boundary stays at "
    "the end of 2024. The Jan-2025 M1 Ultra 48-core comes out 1.22-1.57x: the newest builds' "
    "K-quant share is one Apple-wide constant (llama.cpp/apple/gguf, on M1 Max, M3 Ultra and M4 "
    "fit rows), and no fit row has an M1 Ultra K-quant. Prompt rates: "
    "M1 and M1 Max pp1024 1.26x / 1.24x, the M4 pp512 0.67x (its per-core rate pooled now "
    "that normiebench 3 is held out)",
}
"""Why a family misses its held-out target, from the rows (written after the split was fixed;
no constant was changed to meet it)."""


def _worst_ratio(ratios: list[float]) -> float | None:
    """The prediction/measurement ratio furthest from 1 (on a log scale)."""
    if not ratios:
        return None
    return max(ratios, key=lambda x: abs(math.log(x)))


def family_summaries(rows: list[dict[str, Any]], skipped: list[Any]) -> list[dict[str, Any]]:
    """Per source family: rows in the fit and held out, median |error| and worst ratio of each,
    the publications held out, and whether the held-out rows meet issue 31's target."""
    out = []
    names = [f for f in FAMILIES if any(r["family"] == f for r in rows)]
    names += sorted({r["family"] for r in rows} - set(names))
    for name in names:
        mine = [r for r in rows if r["family"] == name]
        fit = [r for r in mine if r["part"] == "fit"]
        held = [r for r in mine if r["part"] == "held-out"]
        held_err = [abs(r["error_pct"]) for r in held]
        held_worst = _worst_ratio([r["ratio"] for r in held])
        scored = len(held) >= MIN_SCORED_ROWS
        meets = (
            scored
            and statistics.median(held_err) <= MEDIAN_TARGET_PCT
            and held_worst is not None
            and 1 / HELDOUT_RATIO_TARGET <= held_worst <= HELDOUT_RATIO_TARGET
        )
        out.append(
            {
                "family": name,
                "fit_rows": len(fit),
                "heldout_rows": len(held),
                "fit_median_pct": _summary([abs(r["error_pct"]) for r in fit])["median"],
                "fit_worst_ratio": _worst_ratio([r["ratio"] for r in fit]),
                "heldout_median_pct": _summary(held_err)["median"],
                "heldout_worst_ratio": held_worst,
                "heldout_publications": sorted({r["publication"] for r in held}),
                "not_covered": sum(1 for u in skipped if family_of(u.row) == name),
                "meets_target": meets if scored else None,
                "why": None if meets or not scored else FAMILY_NOTES.get(name),
            }
        )
    return out
