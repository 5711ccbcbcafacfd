"""Training state: weights, gradients and optimizer state per parameter, and LoRA adapters.

Two published accountings of mixed-precision AdamW, both offered by name:
- "mixed-zero" (ZeRO paper, arXiv 1910.02054 §3.1): fp16 parameters 2 + fp16 gradients 2 +
  optimizer K = 12 (fp32 master copy 4, momentum 4, variance 4) = 16 bytes/param.
- "mixed-hf" (Hugging Face Transformers docs, "Model training anatomy"): weights 6 (fp32 4 +
  fp16 2), gradients 4 (fp32), AdamW 8 = 18 bytes/param. The default without ZeRO: it is what
  Trainer(bf16=True) holds (fp32 parameters, a 16-bit working copy under autocast, fp32 grads).
  With a ZeRO stage the default is "mixed-zero": DeepSpeed's engine holds the model and its
  gradients in 16-bit and the fp32 master copy inside the optimizer, which is what stage 1
  partitions (the paper's K = 12; `training_precision`).
- "bf16": pure bf16 training, states in the parameter dtype (torch.optim.AdamW creates
  exp_avg/exp_avg_sq like the parameter): 2 + 2 + 4.
- "fp32": 4 + 4 + 8.
Optimizer states per parameter: AdamW two moments; 8-bit AdamW (bitsandbytes) 2 bytes;
SGD with momentum one buffer; Adafactor (Shazeer & Stern 2018, arXiv 1804.04235; HF Adafactor
with beta1=None, its default) a factored second moment: rows + columns per matrix.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from tools.architecture import Architecture
from tools.memory.tensors import layer_shapes

Precision = Literal["mixed-hf", "mixed-zero", "bf16", "fp32"]
Optimizer = Literal["adamw", "adamw-8bit", "sgd", "adafactor"]
PRECISIONS: tuple[str, ...] = ("mixed-hf", "mixed-zero", "bf16", "fp32")
OPTIMIZERS: tuple[str, ...] = ("adamw", "adamw-8bit", "sgd", "adafactor")


@dataclass(frozen=True)
class StateBytes:
    """Bytes per parameter of each model-state component; optimizer excludes Adafactor's
    factored part (see `adafactor_state_entries`). `master_in_weights` is the part of
    `weights` that is the fp32 master copy (mixed-hf counts it there; mixed-zero in the
    optimizer's K): ZeRO stage 1 partitions it with the optimizer state either way."""

    weights: float
    gradients: float
    optimizer: float
    source: str
    master_in_weights: float = 0


ZERO_ACCOUNTING_SOURCE = (
    "ZeRO paper (arXiv 1910.02054) §3.1 and §5.1, as DeepSpeed runs it: 16-bit parameters 2Ψ, "
    "16-bit gradients 2Ψ, optimizer state KΨ with K = 12 (fp32 master copy 4, momentum 4, "
    "variance 4); stage 1 (P_os) partitions the KΨ over the Nd data-parallel ranks, stage 2 "
    "(P_os+g) also the gradients, stage 3 (P_os+g+p) also the parameters"
)


def training_precision(precision: str | None, zero: int | None) -> str:
    """The training-state accounting a request is sized with: the one named; else the ZeRO
    paper's ("mixed-zero", what DeepSpeed holds) when a ZeRO stage is set, so a stage means
    what DeepSpeed and the paper mean; else Hugging Face Trainer's "mixed-hf"."""
    if precision is not None:
        return precision
    return "mixed-zero" if zero else "mixed-hf"


# Bytes of optimizer *moment* state per parameter, by the dtype the states are kept in.
_STATE_FP32: dict[str, float] = {"adamw": 8, "adamw-8bit": 2, "sgd": 4, "adafactor": 0}
_STATE_BF16: dict[str, float] = {"adamw": 4, "adamw-8bit": 2, "sgd": 2, "adafactor": 0}


def state_bytes_per_param(precision: str, optimizer: str) -> StateBytes:
    """Model-state bytes per trainable parameter for a precision/optimizer pair."""
    if precision == "mixed-zero":
        # optimizer K includes the fp32 master weights (4) in the ZeRO paper's accounting
        return StateBytes(2, 2, 4 + _STATE_FP32[optimizer], "ZeRO paper §3.1: 2Ψ + 2Ψ + KΨ")
    if precision == "mixed-hf":
        return StateBytes(
            6,
            4,
            _STATE_FP32[optimizer],
            "HF 'Model training anatomy': weights 6, grads 4",
            master_in_weights=4,
        )
    if precision == "bf16":
        return StateBytes(2, 2, _STATE_BF16[optimizer], "pure bf16: states in parameter dtype")
    return StateBytes(4, 4, _STATE_FP32[optimizer], "fp32 training")


def adafactor_state_entries(arch: Architecture) -> int:
    """Entries of Adafactor's factored second moment for the whole model: rows + columns per
    weight matrix (each expert is its own matrix), the full size for 1-D tensors."""
    h, v = arch.hidden_size, arch.vocab_size
    entries = (v + h) * (1 if arch.tied_embeddings else 2) + h
    for shape in layer_shapes(arch):
        per_layer = sum((lin.rows + lin.cols) * lin.copies for lin in shape.linears)
        entries += (per_layer + shape.vector_params) * shape.count
    return entries


def lora_params(arch: Architecture, rank: int, targets: Iterable[str]) -> int:
    """Trainable LoRA parameters: rank · (in + out) per targeted matrix (A: r×in, B: out×r;
    Hu et al. 2021, arXiv 2106.09685 §4), every expert included for MoE models."""
    wanted = set(targets)
    total = 0
    for shape in layer_shapes(arch):
        per_layer = sum(
            rank * (lin.rows + lin.cols) * lin.copies
            for lin in shape.linears
            if lin.lora_target in wanted
        )
        total += per_layer * shape.count
    return total


ADAPTER_STATE = StateBytes(
    2,
    2,
    8,
    "QLoRA reference implementation (artidoro/qlora qlora.py): LoRA layers cast to bf16 with "
    "--bf16, paged AdamW 32-bit states",
)
"""LoRA/QLoRA adapter accounting per adapter parameter (AdamW; other optimizers scale the
optimizer part like full training). PEFT's default autocast keeps adapters in fp32 instead:
+2 B weights and +2 B gradients per adapter parameter."""


ADAPTER_STATE_FP32_SOURCE = (
    "PEFT get_peft_model(autocast_adapter_dtype=True, the default): bf16/fp16 adapter weights "
    "are upcast to fp32 for stable training"
)


def adapter_state_bytes(optimizer: str, adapter_dtype: str = "bf16") -> StateBytes:
    """Bytes per adapter parameter for `optimizer`: adapter weights and gradients in
    `adapter_dtype` (bf16: 2 B each, as the QLoRA paper; fp32: 4 B each, PEFT's default),
    optimizer states in fp32."""
    if adapter_dtype == "fp32":
        return StateBytes(4, 4, _STATE_FP32[optimizer], ADAPTER_STATE_FP32_SOURCE)
    return StateBytes(
        ADAPTER_STATE.weights, ADAPTER_STATE.gradients, _STATE_FP32[optimizer], ADAPTER_STATE.source
    )
