"""The memory calculator: bytes per GPU for a model and workload, by component.

Public API: `MemoryRequest` (the tool's function-calling schema), `validate_request`,
`estimate_memory(req) -> MemoryEstimate`, `memory_figures(req) -> MemoryFigures` (its figures
without the text, for callers that rank many layouts), and the lower-level `resolve_model`,
`weight_bytes`, `kv_cache_bytes_per_token`, `kv_cache_bytes`.
"""

from tools.memory.estimate import MemoryFigures, estimate_memory, memory_figures
from tools.memory.formats import WEIGHT_FORMATS, normalize_format
from tools.memory.kv_cache import KV_DTYPES, kv_cache_bytes, kv_cache_bytes_per_token
from tools.memory.model import ResolvedModel, resolve_model
from tools.memory.request import (
    COMPONENT_NAMES,
    ENGINE_NAMES,
    Component,
    MemoryEstimate,
    MemoryRequest,
    component_name,
    engine_name,
    request_error,
    validate_request,
)
from tools.memory.weights import WeightBytes, weight_bytes

__all__ = [
    "COMPONENT_NAMES",
    "ENGINE_NAMES",
    "KV_DTYPES",
    "WEIGHT_FORMATS",
    "Component",
    "MemoryEstimate",
    "MemoryFigures",
    "MemoryRequest",
    "ResolvedModel",
    "WeightBytes",
    "component_name",
    "engine_name",
    "estimate_memory",
    "kv_cache_bytes",
    "kv_cache_bytes_per_token",
    "memory_figures",
    "normalize_format",
    "request_error",
    "resolve_model",
    "validate_request",
    "weight_bytes",
]
