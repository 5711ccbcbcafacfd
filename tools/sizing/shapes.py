"""Does the verdict on a model known only by its size depend on its architecture?

A bare count ('Foo-32B') is sized as the generic dense shape (tools/generic_model.py: Llama 3.x
GQA, 8 KV heads). Weights follow from the count alone, but the KV cache and the activations
follow from the shape: an older full multi-head model of the same size caches up to 9× more per
token (Command R 35B: 1,310,720 bytes per token against the generic 32B's 147,456). The
plausible range is the catalog's own models of that size — every catalog architecture whose
text-only parameter count is within `SIZE_FACTOR` of the count — each sized at the same GPU,
layout, lengths, load and formats. When the fit differs between them, the answer gives the
figures for the default reading and asks for the config.json or repo id; when it does not, the
assumption stated is enough.

Per-GPU need of a shape = the generic estimate's per-GPU bytes − its KV cache and activations +
that shape's KV cache and activations (weights, runtime and training state follow the stated
count, so they are the generic estimate's).
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from tools.architecture import count_parameters
from tools.catalog import ModelEntry, get_catalog
from tools.errors import ToolInputError
from tools.generic_model import parse_param_count
from tools.memory import MemoryEstimate, MemoryRequest, estimate_memory
from tools.memory.kv_cache import kv_cache_bytes_per_token
from tools.sizing.configuration import ShapeFit, ShapeQuestion, SizedConfiguration

SIZE_FACTOR = 1.2
"""Catalog models within ×/÷ 1.2 of the stated count are 'of that size' (a 32B: 26.7–38.4B)."""

_SHAPE_DEPENDENT = ("kv_cache", "activations")


def plausible_shapes(total_params: int) -> list[ModelEntry]:
    """Catalog models of about `total_params` parameters (text only), one per architecture,
    smallest KV cache per token first."""
    seen: list[Any] = []
    out: list[ModelEntry] = []
    for entry in get_catalog().models.values():
        text = count_parameters(entry.architecture).text_only
        if not total_params / SIZE_FACTOR <= text <= total_params * SIZE_FACTOR:
            continue
        # One per shape: entries that differ only in their maximum context (Qwen3-Coder vs
        # Qwen3 30B-A3B) or share an architecture give the same figures.
        shape = entry.architecture.model_copy(update={"max_context": 1})
        if shape in seen:
            continue
        seen.append(shape)
        out.append(entry)
    return sorted(out, key=lambda e: kv_cache_bytes_per_token(e.architecture))


def _shape_dependent(est: MemoryEstimate) -> int:
    return sum(est.breakdown.get(name, 0) for name in _SHAPE_DEPENDENT)


def shape_question(fields: dict[str, Any], sized: SizedConfiguration) -> ShapeQuestion | None:
    """The question when a generic model's fit on `sized` (its memory request `fields`)
    differs across the catalog's architectures of that size; None when it does not (or the
    model is not generic, or no GPU was named)."""
    est = sized.estimate
    params = fields.get("params")
    if est is None or params is None or sized.gpu is None or est.budget_bytes_per_gpu is None:
        return None
    count = parse_param_count(params)
    fixed = est.per_gpu_bytes - _shape_dependent(est)
    fits: list[ShapeFit] = []
    for entry in plausible_shapes(count):
        request = {k: v for k, v in fields.items() if k != "params"} | {"model": entry.id}
        try:
            own = estimate_memory(MemoryRequest.model_validate(request))
        except (ToolInputError, ValidationError):
            continue  # e.g. its heads do not split over this tp
        per_gpu = fixed + _shape_dependent(own)
        fits.append(
            ShapeFit(
                model_id=entry.id,
                name=entry.name,
                total_params=count_parameters(entry.architecture).text_only,
                attention=entry.architecture.attention_kind,
                kv_cache_bytes_per_token=kv_cache_bytes_per_token(entry.architecture),
                per_gpu_bytes=per_gpu,
                fits=per_gpu <= est.budget_bytes_per_gpu,
            )
        )
    if not any(f.fits != est.fits for f in fits):
        return None
    return ShapeQuestion(
        params=count,
        gpu=sized.gpu,
        count=sized.count,
        default_fits=bool(est.fits),
        default_per_gpu_bytes=est.per_gpu_bytes,
        default_kv_cache_bytes_per_token=est.kv_cache_bytes_per_token,
        budget_bytes_per_gpu=est.budget_bytes_per_gpu,
        shapes=fits,
        low=round(count / SIZE_FACTOR),
        high=round(count * SIZE_FACTOR),
    )
