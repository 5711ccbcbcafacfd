"""Human labels for the field names a tool card shows, and titles for the tools themselves.

A card never shows a raw `snake_case` key: every field is looked up here by its name with the
unit suffix taken off (`per_gpu_GB`, `per_gpu_bytes` and `per_gpu` are all "per GPU"), so one
table serves the compact dicts the model reads and the typed results alike. A name missing
from the table is still shown in words (`kv_cache_capacity_tokens` → "KV cache capacity
tokens"): a field a tool adds tomorrow is readable on day one, and a test lists every field the
tools emit today against this table. Pure data and string functions: no Textual, no figures.
"""

from __future__ import annotations

import re

from tools.memory import COMPONENT_NAMES

UNIT_SUFFIXES = ("_bytes", "_GB", "_gb", "_GiB", "_gib")
"""Byte-unit suffixes a field name may carry (the card prints the unit next to the value)."""

FIELD_LABELS: dict[str, str] = {
    # what was sized
    "model": "model",
    "model_id": "model id",
    "model_name": "model",
    "model_text": "model as written",
    "task": "task",
    "weights": "weights format",
    "weights_format": "weights format",
    "kv_dtype": "KV cache type",
    "engine": "serving engine",
    "context": "context (tokens)",
    "context_tokens": "context (tokens)",
    "max_context_tokens": "model's longest context (tokens)",
    "batch": "concurrent sequences",
    "users": "users",
    "objective": "ranked by",
    "params": "parameters",
    "total_params": "parameters",
    "active_params": "active parameters",
    "trainable_params": "trainable parameters",
    "gpu": "GPU",
    "gpu_name": "GPU",
    "gpu_label": "GPU",
    "gpus": "GPUs",
    "num_gpus": "GPUs",
    "count": "GPUs",
    "nodes": "nodes",
    "tp": "tensor parallel",
    "pp": "pipeline parallel",
    "dp": "replicas",
    "zero": "ZeRO stage",
    "lora_rank": "LoRA rank",
    "dataset_tokens": "dataset (tokens)",
    "epochs": "epochs",
    "sequence_length": "sequence length (tokens)",
    "prompt_tokens": "prompt (tokens)",
    "output_tokens": "output (tokens)",
    "constraints": "constraints",
    "only_gpus": "only GPUs",
    "max_gpus": "at most GPUs",
    "region": "region",
    "eu_only": "EU only",
    "options": "options",
    # memory
    "per_gpu": "per GPU",
    "per_gpu_needed": "needed per GPU",
    "total": "all GPUs",
    "weight": "weights",
    "breakdown": "memory",
    # the memory components, by the names every surface shows (tools.memory)
    **{f"breakdown.{name}": label for name, (label, _) in COMPONENT_NAMES.items()},
    "kv_cache": "KV cache",
    "kv_cache_per_token": "KV cache per token",
    "kv_cache_per_token_per_gpu": "KV cache per token per GPU",
    "kv_cache_capacity": "KV cache capacity",
    "kv_cache_capacity_tokens": "KV cache capacity (tokens)",
    "kv_cache_gpu": "KV cache on GPU",
    "usable_per_gpu": "usable per GPU",
    "usable": "usable per GPU",
    "budget_per_gpu": "engine budget per GPU",
    "budget": "engine budget per GPU",
    "headroom": "headroom per GPU",
    "fits": "fits",
    "fits_fully": "fits on the GPU",
    "fits_in_ram": "rest fits in RAM",
    "host_ram": "host RAM",
    "model_state_per_gpu": "model states per GPU",
    "components": "components",
    "assumptions": "assumptions",
    "warnings": "warnings",
    "notes": "notes",
    # recommender
    "meets_targets": "meets targets",
    "max_concurrent_sequences": "concurrent sequences held",
    "sequences_per_replica": "sequences per replica",
    "full_load_sequences_per_replica": "sequences per replica at full load",
    "full_load_tokens_per_s": "tokens/s at full load",
    "decode_tokens_per_s_per_seq": "tokens/s per user",
    "aggregate_tokens_per_s": "tokens/s, all users",
    "prefill_tokens_per_s": "prefill tokens/s",
    "ttft_s": "time to first token (s)",
    "step_time_s": "step time (s)",
    "training_hours": "training time (h)",
    "hours": "hours",
    "reasons": "why",
    "rejected": "rejected",
    "nearest_feasible": "nearest that works",
    "gpu_as_of": "GPU data as of",
    # prices
    "price_id": "price",
    "provider": "provider",
    "instance": "instance",
    "instances": "instances",
    "billed_gpus": "GPUs billed",
    "tier": "tier",
    "pricing_type": "pricing",
    "eu": "in the EU",
    "currency": "currency",
    "per_hour": "per hour",
    "per_month": "per month",
    "usd_per_hour": "USD per hour",
    "usd_per_month": "USD per month",
    "usd_per_million_tokens": "USD per million output tokens",
    "usd_per_million_blended_tokens": "USD per million tokens (blended)",
    "per_million_output_tokens": "per million output tokens",
    "per_million_blended_tokens": "per million tokens (blended)",
    "output_tokens_per_month": "output tokens per month",
    "billed_hours_per_month": "hours billed per month",
    "as_of": "as of",
    "source": "source",
    "stale": "stale price",
    "confidence": "confidence",
    "cheapest_by_tier": "cheapest per tier",
    "api_comparison": "hosted APIs",
    "break_even": "break-even",
    "excluded": "prices left out",
    "unconverted": "prices not converted",
    "unconverted_note": "not converted",
    "usd_job": "USD for the job",
    "usd_cost": "USD for the job",
    # local serving (llama.cpp / Ollama)
    "launcher": "runs with",
    "gpu_memory_stated": "GPU memory as you gave it",
    "n_layers": "layers",
    "gpu_layers": "layers on the GPU",
    "n_gpu_layers": "-ngl",
    "output_on_gpu": "output layer on the GPU",
    "host": "in system RAM",
    "weights_gpu": "weights on the GPU",
    "compute_and_overhead": "compute buffers and overhead",
    "system_ram": "system RAM",
    "system_ram_gb": "system RAM (GB)",
    "context_total": "context, all slots (tokens)",
    "context_per_slot": "context per slot (tokens)",
    "parallel": "parallel slots",
    "cache_type": "KV cache type",
    "decode_tokens_per_s": "decode tokens/s",
    "decode_basis": "speed basis",
    "launch_command": "launch",
    "ollama_modelfile": "Ollama Modelfile",
    "ollama_env": "Ollama environment",
    # catalog look-ups
    "memory": "memory",
    "memory_bandwidth": "memory bandwidth",
    "architecture": "architecture",
    "layers": "layers",
    "hidden_size": "hidden size",
    "family": "family",
    "vendor": "vendor",
    "error": "error",
    "field": "field",
    "problem": "problem",
    "allowed": "allowed",
    "suggestions": "did you mean",
}
"""Field name (unit suffix off) → label. Dotted names label a nested field where the bare name
would be ambiguous (`breakdown.weights`)."""

TOOL_TITLES: dict[str, str] = {
    "estimate_memory": "Memory",
    "recommend": "GPU options",
    "compare_costs": "Cost",
    "plan_local_serving": "Local serving",
    "fits_on_hardware": "Models that fit",
    "model_info": "Model facts",
    "gpu_info": "GPU facts",
    "list_models": "Models",
    "list_gpus": "GPUs",
    "size": "Sizing",
    "lora_serving": "LoRA serving",  # issue 30 items 1-4
    "embed_corpus": "Embedding",
    "batch_job": "Batch job",
    "request_rate": "Request rate",
}
"""Tool name → the title its card carries."""

_ACRONYMS = {
    "gpu": "GPU",
    "gpus": "GPUs",
    "kv": "KV",
    "tp": "TP",
    "pp": "PP",
    "dp": "DP",
    "usd": "USD",
    "eur": "EUR",
    "ttft": "TTFT",
    "ram": "RAM",
    "api": "API",
    "id": "id",
    "eu": "EU",
    "lora": "LoRA",
    "zero": "ZeRO",
    "gb": "GB",
    "gib": "GiB",
    "mtok": "M tokens",
    "s": "(s)",
}

_SNAKE = re.compile(r"\b[A-Za-z]+(?:_[A-Za-z0-9]+)+\b")


def strip_unit(name: str) -> str:
    """`per_gpu_GB` → `per_gpu`; `kv_cache_bytes_per_token` → `kv_cache_per_token`."""
    for suffix in UNIT_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
        infix = suffix + "_per_"
        if infix in name:
            return name.replace(suffix + "_", "_", 1)
    return name


def words(name: str) -> str:
    """A snake_case name in words, acronyms kept ("kv_cache_dtype" → "KV cache dtype")."""
    parts = [part for part in name.replace(".", "_").split("_") if part]
    return " ".join(_ACRONYMS.get(part.lower(), part) for part in parts)


def field_label(name: str) -> str:
    """The label of field `name` (with or without its unit suffix, possibly dotted)."""
    bare = strip_unit(name)
    if bare in FIELD_LABELS:
        return FIELD_LABELS[bare]
    last = bare.rsplit(".", 1)[-1]
    if last in FIELD_LABELS:
        return FIELD_LABELS[last]
    return words(last)


def tool_title(name: str) -> str:
    """A tool's card title ("estimate_memory" → "Memory"); unknown tools in words."""
    return TOOL_TITLES.get(name, words(name).capitalize() if name else "Tool")


def has_raw_name(text: str) -> bool:
    """True when `text` holds a snake_case identifier (what a card's default view must not
    show). Tests use it over every card; it is exported for them."""
    return _SNAKE.search(text) is not None
