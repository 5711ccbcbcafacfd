"""The app's view of a sizing report's workload parts (issue 30 items 1-4): which parts a
report holds (one card each under its `size` call), the card's title, its one-line summary and
its lines — the offline answer's lines (`assistant.render.workloads`), nothing computed."""

from __future__ import annotations

from pydantic import BaseModel

from assistant.render.workloads import batch_lines, embedding_lines, lora_lines, rate_lines
from tools.sizing import SizingReport
from tools.units import format_gib
from tools.workloads import LoraServingResult
from tools.workloads.batch import BatchJobResult
from tools.workloads.embedding import EmbeddingResult
from tools.workloads.request_rate import RequestRateResult


def workload_results(report: SizingReport) -> list[BaseModel]:
    """The workload parts `report` holds, in the issue's order."""
    parts = (report.lora_serving, report.batch_job, report.request_rate)
    return [p for p in parts if p is not None]


def workload_part_name(value: BaseModel) -> str | None:
    """The card title key of a workload part (`labels.TOOL_TITLES`); None for other results."""
    if isinstance(value, LoraServingResult):
        return "lora_serving"
    if isinstance(value, RequestRateResult):
        return "request_rate"
    return "batch_job" if isinstance(value, BatchJobResult) else None


def workload_summary(value: BaseModel) -> list[str] | None:
    """A workload part's summary line parts; None for other results."""
    if isinstance(value, RequestRateResult):
        return [
            f"{value.requests_per_s:,.2f} requests/s",
            f"{value.gpus}× {value.gpu_name}",
            f"≈{value.concurrency:,.1f} in flight",
        ]
    if isinstance(value, BatchJobResult):
        return [
            f"{value.count}× {value.gpu_name}",
            f"{value.hours:,.1f} h at full load",
            f"{value.gpu_hours:,.1f} GPU-hours",
        ]
    if isinstance(value, EmbeddingResult):
        best = value.headline
        parts = [value.model.name]
        if best is not None:
            parts += [f"{best.count}× {best.gpu_name}", f"≈{best.tokens_per_s:,.0f} tokens/s"]
            if best.hours is not None:
                parts.append(f"{best.hours:,.1f} h")
        return parts
    if isinstance(value, LoraServingResult):
        return [
            f"{value.adapters:,} adapters",
            f"{value.max_loras:,} slots of rank {value.max_lora_rank}",
            f"{format_gib(value.gpu_bytes_per_gpu)} per GPU",
        ]
    return None


def workload_card_lines(value: BaseModel) -> list[str] | None:
    """A workload part's card lines (the answer's); None for other results."""
    if isinstance(value, LoraServingResult):
        return [line.removeprefix("- ") for line in lora_lines(value)]
    if isinstance(value, EmbeddingResult):
        return [line.removeprefix("- ").replace("**", "") for line in embedding_lines(value)]
    if isinstance(value, BatchJobResult):
        return [line.removeprefix("- ").replace("**", "") for line in batch_lines(value)]
    if isinstance(value, RequestRateResult):
        return [line.removeprefix("- ").replace("**", "") for line in rate_lines(value)]
    return None
