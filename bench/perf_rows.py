"""The performance reference set (bench/data/perf_references.json) as setups the model can run.

Shared by the calibration fit (bench/fit_performance.py) and the accuracy benchmark
(bench/bench_performance.py): each row becomes a `Setup` — the catalog model, GPU and weight
format as `ModelOnGpus`, the measured figure in SI units — or an `Uncovered` with the reason the
model cannot run it (a GPU or format not in the catalog yet, a row flagged in the data).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from tools.catalog import CatalogError, GpuSpec, get_catalog
from tools.errors import ToolInputError
from tools.memory import kv_cache_bytes_per_token, normalize_format, resolve_model, weight_bytes
from tools.performance import ModelOnGpus, compute_rate
from tools.performance.engines import LLAMA_CPP_VULKAN, with_build_era
from tools.performance.llama_builds import era_of_date

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


def gpu_cores(gpu: GpuSpec) -> int:
    """A unified-memory chip's GPU cores (0 when the catalog has none)."""
    return 0 if gpu.unified_memory is None else gpu.unified_memory.gpu_cores or 0


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
    apple_prefill = (
        row["group"] == "ttft"
        and gpu.unified_memory is not None
        and bool(gpu_cores(gpu))
        and gpu.vendor == "Apple"
    )
    if (
        row["group"] in ("ttft", "throughput", "training")
        and not apple_prefill
        and compute_rate(gpu, fmt) is None
    ):
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
        engine=engine_of(row),
    )
    return Setup(row, m, gpu)


def engine_of(row: dict[str, Any]) -> str:
    """The engine name a row runs under: its engine, for llama.cpp on the Vulkan backend
    (`family_of`) `llama.cpp-vulkan`, whose constants calibrate apart from the default backend's
    (tools.performance.efficiency.backend_keys), and for llama.cpp on Metal its build era
    (`build_era_of`)."""
    family = family_of(row)
    if family == "llama.cpp Vulkan":
        return LLAMA_CPP_VULKAN
    engine = str(row.get("engine", "vllm"))
    if family == "llama.cpp Metal":
        return with_build_era(engine, build_era_of(row))
    return engine


def build_era_of(row: dict[str, Any]) -> str | None:
    """The llama.cpp build era of a row (tools.performance.engines.LLAMA_CPP_K_QUANT_ERAS):
    "2023-24" for a build dated up to 2024 (the first year of the row's source date, 'build
    8e672ef (2023-11-21); …' too: a publication's build is never newer than the publication),
    None (the newest builds) otherwise or when undated. The rule a named build's measurements
    are matched by (tools.performance.llama_builds.era_of_date)."""
    return era_of_date(str(row.get("source_date") or ""))


def setups() -> tuple[list[Setup], list[Uncovered]]:
    """Every row built: (setups the model runs, rows it cannot)."""
    ok: list[Setup] = []
    skipped: list[Uncovered] = []
    for row in reference_rows():
        built = build(row)
        (ok if isinstance(built, Setup) else skipped).append(built)  # type: ignore[arg-type]
    return ok, skipped


# --- source families and the held-out split (issue 31) --------------------------------------

FAMILIES = (
    "vLLM",
    "SGLang",
    "TensorRT-LLM",
    "llama.cpp CUDA",
    "llama.cpp Metal",
    "llama.cpp Vulkan",
    "llama.cpp ROCm",
    "llama.cpp SYCL",
    "MLX",
    "ExLlamaV2",
    "MLC LLM",
    "gpt-fast",
    "Transformers",
    "training",
    "vLLM memory",
)
"""The source families the benchmark reports: engine × backend (the issue's list, plus the
engines the reference set has rows of)."""

_ENGINE_FAMILIES = {
    "vllm": "vLLM",
    "sglang": "SGLang",
    "tensorrt-llm": "TensorRT-LLM",
    "mlx": "MLX",
    "exllamav2": "ExLlamaV2",
    "mlc-llm": "MLC LLM",
    "gpt-fast": "gpt-fast",
    "transformers": "Transformers",
}


def source_of(row: dict[str, Any]) -> str:
    """The publication a row comes from: its URL without the note after it; on GitHub the
    repository, or its issue / pull request / discussion (a README, its notebooks and result
    files are one publication)."""
    url = re.split(r"[ ;(]", str(row.get("source_url") or ""), maxsplit=1)[0].rstrip("/.,")
    match = re.match(r"(https://github\.com/[^/]+/[^/#]+)(/(issues|pull|discussions)/\d+)?", url)
    if match:
        return match.group(1) + (match.group(2) or "")
    return url.split("#")[0]


def family_of(row: dict[str, Any]) -> str:
    """The source family of a row: the engine, and for llama.cpp its backend."""
    if row.get("group") == "training":
        return "training"
    if row.get("group") == "kv":
        return "vLLM memory"
    engine = str(row.get("engine") or "").lower()
    if engine == "llama.cpp":
        text = f"{row.get('engine_version') or ''} {row.get('gpu') or ''}".lower()
        if "metal" in text or str(row.get("gpu") or "").startswith("apple"):
            return "llama.cpp Metal"
        for word, fam in (
            ("vulkan", "Vulkan"),
            ("rocm", "ROCm"),
            ("hip", "ROCm"),
            ("sycl", "SYCL"),
        ):
            if word in text:
                return f"llama.cpp {fam}"
        return "llama.cpp CUDA"
    return _ENGINE_FAMILIES.get(engine, engine or "other")


def held_out_ids(rows: list[dict[str, Any]]) -> set[str]:
    """The rows kept out of every fit, by source: within each family the sources in order of
    size (most rows first), every second one held out whole; a family with one source keeps
    every third of its rows (by id) out. Deterministic, decided before any fit, and never by
    the rows' errors."""
    by_family: dict[str, dict[str, list[str]]] = {}
    for row in rows:
        by_family.setdefault(family_of(row), {}).setdefault(source_of(row), []).append(
            str(row["id"])
        )
    held: set[str] = set()
    for sources in by_family.values():
        ordered = sorted(sources.items(), key=lambda kv: (-len(kv[1]), kv[0]))
        if len(ordered) >= 2:
            for i, (_, ids) in enumerate(ordered):
                if i % 2 == 1:
                    held.update(ids)
        else:
            ids = sorted(ordered[0][1])
            held.update(rid for i, rid in enumerate(ids) if i % 3 == 2)
    return held


@lru_cache(maxsize=1)
def split() -> dict[str, str]:
    """Each reference row's part: 'fit' or 'held-out' (`held_out_ids`)."""
    rows = list(reference_rows())
    held = held_out_ids(rows)
    return {str(r["id"]): ("held-out" if r["id"] in held else "fit") for r in rows}
