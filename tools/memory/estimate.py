"""`estimate_memory`: memory per GPU for a model and workload, by component, with assumptions.

The per-GPU total is the sum of the breakdown (weights, kv_cache, activations, gradients,
optimizer, overhead). Consumers rely on that identity: the KV capacity left on a GPU is
budget − (per_gpu_bytes − breakdown["kv_cache"]).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tools.architecture import Architecture, count_parameters, vision_params
from tools.catalog import GpuSpec, get_catalog
from tools.defaults import DEFAULT_CONTEXT_TOKENS, DEFAULT_KV_DTYPE
from tools.errors import ToolInputError
from tools.memory import devices
from tools.memory.activations import (
    VLLM_SAMPLER_BYTES_PER_LOGIT,
    ActivationBytes,
    inference_activation_bytes,
    training_activation_bytes,
)
from tools.memory.devices import DeviceNotes
from tools.memory.engine_versions import (
    MXFP4_PAD_SOURCE,
    ActivationMode,
    mxfp4_expert_padding,
    profile_note,
    vllm_budget_inputs,
    vllm_profile,
)
from tools.memory.formats import FORMAT_RULES, GGUF_FORMATS, exl2_bpw, normalize_format
from tools.memory.kv_cache import (
    EXLLAMAV2_KV_DTYPES,
    LLAMA_CPP_KV_DTYPES,
    VLLM_BLOCK_TOKENS,
    engine_kv_dtype_warning,
    exllamav2_dequant_bytes,
    exllamav2_q_block,
    kv_cache_bytes,
    kv_cache_bytes_per_token,
    round_up,
)
from tools.memory.lora_slots import VLLM_DEFAULT_MAX_LORA_RANK, slot_bytes_per_gpu, slot_rank
from tools.memory.model import ResolvedModel, model_weight_bytes, resolve_model
from tools.memory.overhead import (
    CUBLAS_WORKSPACE,
    CUDA_CONTEXT,
    EXLLAMAV2_MAX_INPUT_LEN,
    LLAMA_CPP_N_UBATCH,
    METAL_RUNTIME,
    MLX_PREFILL_STEP,
    VLLM_CUDA_GRAPHS,
    VLLM_GPU_MEMORY_UTILIZATION,
    vllm_batch_defaults,
)
from tools.memory.request import Component, MemoryEstimate, MemoryRequest
from tools.memory.sharding import (
    ZERO3_GATHER_SOURCE,
    Layout,
    plan_layout,
    worst_stage,
    zero3_gathered_bytes,
    zero_single_rank_warning,
)
from tools.memory.tensors import LORA_TARGETS, layer_shapes
from tools.memory.training import (
    ZERO_ACCOUNTING_SOURCE,
    StateBytes,
    adafactor_state_entries,
    adapter_state_bytes,
    lora_params,
    state_bytes_per_param,
    training_precision,
)
from tools.memory.weights import WeightBytes, weight_bytes
from tools.notes import Note, NoteCode
from tools.units import format_bytes, format_count

DEFAULT_CONTEXT = DEFAULT_CONTEXT_TOKENS
"""Tokens per sequence when none is given: the shared default shape (tools/defaults.py), so
`memory` and `recommend` size the same sequence."""
DEFAULT_LORA_RANK = 8
"""PEFT LoraConfig default r = 8."""
DEFAULT_QLORA_RANK = 64
"""QLoRA paper (arXiv 2305.14314 §4/Appendix): r = 64 on all linear layers."""
BREAKDOWN_KEYS = ("weights", "kv_cache", "activations", "gradients", "optimizer", "overhead")


@dataclass(frozen=True)
class MemoryFigures:
    """An inference estimate's figures without its text (no formulas, assumptions, notes or
    warnings): what a caller that only ranks layouts reads (the recommender, once per layout).
    Every figure is the one `estimate_memory` gives for the same request
    (tests/test_memory_figures.py)."""

    model_id: str
    engine: str
    weights_format: str
    breakdown: dict[str, int]
    per_gpu_bytes: int
    kv_cache_bytes_per_token_per_gpu: int
    usable_bytes_per_gpu: int | None
    budget_bytes_per_gpu: int | None
    fits: bool | None

    @classmethod
    def of(cls, est: MemoryEstimate) -> MemoryFigures:
        """The figures of a full estimate."""
        return cls(
            model_id=est.model_id,
            engine=str(est.engine),
            weights_format=str(est.weights_format),
            breakdown=dict(est.breakdown),
            per_gpu_bytes=est.per_gpu_bytes,
            kv_cache_bytes_per_token_per_gpu=est.kv_cache_bytes_per_token_per_gpu,
            usable_bytes_per_gpu=est.usable_bytes_per_gpu,
            budget_bytes_per_gpu=est.budget_bytes_per_gpu,
            fits=est.fits,
        )


@dataclass
class _Parts:
    """Components as they are built, in breakdown order. `lean`: bytes only, no text
    (`memory_figures`): the formulas and notes are neither formatted nor kept."""

    components: dict[str, Component] = field(default_factory=dict)
    nbytes: dict[str, int] = field(default_factory=dict)
    lean: bool = False
    assumptions: list[str] = field(default_factory=list)
    warnings: list[Note] = field(default_factory=list)
    host_ram: int = 0
    trainable: int = 0
    gathered: int = 0  # ZeRO-3's all-gathered working set inside weights + gradients

    def warn(self, code: NoteCode, text: str) -> None:
        """A warning about the request, typed by what it is about."""
        self.warnings.append(Note(code=code, text=text, severity="warning"))

    def add(self, name: str, nbytes: int, formula: str, *assumptions: str) -> None:
        self.nbytes[name] = max(0, int(nbytes))
        if self.lean:
            return
        self.components[name] = Component(
            name=name,
            bytes_per_gpu=max(0, int(nbytes)),
            formula=formula,
            assumptions=list(assumptions),
        )


def _weight_format(req: MemoryRequest, resolved: ResolvedModel) -> str:
    if req.weights is not None:
        fmt = req.weights
        if req.task == "full" and fmt not in ("bf16", "fp16", "fp32"):
            raise ToolInputError(
                "weights",
                f"full fine-tuning updates every weight, which {fmt} cannot hold",
                "bf16, fp16 or fp32 for task=full (use task=qlora for a 4-bit base)",
            )
        return fmt
    if req.task == "qlora":
        return "nf4-dq"
    if req.task == "inference" and resolved.checkpoint_format:
        return normalize_format(resolved.checkpoint_format)
    return "bf16"


def _context(req: MemoryRequest, arch: Architecture, parts: _Parts) -> int:
    if req.context is None:
        context = min(DEFAULT_CONTEXT, arch.max_context)
        if context < DEFAULT_CONTEXT:
            parts.assumptions.append(
                f"Context: {context:,} tokens per sequence: the default {DEFAULT_CONTEXT:,} "
                "capped at the model's maximum (max_position_embeddings); set --context."
            )
        else:
            parts.assumptions.append(
                f"Context: {context:,} tokens per sequence (default; set --context)."
            )
        return context
    if req.context > arch.max_context:
        parts.warn(
            "context_above_maximum",
            f"context {req.context:,} tokens exceeds the model's maximum of "
            f"{arch.max_context:,} (max_position_embeddings); quality past it is not assured",
        )
    return req.context


def _vision_note(arch: Architecture, engine: str, loaded: bool) -> str:
    """Which engines load a checkpoint's vision tower, and what this estimate counts."""
    size = format_count(vision_params(arch))
    if loaded:
        return (
            f"Vision tower ({size} parameters, 16-bit) counted: {engine} loads it with the "
            "checkpoint (vLLM skips it only when every modality is limited to 0, "
            "--limit-mm-per-prompt '{\"image\": 0}', vLLM PR #22299); llama.cpp (engine "
            "generic) loads it only from a separate --mmproj file."
        )
    return (
        f"Vision tower ({size} parameters) left out: llama.cpp (engine generic) serves the "
        "text GGUF and loads the encoder only from a separate --mmproj file (vLLM and "
        "Transformers load it with the checkpoint)."
    )


def _mxfp4_hopper_extra(
    req: MemoryRequest, arch: Architecture, fmt: str, engine: str, routed: int
) -> int:
    """Bytes vLLM's Hopper MXFP4 MoE kernels hold beyond the checkpoint's expert tensors
    (tools/memory/engine_versions.py), per GPU before pipeline stages; 0 elsewhere."""
    if engine != "vllm" or fmt != "mxfp4" or arch.moe is None or req.gpu is None:
        return 0
    if "hopper" not in get_catalog().gpu(req.gpu).architecture.lower():
        return 0
    return round(routed * (mxfp4_expert_padding(arch.hidden_size) - 1))


def _inference_weights(
    req: MemoryRequest,
    resolved: ResolvedModel,
    fmt: str,
    layout: Layout,
    parts: _Parts,
    engine: str,
) -> tuple[int, int]:
    """Adds the weights component; returns (bytes per GPU, layers on the worst stage)."""
    arch = resolved.architecture
    vision = engine not in ("generic", "mlx")  # mlx-lm loads the text model only
    wb = model_weight_bytes(
        resolved,
        fmt,
        tp=layout.tp,
        group_size=req.group_size,
        keep_16bit=req.keep_16bit,
        vision=vision,
    )
    stage = worst_stage(wb, layout.pp)
    nbytes = stage.bytes
    padded = _mxfp4_hopper_extra(req, arch, fmt, engine, wb.routed_experts) // layout.pp
    nbytes += padded
    if parts.lean and not (req.is_training and req.zero == 3 and layout.dp > 1):
        parts.add("weights", nbytes, "")
        return nbytes, stage.layers
    whole = model_weight_bytes(
        resolved, fmt, group_size=req.group_size, keep_16bit=req.keep_16bit, vision=vision
    )
    per_param = whole.total / resolved.total_params
    notes = [
        f"{FORMAT_RULES[fmt].description}; whole model {format_bytes(whole.total, 'GB')} "
        f"= {per_param:.3f} bytes per parameter over {resolved.total_params:,} parameters."
    ]
    if whole.embedding_host_ram:
        notes.append(_host_embedding_note(whole, resolved.architecture))
    elif whole.keep_16bit:
        sixteen = whole.embedding + whole.lm_head
        notes.append(
            f"Kept in 16-bit: {', '.join(whole.keep_16bit)} ({format_bytes(sixteen, 'GB')}); "
            "quantizers leave the embedding and output layer unquantized (override with "
            "keep_16bit)."
        )
    if fmt in ("bf16", "fp16"):
        notes.append(
            "Rule of thumb '2 bytes per parameter' (7B ≈ 14 GB) uses the nominal size; exact "
            "counts differ (Llama-2-7B has 6.74B parameters → 13.48 GB)."
        )
    if fmt in ("int8", "fp8") and whole.keep_16bit:
        nominal = resolved.total_params
        notes.append(
            f"Rule of thumb '1 byte per parameter' gives {format_bytes(nominal, 'GB')}; the "
            f"16-bit embedding/output layers and per-channel scales make it "
            f"{format_bytes(whole.total, 'GB')}, and the KV cache and runtime come on top."
        )
    if arch.moe is not None:
        notes.append(
            f"MoE: all {arch.moe.num_experts} experts per layer are resident; "
            f"{resolved.active_params:,} parameters are active per token."
        )
    if arch.vision is not None:
        notes.append(_vision_note(arch, engine, vision))
    if arch.mtp_layers:
        notes.append(_mtp_note(arch))
    if padded:
        notes.append(f"+ {format_bytes(padded, 'GiB')} per GPU: {MXFP4_PAD_SOURCE}.")
    formula = "Σ tensors × bytes per weight of the format"
    if layout.tp > 1:
        formula += f", split over tp={layout.tp} (KV projections and routers replicated)"
    if layout.pp > 1:
        formula += f"; worst pipeline stage {stage.stage} of {layout.pp} ({stage.layers} layers)"
    if req.is_training and req.zero == 3 and layout.dp > 1:
        nbytes = -(-nbytes // layout.dp)
        # The frozen base is gathered unit by unit in its stored format; it has no gradients.
        gathered = zero3_gathered_bytes(wb, gradient_scale=None)
        nbytes += gathered.params
        parts.gathered = gathered.params
        formula += (
            f"; frozen base sharded over dp={layout.dp} (ZeRO-3/FSDP) + the gathered unit and "
            "the prefetched next one"
        )
        notes.append(
            f"ZeRO-3/FSDP gathers the frozen base one unit (a layer; the embedding or output "
            f"layer) at a time and prefetches the next: {format_bytes(gathered.params, 'GB')} "
            f"per GPU at the largest pair ({ZERO3_GATHER_SOURCE})."
        )
    parts.add("weights", nbytes, formula, *notes)
    return nbytes, stage.layers


def _mtp_note(arch: Architecture) -> str:
    """MTP modules: in the checkpoint, not in this estimate."""
    mtp = count_parameters(arch).mtp
    return (
        f"Not counted: {arch.mtp_layers} multi-token-prediction module(s) stored in the "
        f"checkpoint (about {format_count(mtp)} parameters: a decoder layer + eh_proj + norms "
        "each, DeepSeek-V3 report §2.2): on disk, but engines load them only for speculative "
        "decoding (vLLM --speculative-config with method 'deepseek_mtp'/'mtp')."
    )


def _full_training_state(
    req: MemoryRequest, resolved: ResolvedModel, layout: Layout, parts: _Parts
) -> int:
    """Adds weights, gradients and optimizer for full fine-tuning; returns layers per stage."""
    arch = resolved.architecture
    wb = weight_bytes(arch, "bf16", tp=layout.tp, total_params=resolved.stated_params)
    stage = worst_stage(wb, layout.pp)
    psi = stage.bytes / 2  # parameters on this GPU before ZeRO
    parts.trainable = resolved.total_params
    precision = training_precision(req.precision, req.zero)
    state = state_bytes_per_param(precision, req.optimizer)
    zero = req.zero or 0
    dp = layout.dp
    div_w = dp if zero >= 3 else 1
    div_g = dp if zero >= 2 else 1
    div_o = dp if zero >= 1 else 1
    opt = psi * state.optimizer
    opt_formula = f"Ψ·{state.optimizer:g}"
    if req.optimizer == "adafactor":
        factor_bytes = 2 if precision == "bf16" else 4
        share = psi / resolved.total_params
        opt += adafactor_state_entries(arch) * share * factor_bytes
        opt_formula += f" + (rows + cols per matrix)·{factor_bytes} (Adafactor factored)"
    # ZeRO stage 1 partitions the optimizer state, and the fp32 master copy is optimizer
    # state (the paper's K; DeepSpeed keeps it in the optimizer's partition) even where an
    # accounting lists it with the weights.
    working_per_param = state.weights - state.master_in_weights
    master = psi * state.master_in_weights / div_o
    weights = psi * working_per_param / div_w + master
    grads = psi * state.gradients / div_g
    opt /= div_o
    if req.offload_optimizer:
        moved = opt + master  # the fp32 master copy goes with the optimizer
        weights -= master
        parts.host_ram = round(moved * layout.gpus)
        opt = 0
        parts.assumptions.append(
            "Optimizer offload (ZeRO-Offload, arXiv 2101.06840): fp32 master weights and "
            f"optimizer states in host RAM: {format_bytes(parts.host_ram, 'GB')} over all GPUs."
        )
    total_per_param = state.weights + state.gradients + state.optimizer
    sharding = f" (ZeRO-{zero} over dp={dp})" if zero and dp > 1 else ""
    if state.master_in_weights and div_o > 1 and not req.offload_optimizer:
        weight_formula = (
            f"Ψ·{working_per_param:g}{' / Nd' if div_w > 1 else ''} + "
            f"Ψ·{state.master_in_weights:g} / Nd (fp32 master copy, partitioned with the "
            f"optimizer state){sharding}"
        )
    elif state.master_in_weights and req.offload_optimizer:
        weight_formula = f"Ψ·{working_per_param:g}{' / Nd' if div_w > 1 else ''}{sharding}"
    else:
        weight_formula = f"Ψ·{state.weights:g}{' / Nd' if div_w > 1 else ''}{sharding}"
    grad_formula = f"Ψ·{state.gradients:g}{' / Nd' if div_g > 1 else ''}"
    weight_notes = [f"Ψ = {psi:,.0f} parameters on this GPU (tp={layout.tp}, pp={layout.pp})."]
    if div_w > 1:
        # Sharded parameters must be all-gathered to compute: the working set comes on top.
        compute_bytes = 4 if precision == "fp32" else 2
        scale = compute_bytes / 2  # `wb` holds 16-bit bytes
        gathered = zero3_gathered_bytes(wb, param_scale=scale, gradient_scale=scale)
        weights += gathered.params
        grads += gathered.gradients
        parts.gathered = gathered.params + gathered.gradients
        weight_formula += " + gathered unit and prefetched next unit (16-bit)"
        grad_formula += " + the gathered unit's gradients before reduce-scatter"
        weight_notes.append(
            "ZeRO-3/FSDP all-gathers the parameters one unit (a layer; the embedding or output "
            f"layer) at a time in {compute_bytes * 8}-bit: at the peak a GPU holds the unit "
            "being computed, the prefetched next one and the unit's full gradients before "
            f"they are reduce-scattered: {format_bytes(gathered.params, 'GB')} of parameters "
            f"+ {format_bytes(gathered.gradients, 'GB')} of gradients at the largest pair "
            f"({ZERO3_GATHER_SOURCE}). Gradients are taken in the compute dtype "
            "(FSDP MixedPrecision reduce_dtype = param_dtype)."
        )
    parts.add("weights", round(weights), weight_formula, *weight_notes)
    parts.add("gradients", round(grads), grad_formula)
    parts.add(
        "optimizer",
        round(opt),
        opt_formula + (" / Nd" if div_o > 1 else ""),
        f"{req.optimizer} with {precision} accounting: {total_per_param:g} bytes/param of "
        f"model state before sharding ({state.source}).",
    )
    parts.assumptions.append(_training_state_statement(req, precision, total_per_param, state))
    if zero and dp == 1:
        parts.warn("zero_single_rank", zero_single_rank_warning(zero))
    return stage.layers


def _training_state_statement(
    req: MemoryRequest, precision: str, total_per_param: float, state: StateBytes
) -> str:
    """Which accounting sized the training state, and why (the ZeRO default stated)."""
    per_param = f"{total_per_param:g} bytes per parameter with {req.optimizer}"
    if req.zero and req.precision is None:
        return (
            f"Training state: ZeRO-{req.zero} sized as DeepSpeed and the paper define it "
            f"({precision} accounting, {per_param}): {ZERO_ACCOUNTING_SOURCE}. "
            "precision=mixed-hf sizes Hugging Face Trainer's 18 B/param instead."
        )
    head = f"Training state: {precision} accounting, {per_param} ({state.source})."
    if req.zero:
        return (
            f"{head} ZeRO-{req.zero}: stage 1 partitions the optimizer state with the fp32 "
            "master copy, stage 2 also the gradients, stage 3 also the parameters "
            "(arXiv 1910.02054 §5.1)."
        )
    return (
        f"{head} Mixed-precision AdamW is 18 B/param in the HF docs (7B ≈ 126 GB) and "
        "16 B/param in the ZeRO paper (precision=mixed-zero; the default with a ZeRO stage)."
    )


_ZERO_STAGE_NAMES = {1: "P_os", 2: "P_os+g", 3: "P_os+g+p"}


def _zero_state_statement(zero: int, dp: int, model_state: int) -> str:
    """The partitioned model states per GPU, as the ZeRO paper's per-device figure."""
    gathered = " (the all-gathered working set comes on top)" if zero == 3 else ""
    return (
        f"ZeRO-{zero} ({_ZERO_STAGE_NAMES[zero]}) over Nd = {dp} data-parallel ranks: model "
        f"states {format_bytes(model_state, 'GB')} per GPU{gathered}, the paper's per-device "
        "figure (arXiv 1910.02054 Table 1)."
    )


def _adapter_state(
    req: MemoryRequest, arch: Architecture, layout: Layout, stage_layers: int, parts: _Parts
) -> None:
    rank = req.lora_rank or (DEFAULT_QLORA_RANK if req.task == "qlora" else DEFAULT_LORA_RANK)
    targets = tuple(req.lora_targets or LORA_TARGETS)
    trainable = lora_params(arch, rank, targets)
    parts.trainable = trainable
    share = trainable * stage_layers / arch.num_layers / layout.tp
    state = adapter_state_bytes(req.optimizer, req.adapter_dtype)
    zero = req.zero or 0
    dp = layout.dp
    adapter_weights = share * state.weights / (dp if zero >= 3 else 1)
    grads = share * state.gradients / (dp if zero >= 2 else 1)
    opt = share * state.optimizer / (dp if zero >= 1 else 1)
    if req.offload_optimizer:
        parts.host_ram = round(opt * layout.gpus)
        opt = 0
    base = parts.components["weights"]
    parts.add(
        "weights",
        base.bytes_per_gpu + round(adapter_weights),
        base.formula + f" + adapters {state.weights:g} B × {trainable:,} LoRA parameters",
        *base.assumptions,
        f"LoRA rank {rank} on {', '.join(targets)}: r·(in + out) per matrix = "
        f"{trainable:,} trainable parameters ({state.source}).",
        *(
            ()
            if req.adapter_dtype == "fp32"
            else (
                "Adapters in bf16 as in the QLoRA paper; PEFT upcasts them to fp32 by default "
                "(adapter_dtype='fp32': +2 B weights and +2 B gradients per adapter parameter).",
            )
        ),
    )
    parts.add(
        "gradients",
        round(grads),
        f"adapter parameters × {state.gradients:g} B ({req.adapter_dtype})",
    )
    parts.add(
        "optimizer",
        round(opt),
        f"adapter parameters × {state.optimizer:g} B ({req.optimizer})",
        "The frozen base has no gradients or optimizer state.",
    )
    base_bytes = base.bytes_per_gpu
    if base_bytes:
        extra = adapter_weights + grads + opt
        parts.assumptions.append(
            f"Adapters with their gradients and optimizer state add {extra / base_bytes:.1%} to "
            "the frozen base on this GPU (the 'LoRA = base + 10-20%' rule of thumb also folds "
            "in activations, counted separately here)."
        )
    if req.task == "qlora":
        parts.assumptions.append(
            "QLoRA (arXiv 2305.14314): NF4 base with double quantization, bf16 adapters, "
            "paged AdamW (states counted on the GPU; paging only absorbs spikes)."
        )


def _activations(
    req: MemoryRequest,
    arch: Architecture,
    fmt: str,
    layout: Layout,
    context: int,
    engine: str,
    parts: _Parts,
) -> None:
    checkpointing = req.checkpointing if req.checkpointing is not None else req.is_training
    act: ActivationBytes
    notes: list[str] = []
    if req.is_training:
        act = training_activation_bytes(
            arch,
            sequence_tokens=context,
            micro_batch=req.batch,
            tp=layout.tp,
            pp=layout.pp,
            checkpointing=checkpointing,
            flash_attention=req.flash_attention,
        )
        notes.append(
            "Activations per Korthikanti et al. 2022 (arXiv 2205.05198) §4, applied to a gated "
            "FFN and grouped KV heads without dropout (Table 2's 34sbh is for GPT layers); "
            "16-bit activations; "
            f"checkpointing {'on' if checkpointing else 'off'}, flash attention "
            f"{'on' if req.flash_attention else 'off'}."
        )
        extra = 0
        if req.task == "qlora":
            largest = max(lin.rows * lin.cols for s in layer_shapes(arch) for lin in s.linears)
            extra = largest * 2
            notes.append(
                "bitsandbytes dequantizes one weight to bf16 per matmul: the largest "
                f"matrix, {format_bytes(extra, 'GB')}."
            )
        parts.add("activations", act.total + extra, act.formula, *notes)
        return
    sampler: int | None = None
    mode: ActivationMode = "sampler_sum"
    if engine == "vllm":
        spec = get_catalog().gpu(req.gpu) if req.gpu is not None else None
        default_seqs, default_tokens, source = vllm_batch_defaults(spec)
        sampler = max(req.batch, req.max_num_seqs or default_seqs)
        mode = vllm_profile(req.engine_version).activation
        if not parts.lean and mode != "sampler_sum":
            notes.append(profile_note(req.engine_version, vllm_profile(req.engine_version)))
        if not parts.lean and mode == "sampler_sum":
            notes.append(
                f"Sampler reserve for max_num_seqs = {req.max_num_seqs or default_seqs} "
                f"requests (× V × {VLLM_SAMPLER_BYTES_PER_LOGIT} B: fp32 logits, probabilities "
                "and sort indices): vLLM profiles it at start-up and keeps it out of the KV "
                f"cache; {source}."
            )
    if req.prefill_chunk_tokens is not None:
        chunk = req.prefill_chunk_tokens
    elif engine == "vllm":
        chunk = default_tokens
        if not parts.lean:
            notes.append(
                f"Activation peak profiled at max_num_batched_tokens = {chunk:,} tokens ({source})."
            )
    elif engine == "mlx":
        chunk = min(context * req.batch, int(MLX_PREFILL_STEP.value))
        if not parts.lean:
            notes.append(
                f"Prefill of at most {chunk:,} tokens per forward pass: {MLX_PREFILL_STEP.source}."
            )
    elif engine == "exllamav2":
        chunk = min(context * req.batch, int(EXLLAMAV2_MAX_INPUT_LEN.value))
        if not parts.lean:
            notes.append(
                f"Prefill of at most {chunk:,} tokens per forward pass: "
                f"{EXLLAMAV2_MAX_INPUT_LEN.source}."
            )
    elif engine == "generic":
        # llama.cpp's compute buffer: one ubatch of at most n_ubatch tokens per forward pass,
        # whatever the number of sequences (QA round 4, 12).
        ubatch = int(LLAMA_CPP_N_UBATCH.value)
        chunk = min(context * req.batch, ubatch)
        if not parts.lean:
            notes.append(
                f"Compute buffer for min(context × batch, n_ubatch) = {chunk:,} tokens per "
                f"forward pass: {LLAMA_CPP_N_UBATCH.source}."
            )
    else:
        chunk = context * req.batch
        notes.append("Whole prompt batch in one forward pass (no chunked prefill).")
    act = inference_activation_bytes(
        arch,
        chunk_tokens=chunk,
        sequences=req.batch,
        sequence_tokens=context,
        tp=layout.tp,
        flash_attention=req.flash_attention,
        sampler_sequences=sampler,
        mode=mode,
    )
    parts.add("activations", act.total, act.formula, *notes)


def _overhead(
    req: MemoryRequest, engine: str, parts: _Parts, spec: GpuSpec | None, layout: Layout
) -> None:
    if spec is not None and spec.vendor == "Apple" and req.cuda_context_bytes is None:
        # A Mac runs Metal (llama.cpp, MLX, Ollama): no CUDA context, no cuBLAS workspace.
        value = int(METAL_RUNTIME.value)
        note = f"{METAL_RUNTIME.name} = {format_bytes(value, 'GiB')}: {METAL_RUNTIME.source}."
        parts.add("overhead", value, METAL_RUNTIME.name, note)
        return
    # A llama.cpp build (engine generic) is no vLLM version: vLLM's accounting only for vLLM.
    profile = vllm_profile(req.engine_version if engine == "vllm" else None)
    if engine == "vllm" and not profile.counts_cuda_context:
        # 0.11 on: what the profile subtracts is the non-torch memory (NCCL at TP >= 2); the
        # CUDA context and graphs sit in the (1 - utilization) margin.
        tp, pp = layout.tp, layout.pp
        value = profile.non_torch_bytes(tp, pp)
        note = (
            f"non_torch_bytes = {format_bytes(value, 'GiB')} at TP {tp}"
            + (f", PP {pp}" if pp > 1 else "")
            + f" ({profile.source}); CUDA context and graphs in the (1 − "
            "gpu_memory_utilization) margin, not in the budget."
        )
        parts.add("overhead", value, "non_torch_bytes", note)
        return
    context_bytes = (
        req.cuda_context_bytes if req.cuda_context_bytes is not None else CUDA_CONTEXT.value
    )
    items = [
        (CUDA_CONTEXT.name, context_bytes, CUDA_CONTEXT.source),
        (CUBLAS_WORKSPACE.name, CUBLAS_WORKSPACE.value, CUBLAS_WORKSPACE.source),
    ]
    if engine == "vllm":
        graphs = (
            req.cuda_graph_bytes if req.cuda_graph_bytes is not None else VLLM_CUDA_GRAPHS.value
        )
        items.append((VLLM_CUDA_GRAPHS.name, graphs, VLLM_CUDA_GRAPHS.source))
    total = sum(int(v) for _, v, _ in items)
    if parts.lean:
        parts.add("overhead", total, "")
        return
    notes = [f"{name} = {format_bytes(value, 'GiB')}: {source}." for name, value, source in items]
    parts.add("overhead", total, " + ".join(name for name, _, _ in items), *notes)


def _layout(req: MemoryRequest, arch: Architecture, engine: str, parts: _Parts) -> Layout:
    """The parallel layout. llama.cpp (engine generic) splits a model over several GPUs by
    layers (`--split-mode layer`, its default): each GPU holds a run of layers with their KV
    cache, as a pipeline stage does, so with no tp/pp given it is sized as pp = gpus."""
    if engine == "exllamav2" and req.gpus > 1 and req.tp is None and req.pp == 1:
        parts.assumptions.append(
            f"Layout: ExLlamaV2 splits the layers over the {req.gpus} GPUs (gpu_split / "
            "autosplit, model.py load_autosplit_gen: each holds its run of layers and their KV "
            f"cache; sized as pp={req.gpus})."
        )
        return plan_layout(arch, gpus=req.gpus, tp=1, pp=req.gpus, training=False)
    layer_split = engine == "generic" and not req.is_training and req.gpus > 1
    if layer_split and req.tp is None and req.pp == 1 and req.split_mode == "tensor":
        parts.assumptions.append(
            f"Layout: llama.cpp --split-mode tensor splits every weight and the KV cache over "
            f"the {req.gpus} GPUs (sized as tp={req.gpus}; PR #19378)."
        )
        return plan_layout(arch, gpus=req.gpus, tp=req.gpus, pp=1, training=False)
    if layer_split and req.tp is None and req.pp == 1:
        parts.assumptions.append(
            f"Layout: llama.cpp splits the layers over the {req.gpus} GPUs (--split-mode "
            "layer, the default): each holds its run of layers and their KV cache (sized as "
            f"pp={req.gpus}); --split-mode tensor (split_mode) splits each tensor instead."
        )
        return plan_layout(arch, gpus=req.gpus, tp=1, pp=req.gpus, training=False)
    return plan_layout(arch, gpus=req.gpus, tp=req.tp, pp=req.pp, training=req.is_training)


def _host_embedding_note(whole: WeightBytes, arch: Architecture) -> str:
    """Where EXL2's embedding and output layer are (tools/memory/formats.py, exllamav2 source):
    `whole`, the model's weights unsplit."""
    head_bits = FORMAT_RULES[whole.fmt].head_bits
    bits = whole.lm_head * 8 / (arch.hidden_size * arch.vocab_size)
    return (
        f"Token embedding: {format_bytes(whole.embedding_host_ram, 'GB')} in fp16, kept in "
        "system RAM by ExLlamaV2 (model.py loads ExLlamaV2Embedding on the CPU), not in GPU "
        f"memory; output layer quantized at -hb {head_bits} ({bits:.2f} bits per weight, "
        f"{format_bytes(whole.lm_head, 'GB')}, on the GPU with the last layers)."
    )


def _exl2_engine(req: MemoryRequest, fmt: str, parts: _Parts) -> str | None:
    """ExLlamaV2 for EXL2 weights or a Q4 / Q6 / Q8 cache with no engine named: the only
    engine that loads them."""
    if req.is_training:
        return None
    if exl2_bpw(fmt) is not None:
        what = f"{fmt} is ExLlamaV2's EXL2 format"
    elif req.kv_dtype in EXLLAMAV2_KV_DTYPES:
        what = f"kv_dtype {req.kv_dtype} is ExLlamaV2's {req.kv_dtype.upper()} cache"
    else:
        return None
    parts.assumptions.append(
        f"Engine: {what}, so the estimate is for ExLlamaV2 (as TabbyAPI serves it: no memory "
        "reserve, a contiguous KV cache, layers split over the GPUs); vLLM and llama.cpp "
        "cannot load EXL2 nor keep that cache."
    )
    return "exllamav2"


def _default_engine(req: MemoryRequest, fmt: str, parts: _Parts) -> str:
    """Transformers for training; llama.cpp-style (generic: no memory reserve, no paged KV) for
    GGUF weights, which are what llama.cpp runs; vLLM for other serving."""
    if req.is_training:
        return "transformers"
    if req.kv_dtype in LLAMA_CPP_KV_DTYPES:
        parts.assumptions.append(
            f"Engine: kv_dtype {req.kv_dtype} is a llama.cpp cache type (--cache-type-k/-v "
            f"{req.kv_dtype}), so the estimate is for llama.cpp-style serving (engine generic)."
        )
        return "generic"
    if fmt in GGUF_FORMATS:
        parts.assumptions.append(
            f"Engine: {fmt} is a GGUF format, so the estimate is for llama.cpp-style serving "
            "(engine generic: no gpu_memory_utilization reserve, contiguous KV cache); set "
            "engine=vllm to size vLLM's GGUF loader instead."
        )
        return "generic"
    return "vllm"


def _kv_cache_notes(
    arch: Architecture, kv_dtype: str, per_token: int, engine: str, block: int, tp: int
) -> list[str]:
    """What the KV-cache figure assumes: its dtype and per-token bytes, windowed layers, paged
    blocks, replicated heads."""
    notes = [
        f"KV cache {kv_dtype}: {per_token:,} bytes per token for the whole model "
        f"({arch.attention_kind})."
    ]
    if kv_dtype in LLAMA_CPP_KV_DTYPES:
        notes.append(
            f"llama.cpp {kv_dtype} cache: K and V rows in whole ggml blocks (ggml_row_size); "
            "a quantized V cache needs flash attention (-fa on)."
        )
    if arch.sliding_window_layers:
        notes.append(
            f"{arch.sliding_window_layers} sliding-window layers hold at most "
            f"{arch.sliding_window:,} tokens; {arch.full_attention_layers} full-attention "
            "layers hold the whole context."
        )
    if arch.chunked_attention_layers:
        notes.append(
            f"{arch.chunked_attention_layers} chunked-attention layers hold at most one "
            f"{arch.attention_chunk_size:,}-token chunk; {arch.full_attention_layers} "
            "global layers hold the whole context."
        )
    if engine == "generic" and (arch.sliding_window_layers or arch.chunked_attention_layers):
        notes.append(
            "llama.cpp (engine generic) keeps each windowed layer's window plus one "
            "physical batch (n_ubatch 512), padded to 256 tokens, per sequence (its iSWA "
            "cache, src/llama-kv-cache-iswa.cpp); --swa-full gives them the whole context."
        )
    if block > 1:
        notes.append(f"vLLM paged blocks of {block} tokens: each sequence rounded up.")
    if tp > arch.num_kv_heads and arch.mla is None:
        notes.append(f"tp={tp} > {arch.num_kv_heads} KV heads: KV heads replicated.")
    if arch.mla is not None and tp > 1:
        notes.append("MLA latent cache is not split by heads: every TP rank holds all of it.")
    return notes


def estimate_memory(req: MemoryRequest) -> MemoryEstimate:
    """Memory per GPU (bytes) for `req`, by component, with assumptions and the fit on
    `req.gpu`. Raises ToolInputError for inputs that cannot be sized (naming the field)."""
    est = _estimate(req, lean=False)
    assert isinstance(est, MemoryEstimate)
    return est


def memory_figures(req: MemoryRequest) -> MemoryFigures:
    """`estimate_memory`'s figures for an inference request without its text (the same
    computation with the formulas and notes left out); a training request is estimated in full
    and its figures taken. Raises ToolInputError like `estimate_memory`."""
    if req.is_training:
        return MemoryFigures.of(estimate_memory(req))
    figures = _estimate(req, lean=True)
    assert isinstance(figures, MemoryFigures)
    return figures


def _request_warnings(
    req: MemoryRequest,
    spec: GpuSpec | None,
    engine: str,
    fmt: str,
    device: DeviceNotes,
    parts: _Parts,
) -> None:
    """What the device or the engine cannot run as asked, and a QLoRA base that is not 4-bit."""
    for warning in (devices.engine_warning(spec, engine), devices.fp8_warning(spec, fmt)):
        if warning and not req.is_training:
            device.warnings.append(warning)
    if req.task == "qlora" and fmt not in ("nf4", "nf4-dq", "int4-gptq", "int4-awq"):
        parts.warn(
            "memory_warning",
            f"task=qlora with a {fmt} base is plain LoRA; QLoRA quantizes the base to NF4",
        )


def _inference_warnings(req: MemoryRequest, engine: str, kv_dtype: str, parts: _Parts) -> None:
    """Training-only fields given for inference, and a KV-cache type the engine lacks."""
    if req.is_training:
        return
    kv_warning = engine_kv_dtype_warning(engine, kv_dtype)
    if kv_warning:
        parts.warn("kv_dtype", kv_warning)
    if req.zero:
        parts.warn(
            "zero_ignored_for_inference", "zero applies to training only; ignored for inference"
        )
    if req.offload_optimizer:
        parts.warn(
            "offload_ignored_for_inference", "offload_optimizer applies to training only; ignored"
        )


def _model_states(
    req: MemoryRequest,
    resolved: ResolvedModel,
    fmt: str,
    layout: Layout,
    engine: str,
    parts: _Parts,
) -> int:
    """Weights, gradients and optimizer state per GPU (training or inference); the layers one
    pipeline stage holds."""
    if req.task == "full":
        return _full_training_state(req, resolved, layout, parts)
    _, stage_layers = _inference_weights(req, resolved, fmt, layout, parts, engine)
    if req.task in ("lora", "qlora"):
        _adapter_state(req, resolved.architecture, layout, stage_layers, parts)
    else:
        parts.add("gradients", 0, "inference: none")
        parts.add("optimizer", 0, "inference: none")
        if req.lora_slots and engine == "vllm":  # vLLM's slots; other engines load adapters
            _lora_slot_weights(req, resolved.architecture, fmt, layout, parts)
    return stage_layers


def _lora_slot_weights(
    req: MemoryRequest, arch: Architecture, fmt: str, layout: Layout, parts: _Parts
) -> None:
    """vLLM's LoRA adapter slots (`tools.memory.lora_slots`: `--max-loras` × rank × Σ over the
    wrapped projections of (in + out), split by TP and PP) added to the weights: allocated at
    load, before the KV pool is profiled. `lora_dtype auto`: the activations' dtype, 4 bytes
    for fp32 weights, else 2 (bf16, fp16 and the quantized formats compute in 16 bits)."""
    slots = req.lora_slots or 0
    rank = slot_rank(req.lora_rank or VLLM_DEFAULT_MAX_LORA_RANK)
    dtype_bytes = 4 if fmt == "fp32" else 2
    nbytes = slot_bytes_per_gpu(arch, slots, rank, dtype_bytes, layout.tp, layout.pp)
    base_bytes = parts.nbytes["weights"]
    if parts.lean:
        parts.add("weights", base_bytes + nbytes, "")
        return
    base = parts.components["weights"]
    parts.add(
        "weights",
        base_bytes + nbytes,
        base.formula + f" + {slots} LoRA slots × rank {rank} × Σ(in + out) × {dtype_bytes} B",
        *base.assumptions,
        f"vLLM --enable-lora: {slots} adapter slot(s) of rank {rank} take "
        f"{format_bytes(nbytes, 'GiB')} per GPU, allocated with the weights "
        "(create_lora_weights; A = rank × input, B = output × rank per projection).",
    )


def _kv_cache(
    req: MemoryRequest,
    arch: Architecture,
    kv_dtype: str,
    context: int,
    layout: Layout,
    engine: str,
    parts: _Parts,
) -> None:
    """The KV cache per GPU (none in training), with its formula unless `parts.lean`."""
    if req.is_training:
        parts.add("kv_cache", 0, "training: no KV cache")
        return
    block = VLLM_BLOCK_TOKENS if engine == "vllm" else 1
    if engine == "exllamav2" and kv_dtype in EXLLAMAV2_KV_DTYPES:
        block = exllamav2_q_block(arch)
    kv = kv_cache_bytes(
        arch,
        context=context,
        sequences=req.batch,
        kv_dtype=kv_dtype,
        tp=layout.tp,
        pp=layout.pp,
        block_tokens=block,
        llama_cpp_windows=engine == "generic",
    )
    dequant = _exllamav2_dequant(
        arch, kv_dtype, engine, round_up(context, block) * req.batch, layout.tp
    )
    if parts.lean:
        parts.add("kv_cache", kv + dequant, "")
        return
    per_token = kv_cache_bytes_per_token(arch, kv_dtype)
    notes = _kv_cache_notes(arch, kv_dtype, per_token, engine, block, layout.tp)
    if dequant:
        notes.append(_dequant_note(kv_dtype, dequant))
    parts.add(
        "kv_cache",
        kv + dequant,
        f"per-token bytes × context {context} × {req.batch} sequences"
        + (f" / tp={layout.tp}" if layout.tp > 1 else "")
        + (" + one layer's fp16 K/V to dequantize into" if dequant else ""),
        *notes,
    )


def _exllamav2_dequant(arch: Architecture, kv_dtype: str, engine: str, tokens: int, tp: int) -> int:
    """The fp16 K/V an ExLlamaV2 FP8 or Q cache dequantizes into on each GPU (0 otherwise)."""
    if engine != "exllamav2" or kv_dtype not in ("fp8", *EXLLAMAV2_KV_DTYPES):
        return 0
    return exllamav2_dequant_bytes(arch, tokens, tp)


def _dequant_note(kv_dtype: str, dequant: int) -> str:
    """Where an ExLlamaV2 quantized cache's fp16 working copy comes from (kv_cache.py)."""
    if kv_dtype == "fp8":
        stored = "FP8 (e5m2, cache_8bit): 1 byte per element"
    else:
        stored = (
            f"{kv_dtype.upper()} (ExLlamaV2Cache_{kv_dtype.upper()}): uint8 keys and values "
            "with an fp16 scale per 32 elements"
        )
    return (
        f"ExLlamaV2 cache {stored}, plus one layer's keys and values in fp16 on each GPU "
        f"({format_bytes(dequant, 'GB')}) that each layer is dequantized into "
        "(exllamav2/cache.py temp_tensors, counted in its footprint())."
    )


@dataclass(frozen=True)
class _Budget:
    """What one GPU offers the estimate: usable bytes, the engine's share and the verdict."""

    usable: int
    utilization: float
    budget: int
    headroom: int
    fits: bool


def _fit_fields(budget: _Budget | None) -> dict[str, Any]:
    """The estimate's GPU fields (all None without a GPU)."""
    if budget is None:
        return {"usable_bytes_per_gpu": None, "budget_bytes_per_gpu": None, "fits": None}
    return {
        "usable_bytes_per_gpu": budget.usable,
        "budget_bytes_per_gpu": budget.budget,
        "fits": budget.fits,
    }


def _model_state_bytes(
    req: MemoryRequest, breakdown: dict[str, int], layout: Layout, parts: _Parts
) -> int | None:
    """Training: weights + gradients + optimizer state resident per GPU after ZeRO
    partitioning, without ZeRO-3's all-gathered working set (the ZeRO paper's per-device
    figure); None for inference."""
    if not req.is_training:
        return None
    state = breakdown["weights"] + breakdown["gradients"] + breakdown["optimizer"] - parts.gathered
    if req.zero and layout.dp > 1:
        parts.assumptions.append(_zero_state_statement(req.zero, layout.dp, state))
    return state


def _budget(req: MemoryRequest, spec: GpuSpec, engine: str, per_gpu: int) -> _Budget:
    """The GPU's budget: vLLM's CUDA total × gpu_memory_utilization, else the usable memory."""
    usable, util = spec.usable_memory_bytes, 1.0
    if engine == "vllm":
        usable, util = vllm_budget_inputs(spec, req.gpu_memory_utilization, req.engine_version)
        budget = int(usable * util)
    else:
        budget = usable
    headroom = budget - per_gpu
    return _Budget(usable, util, budget, headroom, headroom >= 0)


def _budget_words(
    req: MemoryRequest, spec: GpuSpec, engine: str, budget: _Budget, parts: _Parts
) -> None:
    """The budget's basis, stated as an assumption (and a utilisation given to a non-vLLM
    engine, warned about)."""
    usable, util = budget.usable, budget.utilization
    if engine != "vllm":
        if req.gpu_memory_utilization is not None:
            parts.warn(
                "utilization_vllm_only", "gpu_memory_utilization applies to engine=vllm only"
            )
        parts.assumptions.append(
            f"Budget: {spec.name} usable {format_bytes(usable, 'GiB')} "
            f"({spec.usable_memory_basis}; as of {spec.as_of})."
        )
        return
    profile = vllm_profile(req.engine_version)
    seen = (
        f"CUDA total {format_bytes(usable, 'GiB')} ({spec.cuda_total_memory_source})"
        if usable == spec.cuda_total_memory_bytes
        else f"usable {format_bytes(usable, 'GiB')}"
    )
    util_source = (
        VLLM_GPU_MEMORY_UTILIZATION.source
        if req.engine_version is None
        else profile.utilization_source
    )
    parts.assumptions.append(
        f"Budget: {spec.name} {seen} × gpu_memory_utilization {util:g} ({util_source})."
    )
    if req.engine_version is None:
        parts.assumptions.append(profile_note(None, profile))


def _estimate(req: MemoryRequest, lean: bool) -> MemoryEstimate | MemoryFigures:
    """The estimate of `req`; `lean` (inference only): its figures without the text."""
    resolved = resolve_model(req.model, req.params, req.config_path, req.model_file)
    arch = resolved.architecture
    parts = _Parts(assumptions=[] if lean else list(resolved.assumptions), lean=lean)
    if not lean and req.weights_reading:
        parts.assumptions.append(req.weights_reading)
    spec = None if req.gpu is None else get_catalog().gpu(req.gpu)
    device = DeviceNotes()
    fmt = _weight_format(req, resolved)
    engine = (
        req.engine
        or _exl2_engine(req, fmt, parts)
        or (None if req.is_training else devices.default_engine(spec, device))
        or _default_engine(req, fmt, parts)
    )
    layout = _layout(req, arch, engine, parts)
    if req.task != "full":
        fmt = devices.sixteen_bit(spec, fmt, req.weights is not None, "weights", device)
    kv_dtype = devices.sixteen_bit(
        spec, req.kv_dtype or DEFAULT_KV_DTYPE, req.kv_dtype is not None, "KV cache", device
    )
    _request_warnings(req, spec, engine, fmt, device, parts)
    context = _context(req, arch, parts)
    _inference_warnings(req, engine, kv_dtype, parts)
    stage_layers = _model_states(req, resolved, fmt, layout, engine, parts)
    per_token = kv_cache_bytes_per_token(arch, kv_dtype)
    per_token_gpu = -(
        -kv_cache_bytes_per_token(arch, kv_dtype, layout.tp) * stage_layers // arch.num_layers
    ) + _exllamav2_dequant(arch, kv_dtype, engine, 1, layout.tp)
    _kv_cache(req, arch, kv_dtype, context, layout, engine, parts)
    _activations(req, arch, fmt, layout, context, engine, parts)
    _overhead(req, engine, parts, spec, layout)

    breakdown = {key: parts.nbytes[key] for key in BREAKDOWN_KEYS}
    per_gpu = sum(breakdown.values())
    model_state = _model_state_bytes(req, breakdown, layout, parts)
    for comp in parts.components.values():
        parts.assumptions.extend(comp.assumptions)

    budget = None if spec is None else _budget(req, spec, engine, per_gpu)
    if lean:
        return MemoryFigures(
            model_id=resolved.id,
            engine=engine,
            weights_format=fmt,
            breakdown=breakdown,
            per_gpu_bytes=per_gpu,
            kv_cache_bytes_per_token_per_gpu=per_token_gpu,
            **_fit_fields(budget),
        )
    gpu_id = None if spec is None else spec.id
    if spec is not None and budget is not None:
        _budget_words(req, spec, engine, budget, parts)
        shape = (layout.gpus, layout.tp, layout.pp)
        devices.budget_notes(spec, shape, engine, per_gpu, budget.utilization, device)
    parts.assumptions.extend(device.assumptions)
    for warning in device.warnings:  # what this device cannot run as asked (tools.memory.devices)
        parts.warnings.append(Note(code="device", text=warning, gpu=gpu_id, severity="warning"))

    return MemoryEstimate(
        model_id=resolved.id,
        model_name=resolved.name,
        task=req.task,
        weights_format=(
            fmt if req.task != "full" else f"{training_precision(req.precision, req.zero)} training"
        ),
        kv_dtype=kv_dtype,
        engine=engine,
        context=context,
        max_context_tokens=arch.max_context,
        batch=req.batch,
        total_params=resolved.total_params,
        active_params=resolved.active_params,
        trainable_params=parts.trainable,
        per_gpu_bytes=per_gpu,
        total_bytes=per_gpu * layout.gpus,
        kv_cache_bytes_per_token=per_token,
        kv_cache_bytes_per_token_per_gpu=per_token_gpu,
        breakdown=breakdown,
        components=[parts.components[key] for key in BREAKDOWN_KEYS],
        assumptions=parts.assumptions,
        warnings=parts.warnings,
        num_gpus=layout.gpus,
        tp=layout.tp,
        pp=layout.pp,
        dp=layout.dp,
        gpu=gpu_id,
        **_fit_fields(budget),
        headroom_bytes=None if budget is None else budget.headroom,
        host_ram_bytes=parts.host_ram,
        model_state_bytes_per_gpu=model_state,
    )
