"""`FitsRequest` / `FitsResult`: the schema of the reverse question and its answer."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from tools.field_factories import empty_list
from tools.hardware import GpuLimitRule
from tools.limits import FINITE, MAX_CONTEXT_TOKENS, MAX_NAME_CHARS
from tools.performance.basis import SpeedBasis

RankBy = Literal["largest", "fastest", "context", "coding", "reasoning"]


class FitsRequest(BaseModel):
    """Hardware the user has; the catalog models that run on it are listed."""

    model_config = ConfigDict(extra="forbid", frozen=True, **FINITE)

    gpu: str | None = Field(
        default=None, max_length=MAX_NAME_CHARS, description="Catalog GPU id or name."
    )
    gpu_memory_gb: float | None = Field(
        default=None, gt=0, le=100_000, description="Memory of a GPU not in the catalog, GB."
    )
    gpu_unified_memory: GpuLimitRule | None = Field(
        default=None,
        description="gpu_memory_gb is a unified-memory machine's RAM (macos-working-set).",
    )
    gpus: int = Field(default=1, ge=1, le=64, description="GPUs of it (layer split).")
    context: int | None = Field(
        default=None,
        ge=1,
        le=MAX_CONTEXT_TOKENS,
        description="Tokens per request each model must hold (default 8,192).",
    )
    rank_by: RankBy = Field(
        default="largest",
        description="largest (parameters), fastest (decode tokens/s), context (longest), "
        "coding or reasoning (models the catalog names so first, then by size).",
    )
    limit: int = Field(default=40, ge=1, le=200, description="Models listed at most.")


class ModelFit(BaseModel):
    """One model that runs with every layer on the GPU(s)."""

    model_config = ConfigDict(frozen=True)

    model_id: str
    model_name: str
    params: int = Field(description="Parameters (total; MoE: all experts).")
    active_params: int = Field(description="Parameters a token uses (MoE: top-k experts).")
    weights_format: str = Field(description="Best GGUF type that fits (tools.local_serving).")
    weights_bytes: int
    gpu_bytes: int
    budget_bytes: int
    context_per_slot: int
    longest_context_tokens: int | None
    decode_tokens_per_s: float | None
    decode_label: SpeedBasis | None
    ollama_reference: str
    ollama_library_tag: bool = Field(description="ollama_reference is a tag Ollama pulls.")
    tags: list[str] = Field(default_factory=empty_list, description="coding / reasoning, by name.")


class SizeClass(BaseModel):
    """Models of one size class (or those named for the coding / reasoning asked), ranked."""

    model_config = ConfigDict(frozen=True)

    name: str
    models: list[ModelFit]


class FitsResult(BaseModel):
    """The models that fit, grouped by size class (largest first; coding / reasoning: the
    models named so first), each ranked by `rank_by`."""

    model_config = ConfigDict(frozen=True)

    hardware: str
    gpus: int
    budget_bytes: int
    context_per_slot: int
    rank_by: RankBy
    groups: list[SizeClass]
    listed: int
    tried: int
    left_out: int = Field(description="Models that fit beyond `limit`.")
    assumptions: list[str] = Field(default_factory=empty_list)
