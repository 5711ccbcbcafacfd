"""Advice notes for a recommendation, each triggered by a number, and the speed assumptions.

A note is only emitted when the figures of this workload call for it (fits on one GPU, tensor
parallelism over a slow link, MoE, KV-dominated memory, room for more tenants), and it carries
those figures. Notes never contain a figure that no tool computed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tools.architecture import Architecture, ParamCounts
from tools.performance import (
    DECODE_BANDWIDTH_EFF,
    NCCL_RING_BASE_LATENCY_S,
    PREFILL_MFU,
    TRAINING_MFU,
)
from tools.units import format_bytes, format_count
from tools.workload import Workload

if TYPE_CHECKING:
    from tools.recommend import Option


def _gib(n: float) -> str:
    return format_bytes(n, "GiB", 1)


def advise(
    w: Workload,
    arch: Architecture,
    params: ParamCounts,
    best: list[Option],
    weight_bytes: int,
    base: Any,
) -> tuple[list[str], str | None]:
    """Notes triggered by the numbers of `best` (best option per GPU, ranked), and an
    explanation of the nearest feasible configuration when nothing meets the targets."""
    notes: list[str] = []
    meeting = [o for o in best if o.meets_targets]
    single = [o for o in meeting if o.count == 1]
    if single:
        o = single[0]
        what = (
            f"{_gib(o.kv_cache_capacity_bytes)} left for KV cache "
            f"({format_count(o.kv_cache_capacity_tokens)} tokens)"
            if not w.is_training
            else f"{_gib(o.headroom_bytes)} headroom"
        )
        notes.append(
            f"Fits on 1× {o.gpu_name} with {what}: stop there — a second GPU adds cost and "
            "all-reduce traffic, not capacity this workload needs."
        )
        if not w.is_training:
            notes.append(
                "Single-GPU inference has no GPU-to-GPU traffic: PCIe / NVL cards serve it as "
                "well as SXM parts with the same memory and bandwidth."
            )
        spare = o.headroom_bytes
        if weight_bytes and spare >= weight_bytes:
            notes.append(
                f"1× {o.gpu_name} keeps {_gib(spare)} free after this load, ≥ the "
                f"{_gib(weight_bytes)} of weights: room for a second model or many LoRA "
                "adapters on the same GPU (multi-tenant serving)."
            )
    multi = [o for o in meeting if o.tp > 1 or (w.is_training and o.count > 1)]
    if multi and not single:
        o = multi[0]
        why = (
            "training all-reduces gradients every step"
            if w.is_training
            else (
                f"TP={o.tp} runs {2 * arch.num_layers} all-reduces per generated token "
                f"(≥ {NCCL_RING_BASE_LATENCY_S * 1e6:.1f} µs each, NCCL)"
            )
        )
        notes.append(
            f"Multi-GPU: {why} — prefer SXM/OAM parts with NVLink / Infinity Fabric over PCIe "
            "cards (catalog one-direction links: NVLink 300–900 GB/s vs PCIe Gen4 32 GB/s)."
        )
    if arch.moe is not None:
        notes.append(
            f"MoE: memory holds all {format_count(params.total)} parameters "
            f"({_gib(weight_bytes)} of weights) but each token runs "
            f"{format_count(params.active_per_token)} ({arch.moe.experts_per_token} of "
            f"{arch.moe.num_experts} experts): decode speed is near a "
            f"{format_count(params.active_per_token)} dense model at small batch, approaching "
            "all experts read per step as the batch grows."
        )
    if not w.is_training:
        kv_total = base.kv_cache_bytes_per_token * w.context_tokens * w.users
        if weight_bytes and kv_total > weight_bytes:
            notes.append(
                f"KV-dominated: {w.users:,} × {w.context_tokens:,} tokens need "
                f"{_gib(kv_total)} of KV cache vs {_gib(weight_bytes)} of weights — memory "
                "scales with users × context; an fp8 KV cache halves it."
            )
    nearest = None
    if not meeting and best:
        o = best[0]
        state = "fits but misses targets" if o.fits else "does not fit"
        nearest = (
            f"No configuration meets every target. Nearest: {o.count}× {o.gpu_name} "
            f"(TP={o.tp}, PP={o.pp}, DP={o.dp}) {state}: " + "; ".join(o.reasons or ["-"])
        )
    return notes, nearest


def performance_assumptions(w: Workload) -> list[str]:
    """The performance model's assumptions, with their sources, for display."""
    out = [
        f"Decode reaches {DECODE_BANDWIDTH_EFF:.1%} of datasheet memory bandwidth (gpt-fast, "
        "Llama-2-70B bf16 TP=2 on A100-80GB: 1,481.87 of 2,039 GB/s).",
        f"Prefill and batched matmuls at {PREFILL_MFU:.0%} MFU (Llama 3 paper Table 4: "
        "38–43% BF16 on H100).",
        "TP all-reduce: 2 per layer per step, ring 2(t−1)/t · bytes / link + NCCL latency.",
        "TTFT = prefill of one prompt + one decode step, no queueing.",
    ]
    if w.is_training:
        out.append(
            f"Training at {TRAINING_MFU:.0%} MFU; 6·N FLOPs/token full, 4·N LoRA/QLoRA, "
            "+2·N with activation recompute (Kaplan et al. 2020)."
        )
    if w.batching == "static":
        longest = w.max_output_tokens or 2 * w.output_tokens
        out.append(
            f"Static batching: slots wait for the longest output ({longest:,} tokens) → "
            f"throughput × {w.output_tokens / longest:.2f} (mean/max) vs continuous batching."
        )
    return out
