"""The workload parts of a sizing report as lines (issue 30 items 1-4): multi-LoRA serving's
adapter memory and launch line. Every surface (the offline answer, the app's card, MCP, the
proposal) shows these lines; figures are the report's, converted for display (GiB)."""

from __future__ import annotations

from tools.sizing import SizingReport
from tools.units import format_bytes, format_gib
from tools.workloads import LoraServingResult


def lora_lines(lora: LoraServingResult) -> list[str]:
    """The adapters' memory, whether the layout still holds the load, the launch line."""
    slots = (
        f"{lora.max_loras:,} GPU slot(s) of rank {lora.max_lora_rank} "
        f"({format_bytes(lora.slot_bytes, 'MiB', 0)} each, {lora.params_per_slot:,} parameters at "
        f"{lora.dtype_bytes} B)"
    )
    layout = f"TP {lora.tp}" + ("" if lora.pp == 1 else f" × PP {lora.pp}")
    lines = [
        f"- LoRA serving: {lora.adapters:,} adapter(s), {slots}: "
        f"{format_gib(lora.gpu_bytes_per_gpu)} per GPU at {layout}; CPU cache of "
        f"{lora.max_cpu_loras:,} adapter(s): up to {format_gib(lora.cpu_cache_bytes)} of host RAM."
    ]
    if lora.gpu is not None and lora.headroom_bytes is not None:
        where = f"{lora.count}× {lora.gpu_name or lora.gpu} (sized above without them)"
        if lora.fits:
            kv = ""
            if lora.kv_tokens_before is not None and lora.kv_tokens_after is not None:
                kv = (
                    f"; KV cache {lora.kv_tokens_before:,} → {lora.kv_tokens_after:,} tokens "
                    "per replica"
                )
            lines.append(
                f"- With the adapters {where} still holds the load "
                f"({format_gib(lora.headroom_bytes)} headroom per GPU before them){kv}."
            )
        else:
            most = lora.max_loras_that_fit
            lever = "" if most is None else f"; at most --max-loras {most} fits beside it"
            lines.append(
                f"- With the adapters {where} does not hold the load: "
                f"{format_gib(lora.headroom_bytes)} headroom per GPU, "
                f"{format_gib(lora.gpu_bytes_per_gpu)} needed{lever} — or size with more GPUs."
            )
    lines.append(f"- Launch: `{lora.launch}`")
    lines.append(f"- {lora.throughput_note}")
    return lines


def workload_lines(report: SizingReport) -> list[str]:
    """Every workload part of `report`, in the issue's order, or the part's error."""
    lines: list[str] = []
    if report.lora_serving is not None:
        lines += lora_lines(report.lora_serving)
    if report.workloads_error is not None:
        lines.append(f"- Could not size: {report.workloads_error.text}")
    return lines
