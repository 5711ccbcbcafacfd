"""The recommender's calls into the memory calculator (`tools.memory`, imported on first use)
and the model facts it caches: the MemoryRequest of one layout, the resolved model, its
architecture and parameter counts, whole-model weight bytes per tensor, and the `ModelOnGpus`
the performance model reads.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from tools.architecture import Architecture, ParamCounts, count_parameters
from tools.catalog import GpuSpec
from tools.performance import ModelOnGpus
from tools.workload import Workload


def _memory() -> Any:
    # Imported on first use: tools.memory is built in parallel and importing this module must
    # not depend on it (tests/test_layers.py imports every tools module).
    import tools.memory

    return tools.memory


def estimate_memory(request: Any) -> Any:
    """tools.memory.estimate_memory, imported lazily."""
    return _memory().estimate_memory(request)


def memory_figures(request: Any) -> Any:
    """tools.memory.memory_figures (an estimate's figures without its text), imported lazily:
    what the recommender reads of each layout it ranks."""
    return _memory().memory_figures(request)


# The last workloads' validated requests: a layout's request is the workload's with the GPU,
# counts and batch replaced (plain ids and counts within their bounds, so no field needs its
# validator again; a request per layout validated from scratch was a tenth of `recommend`).
_TEMPLATES: dict[int, tuple[Workload, Any]] = {}


def memory_request_for(
    w: Workload, gpu: GpuSpec | None, tp: int, pp: int, dp: int, batch: int, **override: Any
) -> Any:
    """The MemoryRequest for one layout. Fields the user left unset stay unset, so the memory
    calculator applies its own defaults (native checkpoint format, vLLM for serving and
    Transformers for training). Bad values raise its ToolInputError naming the field."""
    if gpu is not None and not override:
        cached = _TEMPLATES.get(id(w))
        if cached is not None and cached[0] is w:
            layout = {"gpu": gpu.id, "gpus": tp * pp * dp, "tp": tp, "pp": pp, "batch": batch}
            return cached[1].model_copy(update=layout)
        request = _validated_request(w, gpu, tp, pp, dp, batch)
        if len(_TEMPLATES) >= 8:
            _TEMPLATES.clear()
        _TEMPLATES[id(w)] = (w, request)
        return request
    return _validated_request(w, gpu, tp, pp, dp, batch, **override)


def _validated_request(
    w: Workload, gpu: GpuSpec | None, tp: int, pp: int, dp: int, batch: int, **override: Any
) -> Any:
    """The layout's MemoryRequest validated from the workload's fields."""
    fields: dict[str, Any] = {
        "model": w.model,
        "params": w.params,
        "config_path": w.config_path,
        "model_file": w.model_file,
        "task": w.task,
        "weights": w.weights,
        "kv_dtype": w.kv_dtype,
        "engine": w.engine,
        "engine_version": w.engine_version,
        "split_mode": w.split_mode,
        "gpu_memory_utilization": w.gpu_memory_utilization,
        "context": w.training_sequence_tokens if w.is_training else w.context_tokens,
        "batch": batch,
        "gpus": tp * pp * dp,
        "tp": tp,
        "pp": pp,
        "gpu": None if gpu is None else gpu.id,
        "lora_rank": w.lora_slot_rank if w.lora_slots else w.lora_rank,
        "lora_slots": w.lora_slots,
        "checkpointing": w.checkpointing,
        "zero": w.zero,
        **override,
    }
    return _memory().validate_request({k: v for k, v in fields.items() if v is not None})


def whole_weights(w: Workload, fmt: str) -> Any:
    """Per-tensor weight bytes of the whole model in `fmt` (tp=1, pp=1): what the performance
    model reads, each tensor at its own stored size (a model file's own bytes when it was read
    from one in that format; tools.memory.model_weight_bytes caches the computed ones)."""
    from tools.memory.model import model_weight_bytes

    return model_weight_bytes(resolved_model(w), fmt)


def whole_weight_bytes(w: Workload, fmt: str) -> int:
    """Weight bytes of the whole model in `fmt`.

    The per-GPU `breakdown["weights"]` × tp × pp would overcount: KV projections are
    replicated under TP and the worst pipeline stage is heavier than the mean."""
    total: int = whole_weights(w, fmt).total
    return total


def model_on_gpus(w: Workload, est: Any, gpu: GpuSpec, tp: int, pp: int) -> ModelOnGpus:
    # Full fine-tuning reports its training state as the "format"; its matmuls run in bf16.
    fmt = "bf16" if w.task == "full" else str(est.weights_format)
    weights = whole_weights(w, fmt)
    speedup = 1.0
    kv_per_gpu = float(est.kv_cache_bytes_per_token_per_gpu)
    if str(est.engine) == "generic" and tp > 1 and not w.is_training:
        # llama.cpp's --split-mode tensor: timed as the layer split over the same GPUs, decode
        # sped up by the published factor (tools/performance/llama_split.py).
        from tools.performance.llama_split import tensor_split_speedup

        speedup = tensor_split_speedup(architecture_of(w))
        tp, pp = 1, tp * pp
    return ModelOnGpus(
        arch=architecture_of(w),
        params=param_counts(w),
        weight_bytes_total=weights.total,
        weight_format=fmt,
        weights=weights,
        kv_bytes_per_token_per_gpu=kv_per_gpu,
        gpu=gpu,
        tp=tp,
        pp=pp,
        engine=performance_engine(w, str(est.engine)),
        decode_speedup=speedup,
    )


def performance_engine(w: Workload, engine: str) -> str:
    """The engine name the performance model reads: llama.cpp (engine generic) carries the
    build era of the build the workload names (`generic@2023-24`), the newest builds' without
    one; other engines as the memory calculator named them."""
    if engine != "generic" or w.engine_version is None:
        return engine
    from tools.performance.engines import with_build_era
    from tools.performance.llama_builds import read_llama_build

    build = read_llama_build(w.engine_version)
    return engine if build is None else with_build_era(engine, build.era)


@lru_cache(maxsize=64)
def _resolve(
    model: str | None, params: str | float | None, config_path: str | None, model_file: str | None
) -> Any:
    return _memory().resolve_model(
        model=model, params=params, config_path=config_path, model_file=model_file
    )


def resolved_model(w: Workload) -> Any:
    return _resolve(w.model, w.params, w.config_path, w.model_file)


def architecture_of(w: Workload) -> Architecture:
    arch: Architecture = resolved_model(w).architecture
    return arch


def param_counts(w: Workload) -> ParamCounts:
    return _param_counts(architecture_of(w))


@lru_cache(maxsize=64)
def _param_counts(arch: Architecture) -> ParamCounts:
    return count_parameters(arch)
