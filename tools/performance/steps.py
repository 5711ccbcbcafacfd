"""One engine step: decode tokens for a batch of sequences, optionally with a chunk of prefill.

    step = L × layer_overhead + step_overhead       (launches, syncs; host work per step)
         + max(weights / BW′ + dequant, linear FLOPs / F′)   (roofline, Williams et al.,
         + max(KV read / BW′, attention FLOPs / F′)  CACM 2009, of the GEMMs and of attention)
         + 2 L × all-reduce(tp)                     (Megatron-LM: 2 per layer, Shoeybi 2019 §3)

BW′ = streamable bandwidth × η_bandwidth (tools/performance/hardware.py stream_bandwidth);
dequant = quantized bytes × FLOPs per byte / FP32 FLOP/s for weight-only formats (the vector
ALUs unpack each weight; it overlaps the stream only partly, so it adds); F′ = tp × peak ×
GEMM MFU; linear FLOPs count routed-expert FLOPs / η_moe (MoE expert GEMMs at full load,
relative to dense ones).
all-reduce(tp) = latency(tp) + 2(t−1)/t · tokens · hidden · 2 B / link bandwidth
(nccl-tests doc/PERFORMANCE.md "bus bandwidth"), latency(tp) = base + per_gpu · (tp − 1).

η_bandwidth, layer_overhead, GEMM MFU, η_moe and the all-reduce latency are calibrated per
engine family × GPU class × kernel family (tools/performance/efficiency.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from tools.performance.efficiency import Efficiencies, dequantises, resolve
from tools.performance.hardware import compute_rate, gpu_link, stream_bandwidth
from tools.performance.roofline import ModelOnGpus, routed_expert_share


@dataclass(frozen=True)
class StepTime:
    """Time of one engine step (or a prefill), seconds, with its terms."""

    seconds: float
    memory_s: float
    compute_s: float
    communication_s: float
    overhead_s: float
    bound: Literal["memory", "compute"]


def efficiencies(m: ModelOnGpus) -> Efficiencies:
    """The calibrated efficiencies of `m`'s engine, GPU and weight format (resolved once per
    ModelOnGpus)."""
    cached: Efficiencies | None = m.__dict__.get("_efficiencies")
    if cached is None:
        cached = resolve(m.gpu, m.weight_format, m.engine)
        object.__setattr__(m, "_efficiencies", cached)
    return cached


@dataclass(frozen=True)
class _StepConstants:
    """What every step of one placement at one set of efficiencies shares: the bandwidths,
    the dequantisation switch, the routed share, the seconds per FLOP and the fixed
    overheads (found once; the step model runs hundreds of steps per recommendation)."""

    eff: Efficiencies
    peak_bandwidth: float
    bandwidth: float
    dequantises: bool
    routed_share: float
    per_flop: float
    layer_overheads_s: float


def _step_constants(m: ModelOnGpus, eff: Efficiencies) -> _StepConstants:
    found: _StepConstants | None = m.__dict__.get("_step_constants")
    if found is not None and found.eff is eff:
        return found
    peak_bandwidth = m.cached("stream_bandwidth", lambda: stream_bandwidth(m.gpu))
    rate = m.cached(
        f"rate/{eff.accumulate}", lambda: compute_rate(m.gpu, m.weight_format, eff.accumulate)
    )
    found = _StepConstants(
        eff=eff,
        peak_bandwidth=peak_bandwidth,
        bandwidth=peak_bandwidth * eff.bandwidth_eff,
        dequantises=bool(eff.dequant_flops_per_byte)
        and dequantises(eff.kernel, m.gpu, eff.engine_family),
        routed_share=m.cached("routed_share", lambda: routed_expert_share(m.params, m.arch)),
        per_flop=0.0 if rate is None else m.per_gpu_share / (rate.flops_per_s * eff.gemm_mfu),
        layer_overheads_s=m.arch.num_layers * eff.layer_overhead_s + eff.step_overhead_s,
    )
    object.__setattr__(m, "_step_constants", found)
    return found


def tp_comm_s(m: ModelOnGpus, eff: Efficiencies, tokens: float, passes: float = 1.0) -> float:
    """All-reduce time of one step over `tokens` tokens: 2 per layer, each with the calibrated
    latency and the ring transfer of tokens × hidden × 2 bytes (16-bit activations)."""
    if m.tp <= 1:
        return 0.0
    link = m.cached("link", lambda: gpu_link(m.gpu, m.tp))
    transfer = 2 * (m.tp - 1) / m.tp * tokens * m.arch.hidden_size * 2 / link.bytes_per_s
    latency = eff.allreduce_latency_s(m.tp, link.kind)
    return 2 * m.arch.num_layers * (passes * latency + transfer)


def forward_step(
    m: ModelOnGpus,
    decode_sequences: int,
    decode_context: float,
    prefill_tokens: float = 0.0,
    prefill_context: float = 0.0,
    passes: float = 1.0,
    eff: Efficiencies | None = None,
) -> StepTime:
    """One engine step carrying `decode_sequences` decode tokens (each attending to
    `decode_context` cached tokens) and `prefill_tokens` prompt tokens (attending on average to
    `prefill_context` earlier tokens). `passes` > 1 when the step's tokens exceed the engine's
    per-forward token budget: the weights are read and the launches paid once per pass. `eff`:
    efficiencies to use instead of the calibrated ones (the fit tries candidates)."""
    eff = eff or efficiencies(m)
    const = _step_constants(m, eff)
    tokens = decode_sequences + prefill_tokens
    peak_bandwidth = const.peak_bandwidth
    bandwidth = const.bandwidth
    per_pass = max(1, round(tokens / passes))
    weights = m.step_weight_bytes(per_pass) * passes
    dequant_s = 0.0
    if const.dequantises:
        dequant_s = eff.dequant_s(m.dequant_bytes(per_pass) * passes)
    kv = m.kv_read_bytes(decode_sequences, decode_context)
    matmul = m.matmul_flops(tokens)
    routed = matmul * const.routed_share
    attention = decode_sequences * m.attention_flops_per_token(decode_context)
    if prefill_tokens:
        attention += prefill_tokens * m.attention_flops_per_token(prefill_context)
    moe_eff = eff.moe_gemm_eff if routed else 1.0
    per_flop = const.per_flop
    # Linear layers and attention are separate kernels, each bound by its own roofline: the
    # weights stream through the GEMMs, the KV cache through attention (it cannot hide behind
    # the GEMMs' compute).
    linear_memory_s = weights / bandwidth + dequant_s
    linear_compute_s = ((matmul - routed) + routed / moe_eff) * per_flop
    attention_memory_s = kv / (peak_bandwidth * eff.kv_bandwidth)
    attention_compute_s = attention * per_flop
    core = max(linear_memory_s, linear_compute_s) + max(attention_memory_s, attention_compute_s)
    memory_s = linear_memory_s + attention_memory_s
    compute_s = linear_compute_s + attention_compute_s
    overhead_s = passes * const.layer_overheads_s
    comm_s = tp_comm_s(m, eff, tokens, passes)
    seconds = overhead_s + core + comm_s
    if m.decode_speedup != 1.0 and not prefill_tokens:
        seconds /= m.decode_speedup  # llama.cpp's tensor split (performance/llama_split.py)
    return StepTime(
        seconds,
        memory_s,
        compute_s,
        comm_s,
        overhead_s,
        "memory" if linear_memory_s >= linear_compute_s else "compute",
    )


def decode_step(
    m: ModelOnGpus, batch: int, context_tokens: float, eff: Efficiencies | None = None
) -> StepTime:
    """One decode step for `batch` sequences each holding `context_tokens` tokens of KV cache
    (no prefill in the step): the per-token latency every sequence sees."""
    return forward_step(m, batch, context_tokens, eff=eff)


def prefill_time(
    m: ModelOnGpus,
    prompt_tokens: int,
    chunk_tokens: int | None = None,
    eff: Efficiencies | None = None,
) -> StepTime | None:
    """Prefill of one prompt of `prompt_tokens` tokens with nothing else running, seconds: one
    forward per chunk of at most `chunk_tokens` tokens (the engine's token budget: vLLM
    max_num_batched_tokens, llama.cpp n_ubatch), each reading the weights. None when the GPU
    publishes no tensor throughput."""
    if compute_rate(m.gpu, m.weight_format) is None:
        return None
    chunk = max(1, min(chunk_tokens or prompt_tokens, prompt_tokens))
    passes = prompt_tokens / chunk
    return forward_step(m, 0, 0.0, float(prompt_tokens), prompt_tokens / 2, passes, eff)
