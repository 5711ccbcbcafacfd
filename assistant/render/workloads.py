"""The workload results of issue 30 items 1-4 as lines: multi-LoRA serving's adapter memory
and launch line (a sizing report's part), an embedding corpus's speed, time and cost (the
`embed_corpus` result). Every surface (the offline answer, the app's card, MCP, the proposal)
shows these lines; figures are the tools', converted for display (GiB)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from assistant.render.results import CallResult
from assistant.results import ToolError
from tools.sizing import SizingReport
from tools.units import format_bytes, format_gib, spoken_count
from tools.workloads import LoraServingResult
from tools.workloads.batch import BatchJobResult
from tools.workloads.embedding import EmbeddingOption, EmbeddingResult
from tools.workloads.prices import HourlyQuote
from tools.workloads.request_rate import RequestRateResult

if TYPE_CHECKING:
    from assistant.reading.parsed import ParsedWorkload


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


def batch_lines(job: BatchJobResult) -> list[str]:
    """The job's hours, GPU-hours and cost on the headline layout, the deadline's count, and
    the hosted APIs' price for the same tokens."""
    where = f"{job.count}× {job.gpu_name}"
    basis = job.basis or "estimated"
    lines = [
        f"**Batch job: {spoken_count(job.input_tokens)} input + "
        f"{spoken_count(job.output_tokens)} output tokens on {where}: {job.hours:,.1f} h at "
        f"full load ({job.gpu_hours:,.1f} GPU-hours)**, at ≈{job.output_tokens_per_s:,.0f} "
        f"output + ≈{job.input_tokens_per_s:,.0f} input tokens/s ({basis}).",
    ]
    if job.quotes:
        lines.append(
            "- Cost of the job: "
            + ", ".join(
                f"{q.job_usd:,.2f} USD {_TIER_WORDS.get(q.quote.tier, q.quote.tier)} "
                f"({q.quote.usd_per_hour:,.2f} USD/h, {q.quote.provider}, {q.quote.as_of}"
                + (", stale" if q.quote.stale else "")
                + ")"
                for q in job.quotes
            )
            + "."
        )
    if job.gpus_for_deadline is not None and job.deadline_hours is not None:
        lines.append(
            f"- Within {job.deadline_hours:g} h: {job.gpus_for_deadline}× {job.gpu_name} "
            f"({job.replicas_for_deadline} replica(s), {job.hours_for_deadline or 0:,.1f} h)."
        )
    for api in job.apis[:3]:
        batch = ""
        if api.batch_usd is not None and api.discount is not None:
            up_to = "up to " if api.discount.up_to else ""
            batch = (
                f"; {api.batch_usd:,.2f} USD with its batch API ({up_to}"
                f"{api.discount.fraction:.0%} off, {api.discount.as_of})"
            )
        lines.append(
            f"- Hosted {api.provider} ({api.model}, {api.as_of}): {api.usd:,.2f} USD at "
            f"real-time prices{batch}."
        )
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
        head += f": {texts}{per}{spoken_count(result.total_tokens)} tokens."
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
    length; a batch job: its requests and deadline), in place of the serving questions;
    empty for other workloads."""
    if parsed.requests_per_s is not None:
        rate: list[str] = []
        if parsed.peak_factor is None:
            rate.append("How much higher is the peak than the average rate? Peaks add replicas.")
        if parsed.latency_percentile is None:
            rate.append("A latency target ('p99 TTFT under 500 ms') gives the count meeting it.")
        return rate
    if parsed.batch_input_tokens is not None or parsed.batch_requests is not None:
        job: list[str] = []
        if parsed.batch_requests is None:
            job.append(
                "How many requests is the job? The prompt length per request sets the "
                "prefill share (sized at the default prompt, at the job's ratio)."
            )
        if parsed.deadline_hours is None:
            job.append("A deadline ('within 24 hours') gives the GPU count that meets it.")
        return job
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


def rate_lines(rate: RequestRateResult) -> list[str]:
    """The rate's replicas, concurrency by Little's law and the latency percentiles."""
    peak = f"{rate.requests_per_s:,.2f} requests/s"
    if rate.peak_factor != 1:
        peak += f" at peak ({rate.average_requests_per_s:,.2f}/s × {rate.peak_factor:g})"
    target = ""
    if rate.percentile is not None:
        goals = []
        if rate.ttft_target_s is not None:
            goals.append(f"TTFT ≤ {rate.ttft_target_s:g} s")
        if rate.inter_token_target_s is not None:
            goals.append(f"inter-token ≤ {rate.inter_token_target_s * 1000:g} ms")
        target = f" meet p{rate.percentile} " + " and ".join(goals) if goals else ""
    price = "" if rate.usd_per_hour is None else f"; {rate.usd_per_hour:,.2f} USD/h on demand"
    head = (
        f"**{peak}: {rate.gpus}× {rate.gpu_name} ({rate.replicas} replica(s)){target}**"
        f"{price} — ≈{rate.concurrency:,.1f} requests in flight (Little's law: "
        f"{rate.requests_per_s:,.2f}/s × {rate.request_s:,.2f} s each), prefill queue "
        f"{rate.utilisation:.0%} busy per replica (estimated)."
    )
    names = " / ".join(f"p{q.percentile}" for q in rate.quantiles)
    ttft = " / ".join(f"{q.ttft_s:.3f}" for q in rate.quantiles)
    itl = " / ".join(f"{q.inter_token_s * 1000:,.0f}" for q in rate.quantiles)
    lines = [
        head,
        f"- TTFT {names}: {ttft} s; inter-token time {names}: {itl} ms (M/D/1 prefill "
        "queue, estimated).",
    ]
    lines += [f"- {a}" for a in rate.assumptions[1:]]
    return lines


def job_lead_lines(report: SizingReport) -> list[str]:
    """A batch job's or a request rate's lines, which lead the answer (issue 30 items 3-4);
    empty otherwise."""
    lines = [] if report.batch_job is None else batch_lines(report.batch_job)
    return lines + ([] if report.request_rate is None else rate_lines(report.request_rate))
