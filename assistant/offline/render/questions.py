"""The line an answer leads with when the question asked for a number rather than a verdict:
how many sequences fit ('how many 8k chats fit on one H100?') or the longest context that fits
('max context for 70B on 2× RTX 4090?'). Every figure is read from a tool result."""

from __future__ import annotations

from typing import Any

from assistant.offline.parsed import ParsedWorkload
from assistant.offline.render.results import (
    CallResult,
    bytes_from,
    config_label,
    gib,
    gpu_name,
    per_gpu_figure,
)


def _named_option(recommend: CallResult | None, gpu_id: str, count: int) -> dict[str, Any] | None:
    """The recommender's fitting option on `gpu_id` with exactly `count` GPUs."""
    if recommend is None or recommend.is_error:
        return None
    for option in [*recommend.result.get("options", []), *recommend.result.get("rejected", [])]:
        if option.get("gpu") == gpu_id and option.get("count") == count and option.get("fits"):
            return dict(option)
    return None


def capacity_lines(
    parsed: ParsedWorkload, memory: list[CallResult], recommend: CallResult | None
) -> list[str]:
    """'**60 concurrent sequences of 8,192 tokens fit on 1× H100 SXM5** …': the recommender's
    `max_concurrent_sequences` for the named configuration (else its first fitting option)."""
    if not parsed.capacity or parsed.task not in (None, "inference"):
        return []
    if recommend is None or recommend.is_error:
        return []
    option: dict[str, Any] | None = None
    named = next((c for c in memory if c.arguments.get("gpu") and not c.is_error), None)
    if named is not None:
        count = int(named.arguments.get("gpus", 1))
        option = _named_option(recommend, str(named.arguments["gpu"]), count)
    if option is None:
        option = next((o for o in recommend.result.get("options", []) if o.get("fits")), None)
    if option is None or option.get("max_concurrent_sequences") is None:
        return []
    context = recommend.result.get("context_tokens")
    seqs = int(option["max_concurrent_sequences"])
    label = f"{option['count']}× {gpu_name(option.get('gpu'))}"
    length = "" if context is None else f" of {int(context):,} tokens"
    kv = bytes_from(option, "kv_cache_capacity")
    tokens = option.get("kv_cache_capacity_tokens")
    room = "" if kv is None else f" — {gib(kv)} left for KV cache per GPU"
    room += "" if tokens is None else f", {int(tokens):,} tokens per replica"
    replicas = int(option.get("dp", 1))
    per = " per replica" if replicas > 1 else ""
    lines = [f"**{seqs:,} concurrent sequences{length} fit on {label}**{per}{room}."]
    maximum = _model_max_context(memory)
    if context is not None and maximum is not None and int(context) > maximum:
        lines.append(_past_maximum(int(context), maximum))
    kv_dtype = next((c.result.get("kv_dtype") for c in memory if not c.is_error), None)
    if parsed.kv_dtype is None and kv_dtype is not None:
        lines.append(
            f"The KV cache is sized in {kv_dtype} (weights in "
            f"{recommend.result.get('weights_format')}); say 'fp8 KV cache' to size it in fp8."
        )
    return lines


def max_context_lines(parsed: ParsedWorkload, memory: list[CallResult]) -> list[str]:
    """'**Longest context that fits 2× RTX 4090: 992 tokens** …' from the memory estimate the
    engine sized at the longest fitting context (assistant/offline/max_context.py)."""
    if not parsed.max_context or parsed.task not in (None, "inference"):
        return []
    lines: list[str] = []
    for call in memory:
        args, r = call.arguments, call.result
        if call.is_error or args.get("gpu") is None or "context" not in args:
            continue
        label = config_label(args)
        if not r.get("fits"):
            lines.append(
                f"**No context fits {label}** at batch 1, even at gpu_memory_utilization "
                f"{args.get('gpu_memory_utilization', 'default')}: the weights and runtime "
                "alone fill the budget."
            )
            continue
        budget = per_gpu_figure(r, "budget")
        usable = per_gpu_figure(r, "usable")
        share = "" if not budget or not usable else f"{budget / usable:.2f}"
        how = (
            f" Nothing fits at the engine's default utilisation; this is at "
            f"gpu_memory_utilization {share} ({gib(budget)} of {gib(usable)} usable per GPU)."
            if "gpu_memory_utilization" in args
            else f" Engine budget {gib(budget)} of {gib(usable)} usable per GPU"
            + (f" (gpu_memory_utilization {share}, the default)." if share else ".")
        )
        context = int(r.get("context", args["context"]))
        maximum = r.get("max_context_tokens")
        cap = (
            " — the model's maximum context (max_position_embeddings); memory is not the limit"
            if maximum is not None and context >= int(maximum)
            else ""
        )
        lines.append(
            f"**Longest context that fits {label}: {context:,} tokens** for one sequence at a "
            f"time (batch 1){cap}.{how}"
        )
    return lines


def _model_max_context(memory: list[CallResult]) -> int | None:
    """The model's maximum context from the first memory estimate that states it."""
    for call in memory:
        maximum = None if call.is_error else call.result.get("max_context_tokens")
        if maximum is not None:
            return int(maximum)
    return None


def _past_maximum(context: int, maximum: int) -> str:
    return (
        f"{context:,} tokens is past the model's maximum context of {maximum:,} tokens "
        "(max_position_embeddings): the memory is sized, but quality there is not assured."
    )
