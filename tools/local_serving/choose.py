"""The GGUF type and the context for the user's own hardware (issue 29): the best quality that
keeps every layer on the GPU(s) at the context asked (or the tools' default), and the longest
context that type then holds.

Quality order: Q8_0, Q6_K, Q5_K_M, Q4_K_M, Q3_K_M, Q2_K — llama.cpp's k-quant ladder by bits
per weight (tools/memory/gguf_mix.py; llama.cpp's quantize help ranks them by perplexity the
same way). The first of them whose `plan_local_serving` keeps every layer on the GPU is chosen
("best_that_fits"); when none does, Q4_K_M — Ollama's default and the usual llama.cpp file —
with the layers that do not fit in RAM ("offload"), or "none_runs" when the RAM cannot hold the
rest either. The longest context is searched over powers of two from the context sized up to
the model's maximum (and the maximum itself): each step one `plan_local_serving`, all on the
GPU(s).
"""

from __future__ import annotations

from tools.local_serving.request import (
    FormatChoice,
    FormatTry,
    LocalServingPlan,
    LocalServingRequest,
)

LOCAL_FORMAT_LADDER = ("q8_0", "q6_k", "q5_k_m", "q4_k_m", "q3_k_m", "q2_k")
"""GGUF types tried for owned hardware, best quality first."""

OFFLOAD_FORMAT = "q4_k_m"

USABLE_CONTEXT_TOKENS = 8192
"""Context the type is chosen at when none is said: twice Ollama's 4,096-token default
num_ctx (docs/faq.md), room for a multi-turn chat — a format that fits only at a few thousand
tokens is not one a user can use."""


LOW_FORMATS = ("q3_k_m", "q2_k")
"""Types below Q4_K_M: chosen only when no RAM was given for offloading (they cost quality)."""


def _offload_intended(req: LocalServingRequest, q4: LocalServingPlan | None) -> bool:
    """The user gave system RAM and Q4_K_M runs with the rest of its layers in it."""
    return req.system_ram_gb is not None and q4 is not None and q4.fits_in_ram is True


def _try(plan: LocalServingPlan) -> FormatTry:
    return FormatTry(
        weights_format=plan.weights_format,
        fits_fully=plan.fits_fully,
        n_gpu_layers=plan.n_gpu_layers,
        gpu_bytes=plan.gpu_bytes,
        budget_bytes=plan.budget_bytes,
        weights_bytes=plan.weights_bytes,
    )


def _runs(plan: LocalServingPlan) -> bool:
    """Every layer on the GPU, or the rest within the RAM (unknown RAM: assumed to hold it)."""
    if plan.unified_memory:
        return plan.fits_in_ram is not False
    return plan.fits_fully or plan.fits_in_ram is not False


def context_ladder(start: int, maximum: int) -> list[int]:
    """Contexts tried for the longest one: `start`, then powers of two above it, and the
    model's `maximum`."""
    steps = [start]
    size = 1 << max(start - 1, 1).bit_length()
    while size < maximum:
        if size > start:
            steps.append(size)
        size *= 2
    if maximum > start:
        steps.append(maximum)
    return steps


def longest_context(
    req: LocalServingRequest, plan: LocalServingPlan, max_context: int
) -> int | None:
    """The longest context per slot on the ladder that keeps every layer on the GPU(s) in
    the plan's type; None when the plan itself does not fit."""
    if not plan.fits_fully:
        return None
    ladder = context_ladder(plan.context_per_slot, max_context)
    fixed = req.model_copy(update={"weights": plan.weights_format, "choose_format": False})
    from tools.local_serving.plan import plan_local_serving

    lo, hi = 0, len(ladder) - 1  # ladder[lo] fits (the plan itself)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if plan_local_serving(fixed.model_copy(update={"context": ladder[mid]})).fits_fully:
            lo = mid
        else:
            hi = mid - 1
    return ladder[lo]


def choose_local_format(req: LocalServingRequest, max_context: int) -> LocalServingPlan:
    """`plan_local_serving` in the GGUF type the module docstring's rule chooses, with the
    types tried, the rule and the longest context on the plan."""
    from tools.local_serving.plan import plan_local_serving

    notes: list[str] = []
    if req.context is None:
        usable = min(USABLE_CONTEXT_TOKENS, max_context)
        req = req.model_copy(update={"context": usable})
        notes.append(
            f"Context: {usable:,} tokens per slot, the usable context the format is chosen at "
            "(twice Ollama's 4,096 default; set context)."
        )
    tried: list[FormatTry] = []
    plans: dict[str, LocalServingPlan] = {}
    chosen: LocalServingPlan | None = None
    for fmt in LOCAL_FORMAT_LADDER:
        if fmt in LOW_FORMATS and _offload_intended(req, plans.get(OFFLOAD_FORMAT)):
            break  # RAM was given for the layers that do not fit: Q4_K_M offloaded
        plan = plan_local_serving(req.model_copy(update={"weights": fmt, "choose_format": False}))
        plans[fmt] = plan
        tried.append(_try(plan))
        if plan.fits_fully and _runs(plan):
            chosen = plan
            break
    context = next(iter(plans.values())).context_per_slot
    if chosen is not None:
        rule = "best_that_fits"
        reason = (
            f"{chosen.weights_format.upper()}: the best-quality GGUF type that keeps every layer "
            f"on the GPU at {context:,} tokens"
            + (
                f" ({', '.join(t.weights_format.upper() for t in tried[:-1])} do not)"
                if len(tried) > 1
                else ""
            )
        )
    else:
        chosen = plans[OFFLOAD_FORMAT]
        rule = "offload" if _runs(chosen) else "none_runs"
        reason = (
            f"no GGUF type down to Q2_K keeps every layer on the GPU at {context:,} tokens: "
            f"Q4_K_M (Ollama's default) with {chosen.gpu_layers} of {chosen.n_layers} layers on "
            "the GPU and the rest in RAM"
            + ("" if rule == "offload" else ", more than the RAM holds: it does not run")
        )
    choice = FormatChoice(tried=tried, rule=rule, reason=reason)
    return chosen.model_copy(
        update={
            "format_choice": choice,
            "longest_context_tokens": longest_context(req, chosen, max_context),
            "assumptions": [*notes, *chosen.assumptions, f"Format: {reason}."],
        }
    )
