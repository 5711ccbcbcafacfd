"""The performance reference set (bench/data/perf_references.json) as setups the model can run.

Shared by the calibration fit (bench/fit_performance.py) and the accuracy benchmark
(bench/bench_performance.py): each row becomes a `Setup` — the catalog model, GPU and weight
format as `ModelOnGpus`, the measured figure in SI units — or an `Uncovered` with the reason the
model cannot run it (a GPU or format not in the catalog yet, a row flagged in the data).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from tools.catalog import CatalogError, GpuSpec, get_catalog
from tools.errors import ToolInputError
from tools.memory import kv_cache_bytes_per_token, normalize_format, resolve_model, weight_bytes
from tools.performance import ModelOnGpus, compute_rate

REFERENCES_JSON = Path(__file__).resolve().parent / "data" / "perf_references.json"

DECODE_GROUPS = ("decode-bf16", "decode-int8", "decode-int4", "decode-fp8")
GROUPS = (*DECODE_GROUPS, "throughput", "ttft", "kv", "training")
GROUP_TITLES = {
    "decode-bf16": "batch-1 decode, 16-bit",
    "decode-int8": "batch-1 decode, 8-bit integer",
    "decode-int4": "batch-1 decode, 4-bit",
    "decode-fp8": "batch-1 decode, fp8",
    "throughput": "full-load throughput",
    "ttft": "TTFT and prefill",
    "kv": "KV capacity",
    "training": "training",
}


@dataclass(frozen=True)
class Setup:
    """One reference row the model can run."""

    row: dict[str, Any]
    model: ModelOnGpus
    gpu: GpuSpec

    @property
    def id(self) -> str:
        return str(self.row["id"])

    @property
    def group(self) -> str:
        return str(self.row["group"])

    @property
    def value(self) -> float:
        return float(self.row["value"])

    @property
    def input_tokens(self) -> int:
        return int(self.row.get("input_tokens") or 0)

    @property
    def output_tokens(self) -> int:
        return int(self.row.get("output_tokens") or 0)

    @property
    def decode_context(self) -> float:
        """Mean KV length while the measured tokens were generated: prompt + output/2."""
        return self.input_tokens + self.output_tokens / 2

    @property
    def is_prefill_rate(self) -> bool:
        """True for prompt-processing tokens/s rows (llama-bench ppN, AutoAWQ prefill)."""
        return str(self.row.get("unit")) == "tok/s" and self.group == "ttft"

    def measured_seconds(self) -> float:
        """The measured time of the row's unit of work, seconds: one decode step (1/tok/s),
        one prefill (prompt / tok/s, or the TTFT), one full-load step (batch / tok/s of one
        replica)."""
        if self.group in DECODE_GROUPS:
            return 1.0 / self.value
        if self.group == "ttft":
            return self.input_tokens / self.value if self.is_prefill_rate else self.value / 1000
        if self.group == "throughput":
            replicas = int(self.row["gpus"]) // (int(self.row["tp"]) * int(self.row.get("pp", 1)))
            return int(self.row["batch"]) / (self.value / replicas)
        raise ValueError(f"{self.id}: no time for group {self.group}")


@dataclass(frozen=True)
class Uncovered:
    """A reference row the model cannot run, and why."""

    row: dict[str, Any]
    reason: str

    @property
    def id(self) -> str:
        return str(self.row["id"])

    @property
    def group(self) -> str:
        return str(self.row["group"])


@lru_cache(maxsize=1)
def reference_rows() -> tuple[dict[str, Any], ...]:
    """Every row of the reference set."""
    doc = json.loads(REFERENCES_JSON.read_text(encoding="utf-8"))
    return tuple(doc["rows"])


def build(row: dict[str, Any]) -> Setup | Uncovered:
    """The setup of `row`, or why the model cannot run it."""
    if row.get("uncovered"):
        return Uncovered(row, str(row["uncovered"]))
    if row.get("gpu") is None:
        return Uncovered(row, "no catalog GPU for this hardware")
    try:
        gpu = get_catalog().gpu(str(row["gpu"]))
    except (CatalogError, ToolInputError, KeyError, LookupError):
        return Uncovered(row, f"GPU '{row['gpu']}' is not in the catalog yet")
    try:
        fmt = normalize_format(str(row["weights"]))
    except ToolInputError:
        return Uncovered(row, f"weight format '{row['weights']}' is not in tools/memory/formats")
    model_id = row.get("model") or row.get("config")
    try:
        resolved = resolve_model(model=model_id, params=row.get("params") if not model_id else None)
    except ToolInputError as exc:
        return Uncovered(row, f"model not resolvable: {exc}")
    if row["group"] in ("ttft", "throughput", "training") and compute_rate(gpu, fmt) is None:
        return Uncovered(row, f"the catalog has no tensor throughput for {gpu.name}")
    arch = resolved.architecture
    tp = int(row.get("tp", 1))
    pp = int(row.get("pp", 1))
    group_size = int(row.get("group_size", 128))
    wb = weight_bytes(arch, fmt, group_size=group_size, total_params=resolved.stated_params)
    kv_dtype = str(row.get("kv_dtype") or "bf16")
    kv = kv_cache_bytes_per_token(arch, kv_dtype, tp=tp) / pp
    m = ModelOnGpus(
        arch=arch,
        params=resolved.params,
        weight_bytes_total=wb.total,
        weight_format=fmt,
        kv_bytes_per_token_per_gpu=kv,
        gpu=gpu,
        tp=tp,
        pp=pp,
        weights=wb,
        engine=str(row.get("engine", "vllm")),
    )
    return Setup(row, m, gpu)


def setups() -> tuple[list[Setup], list[Uncovered]]:
    """Every row built: (setups the model runs, rows it cannot)."""
    ok: list[Setup] = []
    skipped: list[Uncovered] = []
    for row in reference_rows():
        built = build(row)
        (ok if isinstance(built, Setup) else skipped).append(built)  # type: ignore[arg-type]
    return ok, skipped
