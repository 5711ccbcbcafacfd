"""The memory estimates a sizing report holds: one per GPU configuration the user named, and
the follow-ups that re-size one (ZeRO-3, a lower weight format, the recommended layout, the
longest context that fits).

Each estimate is `tools.memory.estimate_memory` on a `MemoryRequest` built from the request's
workload, so a named configuration is sized at the same model, format, lengths and load as the
recommender's options: lengths the user gave (prompt + output, context, training sequence),
else the memory tool's default shape — the same one the recommender uses (tools/defaults.py).
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from tools.catalog import get_catalog
from tools.defaults import DEFAULT_CONTEXT_TOKENS
from tools.errors import ToolInputError
from tools.memory import MemoryEstimate, MemoryRequest, estimate_memory, resolve_model
from tools.memory.formats import (
    DEFAULT_GROUP_SIZE,
    FORMAT_RULES,
    GGUF_FORMATS,
    exl2_bpw,
    normalize_format,
)
from tools.memory.kv_cache import EXLLAMAV2_KV_DTYPES, LLAMA_CPP_KV_DTYPES
from tools.memory.model import model_weight_bytes as tensor_weight_bytes
from tools.memory.request import request_error
from tools.recommend import Option
from tools.sizing.claims import (
    NOMINAL_BITS,
    ClaimCheck,
    WeightsPerParameter,
    check_claim,
    weights_per_parameter,
)
from tools.sizing.report import (
    AlternativeReading,
    ContextFit,
    FormatFit,
    SizedConfiguration,
    SizingError,
)
from tools.sizing.request import SizingRequest

# The model fields a memory request shares with the workload, passed on when set.
_MODEL_FIELDS = (
    "model",
    "params",
    "config_path",
    "model_file",
    "weights",
    "kv_dtype",
    "engine",
    "gpu_memory_utilization",
    "lora_rank",
    "checkpointing",
)
_LENGTH_FIELDS = frozenset({"context", "prompt_tokens", "output_tokens", "sequence_length"})

# vLLM's documented ceiling people raise gpu_memory_utilization to when the default 0.90 leaves
# no room ("--gpu-memory-utilization 0.95" in vLLM's engine-args docs examples); tried only when
# nothing fits at the default, and said so in the answer.
RAISED_UTILISATION = 0.95

# Lower weight formats tried on the GPUs the user named when they do not hold the load: from
# 16-bit, 8-bit (fp8 where the GPU computes in fp8, else int8: the same bytes per weight) and
# 4-bit AWQ; from 8-bit, 4-bit AWQ. Already 4-bit or GGUF: nothing lower is tried.
_SIXTEEN_BIT = ("bf16", "fp16", "fp32")
_EIGHT_BIT = ("fp8", "int8")


def memory_fields(request: SizingRequest) -> dict[str, Any]:
    """The `MemoryRequest` fields of the request's workload, without a GPU: the model fields
    set, the lengths the user gave, the load (serving: users; training: the micro-batch), the
    task, and for training the ZeRO stage and optimizer."""
    w = request.workload
    fields: dict[str, Any] = {
        name: getattr(w, name) for name in _MODEL_FIELDS if getattr(w, name) is not None
    }
    if w.is_training or "task" in w.model_fields_set:
        fields["task"] = w.task
    if _LENGTH_FIELDS & w.model_fields_set:
        fields["context"] = w.training_sequence_tokens if w.is_training else w.context_tokens
    if w.is_training:
        if "micro_batch_sequences" in w.model_fields_set:
            fields["batch"] = w.micro_batch_sequences
        if w.zero is not None:
            fields["zero"] = w.zero
        if request.optimizer is not None:
            fields["optimizer"] = request.optimizer
    elif "users" in w.model_fields_set:
        fields["batch"] = w.users
    if w.lora_slots is not None:  # served adapters' slots, as the recommender sizes them
        fields |= {"lora_slots": w.lora_slots, "lora_rank": w.lora_slot_rank}
    return fields


def estimate_fields(fields: dict[str, Any]) -> tuple[MemoryEstimate | None, SizingError | None]:
    """The memory estimate of a memory request's fields, or why it could not be made. A count
    of GPUs named whose tensor parallelism cannot split the model's heads (3 or 5 GPUs, TP = the
    count by default) is sized as the widest TP that can, times pipeline stages over the rest
    (3× A100: TP 1 × PP 3), as vLLM would run it — said in the estimate's assumptions."""
    estimate, error = _estimate(fields)
    gpus = fields.get("gpus")
    if error is None or error.field != "tp" or "pp" in fields or fields.get("tp") != gpus:
        return estimate, error
    assert isinstance(gpus, int)
    for tp in sorted((d for d in range(1, gpus) if gpus % d == 0), reverse=True):
        split, _ = _estimate({**fields, "tp": tp, "pp": gpus // tp})
        if split is not None:
            said = (
                f"TP {gpus} cannot split the model's attention heads ({error.problem}): "
                f"{gpus} GPUs sized as TP {tp} × PP {gpus // tp} (pipeline stages, as vLLM's "
                "--pipeline-parallel-size runs them)"
            )
            return split.model_copy(update={"assumptions": [*split.assumptions, said]}), None
    return estimate, error


def _estimate(fields: dict[str, Any]) -> tuple[MemoryEstimate | None, SizingError | None]:
    try:
        return estimate_memory(MemoryRequest.model_validate(fields)), None
    except ValidationError as exc:
        err = request_error(exc)
    except ToolInputError as exc:
        err = exc
    return None, SizingError(
        field=err.field,
        problem=err.problem,
        allowed=err.allowed,
        did_you_mean=list(err.suggestions or []),
    )


def configuration_fields(
    request: SizingRequest, gpu: str | None, count: int, **changes: Any
) -> dict[str, Any]:
    """The memory request for `count`× `gpu`: serving shards one replica across the GPUs
    named (TP = count), except with llama.cpp / Ollama or GGUF weights, whose default is a
    layer split (no tp: the memory tool sizes it as pp = gpus, capacity not speed); training
    spreads the job over them (data parallel, ZeRO if set)."""
    fields = memory_fields(request)
    if gpu is not None:
        fields["gpu"] = gpu
    if count > 1:
        fields["gpus"] = count
        if not request.workload.is_training and not _layer_split(request):
            fields["tp"] = count
    return {**fields, **changes}


def _layer_split(request: SizingRequest) -> bool:
    """Serving with llama.cpp (engine generic) or GGUF weights: llama.cpp splits the layers;
    so does ExLlamaV2 (EXL2 weights) with its default gpu_split."""
    w = request.workload
    try:
        fmt = None if w.weights is None else normalize_format(w.weights)
    except ToolInputError:
        fmt = None  # the memory tool names the field
    gguf = fmt in GGUF_FORMATS or (w.model_file or "").lower().endswith(".gguf")
    gguf = gguf or (w.kv_dtype or "").lower() in LLAMA_CPP_KV_DTYPES  # a llama.cpp cache type
    exl2 = fmt is not None and exl2_bpw(fmt) is not None  # ExLlamaV2's gpu_split: by layers
    exl2 = exl2 or (w.kv_dtype or "").lower() in EXLLAMAV2_KV_DTYPES  # its Q4/Q6/Q8 cache
    return w.engine in ("generic", "exllamav2") or (w.engine is None and (gguf or exl2))


def size_configuration(
    request: SizingRequest, gpu: str | None, count: int, **changes: Any
) -> SizedConfiguration:
    """One configuration sized (`changes` override request fields, e.g. `zero=3`)."""
    fields = configuration_fields(request, gpu, count, **changes)
    estimate, error = estimate_fields(fields)
    zero = fields.get("zero")
    return SizedConfiguration(gpu=gpu, count=count, zero=zero, estimate=estimate, error=error)


def zero3_resize(request: SizingRequest, sized: SizedConfiguration) -> SizedConfiguration | None:
    """The same named multi-GPU full-training configuration sharded with ZeRO-3 / FSDP, when
    the user said no ZeRO stage and plain data parallelism (the tools' default: every GPU holds
    the whole weights, gradients and optimizer state) does not fit. None otherwise."""
    w = request.workload
    if sized.fits is not False or w.task != "full" or w.zero is not None:
        return None
    if sized.gpu is None or sized.count < 2 or sized.zero is not None:
        return None
    return size_configuration(request, sized.gpu, sized.count, zero=3)


def lower_formats(current: str | None, gpu_id: str) -> list[str]:
    """The lower weight formats tried on `gpu_id` after `current` (see `_SIXTEEN_BIT`)."""
    gpu = get_catalog().gpus.get(gpu_id)
    eight = "fp8" if gpu is not None and gpu.fp8_tflops else "int8"
    if current in _SIXTEEN_BIT:
        return [eight, "int4-awq"]
    if current in _EIGHT_BIT:
        return ["int4-awq"]
    return []


def lower_format_fits(request: SizingRequest, sized: SizedConfiguration) -> list[FormatFit]:
    """The named GPUs at each lower weight format, at the same load."""
    if sized.gpu is None or sized.estimate is None:
        return []
    out: list[FormatFit] = []
    for fmt in lower_formats(sized.estimate.weights_format, sized.gpu):
        fields = configuration_fields(request, sized.gpu, sized.count, weights=fmt)
        estimate, error = estimate_fields(fields)
        shorter = None
        if estimate is not None and estimate.fits is False and estimate.batch == 1:
            # One sequence that does not fit as asked may fit shorter: say how long.
            shorter = longest_fitting_context(fields, shorter_context_limit(estimate)) or None
        out.append(
            FormatFit(
                weights=fmt,
                gpu=sized.gpu,
                count=sized.count,
                estimate=estimate,
                error=error,
                shorter_context=shorter,
            )
        )
    return out


FEWEST_TRIED = (2, 4, 8)
"""GPU counts tried (tensor-parallel over them) for the fewest of a named GPU that hold the
other reading: the sizes that split the attention heads of every catalog model."""


def alternative_reading(
    request: SizingRequest, memory: list[SizedConfiguration]
) -> AlternativeReading | None:
    """Each configuration sized in `request.alternative_weights` (class 5: 'full precision' as
    fp32 too), and for a named GPU it does not fit, the fewest of it (TP over them) that do."""
    weights = request.alternative_weights
    if weights is None:
        return None
    out = AlternativeReading(weights=weights)
    for sized in memory:
        alt = size_configuration(request, sized.gpu, sized.count, weights=weights)
        out.memory.append(alt.model_copy(update={"count_named": sized.count_named}))
        if sized.gpu is None or alt.fits is not False or request.workload.is_training:
            continue
        for count in (c for c in FEWEST_TRIED if c > sized.count):
            more = size_configuration(request, sized.gpu, count, weights=weights)
            if more.fits:
                out.fewest.append(more)
                break
    return out


def model_weight_bytes(request: SizingRequest, estimate: MemoryEstimate) -> int | None:
    """The model's weights for inference in the format `estimate`'s task loads them (16-bit
    for full fine-tuning, the base's format for LoRA and QLoRA), bytes: what "4× the model" and
    "LoRA adds 10 %" are multiples of. None when the estimate cannot be made."""
    fields = {
        name: value
        for name, value in memory_fields(request).items()
        if name in ("model", "params", "config_path", "engine")
    }
    weights = "bf16" if estimate.task == "full" else estimate.weights_format
    sized, _ = estimate_fields({**fields, "task": "inference", "weights": weights})
    return None if sized is None else sized.breakdown.get("weights")


def check_claims(request: SizingRequest) -> list[ClaimCheck]:
    """The request's rules of thumb checked against one GPU's estimate of the workload (the
    figures such rules are stated for: the whole model on one device)."""
    if not request.claims:
        return []
    estimate, _ = estimate_fields(memory_fields(request))
    if estimate is None:
        return []
    model_bytes = model_weight_bytes(request, estimate)
    if not model_bytes:
        return []
    optimizer = request.optimizer or "adamw"
    weights = _weights_per_parameter(request, estimate)
    return [check_claim(c, estimate, model_bytes, optimizer, weights) for c in request.claims]


def _weights_per_parameter(
    request: SizingRequest, estimate: MemoryEstimate
) -> WeightsPerParameter | None:
    """The estimate's quantized weights per parameter, from the per-tensor weight bytes the
    memory calculator sizes (one GPU, the text model as served)."""
    fmt = estimate.weights_format
    if fmt not in NOMINAL_BITS:
        return None
    w = request.workload
    try:
        resolved = resolve_model(model=w.model, params=w.params, config_path=w.config_path)
    except ToolInputError:
        return None
    wb = tensor_weight_bytes(resolved, fmt, group_size=DEFAULT_GROUP_SIZE)
    rule = FORMAT_RULES[fmt].description
    groups = f", g = {DEFAULT_GROUP_SIZE}" if "/g" in rule else ""
    # The embedding, the output layer and a vision tower stay 16-bit in these formats.
    kept = wb.embedding + wb.lm_head + wb.vision
    return weights_per_parameter(fmt, kept, wb.total - kept, estimate.total_params, rule + groups)


def layout_breakdown(
    request: SizingRequest, first: SizedConfiguration, option: Option, scale_out: bool = False
) -> SizedConfiguration | None:
    """The memory estimate of the headline option when no GPU count was named and it spans
    several GPUs (or serves another load than the first configuration sized), so the per-GPU
    breakdown shown is the layout the answer recommends, not one unsharded GPU at one sequence.
    Serving sizes one replica (TP × PP GPUs) at the sequences it serves; training the whole
    data-parallel group. `scale_out`: the headline is the layout that holds a load the named
    count does not (`ScaleOut.holds`), sized too, beside the named configuration."""
    named = any(c.count is not None for c in request.configurations) or first.count_named
    if named and not scale_out:
        return None  # a count the user named is the configuration shown
    serving = not request.workload.is_training
    base = memory_fields(request)
    per_replica = option.sequences_per_replica if option.sequences_per_replica >= 1 else None
    # One GPU at the load the first configuration was sized at adds nothing; one GPU serving
    # more sequences per replica than that (a tokens/s target) is the figure to show.
    other_load = serving and per_replica is not None and per_replica != base.get("batch", 1)
    if option.count < 2 and not other_load:
        return None
    fields = {**base, "gpu": option.gpu, "tp": option.tp, "pp": option.pp}
    if serving:
        fields["gpus"] = option.tp * option.pp
        if per_replica is not None:
            fields["batch"] = per_replica
    else:
        fields["gpus"] = option.count
    estimate, error = estimate_fields(fields)
    return SizedConfiguration(
        gpu=option.gpu,
        count=int(fields["gpus"]),
        zero=fields.get("zero"),
        estimate=estimate,
        error=error,
    )


def model_max_context(request: SizingRequest) -> int | None:
    """The model's maximum context (max_position_embeddings), tokens; None when unresolved."""
    w = request.workload
    try:
        resolved = resolve_model(model=w.model, params=w.params, config_path=w.config_path)
    except ToolInputError:
        return None
    return int(resolved.architecture.max_context)


def shorter_context_limit(estimate: MemoryEstimate) -> int:
    """The longest context a 'shorter context' way out may offer: shorter than asked, and never
    past the model's own maximum (a context it was not trained for is no way out)."""
    limit = estimate.context - 1
    if estimate.max_context_tokens is not None:
        limit = min(limit, estimate.max_context_tokens)
    return limit


def longest_fitting_context(fields: dict[str, Any], limit: int, batch: int = 1) -> int:
    """The longest context in tokens (≤ `limit`) at which the memory request `fields` fits at
    `batch` sequences (default one); 0 when not even one token fits. Fit is monotone in context
    (KV and activations only grow with it), so a binary search finds the boundary in about
    log2(limit) calls."""
    base = {**fields, "batch": batch}

    def fits(tokens: int) -> bool:
        estimate, _ = estimate_fields({**base, "context": tokens})
        return estimate is not None and estimate.fits is True

    if fits(limit):
        return limit
    low, high = 0, limit - 1
    while low < high:
        middle = (low + high + 1) // 2
        if fits(middle):
            low = middle
        else:
            high = middle - 1
    return low if low == 0 or fits(low) else 0


def longest_context(request: SizingRequest, sized: SizedConfiguration) -> ContextFit | None:
    """The longest context `sized` (a named GPU, serving) holds at batch 1: at the engine's
    default utilisation, else at `RAISED_UTILISATION` (vLLM only). None when the model's
    maximum is unknown."""
    limit = model_max_context(request)
    if sized.gpu is None or limit is None:
        return None
    fields = configuration_fields(request, sized.gpu, sized.count)
    fields = {k: v for k, v in fields.items() if k not in ("context", "batch")}
    utilisation: float | None = None
    tokens = longest_fitting_context(fields, limit)
    if tokens == 0 and request.workload.engine in (None, "vllm"):
        utilisation = RAISED_UTILISATION
        fields["gpu_memory_utilization"] = utilisation
        tokens = longest_fitting_context(fields, limit)
    estimate = sized.estimate
    if tokens > 0:
        estimate, _ = estimate_fields({**fields, "context": tokens, "batch": 1})
    return ContextFit(
        gpu=sized.gpu,
        count=sized.count,
        context_tokens=tokens,
        gpu_memory_utilization=utilisation,
        estimate=estimate,
    )


def shorter_than_default(tokens: int) -> bool:
    """Whether a context found is shorter than the default request shape (then the shape is
    scaled into it, 3:1)."""
    return tokens < DEFAULT_CONTEXT_TOKENS
