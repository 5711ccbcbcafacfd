"""`MemoryRequest` and `MemoryEstimate`: the memory tool's function-calling schema and result.

Every field states its unit and allowed values, because the same description reaches users
(`--help`, errors) and language models (the tool schema). `validate_request` is the one place
where pydantic's ValidationError becomes the project's ToolInputError.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any, Literal, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    ValidatorFunctionWrapHandler,
    field_validator,
    model_validator,
)

from tools.defaults import DEFAULT_CONTEXT_TOKENS
from tools.errors import ToolInputError, from_validation_error
from tools.field_factories import empty_list
from tools.limits import (
    FINITE,
    MAX_CONTEXT_TOKENS,
    MAX_GPUS,
    MAX_LORA_ADAPTERS,
    MAX_LORA_RANK,
    MAX_NAME_CHARS,
    MAX_OVERHEAD_BYTES,
    MAX_PARALLEL_DEGREE,
    MAX_PATH_CHARS,
    MAX_SEQUENCES,
)
from tools.memory.formats import GGUF_FORMATS, WEIGHT_FORMATS, format_reading, normalize_format
from tools.memory.kv_cache import KV_DTYPES
from tools.memory.lora_slots import VLLM_LORA_RANKS
from tools.memory.tensors import LORA_TARGETS
from tools.memory.training import OPTIMIZERS, PRECISIONS
from tools.notes import Note

Task = Literal["inference", "full", "lora", "qlora"]
Engine = Literal["vllm", "transformers", "generic", "mlx", "exllamav2"]
KvDtype = Literal[
    "bf16", "fp16", "fp8", "int8", "fp32", "q4", "q6", "q8",
    "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1",
]  # fmt: skip
OptimizerName = Literal["adamw", "adamw-8bit", "sgd", "adafactor"]
PrecisionName = Literal["mixed-hf", "mixed-zero", "bf16", "fp32"]
LoraTarget = Literal["q", "k", "v", "o", "gate", "up", "down"]
SixteenBitTensor = Literal["embedding", "lm_head"]

assert set(KvDtype.__args__) == set(KV_DTYPES)  # type: ignore[attr-defined]
assert set(OptimizerName.__args__) == set(OPTIMIZERS)  # type: ignore[attr-defined]
assert set(PrecisionName.__args__) == set(PRECISIONS)  # type: ignore[attr-defined]
assert set(LoraTarget.__args__) == set(LORA_TARGETS)  # type: ignore[attr-defined]


class ModelChoice(BaseModel):
    """Which model, for which task, stored how: the fields the memory request and the
    recommender's workload share. Defined once so their meaning and validation cannot drift."""

    model_config = FINITE

    model: str | None = Field(
        default=None,
        max_length=MAX_NAME_CHARS,
        description="Catalog id or alias, Ollama tag or Hugging Face id, e.g. 'llama-3.1-70b'.",
    )
    params: str | float | None = Field(
        default=None,
        description="Size of a model not in the catalog, e.g. '13B' or 7.5e9 (10M-20T; "
        "Llama-shaped dense).",
    )
    config_path: str | None = Field(
        default=None,
        max_length=MAX_PATH_CHARS,
        description="Path of a local Hugging Face config.json (or its folder).",
    )
    model_file: str | None = Field(
        default=None,
        max_length=MAX_PATH_CHARS,
        description="Path of a local model: a GGUF file (its header and exact tensor sizes), "
        "a model folder, config.json or model.safetensors(.index.json) (exact weight bytes).",
    )
    task: Task = Field(
        default="inference",
        description="full = full fine-tune or pre-training; inference = serving.",
    )
    weights: str | None = Field(
        default=None,
        max_length=MAX_NAME_CHARS,
        description="Weight format, e.g. bf16, fp8, int4-awq, q4_k_m, exl2-4.65bpw. One of "
        + ", ".join(f for f in WEIGHT_FORMATS if f not in GGUF_FORMATS)
        + ", a GGUF file type (q4_k_m, q8_0, iq4_xs, …; 'gguf-' prefix accepted), or "
        "EXL2 at 2.0-8.0 bits per weight (exl2-4.65bpw, ExLlamaV2 only; exl2-4.65bpw-h8: the "
        "output layer at -hb 8, not the default 6). "
        "Default: the checkpoint's native format for inference (bf16 unless the "
        "catalog says otherwise, e.g. gpt-oss mxfp4), bf16 for full/lora, nf4-dq for qlora.",
    )
    kv_dtype: str | None = Field(
        default=None,
        max_length=MAX_NAME_CHARS,
        description="KV-cache dtype: bf16, fp16, fp8, int8, fp32, q4, q6, q8 (default bf16). "
        "ExLlamaV2's Q caches are q4, q6, q8; llama.cpp's cache types (--cache-type-k/-v, "
        "OLLAMA_KV_CACHE_TYPE) q8_0, q4_0, q4_1, q5_0, q5_1, iq4_nl.",
    )
    engine: Engine | None = Field(
        default=None,
        description="Serving engine. Default vllm for inference, transformers for training; "
        "vllm reserves gpu_memory_utilization and 16-token KV blocks; generic is llama.cpp / "
        "Ollama, mlx Apple MLX, exllamav2 ExLlamaV2 (the only engine for EXL2 weights).",
    )
    gpu_memory_utilization: float | None = Field(
        default=None,
        gt=0,
        le=1,
        description="vLLM's fraction of GPU memory it may use (default 0.9 per vLLM docs).",
    )
    engine_version: str | None = Field(
        default=None,
        max_length=MAX_NAME_CHARS,
        description="vLLM version (its memory accounting, e.g. 0.19; default 0.6-0.10) or, "
        "engine generic, llama.cpp build (b3600, 2024-05; default newest).",
    )
    split_mode: Literal["layer", "tensor"] | None = Field(
        default=None,
        description="llama.cpp multi-GPU split: layer (default) or tensor (needs an f16 KV cache).",
    )

    # How a generic weights spelling (int4, 4bit, q4) was read, for the assumptions.
    _weights_reading: str | None = PrivateAttr(default=None)

    @model_validator(mode="wrap")
    @classmethod
    def _remember_weights_spelling(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        raw = data.get("weights") if isinstance(data, Mapping) else None
        model = handler(data)
        if isinstance(raw, str) and isinstance(model, ModelChoice):
            model._weights_reading = format_reading(raw)
        return model

    @property
    def weights_reading(self) -> str | None:
        """How a generic weights spelling was read ('int4' as int4-awq), or None."""
        return self._weights_reading

    @field_validator("weights")
    @classmethod
    def _weights(cls, value: str | None) -> str | None:
        return None if value is None else normalize_format(value)

    @field_validator("kv_dtype")
    @classmethod
    def _kv_dtype(cls, value: str | None) -> str | None:
        if value is None:
            return None
        key = value.strip().lower().replace("float16", "fp16").replace("bfloat16", "bf16")
        key = {"auto": "bf16", "fp8_e4m3": "fp8", "fp8_e5m2": "fp8", "half": "fp16"}.get(key, key)
        key = {"f16": "fp16", "f32": "fp32"}.get(key, key)  # llama.cpp's names of the 16/32-bit
        # ExLlamaV2's spellings of its Q caches: 'cache_q4', 'Q4_cache', 'cache-q8'.
        key = re.sub(r"^(?:cache[_-]?)?(q[468])(?:[_-]?cache)?$", r"\1", key)
        if key not in KV_DTYPES:
            raise ToolInputError(
                "kv_dtype", f"unknown KV-cache dtype {value!r}", ", ".join(KV_DTYPES)
            )
        return key

    @field_validator("params")
    @classmethod
    def _finite_params(cls, value: str | float | None) -> str | float | None:
        # The range itself (10M-20T) is checked by tools.generic_model.parse_param_count.
        if isinstance(value, float) and (not math.isfinite(value) or value <= 0):
            raise ValueError("must be a positive, finite parameter count such as 7e9 or '13B'")
        if isinstance(value, str) and len(value) > MAX_NAME_CHARS:
            raise ValueError(f"is not a parameter count (over {MAX_NAME_CHARS} characters)")
        return value

    @model_validator(mode="after")
    def _one_model(self) -> Self:
        fields = ("model", "params", "config_path", "model_file")
        given = [n for n in fields if getattr(self, n) is not None]
        if len(given) != 1:
            raise ToolInputError(
                "model",
                "give exactly one of model, params, config_path or model_file"
                + (f" (got {', '.join(given)})" if given else ""),
            )
        return self

    @field_validator("engine_version")
    @classmethod
    def _engine_version(cls, value: str | None) -> str | None:
        from tools.memory.engine_versions import parse_version

        if value is None:
            return None
        text = " ".join(value.split()).lower()
        return text.lstrip("v") if parse_version(text) is not None else text

    def runs_llama_cpp(self) -> bool:
        """True when the request is served by llama.cpp, whose builds `engine_version` names
        (engine generic here; the local-serving and engine plans say so by their own fields)."""
        return self.engine == "generic"

    @model_validator(mode="after")
    def _engine_version_of_engine(self) -> Self:
        from tools.memory.engine_versions import parse_version
        from tools.performance.llama_builds import read_llama_build

        value = self.engine_version
        if value is None:
            return self
        if self.runs_llama_cpp():
            if read_llama_build(value) is None:
                raise ToolInputError(
                    "engine_version",
                    f"{value!r} is not a llama.cpp build",
                    "a build number (b3600), a date from 2023 on (2024-05) or an era (2023-24)",
                )
        elif parse_version(value) is None:
            build = read_llama_build(value)
            llama = build is not None and not build.assumed
            raise ToolInputError(
                "engine_version",
                f"{value!r} is not a vLLM version"
                + (" (a llama.cpp build is named with engine generic)" if llama else ""),
                "a version such as 0.19",
            )
        return self

    @model_validator(mode="after")
    def _engine_loads_weights(self) -> Self:
        from tools.memory.formats import engine_format_problem
        from tools.memory.kv_cache import engine_kv_problem

        problem = engine_format_problem(self.engine, self.weights)
        if problem is not None:
            raise ToolInputError("engine", *problem)
        kv_problem = engine_kv_problem(self.engine, self.weights, self.kv_dtype)
        if kv_problem is not None:
            raise ToolInputError("kv_dtype", *kv_problem)
        return self

    @model_validator(mode="after")
    def _split_mode(self) -> Self:
        if self.split_mode is not None and self.engine not in (None, "generic"):
            raise ToolInputError(
                "split_mode",
                f"is llama.cpp's multi-GPU split; engine {self.engine} shards by tensor "
                "parallelism (tp) instead",
                "split_mode with engine generic (llama.cpp), or tp/pp with vllm",
            )
        if self.split_mode == "tensor":
            from tools.performance.llama_split import tensor_split_problem

            problem = tensor_split_problem(self.kv_dtype)
            if problem:
                raise ToolInputError("split_mode", problem, "split_mode layer, or kv_dtype fp16")
        return self

    @property
    def is_training(self) -> bool:
        return self.task != "inference"


class MemoryRequest(ModelChoice):
    """A model and workload whose GPU memory to estimate, per GPU, with a breakdown."""

    model_config = ConfigDict(extra="forbid", frozen=True, **FINITE)

    gpu: str | None = Field(
        default=None,
        max_length=MAX_NAME_CHARS,
        description="Catalog GPU id or name to check the fit against.",
    )
    group_size: int = Field(
        default=128,
        ge=16,
        le=8192,
        description="GPTQ/AWQ quantization group size, weights per scale (default 128).",
    )
    keep_16bit: list[SixteenBitTensor] | None = Field(
        default=None,
        max_length=len(SixteenBitTensor.__args__),  # type: ignore[attr-defined]
        description="Tensors kept 16-bit in a quantized format: 'embedding', 'lm_head'. "
        "Default: both for GPTQ/AWQ/NF4/fp8/int8/mxfp4, none for GGUF.",
    )
    context: int | None = Field(
        default=None,
        ge=1,
        le=MAX_CONTEXT_TOKENS,
        description="Tokens per sequence (KV-cache length for inference, sequence length for "
        f"training); default {DEFAULT_CONTEXT_TOKENS}, or the model's maximum when smaller.",
    )
    batch: int = Field(
        default=1,
        ge=1,
        le=MAX_SEQUENCES,
        description="Concurrent sequences for inference; micro-batch per GPU for training.",
    )
    gpus: int = Field(default=1, ge=1, le=MAX_GPUS, description="GPUs in total, count.")
    tp: int | None = Field(
        default=None,
        ge=1,
        le=MAX_PARALLEL_DEGREE,
        description="Tensor-parallel degree; must divide the attention heads. Default: "
        "gpus/pp for inference, 1 for training.",
    )
    pp: int = Field(
        default=1, ge=1, le=MAX_PARALLEL_DEGREE, description="Pipeline-parallel stages."
    )
    zero: Literal[0, 1, 2, 3] | None = Field(
        default=None,
        description="ZeRO stage for data-parallel training (3 = FSDP full shard); default 0.",
    )
    optimizer: OptimizerName = Field(
        default="adamw", description="Optimizer: adamw, adamw-8bit, sgd (momentum), adafactor."
    )
    precision: PrecisionName | None = Field(
        default=None,
        description="Training state accounting: mixed-hf (18 B/param with AdamW, HF docs; the "
        "default without ZeRO), mixed-zero (16 B/param, ZeRO paper and DeepSpeed; the default "
        "with a ZeRO stage), bf16 (pure bf16), fp32.",
    )
    checkpointing: bool | None = Field(
        default=None, description="Activation checkpointing; default on for training."
    )
    flash_attention: bool = Field(
        default=True, description="Fused/flash attention (no s² score matrix stored)."
    )
    lora_rank: int | None = Field(
        default=None,
        ge=1,
        le=MAX_LORA_RANK,
        description="LoRA/QLoRA adapter rank r (default 8 for lora, the PEFT default; 64 "
        "for qlora, as in the QLoRA paper).",
    )
    lora_slots: int | None = Field(
        default=None,
        ge=1,
        le=MAX_LORA_ADAPTERS,
        description="Serving: vLLM LoRA adapter slots (--max-loras) of rank `lora_rank` "
        "(default 16), counted with the weights under engine vllm.",
    )
    adapter_dtype: Literal["bf16", "fp32"] = Field(
        default="bf16",
        description="LoRA adapter weights/gradients dtype: bf16 (QLoRA paper) or fp32 (PEFT's "
        "default autocast_adapter_dtype).",
    )
    lora_targets: list[LoraTarget] | None = Field(
        default=None,
        max_length=len(LoraTarget.__args__),  # type: ignore[attr-defined]
        description="LoRA target modules among q, k, v, o, gate, up, down (default all seven: "
        "the QLoRA paper's all-linear setting).",
    )
    offload_optimizer: bool = Field(
        default=False,
        description="Optimizer states (and fp32 master weights) in host RAM (ZeRO-Offload).",
    )
    prefill_chunk_tokens: int | None = Field(
        default=None,
        ge=1,
        le=MAX_CONTEXT_TOKENS,
        description="Tokens per prefill forward pass (vLLM max_num_batched_tokens, default "
        "8192 or 2048 by GPU; generic/llama.cpp n_ubatch, 512); transformers: the whole prompt "
        "batch.",
    )
    max_num_seqs: int | None = Field(
        default=None,
        ge=1,
        le=MAX_SEQUENCES,
        description="vLLM max_num_seqs (default 1024, 256 on A100 and < 70 GiB GPUs).",
    )
    cuda_context_bytes: int | None = Field(
        default=None,
        ge=0,
        le=MAX_OVERHEAD_BYTES,
        description="Override: CUDA context per GPU, bytes.",
    )
    cuda_graph_bytes: int | None = Field(
        default=None,
        ge=0,
        le=MAX_OVERHEAD_BYTES,
        description="Override: vLLM CUDA graphs per GPU, bytes.",
    )

    @model_validator(mode="after")
    def _lora_slots_serve(self) -> Self:
        """Adapter slots are a serving engine's buffers, at a rank vLLM takes."""
        if self.lora_slots is None:
            return self
        if self.task != "inference":
            raise ToolInputError(
                "lora_slots",
                f"are served adapters' GPU slots; task {self.task} trains an adapter",
                "lora_slots with task inference, or lora_rank alone for training",
            )
        if self.lora_rank is not None and self.lora_rank > VLLM_LORA_RANKS[-1]:
            raise ToolInputError(
                "lora_rank",
                f"{self.lora_rank} is above the largest --max-lora-rank vLLM takes",
                f"at most {VLLM_LORA_RANKS[-1]} with lora_slots",
            )
        return self


def validate_request(data: Mapping[str, Any]) -> MemoryRequest:
    """Build a MemoryRequest from tool-call or CLI arguments; bad input → ToolInputError."""
    try:
        return MemoryRequest.model_validate(dict(data))
    except ValidationError as exc:
        raise request_error(exc) from None


def request_error(exc: ValidationError) -> ToolInputError:
    """The first pydantic error as a ToolInputError naming the field and what is allowed."""
    return from_validation_error(exc, MemoryRequest)


COMPONENT_NAMES: dict[str, tuple[str, str]] = {
    "weights": ("weights", "the model's parameters in the weight format"),
    "kv_cache": ("KV cache", "attention keys and values of every sequence in flight"),
    "activations": ("activations", "intermediate results of a forward (and backward) pass"),
    "gradients": ("gradients", "one per trained parameter"),
    "optimizer": ("optimizer state", "optimizer state (Adam moments, master weights)"),
    "overhead": ("runtime overhead", "CUDA context, CUDA graphs and library workspace"),
}
"""Each memory component the estimate names (`Component.name`, `MemoryEstimate.breakdown`
keys): (what readers see, what it is). Every surface shows components through
`component_name`, so no answer prints `kv_cache`."""


def component_name(name: str, described: bool = False) -> str:
    """A memory component for readers ('KV cache'), or what it is (`described`); a name the
    estimate may add later is shown with its underscores as spaces."""
    known = COMPONENT_NAMES.get(name)
    if known is None:
        return name.replace("_", " ")
    return known[1] if described else known[0]


ENGINE_NAMES: dict[str, str] = {
    "vllm": "served with vLLM",
    "transformers": "run with Hugging Face Transformers",
    "generic": "served llama.cpp / Ollama style",
    "mlx": "run with MLX (mlx-lm)",
    "exllamav2": "run with ExLlamaV2 (as TabbyAPI serves it)",
}
"""Each `Engine` the estimate sizes for, as readers see it (`engine_name`)."""


def engine_name(engine: str) -> str:
    """The engine sized, in words ('served with vLLM'); an unknown one as '<name> engine'."""
    return ENGINE_NAMES.get(engine, f"{engine} engine")


class Component(BaseModel):
    """One memory component on one GPU, with the formula and assumptions behind it."""

    model_config = ConfigDict(frozen=True)

    name: str = Field(description="weights, kv_cache, activations, gradients, optimizer, overhead")
    bytes_per_gpu: int = Field(description="Bytes on the most loaded GPU.")
    formula: str
    assumptions: list[str] = Field(default_factory=empty_list)


class MemoryEstimate(BaseModel):
    """Memory per GPU for a request, with its breakdown, assumptions and (optionally) the fit."""

    model_config = ConfigDict(frozen=True)

    model_id: str
    model_name: str
    task: Task
    weights_format: str
    kv_dtype: str
    engine: Engine
    context: int = Field(description="Tokens per sequence used, tokens.")
    max_context_tokens: int | None = Field(
        default=None,
        description="The model's maximum context (max_position_embeddings), tokens; a context "
        "past it is sized but its quality is not assured.",
    )
    batch: int = Field(description="Sequences (inference) or micro-batch (training).")
    total_params: int = Field(description="All parameters (MoE: every expert), count.")
    active_params: int = Field(description="Parameters used per token (MoE: top-k), count.")
    trainable_params: int = Field(default=0, description="Parameters updated in training.")
    per_gpu_bytes: int = Field(description="Memory on the most loaded GPU, bytes.")
    total_bytes: int = Field(description="per_gpu_bytes × num_gpus (an upper bound), bytes.")
    kv_cache_bytes_per_token: int = Field(
        description="Whole model, one token, chosen KV dtype, before sliding-window caps, bytes."
    )
    kv_cache_bytes_per_token_per_gpu: int = Field(
        description="Per GPU under tensor and pipeline parallelism, bytes."
    )
    breakdown: dict[str, int] = Field(description="Component → bytes per GPU.")
    components: list[Component]
    assumptions: list[str]
    warnings: list[Note] = Field(
        default_factory=empty_list, description="What the request asks that the estimate doubts."
    )
    num_gpus: int
    tp: int
    pp: int
    dp: int
    gpu: str | None = None
    usable_bytes_per_gpu: int | None = Field(default=None, description="The GPU's usable memory.")
    budget_bytes_per_gpu: int | None = Field(
        default=None, description="Usable × gpu_memory_utilization (vLLM) or usable, bytes."
    )
    fits: bool | None = None
    headroom_bytes: int | None = Field(
        default=None, description="budget − per_gpu_bytes; negative means it overflows."
    )
    host_ram_bytes: int = Field(default=0, description="Host RAM for CPU offload, all GPUs.")
    model_state_bytes_per_gpu: int | None = Field(
        default=None,
        description="Training: weights + gradients + optimizer state resident on one GPU after "
        "ZeRO partitioning, without ZeRO-3's all-gathered working set (the ZeRO paper's "
        "per-device figure), bytes; None for inference.",
    )

    def to_json_dict(self) -> dict[str, Any]:
        """The CLI's --json contract: bytes as integers; fit fields only when a GPU was given;
        warnings as their sentences."""
        data = self.model_dump(mode="json")
        data["warnings"] = [w.text for w in self.warnings]
        if self.gpu is None:
            for key in (
                "gpu",
                "usable_bytes_per_gpu",
                "budget_bytes_per_gpu",
                "fits",
                "headroom_bytes",
            ):
                data.pop(key)
        return data
