"""A dense architecture for a bare parameter count ("a 13B model", 7.5e9).

Memory depends on more than the parameter count (KV heads, hidden size, vocabulary), so a bare
count needs a shape. We take the Llama-family catalog shape that can be brought closest to the
count (Llama 2 / 3.x: the most common dense decoder layout), change its layer count, then its
FFN width, until the computed count matches; the shape is stated as an assumption. The user's
own count is what weight and training-state bytes are computed from.
"""

from __future__ import annotations

import math
import re

from tools.architecture import Architecture, count_parameters
from tools.catalog import get_catalog
from tools.errors import ToolInputError

# Llama-family catalog entries used as templates (ids in catalog/models.toml).
TEMPLATE_IDS: tuple[str, ...] = (
    "llama-3.2-1b",
    "llama-3.2-3b",
    "llama-2-7b",
    "llama-3.1-8b",
    "llama-2-13b",
    "llama-2-70b",
    "llama-3.1-70b",
    "llama-3.1-405b",
)
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
    """`template` with layers, then FFN width, adjusted so its count is closest to `target`."""
    h = template.hidden_size
    counts = count_parameters(template)
    fixed = counts.embedding + counts.lm_head + h  # + final norm
    per_layer = (counts.total - fixed) // template.num_layers
    layers = max(1, round((target - fixed) / per_layer))
    # FFN width: each unit of intermediate_size adds 3·h parameters per layer (gate, up, down).
    without_ffn = per_layer - 3 * h * template.intermediate_size
    width = round((target - fixed - layers * without_ffn) / (3 * h * layers))
    width = max(256, width)
    return template.model_copy(
        update={"family": "generic", "num_layers": layers, "intermediate_size": width}
    )


def generic_architecture(total_params: int) -> tuple[Architecture, list[str]]:
    """A dense Llama-shaped `Architecture` whose count is as close as possible to
    `total_params`, and the assumptions that describe it."""
    catalog = get_catalog()
    best: tuple[float, float, str, Architecture] | None = None
    for model_id in TEMPLATE_IDS:
        template = catalog.models[model_id].architecture
        candidate = _fit(template, total_params)
        error = abs(count_parameters(candidate).total - total_params) / total_params
        size_gap = abs(math.log(count_parameters(template).total / total_params))
        key = (round(error, 3), size_gap)
        if best is None or key < (best[0], best[1]):
            best = (key[0], key[1], model_id, candidate)
    assert best is not None
    _, _, template_id, arch = best
    own = count_parameters(arch).total
    error = (own - total_params) / total_params * 100
    assumptions = [
        f"Generic dense model for {total_params:,} parameters: the {template_id} shape "
        f"(hidden {arch.hidden_size}, {arch.num_attention_heads} heads, {arch.num_kv_heads} KV "
        f"heads, head_dim {arch.head_dim}, vocab {arch.vocab_size}) with {arch.num_layers} "
        f"layers and FFN width {arch.intermediate_size}; that shape counts {own:,} parameters "
        f"({error:+.2f}%). Weights and training state use your count; KV cache and "
        "activations use the shape. Give --model or --config for exact figures."
    ]
    if abs(error) > 1:
        assumptions.append(
            f"No Llama-family shape matches {total_params:,} parameters within 1% "
            f"(closest {error:+.2f}%); KV-cache and activation figures are approximate."
        )
    return arch, assumptions
