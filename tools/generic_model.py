"""A dense architecture for a bare parameter count ("a 13B model", 7.5e9).

Memory depends on more than the parameter count (KV heads, hidden size, vocabulary), so a bare
count needs a shape. What an engineer means by "a 7B" today is a modern dense decoder:
grouped-query attention with 8 KV heads and a long context (Llama 3.x, Qwen2.5, Mistral). We take
the Llama 3.x catalog shape nearest in size (all five have 8 KV heads, head_dim 64/128, vocab
128,256 and a 131,072-token maximum context), then choose its layer count and FFN width so the
computed count matches; the shape is stated as an assumption. The user's own count is what weight
and training-state bytes are computed from.

The FFN width stays a multiple of 256, as in every Llama-family config (meta-llama/llama-models
models/llama3/model.py FeedForward rounds to `multiple_of`; widths 8,192 / 11,008 / 13,824 /
14,336 / 28,672 / 53,248): llama.cpp's k-quants store rows in 256-element super-blocks (QK_K), so
an odd width would push ffn_down to a fallback type and size GGUF files wrong. Rounding leaves a
residual: one 256 step moves the count by 3·hidden·256·layers (e.g. 0.08 B for a 7B), so the
layer count is searched too and the closest pair kept; the residual is stated.
"""

from __future__ import annotations

import math
import re

from tools.architecture import Architecture, count_parameters
from tools.catalog import get_catalog
from tools.errors import ToolInputError

# Llama 3.x catalog entries used as templates (ids in catalog/models.toml): GQA, 8 KV heads,
# max_position_embeddings 131,072. Llama 2 shapes (full multi-head attention below 70B, 4,096
# tokens) describe 2023 models and would inflate the KV cache of a bare "7B" about 4×.
TEMPLATE_IDS: tuple[str, ...] = (
    "llama-3.2-1b",
    "llama-3.2-3b",
    "llama-3.1-8b",
    "llama-3.1-70b",
    "llama-3.1-405b",
)
FFN_MULTIPLE = 256
"""FFN widths are multiples of this (llama.cpp QK_K super-block; Llama's `multiple_of`)."""
MIN_PARAMS = 10**7
MAX_PARAMS = 2 * 10**13
"""Accepted bare counts: 10M to 20T parameters (the largest published models are ~2T)."""

_SUFFIX = {"k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12}
_WORDS = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}


def parse_param_count(value: str | float | int, field: str = "params") -> int:
    """A parameter count from '13B', '7.5e9', '350M', '1.5T', '13 billion' or a number.

    Raises ToolInputError naming `field` for non-numbers, NaN, zero, negative or absurd sizes.
    """
    allowed = "a positive count such as '13B', '7.5e9' or '350M' (10M to 20T parameters)"
    if isinstance(value, bool):
        raise ToolInputError(field, f"{value!r} is not a parameter count", allowed)
    if isinstance(value, int | float):
        number = float(value)
    else:
        text = value.strip().lower().replace(",", "").replace("_", "")
        match = re.fullmatch(
            r"([0-9]*\.?[0-9]+(?:e[+-]?[0-9]+)?)\s*([kmbgt]|thousand|million|billion|trillion)?"
            r"(?:\s*params?|\s*parameters)?",
            text,
        )
        if not match:
            raise ToolInputError(field, f"{value!r} is not a parameter count", allowed)
        unit = match.group(2)
        scale = 1.0 if unit is None else _SUFFIX.get(unit) or _WORDS[unit]
        number = float(match.group(1)) * scale
    if not math.isfinite(number) or number <= 0:
        raise ToolInputError(field, f"{value!r} is not a positive, finite count", allowed)
    if number < MIN_PARAMS or number > MAX_PARAMS:
        raise ToolInputError(field, f"{value!r} is outside the supported range", allowed)
    return round(number)


def _fit(template: Architecture, target: int) -> Architecture:
    """`template` with the layer count and FFN width (a multiple of FFN_MULTIPLE) whose count is
    closest to `target`; among equally close fits (within 0.1%), the layer count nearest the
    unconstrained fit."""
    h = template.hidden_size
    counts = count_parameters(template)
    fixed = counts.embedding + counts.lm_head + h  # + final norm
    per_layer = (counts.total - fixed) // template.num_layers
    # FFN: each unit of intermediate_size adds 3·h parameters per layer (gate, up, down).
    without_ffn = per_layer - 3 * h * template.intermediate_size
    nearest_layers = max(1, round((target - fixed) / per_layer))
    best: tuple[float, int, int, int] | None = None  # (error bucket, layer gap, error, width)
    best_layers = nearest_layers
    for layers in range(max(1, nearest_layers - 1), nearest_layers + 2):
        exact_width = (target - fixed - layers * without_ffn) / (3 * h * layers)
        steps = math.floor(exact_width / FFN_MULTIPLE)
        for width in {max(1, steps) * FFN_MULTIPLE, max(1, steps + 1) * FFN_MULTIPLE}:
            error = abs(fixed + layers * (without_ffn + 3 * h * width) - target)
            key = (round(error / target, 3), abs(layers - nearest_layers), error, width)
            if best is None or key < best:
                best, best_layers = key, layers
    assert best is not None
    return template.model_copy(
        update={"family": "generic", "num_layers": best_layers, "intermediate_size": best[3]}
    )


def generic_architecture(total_params: int) -> tuple[Architecture, list[str]]:
    """A dense Llama 3.x-shaped `Architecture` whose count is as close as possible to
    `total_params`, and the assumptions that describe it (the shape, its count and residual,
    its KV heads and maximum context)."""
    catalog = get_catalog()
    best: tuple[float, float, str, Architecture] | None = None
    for model_id in TEMPLATE_IDS:
        template = catalog.models[model_id].architecture
        candidate = _fit(template, total_params)
        error = abs(count_parameters(candidate).total - total_params) / total_params
        size_gap = abs(math.log(count_parameters(template).total / total_params))
        # The template nearest in size among those that fit within 1% (any template can be
        # stretched to a count, but 1 layer of a 405B is not what "a 7B" means); if none
        # does, the closest fit.
        key = (0.0 if error <= 0.01 else error, size_gap)
        if best is None or key < (best[0], best[1]):
            best = (key[0], key[1], model_id, candidate)
    assert best is not None
    _, _, template_id, arch = best
    own = count_parameters(arch).total
    error = (own - total_params) / total_params * 100
    assumptions = [
        f"Generic dense model for {total_params:,} parameters: a modern grouped-query-attention "
        f"shape, {template_id}'s (hidden {arch.hidden_size:,}, {arch.num_attention_heads} heads, "
        f"{arch.num_kv_heads} KV heads, head_dim {arch.head_dim}, vocab {arch.vocab_size:,}, "
        f"maximum context {arch.max_context:,} tokens) with {arch.num_layers} layers and FFN "
        f"width {arch.intermediate_size:,} (a multiple of {FFN_MULTIPLE}, as in Llama configs); "
        f"that shape counts {own:,} parameters ({error:+.2f}%). Weights and training state use "
        "your count; KV cache and activations use the shape (an older full multi-head model "
        "of the same size has up to 4× the KV cache). Give --model or --config for exact "
        "figures."
    ]
    if abs(error) > 1:
        assumptions.append(
            f"No Llama 3.x-based shape matches {total_params:,} parameters within 1% "
            f"(closest {error:+.2f}%); KV-cache and activation figures are approximate."
        )
    return arch, assumptions
