"""The line an answer leads with when the question asked for a number rather than a verdict:
how many sequences fit ('how many 8k chats fit on one H100?') or the longest context that fits
('max context for 70B on 2× RTX 4090?'). Every figure is read from the sizing report."""

from __future__ import annotations

from typing import TYPE_CHECKING

from assistant.render.results import config_label, gib, option_label
from tools.memory.kv_cache import VLLM_BLOCK_TOKENS
from tools.recommend import Option
from tools.sizing import SizedConfiguration, SizingReport

if TYPE_CHECKING:
    from assistant.reading.parsed import ParsedWorkload


def _asked_option(report: SizingReport) -> Option | None:
    """The option a number is asked about: the configuration named, else the headline's, else
    the recommender's first that fits."""
    rec = report.recommendation
    if rec is None:
        return None
    named = next((m for m in report.memory if m.gpu and m.estimate is not None), None)
    if named is not None and named.gpu is not None:
        option = report.option_at(named.gpu, named.count)
        if option is not None:
            return option
    if report.headline is not None and report.headline.option.fits:
        return report.headline.option
    return next((o for o in rec.options if o.fits), None)


def speed_lines(parsed: ParsedWorkload, report: SizingReport) -> list[str]:
    """A speed or time-to-first-token question opens with that figure (issue 18, class 11):
    '**38.2 tokens/s per user on 1× H100 SXM5** at 1 concurrent sequence (calibrated) …', from
    the recommender's option for the configuration asked about, its basis said."""
    if parsed.asked not in ("speed", "ttft") or report.is_training:
        return []
    option = _asked_option(report)
    if option is None:
        return []
    users = option.sequences_per_replica
    at = f"at {users:,} concurrent sequence{'s' if users != 1 else ''} per replica"
    label = option_label(option)
    speed, ttft = option.decode_tokens_per_s_per_seq, option.ttft_s
    if parsed.asked == "ttft" and ttft is not None:
        return [
            f"**Time to first token {ttft:,.2f} s on {label}** {at} "
            f"({option.ttft_basis or 'estimated'}; queue + prefill of the prompt)."
        ]
    if speed is None:
        return []
    line = (
        f"**{speed:,.1f} tokens/s per user on {label}** {at} ({option.speed_basis or 'estimated'})"
    )
    if option.full_load_tokens_per_s is not None:
        line += f"; {option.full_load_tokens_per_s:,.0f} tokens/s per replica at full load"
    if ttft is not None:
        line += f"; time to first token {ttft:,.2f} s"
    return [line + "."]


def faster_lines(report: SizingReport) -> list[str]:
    """'Which is faster, a 3090 or a 4090?': with the fastest asked for and two or more GPUs
    named, which one gives each user more tokens/s — each GPU at the count sized for it (its
    recommender option), else the recommender's own choice for it — with every figure's basis.
    The recommender compares them one card each when each holds the model (`tools.sizing`)."""
    rec = report.recommendation
    if rec is None or report.is_training or rec.objective != "fastest":
        return []
    named = [m for m in report.memory if m.gpu is not None]
    if len(named) < 2:
        return []
    speeds: list[tuple[float, Option]] = []
    for sized in named:
        assert sized.gpu is not None
        option = report.option_at(sized.gpu, sized.count) or rec.fitting_on(sized.gpu)
        if option is not None and option.decode_tokens_per_s_per_seq is not None:
            speeds.append((option.decode_tokens_per_s_per_seq, option))
    if len(speeds) < 2:
        return []
    speeds.sort(key=lambda pair: -pair[0])
    (best, fastest), others = speeds[0], speeds[1:]

    def basis(option: Option) -> str:
        return f" ({option.basis_label})" if option.basis_label else ""

    versus = "; ".join(f"{v:,.1f} on {option_label(o)}{basis(o)}" for v, o in others)
    users = fastest.sequences_per_replica
    at = f"{users:,} concurrent sequence{'s' if users != 1 else ''} per replica"
    return [
        f"**Faster per user: {option_label(fastest)}** — {best:,.1f} tokens/s per user"
        f"{basis(fastest)} vs {versus}, at {at}."
    ]


def capacity_lines(parsed: ParsedWorkload, report: SizingReport) -> list[str]:
    """'**60 concurrent sequences of 8,192 tokens fit on 1× H100 SXM5** …': the recommender's
    `max_concurrent_sequences` for the named configuration (else its first fitting option)."""
    rec = report.recommendation
    if not parsed.capacity or report.is_training or rec is None:
        return []
    option: Option | None = None
    named = next((m for m in report.memory if m.gpu and m.estimate is not None), None)
    if named is not None and named.gpu is not None:
        option = report.option_at(named.gpu, named.count)
    if option is None:
        option = next((o for o in rec.options if o.fits), None)
    if option is None:
        return []
    seqs = option.max_concurrent_sequences
    length = f" of {rec.context_tokens:,} tokens"
    room = f" — {gib(option.kv_cache_capacity_bytes)} left for KV cache per GPU"
    room += f", {option.kv_cache_capacity_tokens:,} tokens per replica"
    per = " per replica" if option.dp > 1 else ""
    lines = [f"**{seqs:,} concurrent sequences{length} fit on {option_label(option)}**{per}{room}."]
    kv_dtype = next((m.estimate.kv_dtype for m in report.memory if m.estimate), None)
    if parsed.kv_dtype is None and kv_dtype is not None:
        lines.append(
            f"The KV cache is sized in {kv_dtype} (weights in {rec.weights_format}); say "
            "'fp8 KV cache' to size it in fp8."
        )
    return lines


def max_context_lines(report: SizingReport) -> list[str]:
    """'**Longest context that fits 2× RTX 4090: 992 tokens** …' from the report's longest
    context per named configuration (tools/sizing/memory.py)."""
    if not report.request.longest_context or report.is_training:
        return []
    lines: list[str] = []
    for fit in report.longest_context:
        name = config_label(SizedConfiguration(gpu=fit.gpu, count=fit.count))
        if fit.context_tokens == 0:
            tried = fit.gpu_memory_utilization or "default"
            lines.append(
                f"**No context fits {name}** at batch 1, even at gpu_memory_utilization "
                f"{tried}: the weights and runtime alone fill the budget."
            )
            continue
        est = fit.estimate
        budget = None if est is None else est.budget_bytes_per_gpu
        usable = None if est is None else est.usable_bytes_per_gpu
        share = "" if not budget or not usable else f"{budget / usable:.2f}"
        how = (
            f" Nothing fits at the engine's default utilisation; this is at "
            f"gpu_memory_utilization {share} ({gib(budget)} of {gib(usable)} usable per GPU)."
            if fit.gpu_memory_utilization is not None
            else f" Engine budget {gib(budget)} of {gib(usable)} usable per GPU"
            + (f" (gpu_memory_utilization {share}, the default)." if share else ".")
        )
        maximum = None if est is None else est.max_context_tokens
        cap = (
            " — the model's maximum context (max_position_embeddings); memory is not the limit"
            if maximum is not None and fit.context_tokens >= maximum
            else ""
        )
        # vLLM holds KV in whole blocks, so the longest context is the KV capacity (stated
        # below in tokens) rounded down to a block: say so, or the two figures look at odds.
        blocks = (
            f", in whole {VLLM_BLOCK_TOKENS}-token KV blocks as vLLM allocates them"
            if est is not None and est.engine == "vllm" and not cap
            else ""
        )
        lines.append(
            f"**Longest context that fits {name}: {fit.context_tokens:,} tokens** for one "
            f"sequence at a time (batch 1{blocks}){cap}.{how}"
        )
    return lines


def _model_max_context(report: SizingReport) -> int | None:
    """The model's maximum context from the first memory estimate that states it."""
    return next(
        (
            m.estimate.max_context_tokens
            for m in report.memory
            if m.estimate is not None and m.estimate.max_context_tokens is not None
        ),
        None,
    )


def past_maximum_line(report: SizingReport) -> str | None:
    """'65,536 tokens is past the model's maximum context of 32,768 tokens …' when the context
    sized is past the model's maximum (the answer says it before its verdict), else None."""
    maximum = _model_max_context(report)
    sized = [m.estimate.context for m in report.memory if m.estimate is not None]
    if report.recommendation is not None:
        sized.append(report.recommendation.context_tokens)
    context = max(sized, default=0)
    if maximum is None or context <= maximum:
        return None
    return (
        f"{context:,} tokens is past the model's maximum context of {maximum:,} tokens "
        "(max_position_embeddings): the memory is sized, but quality there is not assured."
    )
