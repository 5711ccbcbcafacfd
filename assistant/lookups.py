"""The catalog look-up tools the model may call: one model, one GPU, or a filtered list.

Each returns a typed result (the registry stores it as such and sends the model its lean JSON,
`*_bytes` as `*_GB`). Sources are cut to the first one cited, at most 100 characters: the full
list is in the catalog and would cost hundreds of tokens per look-up.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from tools.catalog import GpuSpec, ModelEntry, get_catalog
from tools.errors import ToolInputError
from tools.limits import FINITE, MAX_MEMORY_GB, MAX_NAME_CHARS
from tools.units import GB

SOURCE_CHARS = 100


class FindModelInput(BaseModel):
    """Look up one model in the catalog."""

    model_config = ConfigDict(extra="forbid", **FINITE)
    name: str = Field(
        max_length=MAX_NAME_CHARS,
        description="Model id, alias or Hugging Face id, e.g. 'llama-3.1-70b'.",
    )


class FindGpuInput(BaseModel):
    """Look up one GPU in the catalog."""

    model_config = ConfigDict(extra="forbid", **FINITE)
    name: str = Field(
        max_length=MAX_NAME_CHARS, description="GPU id or alias, e.g. 'h100-sxm', 'A100 80GB'."
    )


class ListModelsInput(BaseModel):
    """List catalog models, optionally filtered."""

    model_config = ConfigDict(extra="forbid", **FINITE)
    contains: str | None = Field(
        default=None, max_length=MAX_NAME_CHARS, description="Substring of id or name."
    )


class ListGpusInput(BaseModel):
    """List catalog GPUs, optionally filtered."""

    model_config = ConfigDict(extra="forbid", **FINITE)
    vendor: str | None = Field(
        default=None, max_length=MAX_NAME_CHARS, description="NVIDIA, AMD or Intel."
    )
    min_memory_gb: float | None = Field(
        default=None,
        ge=0,
        le=MAX_MEMORY_GB,
        description="Minimum vendor memory, GB (10^9 bytes).",
    )


class ModelFacts(BaseModel):
    """Catalog facts for one model (parameter counts exact from its architecture)."""

    id: str
    name: str
    total_params: int
    active_params_per_token: int
    layers: int
    hidden_size: int
    attention_heads: int
    kv_heads: int
    max_context_tokens: int
    source: str = Field(description="The first source the catalog cites.")


class GpuFacts(BaseModel):
    """Catalog facts for one GPU: bytes and bytes/s (the model reads GB and GB/s)."""

    id: str
    name: str
    vendor: str
    memory_bytes: int
    usable_memory_bytes: int
    memory_bandwidth_bytes_per_s: float
    bf16_tflops: float | None
    fp8_tflops: float | None
    interconnect: str
    interconnect_bytes_per_s: float | None
    form_factor: str
    source: str = Field(description="The first source the catalog cites.")


class ModelRow(BaseModel):
    """One catalog model in a list."""

    id: str
    name: str
    total_params: int


class ModelList(BaseModel):
    """Catalog models matching a filter."""

    models: list[ModelRow]
    count: int


class GpuRow(BaseModel):
    """One catalog GPU in a list."""

    id: str
    name: str
    memory_bytes: int


class GpuList(BaseModel):
    """Catalog GPUs matching a filter."""

    gpus: list[GpuRow]
    count: int


def short_source(source: str, limit: int = SOURCE_CHARS) -> str:
    """The first cited source, cut to `limit` characters."""
    first = source.split(" | ")[0]
    return first if len(first) <= limit else first[: limit - 1] + "…"


def model_facts(entry: ModelEntry) -> ModelFacts:
    """The look-up result for one catalog model."""
    arch = entry.architecture
    return ModelFacts(
        id=entry.id,
        name=entry.name,
        total_params=entry.params.total,
        active_params_per_token=entry.params.active_per_token,
        layers=arch.num_layers,
        hidden_size=arch.hidden_size,
        attention_heads=arch.num_attention_heads,
        kv_heads=arch.num_kv_heads,
        max_context_tokens=arch.max_context,
        source=short_source(entry.source),
    )


def gpu_facts(gpu: GpuSpec) -> GpuFacts:
    """The look-up result for one catalog GPU."""
    return GpuFacts(
        id=gpu.id,
        name=gpu.name,
        vendor=gpu.vendor,
        memory_bytes=gpu.memory_bytes,
        usable_memory_bytes=gpu.usable_memory_bytes,
        memory_bandwidth_bytes_per_s=gpu.memory_bandwidth_bytes_per_s,
        bf16_tflops=gpu.bf16_tflops,
        fp8_tflops=gpu.fp8_tflops,
        interconnect=gpu.interconnect,
        interconnect_bytes_per_s=gpu.interconnect_bytes_per_s,
        form_factor=gpu.form_factor,
        source=short_source(gpu.source),
    )


def find_model(req: FindModelInput) -> ModelFacts:
    """Catalog facts for one model (unknown name → ToolInputError naming `name`, with
    suggestions)."""
    try:
        return model_facts(get_catalog().model(req.name))
    except ToolInputError as exc:
        raise exc.renamed("name") from None


def find_gpu(req: FindGpuInput) -> GpuFacts:
    """Catalog facts for one GPU (unknown name → ToolInputError naming `name`, with
    suggestions)."""
    try:
        return gpu_facts(get_catalog().gpu(req.name))
    except ToolInputError as exc:
        raise exc.renamed("name") from None


def list_models(req: ListModelsInput) -> ModelList:
    """Ids, names and total parameters of catalog models matching `contains`."""
    needle = (req.contains or "").lower()
    rows = [
        ModelRow(id=m.id, name=m.name, total_params=m.params.total)
        for m in get_catalog().models.values()
        if needle in m.id.lower() or needle in m.name.lower()
    ]
    return ModelList(models=rows, count=len(rows))


def list_gpus(req: ListGpusInput) -> GpuList:
    """Ids, names and memory of catalog GPUs matching the filters."""
    vendor = (req.vendor or "").lower()
    min_bytes = (req.min_memory_gb or 0) * GB
    rows = [
        GpuRow(id=g.id, name=g.name, memory_bytes=g.memory_bytes)
        for g in get_catalog().gpus.values()
        if (not vendor or g.vendor.lower() == vendor) and g.memory_bytes >= min_bytes
    ]
    return GpuList(gpus=rows, count=len(rows))
