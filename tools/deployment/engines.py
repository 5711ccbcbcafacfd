"""`plan_engine`: one model on one GPU configuration under a named serving engine — that
engine's KV-cache pool (its own rule, `tools.deployment.engine_rules`), the tokens and
sequences the pool holds, and the command line that starts it so (`launch_lines`).

Weights, activations and the CUDA context per GPU are the memory calculator's
(`tools.memory.estimate_memory`, vLLM accounting for the GPU engines); only what each engine
does with the rest differs. llama.cpp and Ollama are the local-serving plan's
(`tools.local_serving.plan_local_serving`): its placement, KV cache and launch line are copied.
"""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tools.catalog import get_catalog
from tools.deployment.engine_rules import (
    AS_OF,
    RULES,
    TRTLLM_FREE_FRACTION,
    ServeEngine,
    pool_bytes,
    sglang_default_fraction,
)
from tools.deployment.launch_lines import engine_command
from tools.errors import ToolInputError, from_validation_error
from tools.field_factories import empty_list
from tools.limits import (
    MAX_CONTEXT_TOKENS,
    MAX_LORA_ADAPTERS,
    MAX_LORA_RANK,
    MAX_NAME_CHARS,
    MAX_PARALLEL_DEGREE,
    MAX_SEQUENCES,
)
from tools.memory import MemoryRequest, estimate_memory
from tools.memory.overhead import CUBLAS_WORKSPACE, CUDA_CONTEXT, VLLM_CUDA_GRAPHS
from tools.memory.request import ModelChoice
from tools.units import format_bytes


class EngineRequest(ModelChoice):
    """A model served on a GPU configuration by a named engine (vLLM, SGLang, TensorRT-LLM,
    llama.cpp, Ollama, MLX): its KV pool and launch line."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    serve_engine: ServeEngine = Field(
        description="vllm, sglang, tensorrt-llm, llama.cpp, ollama or mlx."
    )
    gpu: str = Field(max_length=MAX_NAME_CHARS, description="Catalog GPU id or name.")
    tp: int = Field(default=1, ge=1, le=MAX_PARALLEL_DEGREE, description="Tensor-parallel size.")
    pp: int = Field(default=1, ge=1, le=MAX_PARALLEL_DEGREE, description="Pipeline stages.")
    context: int | None = Field(
        default=None, ge=1, le=MAX_CONTEXT_TOKENS, description="Tokens per sequence."
    )
    sequences: int | None = Field(
        default=None,
        ge=1,
        le=MAX_SEQUENCES,
        description="Concurrent sequences to hold; unset: no load stated, so the command "
        "leaves the engine's own cap (vLLM --max-num-seqs, SGLang --max-running-requests, "
        "TensorRT-LLM --max_batch_size) and the pool is checked for one.",
    )
    memory_fraction: float | None = Field(
        default=None,
        gt=0.0,
        le=1.0,
        description="The engine's memory fraction (vLLM --gpu-memory-utilization, SGLang "
        "--mem-fraction-static, TensorRT-LLM free fraction); default the engine's.",
    )
    lora_slots: int | None = Field(
        default=None,
        ge=1,
        le=MAX_LORA_ADAPTERS,
        description="vLLM only: LoRA adapter slots (--max-loras), held beside the weights.",
    )
    lora_rank: int | None = Field(
        default=None, ge=1, le=MAX_LORA_RANK, description="Rank of those slots (default 16)."
    )

    def runs_llama_cpp(self) -> bool:
        """llama.cpp and Ollama (its llama.cpp runner) name llama.cpp builds."""
        return self.serve_engine in ("llama.cpp", "ollama")


class EnginePlan(BaseModel):
    """The engine's KV pool on the configuration, what it holds, and the launch line."""

    model_config = ConfigDict(frozen=True)

    engine: ServeEngine
    engine_label: str
    model_id: str
    model_ref: str = Field(description="What the command names: a Hugging Face repo or file.")
    gpu: str
    gpu_name: str
    tp: int
    pp: int
    context: int
    sequences: int | None = Field(
        description="Concurrent sequences asked for; None: no load stated (the engine's cap)."
    )
    weights_format: str
    kv_dtype: str
    pool_rule: str = Field(description="The engine's KV pool rule, in words with its figures.")
    memory_fraction: float | None = Field(
        default=None, description="The fraction the rule applies (None: exact allocation)."
    )
    total_bytes_per_gpu: int
    weights_bytes_per_gpu: int
    kv_pool_bytes_per_gpu: int = Field(description="KV-cache pool per GPU, bytes (≤ 0: none).")
    kv_bytes_per_token_per_gpu: int
    pool_tokens: int = Field(description="Tokens the pool holds per replica.")
    max_sequences: int = Field(description="Sequences of `context` tokens the pool holds.")
    fits: bool = Field(description="The pool holds `sequences` sequences of `context` tokens.")
    command: str = Field(description="The shell command that starts the engine so.")
    config_file: str | None = Field(
        default=None, description="A file the command reads (TensorRT-LLM YAML), its text."
    )
    notes: list[str] = Field(default_factory=empty_list)
    source: str
    as_of: str = AS_OF


def _model_ref(model_id: str, weights: str, native: str) -> tuple[str, str | None]:
    """(the Hugging Face repo the command serves, a note) — the catalog's checkpoint in that
    format where one is published, else the instruct repo of the model's aliases."""
    try:
        entry = get_catalog().model(model_id)
    except (KeyError, ToolInputError):
        return model_id, f"'{model_id}' is not a catalog model: put its repo or path here."
    for ckpt in entry.checkpoints:
        if ckpt.weights == weights:
            return ckpt.repo, None
    repos = [a for a in entry.aliases if "/" in a]
    instruct = [r for r in repos if "instruct" in r.lower() or "-it" in r.lower()]
    chosen = (instruct or repos or [model_id])[0]
    note = None
    if weights != native and weights not in ("fp8",):
        note = (
            f"No {weights} checkpoint of {entry.name} in the catalog: serve a {weights} "
            "repo of it (the engine reads its quantization from the checkpoint)."
        )
    return chosen, note


def _quantization(engine: ServeEngine, weights: str, native: str) -> str | None:
    """--quantization fp8 quantizes a 16-bit checkpoint at load (vLLM, SGLang); every other
    format comes from a checkpoint that says so itself."""
    if engine in ("vllm", "sglang") and weights == "fp8" and native in ("bf16", "fp16"):
        return "fp8"
    return None


_M = TypeVar("_M", bound=BaseModel)
_MODEL_FIELDS = ("model", "params", "config_path", "model_file", "weights", "kv_dtype")


def _model_fields(req: EngineRequest) -> dict[str, object]:
    """The model, its files and formats, as the inner requests take them."""
    return {k: getattr(req, k) for k in _MODEL_FIELDS}


_INNER_FIELDS = {"parallel": "sequences", "batch": "sequences", "gpus": "tp"}
"""Fields of the inner requests named as this request's own in an error."""


def _inner(kind: type[_M], /, **fields: object) -> _M:
    """`model(**fields)`; an invalid value is reported on this request's own field (a TP ×
    PP past what the engine's plan sizes, more sequences than llama.cpp's slots)."""
    try:
        return kind.model_validate(fields)
    except ValidationError as exc:
        inner = from_validation_error(exc, kind)
        field = _INNER_FIELDS.get(inner.field, inner.field)
        if inner.field == "gpus":
            problem = f"tp × pp is more GPUs than this engine's plan sizes ({inner.problem})"
        else:
            problem = inner.problem
        raise ToolInputError(field, problem, inner.allowed) from exc


def _gpu_plan(req: EngineRequest) -> EnginePlan:
    rule = RULES[req.serve_engine]
    mem = estimate_memory(
        _inner(
            MemoryRequest,
            **_model_fields(req),
            engine="vllm",
            gpu_memory_utilization=req.memory_fraction if req.serve_engine == "vllm" else None,
            lora_slots=req.lora_slots if req.serve_engine == "vllm" else None,
            lora_rank=req.lora_rank if req.serve_engine == "vllm" and req.lora_slots else None,
            engine_version=req.engine_version if req.serve_engine == "vllm" else None,
            gpu=req.gpu,
            context=req.context,
            batch=req.sequences or 1,
            gpus=req.tp * req.pp,
            tp=req.tp,
            pp=req.pp,
        )
    )
    spec = get_catalog().gpu(req.gpu)
    total = mem.usable_bytes_per_gpu or spec.usable_memory_bytes
    b = mem.breakdown
    weights, activations, overhead = b["weights"], b.get("activations", 0), b.get("overhead", 0)
    ctx_bytes = int(CUDA_CONTEXT.value + CUBLAS_WORKSPACE.value)
    graphs = int(VLLM_CUDA_GRAPHS.value)
    notes: list[str] = []
    if req.serve_engine == "vllm":
        budget = mem.budget_bytes_per_gpu or total
        fraction = budget / total
        pool = budget - weights - activations - overhead
        words = (
            f"{format_bytes(total)} × {fraction:.2f} (--gpu-memory-utilization) − weights "
            f"{format_bytes(weights)} − activation peak {format_bytes(activations)} − CUDA "
            f"context, graphs and workspace {format_bytes(overhead)}"
        )
    elif req.serve_engine == "sglang":
        fraction = req.memory_fraction or sglang_default_fraction(req.tp)
        pool = pool_bytes("fraction_of_total", fraction, total, weights, 0, ctx_bytes, 0)
        words = (
            f"{format_bytes(total)} × {fraction:.2f} (--mem-fraction-static) − weights "
            f"{format_bytes(weights)} − CUDA context {format_bytes(ctx_bytes)}; activations "
            f"and CUDA graphs in the other {1 - fraction:.0%}"
        )
        if req.memory_fraction is None:
            notes.append(
                f"--mem-fraction-static {fraction:.2f}: SGLang's default at TP {req.tp} (its "
                "2024 rule, v0.3-v0.4); later releases derive their default from the GPU's "
                "memory, so the line sets it explicitly."
            )
    else:
        fraction = req.memory_fraction or TRTLLM_FREE_FRACTION
        pool = pool_bytes("fraction_of_free", fraction, total, weights, activations, ctx_bytes, 0)
        free = total - weights - activations - ctx_bytes
        words = (
            f"{fraction:.2f} × free memory {format_bytes(free)} (= {format_bytes(total)} − "
            f"weights {format_bytes(weights)} − activations {format_bytes(activations)} − CUDA "
            f"context {format_bytes(ctx_bytes)})"
        )
    del graphs
    per_token = max(mem.kv_cache_bytes_per_token_per_gpu, 1)
    tokens = max(pool, 0) // per_token
    tokens -= tokens % rule.block_tokens
    max_seqs = tokens // mem.context
    native = _native_format(mem.model_id)
    ref, ref_note = _model_ref(mem.model_id, mem.weights_format, native)
    if ref_note:
        notes.append(ref_note)
    kv = "fp8" if mem.kv_dtype in ("fp8", "int8") else None
    if req.sequences is None:
        notes.append(
            f"No load stated: the line leaves {rule.label}'s own cap on concurrent sequences; "
            f"the pool holds {max_seqs:,} sequences of {mem.context:,} tokens (set sequences "
            "to cap it)."
        )
    command, yaml = engine_command(
        req.serve_engine,
        ref,
        req.tp,
        req.pp,
        mem.context,
        req.sequences,
        fraction,
        _quantization(req.serve_engine, mem.weights_format, native),
        kv,
    )
    if req.serve_engine == "tensorrt-llm" and mem.weights_format not in (native, "bf16", "fp16"):
        notes.append(
            f"TensorRT-LLM serves {mem.weights_format} from a pre-quantized checkpoint "
            "(NVIDIA ModelOpt); name that repo in place of the 16-bit one."
        )
    return EnginePlan(
        engine=req.serve_engine,
        engine_label=rule.label,
        model_id=mem.model_id,
        model_ref=ref,
        gpu=spec.id,
        gpu_name=spec.name,
        tp=req.tp,
        pp=req.pp,
        context=mem.context,
        sequences=req.sequences,
        weights_format=mem.weights_format,
        kv_dtype=mem.kv_dtype,
        pool_rule=words,
        memory_fraction=round(fraction, 4),
        total_bytes_per_gpu=total,
        weights_bytes_per_gpu=weights,
        kv_pool_bytes_per_gpu=pool,
        kv_bytes_per_token_per_gpu=per_token,
        pool_tokens=tokens,
        max_sequences=max_seqs,
        fits=pool > 0 and max_seqs >= (req.sequences or 1),
        command=command,
        config_file=yaml,
        notes=notes,
        source=rule.source,
    )


def _native_format(model_id: str) -> str:
    try:
        return get_catalog().model(model_id).checkpoint_format or "bf16"
    except (KeyError, ToolInputError):
        return "bf16"


def _local_plan(req: EngineRequest) -> EnginePlan:
    """llama.cpp / Ollama: the local-serving plan's placement and launch line, copied."""
    from tools.local_serving import LocalServingRequest, plan_local_serving

    local = plan_local_serving(
        _inner(
            LocalServingRequest,
            **_model_fields(req),
            gpu=req.gpu,
            gpus=req.tp * req.pp,
            context=req.context,
            parallel=req.sequences or 1,
            launcher="ollama" if req.serve_engine == "ollama" else "llama-server",
            engine_version=req.engine_version,
        )
    )
    spec = get_catalog().gpu(req.gpu)
    rule = RULES[req.serve_engine]
    per_token = max(local.kv_cache_bytes // max(local.context_total, 1), 1)
    return EnginePlan(
        engine=req.serve_engine,
        engine_label=rule.label,
        model_id=local.model_id,
        model_ref=req.model_file or req.model or local.model_id,
        gpu=spec.id,
        gpu_name=spec.name,
        tp=req.tp,
        pp=req.pp,
        context=local.context_per_slot,
        sequences=req.sequences,
        weights_format=local.weights_format,
        kv_dtype=local.cache_type,
        pool_rule=(
            f"exact: -c {local.context_total} cells ({local.parallel} slot(s) × "
            f"{local.context_per_slot} tokens) = {format_bytes(local.kv_cache_bytes)}"
        ),
        memory_fraction=None,
        total_bytes_per_gpu=spec.usable_memory_bytes,
        weights_bytes_per_gpu=local.weights_gpu_bytes // max(req.tp * req.pp, 1),
        kv_pool_bytes_per_gpu=local.kv_cache_bytes // max(req.tp * req.pp, 1),
        kv_bytes_per_token_per_gpu=per_token,
        pool_tokens=local.context_total,
        max_sequences=local.parallel,
        fits=local.fits_fully,
        command=local.launch_command,
        config_file=local.ollama_modelfile,
        notes=[*local.warnings],
        source=rule.source,
    )


def _mlx_plan(req: EngineRequest) -> EnginePlan:
    """MLX: the memory calculator's MLX estimate; its cache grows per token (no pool)."""
    mem = estimate_memory(
        _inner(
            MemoryRequest,
            **_model_fields(req),
            engine="mlx",
            gpu=req.gpu,
            context=req.context,
            batch=req.sequences or 1,
        )
    )
    spec = get_catalog().gpu(req.gpu)
    rule = RULES["mlx"]
    kv = mem.breakdown.get("kv_cache", 0)
    return EnginePlan(
        engine="mlx",
        engine_label=rule.label,
        model_id=mem.model_id,
        model_ref=req.model or mem.model_id,
        gpu=spec.id,
        gpu_name=spec.name,
        tp=1,
        pp=1,
        context=mem.context,
        sequences=req.sequences,
        weights_format=mem.weights_format,
        kv_dtype=mem.kv_dtype,
        pool_rule=f"exact: {req.sequences or 1} × {mem.context} tokens = {format_bytes(kv)}",
        memory_fraction=None,
        total_bytes_per_gpu=mem.usable_bytes_per_gpu or spec.usable_memory_bytes,
        weights_bytes_per_gpu=mem.breakdown["weights"],
        kv_pool_bytes_per_gpu=kv,
        kv_bytes_per_token_per_gpu=max(mem.kv_cache_bytes_per_token_per_gpu, 1),
        pool_tokens=(req.sequences or 1) * mem.context,
        max_sequences=req.sequences or 1,
        fits=bool(mem.fits),
        command="",
        notes=["No MLX launch line here: mlx-lm's server takes the model's MLX repo."],
        source=rule.source,
    )


def plan_engine(req: EngineRequest) -> EnginePlan:
    """The engine's KV pool, what it holds and its launch line (see the module).

    Raises ToolInputError for a model or GPU that cannot be sized."""
    if req.serve_engine in ("llama.cpp", "ollama"):
        return _local_plan(req)
    if req.serve_engine == "mlx":
        return _mlx_plan(req)
    return _gpu_plan(req)


def validate_engine_request(data: object) -> EngineRequest:
    """An EngineRequest from a dict; ValidationError → ToolInputError naming the field."""
    try:
        return EngineRequest.model_validate(data)
    except ValidationError as exc:
        raise from_validation_error(exc, EngineRequest) from exc
