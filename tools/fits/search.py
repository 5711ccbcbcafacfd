"""`fits_on_hardware`: every catalog model planned on the user's hardware by
`plan_local_serving` in the best GGUF type that keeps every layer on the GPU(s)
(`tools.local_serving.choose`: Q8_0 … Q2_K at the context asked, default 8,192 tokens); the
ones that fit are grouped by size class and ranked.

Ranking facts come from the catalog only: parameters (computed from the published configs),
the estimated decode speed and the longest context of the plan; "coding" and "reasoning" put
first the models their publishers name so (a `Coder` model; DeepSeek's R1 reasoning models
and their distills), then the rest by size — the catalog holds no benchmark scores, so no
other quality order is claimed.
"""

from __future__ import annotations

from collections.abc import Callable

from tools.catalog import ModelEntry, get_catalog
from tools.errors import ToolInputError
from tools.fits.request import FitsRequest, FitsResult, ModelFit, RankBy, SizeClass
from tools.local_serving import LocalServingPlan, LocalServingRequest, plan_local_serving
from tools.local_serving.choose import USABLE_CONTEXT_TOKENS, longest_context

SIZE_CLASSES: tuple[tuple[str, float], ...] = (
    ("under 4.5B parameters", 4.5e9),
    ("4.5–10B", 10e9),
    ("10–18B", 18e9),
    ("18–40B", 40e9),
    ("40–130B", 130e9),
    ("over 130B", float("inf")),
)
"""(name, upper bound on total parameters): the classes models are grouped in."""


def tags(entry: ModelEntry) -> list[str]:
    """What the publisher's model name says it is for: coding ('Coder'), reasoning (R1)."""
    out = []
    if "coder" in entry.name.lower():
        out.append("coding")
    if entry.id.startswith("deepseek-r1"):
        out.append("reasoning")
    return out


def _fit(entry: ModelEntry, plan: LocalServingPlan) -> ModelFit:
    counts = entry.params
    return ModelFit(
        model_id=entry.id,
        model_name=entry.name,
        params=counts.text_only,
        active_params=counts.active_text_per_token,
        weights_format=plan.weights_format,
        weights_bytes=plan.weights_bytes,
        gpu_bytes=plan.gpu_bytes,
        budget_bytes=plan.budget_bytes,
        context_per_slot=plan.context_per_slot,
        longest_context_tokens=plan.longest_context_tokens,
        decode_tokens_per_s=plan.decode_tokens_per_s,
        decode_label=plan.decode_label,
        ollama_reference=plan.launch.ollama_reference if plan.launch else entry.id,
        ollama_library_tag=plan.launch.ollama_library_tag if plan.launch else False,
        tags=tags(entry),
    )


def _key(rank_by: RankBy) -> Callable[[ModelFit], tuple[float, ...]]:
    """Sort key, best first."""
    if rank_by == "fastest":
        return lambda m: (-(m.decode_tokens_per_s or 0.0), -m.params)
    if rank_by == "context":
        return lambda m: (-(m.longest_context_tokens or 0), -m.params)
    if rank_by in ("coding", "reasoning"):
        return lambda m: (0 if rank_by in m.tags else 1, -m.params)
    return lambda m: (-m.params,)


def _groups(listed: list[ModelFit], rank_by: str) -> list[SizeClass]:
    """The listed models by size class, largest first; the models named for a coding or
    reasoning ask lead in a group of their own; a speed or context ranking is one group."""
    if rank_by in ("fastest", "context"):
        return [SizeClass(name=f"all sizes, by {rank_by}", models=listed)] if listed else []
    groups: list[SizeClass] = []
    rest = listed
    if rank_by in ("coding", "reasoning"):
        named = [m for m in listed if rank_by in m.tags]
        rest = [m for m in listed if rank_by not in m.tags]
        if named:
            groups.append(SizeClass(name=f"named for {rank_by}", models=named))
    # Largest class first: the biggest model that runs leads.
    for name, upper in reversed(SIZE_CLASSES):
        lower = max([u for _, u in SIZE_CLASSES if u < upper], default=0.0)
        members = [m for m in rest if lower <= m.params < upper]
        if members:
            groups.append(SizeClass(name=name, models=members))
    return groups


def fits_on_hardware(req: FitsRequest) -> FitsResult:
    """The catalog models that run on `req`'s hardware with every layer on the GPU(s)."""
    if req.gpu is None and req.gpu_memory_gb is None:
        raise ToolInputError("gpu", "give the hardware: a catalog GPU id, or gpu_memory_gb")
    catalog = get_catalog()
    label = req.gpu
    if req.gpu is not None:
        label = catalog.gpu(req.gpu).name  # a bad name fails here, with suggestions
    fits: list[ModelFit] = []
    budget = 0
    tried = 0
    for entry in catalog.models.values():
        base = LocalServingRequest(
            model=entry.id,
            gpu=req.gpu,
            gpu_memory_gb=req.gpu_memory_gb,
            gpu_unified_memory=req.gpu_unified_memory,
            gpus=req.gpus,
            context=min(req.context or USABLE_CONTEXT_TOKENS, entry.architecture.max_context),
            choose_format=True,
        )
        try:
            plan = plan_local_serving(base)
        except ToolInputError:
            continue
        tried += 1
        budget = plan.budget_bytes
        label = plan.gpu_label
        if plan.fits_fully and plan.fits_in_ram is not False:
            if plan.longest_context_tokens is None:  # a type the checkpoint fixes (gpt-oss)
                longest = longest_context(base, plan, entry.architecture.max_context)
                plan = plan.model_copy(update={"longest_context_tokens": longest})
            fits.append(_fit(entry, plan))
    fits.sort(key=_key(req.rank_by))
    listed = fits[: req.limit]
    groups = _groups(listed, req.rank_by)
    notes = [
        "Each model in the best-quality GGUF type that keeps every layer on the GPU at the "
        "context (Q8_0, Q6_K, Q5_K_M, Q4_K_M, Q3_K_M, Q2_K; plan_local_serving); speeds are "
        "single-stream decode estimates (labelled per model); a model's context is capped at "
        "its maximum.",
    ]
    if req.rank_by in ("coding", "reasoning"):
        count = sum(1 for m in listed if req.rank_by in m.tags)
        notes.append(
            f"{count} listed model(s) are named for {req.rank_by} by their publishers (a Coder "
            "model, DeepSeek-R1 and its distills); the catalog holds no benchmark scores, so "
            "the rest are ranked by size."
        )
    return FitsResult(
        hardware=label or "",
        gpus=req.gpus,
        budget_bytes=budget,
        context_per_slot=req.context or USABLE_CONTEXT_TOKENS,
        rank_by=req.rank_by,
        groups=groups,
        listed=len(listed),
        tried=tried,
        left_out=len(fits) - len(listed),
        assumptions=notes,
    )
