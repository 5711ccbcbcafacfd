"""Training time: FLOPs per token, MFU per GPU generation from published runs, recompute, and the
wall-clock efficiency GPU-hour budgets carry.

- FLOPs per token on the 6N (+attention) basis: forward 2N + backward 4N (Kaplan et al. 2020
  §2.1), attention forward + 2× backward. LoRA/QLoRA 4N: the frozen base needs no weight-gradient
  matmuls (Hu et al. 2021, §4.2); the adapters' own FLOPs (< 1% at usual ranks) are left out.
- MFU is defined on that basis, as published runs report it (MosaicML llm-foundry "MFU counts
  6N + attention, not recompute"; Llama 3 paper Table 4), fitted per GPU generation
  (catalog/performance.toml `training_mfu`).
- Full activation recompute (gradient checkpointing of whole layers, what the memory calculator
  sizes when checkpointing is on) reruns each layer's forward: the GPUs do (8N + 4·attn) of work
  for (6N + 3·attn) of model FLOPs (Korthikanti et al. 2022, arXiv 2205.05198 §5: full
  recomputation adds one forward pass). Selective recompute (flash attention's scores only)
  costs nothing here.
- Wall-clock: GPU-hour budgets divide the compute time by the effective-training-time share
  (Llama 3 paper §3.3.4: "higher than 90% effective training time" at 16K H100s; failures,
  restarts and checkpoint writes take the rest).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from tools.architecture import Architecture, ParamCounts
from tools.catalog import GpuSpec
from tools.performance.basis import SpeedBasis
from tools.performance.calibration import Calibration, Constant, calibration
from tools.performance.efficiency import DECODE_BANDWIDTH_EFF, DEFAULT_GEMM_MFU
from tools.performance.hardware import compute_rate, gpu_class
from tools.performance.roofline import ModelOnGpus, attention_flops

TrainingTask = Literal["full", "lora", "qlora"]

DEFAULT_WALLCLOCK_EFFICIENCY = 0.90
WALLCLOCK_SOURCE = (
    "Llama 3 paper (arXiv 2407.21783) §3.3.4: 'higher than 90% effective training time' on "
    "16K H100 GPUs"
)


def training_flops_per_token(
    params: ParamCounts, arch: Architecture, task: TrainingTask, recompute: bool, seq_len: int
) -> float:
    """Training FLOPs per token the GPUs execute: 6N full / 4N LoRA (+2N with full recompute),
    plus attention 3× its forward FLOPs (4× with recompute)."""
    n = params.active_per_token
    base = {"full": 6.0, "lora": 4.0, "qlora": 4.0}[task] * n
    attention_per_token = attention_flops(arch, seq_len, seq_len) / seq_len
    passes = 3.0
    if recompute:
        base += 2.0 * n
        passes = 4.0
    return base + passes * attention_per_token


def model_flops_per_token(
    params: ParamCounts, arch: Architecture, task: TrainingTask, seq_len: int
) -> float:
    """Model FLOPs per token (the MFU basis: no recompute)."""
    return training_flops_per_token(params, arch, task, False, seq_len)


def qlora_dequant_s_per_step(weight_bytes_total: int, params: ParamCounts, gpu: GpuSpec) -> float:
    """QLoRA dequantisation time per optimizer micro-step on one GPU, seconds.

    The 4-bit base is dequantised to bf16 before each matmul: per pass it reads the NF4 bytes
    and writes 2 bytes per parameter (memory-bound elementwise work, at DECODE_BANDWIDTH_EFF).
    Three passes per step (forward, recompute, backward) as QLoRA runs with checkpointing
    (Dettmers et al. 2023 §4).
    """
    per_pass = weight_bytes_total + 2 * params.total
    return 3 * per_pass / (gpu.memory_bandwidth_bytes_per_s * DECODE_BANDWIDTH_EFF)


@dataclass(frozen=True)
class TrainingMfu:
    """The MFU a training run on one GPU generation is assumed to reach, and its basis."""

    value: float
    generation: str
    basis: SpeedBasis
    constant: Constant | None


def training_mfu(gpu: GpuSpec, cal: Calibration | None = None) -> TrainingMfu:
    """MFU (6N + attention basis) fitted on published runs of `gpu`'s generation; the Llama 3
    paper's 40% (estimated) for generations without a run."""
    generation = gpu_class(gpu).generation
    table = (cal or calibration()).constants.get("training_mfu", {})
    own = table.get(generation)
    if own is not None:
        return TrainingMfu(own.value, generation, "calibrated", own)
    pooled = table.get("any")
    value = pooled.value if pooled is not None else DEFAULT_GEMM_MFU
    return TrainingMfu(value, generation, "estimated", pooled)


def wallclock_efficiency(cal: Calibration | None = None) -> float:
    """Share of wall-clock time a training job computes (the rest: failures, restarts)."""
    sourced = (cal or calibration()).wallclock_efficiency
    return sourced.value if sourced is not None else DEFAULT_WALLCLOCK_EFFICIENCY


def training_mfu_caveat(gpu: GpuSpec) -> str | None:
    """A caveat for training times on `gpu` when no published run of its generation calibrates
    the MFU (None when one does)."""
    mfu = training_mfu(gpu)
    if mfu.basis == "calibrated":
        return None
    measured = sorted(calibration().constants.get("training_mfu", {}))
    have = ", ".join(g for g in measured if g != "any") or "none"
    return (
        f"Training time on {gpu.name} ({gpu.architecture}) is estimated: no published training "
        f"run on its generation calibrates the MFU (runs from at least two publications; "
        f"generations with such runs: {have}), so it "
        f"assumes {mfu.value:.0%} MFU of its datasheet bf16 peak; its software stack may reach "
        "a different share."
    )


@dataclass(frozen=True)
class TrainingTime:
    """Training wall-clock: per optimizer step, total, GPU-hours, and what they rest on."""

    step_s: float
    steps: int
    hours: float
    gpu_hours: float
    flops_per_token: float
    mfu: float = DEFAULT_GEMM_MFU
    wallclock_efficiency: float = DEFAULT_WALLCLOCK_EFFICIENCY
    basis: SpeedBasis = "estimated"
    tokens_per_s_per_gpu: float = 0.0


def training_time(
    m: ModelOnGpus,
    task: TrainingTask,
    num_gpus: int,
    seq_len: int,
    global_batch_sequences: int,
    train_tokens: float,
    recompute: bool,
    micro_batch_sequences: int = 1,
) -> TrainingTime | None:
    """Training time on `num_gpus` GPUs: step = tokens/step × model FLOPs/token × recompute
    factor / (GPUs × peak × MFU); QLoRA adds its dequantisation time; hours and GPU-hours are
    wall-clock (÷ the effective-training-time share). None when the GPU publishes no tensor
    throughput."""
    rate = compute_rate(m.gpu, "bf16")  # training matmuls run in bf16 (mixed precision)
    if rate is None:
        return None
    mfu = training_mfu(m.gpu)
    wall = wallclock_efficiency()
    model_flops = model_flops_per_token(m.params, m.arch, task, seq_len)
    executed = training_flops_per_token(m.params, m.arch, task, recompute, seq_len)
    tokens_per_step = seq_len * global_batch_sequences
    step_s = tokens_per_step * executed / (num_gpus * rate.flops_per_s * mfu.value)
    if task == "qlora":
        micro_steps = math.ceil(global_batch_sequences / (micro_batch_sequences * num_gpus))
        step_s += micro_steps * qlora_dequant_s_per_step(m.weight_bytes_total, m.params, m.gpu)
    steps = math.ceil(train_tokens / tokens_per_step)
    hours = steps * step_s / 3600 / wall
    return TrainingTime(
        step_s=step_s,
        steps=steps,
        hours=hours,
        gpu_hours=hours * num_gpus,
        flops_per_token=model_flops,
        mfu=mfu.value,
        wallclock_efficiency=wall,
        basis=mfu.basis,
        tokens_per_s_per_gpu=tokens_per_step / step_s / num_gpus,
    )
