"""Roofline performance model for LLM inference and training, with named, sourced efficiencies.

No GPU reaches its datasheet figures, so every speed below is datasheet × an *achieved fraction*
taken from a published measurement (constants at the top, each with its source). Formulas:

- Decode step (all sequences of a batch advance one token), per GPU of a tensor-parallel group:
  memory time = (weight bytes read + KV-cache bytes read) / (bandwidth × DECODE_BANDWIDTH_EFF);
  compute time = FLOPs / (peak × MFU); step = max(memory, compute) + TP all-reduce time
  (the roofline of Williams et al., CACM 2009, applied per step). Weight bytes read count each
  tensor at its stored size (tools.memory.weight_bytes: 16-bit tensors a quantized checkpoint
  keeps are read at 2 bytes, not at the model's average). Weight bytes read for MoE use
  the expected number of distinct experts touched by B tokens, E·(1 − (1 − k/E)^B) per layer
  (each token picks k of E experts; uniform routing assumed), so small batches read ~k experts
  and large batches read all E.
- Prefill of s tokens: FLOPs = 2·N_active·s (Kaplan et al. 2020, §2.1: 2N per token forward)
  + causal attention 2·L·heads·(d_qk + d_v)·s²/2 (QKᵀ and AV, half the pairs); time =
  max(FLOPs / (peak × PREFILL_MFU), weight bytes / bandwidth) + all-reduce time.
- TP all-reduce: 2 per layer per forward (after attention and after the MLP; Megatron-LM,
  Shoeybi et al. 2019, §3), ring cost 2(t−1)/t · bytes / link bandwidth (nccl-tests
  doc/PERFORMANCE.md "bus bandwidth") + NCCL's latency model (src/graph/tuning.cc).
- Training: 6·N·D FLOPs (Kaplan et al. 2020 §2.1; Hoffmann et al. 2022), 8·N·D with full
  activation recompute (one extra forward), LoRA/QLoRA 4·N·D (see `training_flops_per_token`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from tools.architecture import Architecture, ParamCounts
from tools.catalog import GpuSpec
from tools.memory.weights import WeightBytes, weight_bytes

# --- named efficiency factors -------------------------------------------------------------

# Achieved fraction of datasheet memory bandwidth in a batch-1 decode loop. Source: gpt-fast
# (pytorch-labs/gpt-fast README, "Tensor Parallelism" table): Llama-2-70B bf16 on 2× A100-80GB
# reached 1,481.87 GB/s per GPU against the 2,039 GB/s datasheet → 0.727. That row is a 70B
# model with tensor parallelism, so it is independent of the Llama-2-7B single-GPU row the tests
# check against. The same README notes ~1,700 GB/s (0.834) as the empirical peak of a pure
# copy on that machine: kernels in a decode loop reach ~87% of it.
DECODE_BANDWIDTH_EFF = 1481.87 / 2039.0
PEAK_COPY_BANDWIDTH_EFF = 1700.0 / 2039.0  # gpt-fast README note; an upper bound, for checks

# Model FLOPs utilisation of large GEMMs (prefill, batched decode, training). Source: Llama 3
# paper (Dubey et al. 2024, Table 4): 38–43% BF16 MFU on H100 for 405B pre-training; Megatron-LM
# (Narayanan et al. 2021) 41.5–56.3% on A100. 0.40 sits inside the first range and just below
# the second.
PREFILL_MFU = 0.40
TRAINING_MFU = 0.40
# The GPU architectures (catalog gpus.toml `architecture`) those MFU measurements come from:
# H100 (Llama 3 paper) and A100 (Megatron-LM). On any other GPU the same share of its datasheet
# peak is an extrapolation, and a training option on one says so (QA round 4, 13).
MFU_MEASURED_ARCHITECTURES: dict[str, str] = {
    "Hopper GH100": "H100, Llama 3 paper",
    "Ampere GA100": "A100, Megatron-LM",
}


def training_mfu_caveat(gpu: GpuSpec) -> str | None:
    """A caveat for training times on `gpu` when TRAINING_MFU was not measured on its
    architecture (None when it was)."""
    if gpu.architecture in MFU_MEASURED_ARCHITECTURES:
        return None
    measured = "; ".join(MFU_MEASURED_ARCHITECTURES.values())
    return (
        f"Training time on {gpu.name} ({gpu.architecture}) assumes {TRAINING_MFU:.0%} MFU, "
        f"measured on other GPUs ({measured}): no measurement for this one is used, so its "
        "hours and job cost extrapolate from its datasheet bf16 peak; its software stack may "
        "reach a different share."
    )


# NCCL's latency model for a ring all-reduce with the low-latency (LL) protocol, used for the
# small messages of decode: base 6.6 µs + per-hop 0.6 µs (NVLink) / 1.0 µs (PCIe) / 2.7 µs
# (network). Source: NVIDIA/nccl src/graph/tuning.cc, baseLat[Ring][LL] and hwLat tables.
NCCL_RING_BASE_LATENCY_S = 6.6e-6
NCCL_HOP_LATENCY_S: dict[str, float] = {"nvlink": 0.6e-6, "pcie": 1.0e-6, "network": 2.7e-6}

# PCIe x16 bandwidth per direction, bytes/s, from the PCI-SIG signalling rates: Gen3 8 GT/s,
# Gen4 16 GT/s, Gen5 32 GT/s with 128b/130b encoding → 16 lanes × rate × 128/130 / 8 bits.
PCIE_X16_BYTES_PER_S: dict[int, float] = {
    gen: 16 * rate * 1e9 * 128 / 130 / 8 for gen, rate in ((3, 8), (4, 16), (5, 32), (6, 64))
}
DEFAULT_PCIE_GEN = 4  # when the catalog has no PCIe generation (stated in assumptions)

ComputeDtype = Literal["bf16", "fp16", "fp8", "int8", "fp4"]
LinkKind = Literal["nvlink", "pcie", "network"]

# Weight formats whose matmuls run on low-precision tensor cores when the GPU has them:
# fp8 (W8A8 with dynamic activation scales, vLLM/TensorRT-LLM FP8) and mxfp4 (Blackwell FP4
# tensor cores). Weight-only formats dequantise to 16-bit and compute in bf16: int8 here is
# W8A16 (tools/memory/formats.py), likewise GPTQ/AWQ int4, NF4 and GGUF.
_LOW_PRECISION_COMPUTE: dict[str, ComputeDtype] = {
    "fp8": "fp8",
    "mxfp4": "fp4",
}


@dataclass(frozen=True)
class ComputeRate:
    """Peak dense tensor throughput the model's matmuls run at, FLOP/s, and the dtype chosen."""

    flops_per_s: float
    dtype: ComputeDtype
    reason: str


def compute_rate(gpu: GpuSpec, weight_format: str) -> ComputeRate | None:
    """Peak dense FLOP/s for `weight_format` on `gpu` (low-precision tensor cores when both the
    format and the GPU support them, else bf16, else fp16); None when the GPU publishes none."""
    fmt = weight_format.lower()
    low = _LOW_PRECISION_COMPUTE.get(fmt)
    table: dict[ComputeDtype, float | None] = {
        "fp8": gpu.fp8_tflops,
        "int8": gpu.int8_tops,
        "fp4": gpu.fp4_tflops,
        "bf16": gpu.bf16_tflops,
        "fp16": gpu.fp16_tflops,
    }
    if low is not None:
        low_value = table[low]
        if low_value is not None:
            return ComputeRate(low_value * 1e12, low, f"{fmt} weights on {low} tensor cores")
    dtype: ComputeDtype
    for dtype in ("bf16", "fp16"):
        value = table[dtype]
        if value is not None:
            why = f"{fmt} weights computed in {dtype}"
            if low is not None:
                why += f" ({gpu.name} publishes no {low} tensor throughput)"
            return ComputeRate(value * 1e12, dtype, why)
    return None


@dataclass(frozen=True)
class Link:
    """GPU-to-GPU link used by tensor-parallel all-reduces: bytes/s one direction, and kind."""

    bytes_per_s: float
    kind: LinkKind
    assumed: bool  # True when the catalog has no figure and PCIe was assumed


def gpu_link(gpu: GpuSpec) -> Link:
    """The link a TP group on `gpu` talks over. NVLink/Infinity Fabric use the catalog's
    per-GPU one-direction bandwidth; without a figure, PCIe of the GPU's generation."""
    kind: LinkKind = "nvlink" if gpu.interconnect in ("nvlink", "nvlink-bridge") else "pcie"
    if gpu.interconnect == "infinity-fabric":
        kind = "nvlink"  # same latency class: a direct GPU-to-GPU fabric
    if gpu.interconnect == "ethernet":
        kind = "network"
    if gpu.interconnect_bytes_per_s is not None:
        return Link(gpu.interconnect_bytes_per_s, kind, assumed=False)
    gen = gpu.pcie_gen or DEFAULT_PCIE_GEN
    return Link(PCIE_X16_BYTES_PER_S[gen], "pcie", assumed=True)


def allreduce_time_s(message_bytes: float, tp: int, link: Link) -> float:
    """One ring all-reduce of `message_bytes` over `tp` GPUs, seconds:
    2(t−1)/t · bytes / link bandwidth + NCCL base latency + 2(t−1) hops × per-hop latency."""
    if tp <= 1:
        return 0.0
    transfer = 2 * (tp - 1) / tp * message_bytes / link.bytes_per_s
    latency = NCCL_RING_BASE_LATENCY_S + 2 * (tp - 1) * NCCL_HOP_LATENCY_S[link.kind]
    return transfer + latency


def expected_distinct_experts(num_experts: int, experts_per_token: int, tokens: int) -> float:
    """Expected distinct experts touched in one MoE layer by `tokens` tokens, each routed to
    `experts_per_token` of `num_experts` uniformly: E·(1 − (1 − k/E)^B)."""
    e, k = num_experts, experts_per_token
    return e * (1.0 - (1.0 - k / e) ** max(tokens, 1))


def weight_bytes_read(weights: WeightBytes, arch: Architecture, tokens: int) -> float:
    """Weight bytes streamed from memory for one forward over `tokens` tokens, bytes (for the
    tensor-parallel degree `weights` was sized at; the whole model when tp = 1).

    Every tensor counts at its own stored size (tools.memory.weight_bytes: a quantized format
    keeps the embedding and output layer — and for mxfp4 attention and router — in 16-bit), so
    a model whose active path is mostly 16-bit is not read at the quantized average. The input
    embedding is a row gather (only `tokens` rows are read), so it is excluded unless it is
    tied to the output layer, which reads it whole. MoE routed experts scale by the expected
    share of experts touched (see `expected_distinct_experts`); their 1-D biases are counted
    whole (at most ~2% of gpt-oss-120b's active bytes: an upper bound on the bytes read).
    """
    read = float(weights.total)
    if not arch.tied_embeddings:
        read -= weights.embedding
    if arch.moe is not None and weights.routed_experts:
        share = (
            expected_distinct_experts(arch.moe.num_experts, arch.moe.experts_per_token, tokens)
            / arch.moe.num_experts
        )
        read -= weights.routed_experts * (1.0 - share)
    return read


def attention_flops(arch: Architecture, query_tokens: int, context_tokens: int) -> float:
    """Attention score and value FLOPs (forward) for `query_tokens` new tokens attending to a
    causal context ending at `context_tokens`: 2 FLOPs per multiply-add × heads × (d_qk + d_v)
    per (query, key) pair; sliding-window layers see at most the window."""
    if arch.mla is not None:
        d_qk = arch.mla.qk_nope_head_dim + arch.mla.qk_rope_head_dim
        d_v = arch.mla.v_head_dim
    else:
        d_qk = d_v = arch.head_dim
    per_pair = 2 * arch.num_attention_heads * (d_qk + d_v)
    start = context_tokens - query_tokens  # tokens already in the cache

    def pairs(window: int | None) -> float:
        # Query i (0-based, absolute position start+i) sees start+i+1 keys, capped by window.
        full = query_tokens * start + query_tokens * (query_tokens + 1) / 2
        if window is None or window >= context_tokens:
            return full
        return min(full, float(query_tokens * window))

    window_layers = arch.sliding_window_layers
    full_layers = arch.num_layers - window_layers
    total_pairs = full_layers * pairs(None) + window_layers * pairs(arch.sliding_window)
    return per_pair * total_pairs


@dataclass(frozen=True)
class StepTime:
    """Time of one decode step or one prefill, seconds, with the roofline terms."""

    seconds: float
    memory_s: float
    compute_s: float
    communication_s: float
    bound: Literal["memory", "compute"]


@dataclass(frozen=True)
class ModelOnGpus:
    """What the performance model needs about a model placed on a TP×PP group of one GPU type.

    `weight_bytes_total` is the whole model's weight bytes in its format (from
    tools.memory.weight_bytes); `kv_bytes_per_token_per_gpu` the KV cache one token adds on one
    GPU (from tools.memory, which handles replication of KV heads when tp > kv heads).
    `weights`: the whole model's per-tensor bytes (tools.memory.weight_bytes at tp = 1) that
    decode and prefill read; when omitted they are sized from `arch` and `weight_format`, and
    either way their total must equal `weight_bytes_total`.
    """

    arch: Architecture
    params: ParamCounts
    weight_bytes_total: int
    weight_format: str
    kv_bytes_per_token_per_gpu: float
    gpu: GpuSpec
    tp: int = 1
    pp: int = 1
    weights: WeightBytes | None = None

    def __post_init__(self) -> None:
        if self.weights is None:
            # The frozen dataclass is completed once here, so every step reads per-tensor bytes.
            object.__setattr__(self, "weights", weight_bytes(self.arch, self.weight_format))
        assert self.weights is not None
        if self.weights.total != self.weight_bytes_total:
            raise ValueError(
                f"weight_bytes_total {self.weight_bytes_total:,} B differs from the per-tensor "
                f"total {self.weights.total:,} B of {self.weights.fmt}: pass `weights` sized for "
                "the same model and format"
            )

    @property
    def tensor_bytes(self) -> WeightBytes:
        """The whole model's per-tensor weight bytes (set in __post_init__)."""
        assert self.weights is not None
        return self.weights


def _per_gpu_share(m: ModelOnGpus) -> float:
    # Weights and FLOPs split evenly over tp × pp GPUs; a token visits every stage in turn, so a
    # step's latency is the per-GPU share summed over pp stages = whole model / tp.
    return 1.0 / m.tp


def decode_step(m: ModelOnGpus, batch: int, context_tokens: int) -> StepTime:
    """One decode step for `batch` sequences each holding `context_tokens` tokens of KV cache.

    Per-token latency of every sequence = the step time (PP stages run one after another for a
    token; no micro-batch overlap is assumed, which is conservative for throughput).
    """
    bandwidth = m.gpu.memory_bandwidth_bytes_per_s * DECODE_BANDWIDTH_EFF
    weights = weight_bytes_read(m.tensor_bytes, m.arch, batch) * _per_gpu_share(m)
    kv = batch * context_tokens * m.kv_bytes_per_token_per_gpu * m.pp  # all stages, in turn
    memory_s = (weights + kv) / bandwidth
    flops = (2 * m.params.active_per_token * batch) + batch * attention_flops(
        m.arch, 1, context_tokens
    )
    rate = compute_rate(m.gpu, m.weight_format)
    compute_s = (
        0.0 if rate is None else flops * _per_gpu_share(m) / (rate.flops_per_s * PREFILL_MFU)
    )
    comm_s = _tp_comm_s(m, batch)
    core = max(memory_s, compute_s)
    return StepTime(
        core + comm_s, memory_s, compute_s, comm_s, "memory" if memory_s >= compute_s else "compute"
    )


def _tp_comm_s(m: ModelOnGpus, tokens: int) -> float:
    # Activations are 16-bit: each all-reduce moves tokens × hidden × 2 bytes.
    message = tokens * m.arch.hidden_size * 2
    return 2 * m.arch.num_layers * allreduce_time_s(message, m.tp, gpu_link(m.gpu))


def prefill_time(m: ModelOnGpus, prompt_tokens: int) -> StepTime | None:
    """Prefill of one prompt of `prompt_tokens` tokens (no queueing), seconds; None when the
    GPU publishes no tensor throughput for the compute dtype."""
    rate = compute_rate(m.gpu, m.weight_format)
    if rate is None:
        return None
    flops = 2 * m.params.active_per_token * prompt_tokens + attention_flops(
        m.arch, prompt_tokens, prompt_tokens
    )
    compute_s = flops * _per_gpu_share(m) / (rate.flops_per_s * PREFILL_MFU)
    bandwidth = m.gpu.memory_bandwidth_bytes_per_s * DECODE_BANDWIDTH_EFF
    memory_s = (
        weight_bytes_read(m.tensor_bytes, m.arch, prompt_tokens) * _per_gpu_share(m) / bandwidth
    )
    comm_s = _tp_comm_s(m, prompt_tokens)
    core = max(memory_s, compute_s)
    return StepTime(
        core + comm_s, memory_s, compute_s, comm_s, "memory" if memory_s > compute_s else "compute"
    )


def static_batching_factor(mean_output_tokens: float, max_output_tokens: float) -> float:
    """Share of decode slots doing useful work under static batching, where a batch holds its
    slots until its longest sequence ends: mean / max output length. Continuous batching (Orca,
    Yu et al. OSDI 2022; vLLM) refills a slot as soon as its sequence ends: factor 1."""
    return min(1.0, mean_output_tokens / max_output_tokens)


TrainingTask = Literal["full", "lora", "qlora"]


def training_flops_per_token(
    params: ParamCounts, arch: Architecture, task: TrainingTask, recompute: bool, seq_len: int
) -> float:
    """Training FLOPs per token.

    Full fine-tune: forward 2N + backward 4N (gradients w.r.t. activations 2N and w.r.t.
    weights 2N) = 6N (Kaplan et al. 2020 §2.1). LoRA/QLoRA: the frozen base needs no
    weight-gradient matmuls, only activation gradients to reach the adapters (Hu et al. 2021,
    §4.2: no gradients for most parameters) → 2N + 2N = 4N; the adapters' own FLOPs are
    < 1% at usual ranks and are left out. Full activation recompute reruns the forward: +2N.
    Attention adds 3× its forward FLOPs (forward + 2× backward), 4× with recompute.
    """
    n = params.active_per_token
    base = {"full": 6.0, "lora": 4.0, "qlora": 4.0}[task] * n
    attention_per_token = attention_flops(arch, seq_len, seq_len) / seq_len
    passes = 3.0
    if recompute:
        base += 2.0 * n
        passes = 4.0
    return base + passes * attention_per_token


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
class TrainingTime:
    """Training wall-clock: per optimizer step, total, and GPU-hours."""

    step_s: float
    steps: int
    hours: float
    gpu_hours: float
    flops_per_token: float


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
    """Training time on `num_gpus` GPUs: step = tokens/step × FLOPs/token / (GPUs × peak × MFU);
    QLoRA adds its dequantisation time. None when the GPU publishes no tensor throughput."""
    rate = compute_rate(m.gpu, "bf16")  # training matmuls run in bf16 (mixed precision)
    if rate is None:
        return None
    flops_per_token = training_flops_per_token(m.params, m.arch, task, recompute, seq_len)
    tokens_per_step = seq_len * global_batch_sequences
    step_s = tokens_per_step * flops_per_token / (num_gpus * rate.flops_per_s * TRAINING_MFU)
    if task == "qlora":
        micro_steps = math.ceil(global_batch_sequences / (micro_batch_sequences * num_gpus))
        step_s += micro_steps * qlora_dequant_s_per_step(m.weight_bytes_total, m.params, m.gpu)
    steps = math.ceil(train_tokens / tokens_per_step)
    hours = steps * step_s / 3600
    return TrainingTime(step_s, steps, hours, hours * num_gpus, flops_per_token)
