"""What the user must check about how the question was read: the defaults the tools filled in
for facts not stated (with the value the sizing report holds), and what to ask next.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from assistant.render.local import launcher_words
from assistant.render.results import config_label
from tools.local_serving import LocalServingPlan
from tools.memory import engine_name
from tools.sizing import SizingReport

if TYPE_CHECKING:
    from assistant.reading.parsed import ParsedWorkload


def _length_defaults(
    parsed: ParsedWorkload, report: SizingReport, context: int | None
) -> list[str]:
    """The sequence length and the prompt length, when the question gave neither."""
    training = report.is_training
    lines: list[str] = []
    said_length = (parsed.context, parsed.prompt_tokens, parsed.output_tokens)
    unsaid = all(v is None for v in (*said_length, parsed.tokens_per_example))
    if context is not None and unsaid and not parsed.max_context:
        what = "Training sequence length" if training else "Context"
        lines.append(f"{what} not stated: sized at {context:,} tokens per sequence (tool default)")
    said_context = parsed.prompt_tokens is None and parsed.context is not None
    if not training and said_context and report.search is not None:
        prompt = report.search.prompt_tokens
        lines.append(f"Prompt length not stated: TTFT for a {prompt:,}-token prompt")
    return lines


def _zero_default(parsed: ParsedWorkload, report: SizingReport) -> list[str]:
    """Training on several GPUs with no ZeRO / FSDP named: the plain data parallelism sized."""
    if not report.is_training or parsed.zero is not None:
        return []
    plain = next((m for m in report.memory if m.plain_data_parallel), None)
    if plain is None:
        return []
    return [
        f"ZeRO / FSDP not stated: {config_label(plain)} sized as plain data "
        "parallelism, every GPU holding the whole weights, gradients and optimizer "
        f"state; say 'ZeRO-3' or 'FSDP' to shard them over the {plain.count} GPUs"
    ]


def _load_default(parsed: ParsedWorkload, report: SizingReport, batch: int) -> list[str]:
    """The micro-batch (training) or the concurrent users (serving) sized, when not given."""
    if parsed.batch is not None:
        return []
    if report.is_training:
        noun = "sequence" if batch == 1 else "sequences"
        return [f"Micro-batch not stated: {batch:,} {noun} per GPU"]
    if parsed.users is not None or parsed.tokens_per_s is not None:
        return []
    rate = report.request_rate
    if rate is not None and report.headline is not None and report.headline.rule == "request_rate":
        return [
            f"Concurrent users not stated: memory and speed sized for the request rate's "
            f"≈{math.ceil(rate.concurrency):,} requests in flight (Little's law), "
            f"≈{math.ceil(rate.concurrency_per_replica):,} per replica"
        ]
    full = report.price_load.basis == "full_load"
    return [
        f"Concurrent users not stated: memory and speed sized for {batch:,} at a "
        "time" + ("; $/M tokens at full load (below)" if full else "")
    ]


def defaults_filled_in(parsed: ParsedWorkload, report: SizingReport) -> list[str]:
    """What the tools used for facts the question did not state, with the value the report
    holds (context tokens, concurrent sequences, weight format, serving engine)."""
    sized = next((m.estimate for m in report.memory if m.estimate is not None), None)
    rec = report.recommendation
    context = sized.context if sized is not None else None
    if context is None and rec is not None:
        context = rec.context_tokens
    lines = _length_defaults(parsed, report, context)
    lines += _zero_default(parsed, report)
    if sized is not None:
        lines += _load_default(parsed, report, sized.batch)
    weights = sized.weights_format if sized is not None else None
    if weights is None and rec is not None:
        weights = rec.weights_format
    if weights is not None and parsed.weights is None:
        lines.append(f"Precision not stated: {weights} weights")
    if sized is not None and parsed.engine is None and not report.is_training:
        lines.append(f"Serving engine not stated: {engine_name(sized.engine)}")
    return lines


def local_defaults_filled_in(parsed: ParsedWorkload, plan: LocalServingPlan) -> list[str]:
    """The defaults behind a plan on the user's own hardware (issue 29): what the local plan
    chose where the question was silent — not the datacenter sizing's vLLM defaults."""
    lines: list[str] = []
    if parsed.context is None and parsed.prompt_tokens is None and not parsed.max_context:
        lines.append(
            f"Context not stated: {plan.context_per_slot:,} tokens per slot on "
            f"{plan.gpu_label}, the usable context the format is chosen at"
        )
    if parsed.users is None and parsed.batch is None:
        slots = f"{plan.parallel} slot{'s' if plan.parallel != 1 else ''}"
        lines.append(f"Concurrent users not stated: {slots} (-np {plan.parallel})")
    if parsed.weights is None:
        chosen = plan.format_choice.reason if plan.format_choice is not None else None
        lines.append(f"Precision not stated: {chosen or plan.weights_format}")
    if parsed.engine is None and parsed.launcher is None:
        lines.append(f"Serving engine not stated: {launcher_words(plan)}, as on your own hardware")
    return lines


def follow_ups(parsed: ParsedWorkload) -> list[str]:
    """What to ask next: the facts that were defaulted and would move the answer."""
    asks: list[str] = []
    inference = parsed.task in (None, "inference")
    said_length = parsed.context is not None or parsed.prompt_tokens is not None
    if not said_length and inference and not parsed.max_context:
        asks.append("How long are prompts and answers (tokens)? The KV cache grows with both.")
    if parsed.context is None and parsed.tokens_per_example is None and not inference:
        asks.append("How long are the training sequences (tokens)? Activations grow with them.")
    if inference and parsed.users is None and parsed.batch is None and not parsed.capacity:
        asks.append("How many users generate at the same time?")
    if parsed.weights is None and parsed.task != "full":
        asks.append("Which precision (bf16, fp8, int8, 4-bit AWQ/GPTQ, GGUF)?")
    if inference and parsed.ttft_s is None and parsed.tokens_per_s_per_user is None:
        asks.append("Any latency target (time to first token, tokens/s per user)?")
    if not inference and parsed.train_tokens is None:
        asks.append("How much training data (tokens, or examples × tokens each)?")
    if not parsed.gpus and parsed.gpu_memory_bytes is None and not parsed.consumer_gpu:
        asks.append("Any GPU already available, or a budget per month?")
    return asks[:3]
