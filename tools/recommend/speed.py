"""The serving speeds one layout's planner asks for, and the labels they carry.

`ServingSpeed` answers the replica planner (tools/replicas.py) at a concurrency b — the decode
speed each user sees, the replica's output tokens/s and the TTFT at that load — from the
steady-state model (tools/performance/serving.py, latency.py), each computed once per b.
`speed_labels` says how far each figure can be trusted (measured / calibrated / estimated)
and what it rests on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tools.catalog import GpuSpec
from tools.performance import (
    Efficiencies,
    EngineLimits,
    ModelOnGpus,
    ServingPoint,
    SpeedBasis,
    compute_rate,
    decode_step,
    find_measurement,
    latency_at,
    latency_curve,
    resolve,
    steady_state,
    weakest,
)
from tools.performance.measured import CONTEXT_TOLERANCE
from tools.recommend.models import LatencyPoint
from tools.workload import Workload


class ServingSpeed:
    """Steady-state speeds of one replica at a concurrency, cached per concurrency."""

    def __init__(
        self,
        m: ModelOnGpus,
        prompt_tokens: int,
        output_tokens: int,
        capacity: int,
        limits: EngineLimits,
    ) -> None:
        self.m = m
        self.prompt_tokens = prompt_tokens
        self.output_tokens = output_tokens
        self.capacity = max(1, capacity)
        self.limits = limits
        self._points: dict[int, ServingPoint] = {}
        self._ttft: dict[int, float] = {}
        self.can_prefill = compute_rate(m.gpu, m.weight_format) is not None

    def point(self, b: int) -> ServingPoint:
        """The steady state at `b` concurrent sequences."""
        b = max(1, b)
        if b not in self._points:
            self._points[b] = steady_state(
                self.m,
                b,
                self.prompt_tokens,
                self.output_tokens,
                self.limits.max_num_batched_tokens,
            )
        return self._points[b]

    def speed(self, b: int) -> float:
        """Decode tokens/s each of `b` users sees."""
        return self.point(b).tokens_per_s_per_seq

    def throughput(self, b: int) -> float:
        """Output tokens/s of the replica with `b` users."""
        return self.point(b).output_tokens_per_s

    def ttft(self, b: int) -> float:
        """Time to first token with `b` users on the replica, seconds (queue + prefill)."""
        b = max(1, b)
        if b not in self._ttft:
            self._ttft[b] = latency_at(
                self.m,
                b,
                self.capacity,
                self.prompt_tokens,
                self.output_tokens,
                self.limits.max_num_batched_tokens,
                point=self.point(min(b, self.capacity)),
            ).ttft_s
        return self._ttft[b]

    def curve(self, users: int) -> list[LatencyPoint]:
        """TTFT and decode speed from 1 user to past the replica's capacity."""
        return [
            LatencyPoint(
                concurrency=p.concurrency,
                ttft_s=p.ttft_s,
                queue_s=p.queue_s,
                inter_token_s=p.inter_token_s,
                tokens_per_s_per_user=p.tokens_per_s_per_user,
                output_tokens_per_s=p.output_tokens_per_s,
            )
            for p in latency_curve(
                self.m,
                users,
                self.capacity,
                self.prompt_tokens,
                self.output_tokens,
                self.limits.max_num_batched_tokens,
            )
        ]


_SOURCES: dict[tuple[object, ...], str] = {}


def _calibrated_source(eff: Efficiencies) -> str:
    """What the efficiencies of a setup rest on, in words (cached per set of constants)."""
    key = (eff.decode_basis, *((c.table, c.key, len(c.rows)) for c in eff.constants))
    found = _SOURCES.get(key)
    if found is None:
        fitted = sorted({r for c in eff.constants for r in c.rows})
        keys = ", ".join(dict.fromkeys(f"{c.table} {c.key}" for c in eff.constants))
        found = (
            f"{eff.decode_basis}: {keys} ({len(fitted)} published rows, catalog/performance.toml)"
            if eff.constants
            else "estimated: published default efficiencies (no calibrated constant applies)"
        ) + gemm_fallback_note(eff)
        _SOURCES[key] = found
    return found


def gemm_fallback_note(eff: Efficiencies) -> str:
    """The assumption behind an estimated GEMM MFU (throughput, TTFT), in words; empty when it
    was fitted on this engine and GPU class (or on Apple chips, timed by their own rate)."""
    if eff.prefill_basis == "calibrated" or eff.gpu_class.startswith("apple"):
        return ""
    gemm = next((c for c in eff.constants if c.table == "gemm_mfu"), None)
    if gemm is None:
        return (
            f"; GEMM MFU {eff.gemm_mfu:.2f} assumed: the published default (Llama 3 paper, "
            "38-43% BF16 on H100), no compute rows of this engine and GPU class"
        )
    return (
        f"; GEMM MFU {gemm.value:.2f} assumed from {gemm.key}: 16-bit constants of other "
        "engines or GPU classes pooled, no compute rows of this engine, GPU class and precision"
    )


@dataclass(frozen=True)
class SpeedLabels:
    """The basis of each serving figure and what it rests on."""

    speed: SpeedBasis
    throughput: SpeedBasis
    ttft: SpeedBasis
    source: str
    measured_tokens_per_s: float | None = None


def speed_labels(w: Workload, est: Any, gpu: GpuSpec, m: ModelOnGpus, batch: int) -> SpeedLabels:
    """Labels for one serving layout at `batch` users per replica. The decode speed is
    *measured* when a published measurement of this exact setup exists at one user per replica
    and the request's context moves the modelled speed by less than CONTEXT_TOLERANCE from the
    measurement's; the measurement is then the figure."""
    eff = resolve(gpu, m.weight_format, m.engine)
    throughput = weakest(eff.decode_basis, eff.prefill_basis)
    source = _calibrated_source(eff)
    measured = None
    if batch == 1 and m.decode_speedup == 1.0:  # a tensor split is not the layer split measured
        found = find_measurement(
            est.model_id, gpu.id, m.weight_format, m.engine, m.tp, m.pp, w.engine_version
        )
        if found is not None:
            at_request = decode_step(m, 1, w.context_tokens).seconds
            at_measure = decode_step(m, 1, found.context_tokens).seconds
            if abs(at_request / at_measure - 1) < CONTEXT_TOLERANCE:
                measured = found.tokens_per_s
                source = f"measured: {found.source} (reference row {found.row})"
                if found.spread:
                    source += f"; {found.spread}"
    decode_basis: SpeedBasis = eff.decode_basis
    if m.decode_speedup != 1.0:
        from tools.performance.llama_split import TENSOR_SPLIT_SOURCE

        # A published speed-up applied to the layer split's figure: an estimate.
        decode_basis = "estimated"
        throughput = "estimated"
        source = f"estimated: {source}; × {m.decode_speedup:.2f} ({TENSOR_SPLIT_SOURCE})"
    return SpeedLabels(
        speed="measured" if measured is not None else decode_basis,
        throughput=throughput,
        ttft=weakest(eff.prefill_basis, eff.decode_basis),
        source=source,
        measured_tokens_per_s=measured,
    )
