"""The workload results of issue 30 items 1-4 as lines: multi-LoRA serving's adapter memory
and launch line (a sizing report's part), an embedding corpus's speed, time and cost (the
`embed_corpus` result). Every surface (the offline answer, the app's card, MCP, the proposal)
shows these lines; figures are the tools', converted for display (GiB)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from assistant.render.results import CallResult
from assistant.results import ToolError
from tools.sizing import SizingReport
from tools.units import format_bytes, format_count, format_gib
from tools.workloads import LoraServingResult
from tools.workloads.embedding import EmbeddingOption, EmbeddingResult
from tools.workloads.prices import HourlyQuote

if TYPE_CHECKING:
    from assistant.offline.parsed import ParsedWorkload


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


_TIER_WORDS = {"on_demand": "on demand", "spot": "spot"}


def _quote(quote: HourlyQuote, usd: float | None) -> str:
    flags = ", stale" if quote.stale else ""
    flags += ", low confidence" if quote.low_confidence else ""
    amount = "" if usd is None else f"{usd:,.2f} USD "
    return (
        f"{amount}{_TIER_WORDS.get(quote.tier, quote.tier)} ({quote.usd_per_hour:,.2f} USD/h, "
        f"{quote.provider}, {quote.as_of}{flags})"
    )


def _option_line(result: EmbeddingResult, o: EmbeddingOption) -> str:
    speed = f"≈{o.tokens_per_s:,.0f} tokens/s (≈{o.documents_per_s:,.0f} texts/s), {result.basis}"
    where = f"{o.count}× {o.gpu_name}"
    if not o.fits:
        return (
            f"- On {where}: does not fit ({format_gib(o.memory_bytes_per_gpu)} needed of "
            f"{format_gib(o.budget_bytes_per_gpu)} per GPU)."
        )
    line = f"- On {where}: {speed}; {format_gib(o.memory_bytes_per_gpu)} of "
    line += f"{format_gib(o.budget_bytes_per_gpu)} per GPU"
    if o.hours is not None and o.gpu_hours is not None:
        line += f"; {o.hours:,.1f} h at full load ({o.gpu_hours:,.1f} GPU-hours)"
    if o.quotes:
        line += "; " + ", ".join(_quote(q, o.job_usd.get(q.tier)) for q in o.quotes)
    else:
        line += "; no price in the catalog"
    return line + "."


def embedding_lines(result: EmbeddingResult) -> list[str]:
    """The model, the corpus, the headline option and the others, the deadline's GPU count."""
    m = result.model
    what = "Reranking" if m.task == "reranker" else "Embedding"
    dims = "" if m.dimensions is None else f"{m.dimensions:,}-dimensional vectors, "
    head = (
        f"**{what} with {m.name}** ({m.kind}, {result.parameters:,} parameters, "
        f"{format_gib(result.weights_bytes)} of 16-bit weights; {dims}inputs up to "
        f"{m.max_tokens:,} tokens)"
    )
    if result.total_tokens is not None:
        texts = "" if result.documents is None else f"{result.documents:,} texts × "
        per = f"{result.tokens_per_document:,} tokens = " if result.documents else ""
        head += f": {texts}{per}{format_count(result.total_tokens)} tokens."
    else:
        head += "."
    lines = [head]
    lines += [_option_line(result, o) for o in result.options]
    lines += [
        f"- {name}: no published tensor throughput, so no speed or time is estimated."
        for name in result.unrated
    ]
    best = result.headline
    if best is not None and best.gpus_for_deadline is not None and result.deadline_hours:
        lines.append(
            f"- Within {result.deadline_hours:g} h: {best.gpus_for_deadline}× {best.gpu_name} "
            f"at full load ({best.gpu_hours or 0:,.1f} GPU-hours ÷ {result.deadline_hours:g} h)."
        )
    if best is not None:
        lines.append(
            f"- Speed basis: {best.compute} ÷ {result.flops_per_token / 1e9:,.2f} GFLOP "
            "per token, compute-bound (estimated)."
        )
    return lines


def embedding_call_lines(calls: list[CallResult]) -> list[str]:
    """The lines of each `embed_corpus` call of a turn (or why it could not run)."""
    out: list[str] = []
    for call in calls:
        if call.name != "embed_corpus":
            continue
        if isinstance(call.value, EmbeddingResult):
            out += embedding_lines(call.value)
        else:
            problem = call.value.text if isinstance(call.value, ToolError) else "no result"
            out.append(f"- The corpus could not be sized: {problem}")
    return out


def workload_follow_ups(parsed: ParsedWorkload) -> list[str]:
    """What to ask next about a workload of issue 30 (an embedding corpus: its size and
    length), in place of the serving questions; empty for other workloads."""
    if parsed.embedding_model is None:
        return []
    asks: list[str] = []
    if parsed.documents is None and parsed.corpus_tokens is None:
        asks.append("How many documents (or tokens) is the corpus? Time and cost follow from it.")
    if parsed.tokens_per_document is None:
        asks.append("How long is a document, in tokens? Texts per second scale with it.")
    if not parsed.gpus:
        asks.append("Which GPU, if you have one in mind? The cheapest per token lead otherwise.")
    return asks or ["A deadline ('within 4 hours') gives the GPU count that meets it."]
