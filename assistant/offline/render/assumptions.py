"""What the user must check about how the question was read: the defaults the tools filled in
for facts not stated (with the value each tool result reports), and what to ask next.
"""

from __future__ import annotations

from typing import Any

from assistant.offline.parsed import ParsedWorkload
from assistant.offline.planner import prices_full_load
from assistant.offline.render.results import CallResult, config_label, plain_data_parallel
from tools.errors import ToolInputError
from tools.workload import validate_workload


def defaults_filled_in(
    parsed: ParsedWorkload, memory: list[CallResult], recommend: CallResult | None
) -> list[str]:
    """What the tools used for facts the question did not state, with the value each tool
    result reports (context tokens, concurrent sequences, weight format, serving engine)."""
    sized: dict[str, Any] = next((c.result for c in memory if not c.is_error), {})
    ranked = recommend.result if recommend is not None and not recommend.is_error else {}
    training = parsed.task not in (None, "inference")
    lines: list[str] = []
    context = sized.get("context", ranked.get("context_tokens"))
    said_length = (parsed.context, parsed.prompt_tokens, parsed.output_tokens)
    unsaid = all(v is None for v in (*said_length, parsed.tokens_per_example))
    if context is not None and unsaid and not parsed.max_context:
        what = "Training sequence length" if training else "Context"
        lines.append(
            f"{what} not stated: sized at {int(context):,} tokens per sequence (tool default)"
        )
    if not training and parsed.prompt_tokens is None and parsed.context is not None:
        prompt = _prompt_tokens_sized(recommend)
        if prompt is not None:
            lines.append(f"Prompt length not stated: TTFT for a {prompt:,}-token prompt")
    if training and parsed.zero is None:
        for call in memory:
            if not call.is_error and plain_data_parallel(call):
                gpus = int(call.arguments.get("gpus", 1))
                lines.append(
                    f"ZeRO / FSDP not stated: {config_label(call.arguments)} sized as plain "
                    "data parallelism, every GPU holding the whole weights, gradients and "
                    f"optimizer state; say 'ZeRO-3' or 'FSDP' to shard them over the {gpus} GPUs"
                )
                break
    batch = sized.get("batch")
    if batch is not None and parsed.batch is None:
        if training:
            noun = "sequence" if int(batch) == 1 else "sequences"
            lines.append(f"Micro-batch not stated: {int(batch):,} {noun} per GPU")
        elif parsed.users is None and parsed.tokens_per_s is None:
            lines.append(
                f"Concurrent users not stated: memory and speed sized for {int(batch):,} at a "
                "time" + ("; $/M tokens at full load (below)" if prices_full_load(parsed) else "")
            )
    weights = sized.get("weights_format", ranked.get("weights_format"))
    if weights is not None and parsed.weights is None:
        lines.append(f"Precision not stated: {weights} weights")
    engine = sized.get("engine")
    if engine is not None and parsed.engine is None and not training:
        lines.append(f"Serving engine not stated: sized for {engine}")
    return lines


def _prompt_tokens_sized(recommend: CallResult | None) -> int | None:
    """The prompt length the recommender timed TTFT for: its own schema's reading of the
    arguments it was called with (the default shape, tools/defaults.py, when none was said)."""
    if recommend is None or recommend.is_error:
        return None
    try:
        return validate_workload(recommend.arguments).prompt_tokens
    except ToolInputError:
        return None


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
