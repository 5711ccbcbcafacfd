"""The longest context that fits a named configuration: a binary search on `context` through
the memory tool (batch 1), the way tools/recommend/fit_notes.py finds the longest training
sequence. Only the final estimate is recorded as a tool call, so the figure the answer leads
with is that call's `context`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from assistant.offline.parsed import ParsedWorkload
from assistant.offline.planner import PlannedCall
from tools.defaults import DEFAULT_CONTEXT_TOKENS, default_request_shape
from tools.errors import ToolInputError
from tools.memory import resolve_model

# vLLM's documented ceiling people raise gpu_memory_utilization to when the default 0.90 leaves
# no room ("--gpu-memory-utilization 0.95" in vLLM's engine-args docs examples); tried only when
# nothing fits at the default, and said so in the answer.
RAISED_UTILISATION = 0.95

ToolCall = Callable[[str, dict[str, Any]], tuple[dict[str, Any], bool]]


def model_max_context(arguments: dict[str, Any]) -> int | None:
    """The model's maximum context (max_position_embeddings) in tokens; None when unresolved."""
    try:
        resolved = resolve_model(
            model=arguments.get("model"),
            params=arguments.get("params"),
            model_file=arguments.get("model_file"),
        )
    except ToolInputError:
        return None
    return int(resolved.architecture.max_context)


def longest_fitting_context(call: ToolCall, arguments: dict[str, Any], limit: int) -> int:
    """The longest context in tokens (≤ `limit`) at which `estimate_memory(arguments)` fits at
    batch 1; 0 when not even one token fits. Fit is monotone in context (KV and activations
    only grow with it), so a binary search finds the boundary in about log2(limit) calls."""
    base = {**arguments, "batch": 1}

    def fits(tokens: int) -> bool:
        result, is_error = call("estimate_memory", {**base, "context": tokens})
        return not is_error and result.get("fits") is True

    if fits(limit):
        return limit
    low, high = 0, limit - 1
    while low < high:
        middle = (low + high + 1) // 2
        if fits(middle):
            low = middle
        else:
            high = middle - 1
    return low if low == 0 or fits(low) else 0


def longest_context_calls(
    parsed: ParsedWorkload, planned: list[PlannedCall], call: ToolCall
) -> list[PlannedCall]:
    """`planned` with each named-GPU serving memory call sized at the longest context that fits
    it (at the engine's default utilisation, else at `RAISED_UTILISATION`, which the call then
    carries), and the recommender sized at the first such context. Unchanged when the question
    is not a max-context one or nothing fits."""
    if not parsed.max_context or parsed.task not in (None, "inference"):
        return planned
    out: list[PlannedCall] = []
    found: int | None = None
    for planned_call in planned:
        args = planned_call.arguments
        if planned_call.name != "estimate_memory" or args.get("gpu") is None:
            out.append(planned_call)
            continue
        limit = model_max_context(args)
        if limit is None:
            out.append(planned_call)
            continue
        sized = {k: v for k, v in args.items() if k not in ("context", "batch")}
        tokens = longest_fitting_context(call, sized, limit)
        if tokens == 0 and args.get("engine", "vllm") == "vllm":
            sized["gpu_memory_utilization"] = RAISED_UTILISATION
            tokens = longest_fitting_context(call, sized, limit)
        elif tokens > 0 and found is None:
            found = tokens
        out.append(PlannedCall("estimate_memory", {**sized, "context": tokens, "batch": 1}))
        if tokens == 0:
            out[-1] = planned_call
    if found is not None:
        # The options table must be at the context the answer leads with. A context shorter
        # than the default request shape gets that shape scaled into it (3:1, tools.defaults),
        # unless the user gave the prompt/answer lengths.
        extra: dict[str, Any] = {"context": found}
        if found < DEFAULT_CONTEXT_TOKENS and parsed.prompt_tokens is None:
            shape = default_request_shape(found)
            extra |= {"prompt_tokens": shape.prompt_tokens, "output_tokens": shape.output_tokens}
        out = [
            PlannedCall(c.name, {**c.arguments, **extra}) if c.name == "recommend" else c
            for c in out
        ]
    return out
