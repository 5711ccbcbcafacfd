"""The sizing request in words: what was sized, from the fields the caller set (the user's
words as the parser or the model passed them), each with its unit. Nothing the caller left to a
default is listed here (the defaults filled in are stated beside it, from the answer's own
list), so the line is what the user can check against what they meant.
"""

from __future__ import annotations

from typing import Any

from assistant.proposal.figures import format_number, usd
from assistant.proposal.quotes import gpu_name
from assistant.render.local import launcher_words
from tools.local_serving import LocalServingPlan
from tools.sizing import SizingReport

TASK_WORDS = {
    "inference": "serving",
    "full": "full fine-tune",
    "lora": "LoRA fine-tune",
    "qlora": "QLoRA fine-tune",
}
OBJECTIVE_WORDS = {
    "cheapest": "cheapest per hour",
    "cheapest_per_token": "cheapest per million tokens",
    "fastest": "fastest",
    "fewest_gpus": "fewest GPUs",
}


def _number(value: Any) -> str:
    return format_number(value) if isinstance(value, int | float) else str(value)


_FIELDS: dict[str, str] = {
    "users": "{} concurrent users",
    "context": "{}-token context",
    "prompt_tokens": "{}-token prompts",
    "output_tokens": "{}-token answers",
    "tokens_per_s": "at least {} output tokens/s in total",
    "tokens_per_s_per_user": "at least {} tokens/s per user",
    "ttft_s": "first token within {} s",
    "kv_dtype": "{} KV cache",
    "engine": "{} engine",
    "gpu_memory_utilization": "GPU memory utilisation {}",
    "sequence_length": "{}-token training sequences",
    "global_batch_sequences": "global batch of {} sequences",
    "micro_batch_sequences": "micro-batch of {} sequences",
    "train_tokens": "{} training tokens",
    "deadline_hours": "deadline {} h",
    "lora_rank": "LoRA rank {}",
    "zero": "ZeRO stage {}",
}
"""Workload fields → how they read, in this order (the model, task and format come first)."""


def sized_as(report: SizingReport, arguments: dict[str, Any] | None = None) -> str:
    """'llama-3.3-70b, serving, int4-awq weights, 40 concurrent users, 16,384-token context;
    any GPU in the catalog; prices: all regions'. `arguments`: the call as sent — only the
    workload fields it set are listed (the values as validated); without it, the fields the
    request holds as set."""
    request = report.request
    w = request.workload
    sent = None if arguments is None else arguments.get("workload")
    given = set(sent) if isinstance(sent, dict) else w.model_fields_set
    parts = [report.model_id or w.model or "the model described", TASK_WORDS.get(w.task, w.task)]
    if report.weights_format:
        parts.append(f"{report.weights_format} weights")
    for name, pattern in _FIELDS.items():
        value = getattr(w, name)
        if name in given and value is not None:
            parts.append(pattern.format(_number(value)))
    if "objective" in given:
        parts.append(f"objective: {OBJECTIVE_WORDS.get(w.objective, w.objective)}")
    named = [
        (f"{c.count:,}× " if c.count else "") + (gpu_name(report, c.gpu) if c.gpu else "GPUs")
        for c in request.configurations
        if c.gpu is not None or c.count is not None
    ]
    only = w.constraints.only_gpus
    gpus = (
        "on " + ", ".join(named)
        if named
        else ("GPUs: " + ", ".join(only) if only else "any GPU in the catalog")
    )
    pricing = request.pricing
    scope = ["EU regions only" if pricing.eu_only else "all regions"]
    if pricing.eur_to_usd is not None:
        scope.append(f"EUR at {format_number(pricing.eur_to_usd)} USD")
    if pricing.tiers:
        scope.append("tiers " + ", ".join(pricing.tiers))
    if request.budget is not None:
        budget = request.budget
        amount = usd(budget.amount) if budget.currency == "USD" else f"{budget.amount:,.0f} EUR"
        scope.append(f"budget {amount} per {budget.period}")
    return ", ".join(parts) + f"; {gpus}; prices: " + ", ".join(scope)


def sized_locally_as(plan: LocalServingPlan) -> str:
    """'qwen3-32b with llama.cpp (llama-server), q4_k_m weights, 1 slot × 8,192 tokens; on 1×
    NVIDIA GeForce RTX 3090 (24.0 GiB for llama.cpp)': the plan on the user's own hardware."""
    slots = f"{plan.parallel} slot{'s' if plan.parallel != 1 else ''}"
    memory = f"{plan.budget_bytes / 2**30:,.1f} GiB for {launcher_words(plan).split(' ')[0]}"
    return (
        f"{plan.model_id} with {launcher_words(plan)}, {plan.weights_format} weights, {slots} × "
        f"{plan.context_per_slot:,} tokens, {plan.cache_type} KV cache; on {plan.gpus}× "
        f"{plan.gpu_label} ({memory})"
    )
