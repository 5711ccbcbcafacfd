"""The recommender: for each catalog GPU, the smallest layout that fits and meets the targets.

For every GPU allowed by the constraints it evaluates tensor-parallel sizes that divide the
attention heads and fit in one node (then pipeline stages across nodes when allowed), asks the
memory calculator (`tools.memory.estimate_memory`) what each layout needs per GPU, derives the
KV-cache capacity as budget − (per-GPU bytes − KV bytes) (the identity tools.memory keeps), and
asks the performance model (`tools.performance`) how fast it runs. Data-parallel replicas are
added to reach the users / throughput targets. Every layout evaluated is kept: the best per GPU
in `options`, the others in `rejected`, each with human reasons carrying numbers.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, Field

from tools.advice import advise, performance_assumptions
from tools.architecture import Architecture, ParamCounts, count_parameters
from tools.catalog import GpuSpec, get_catalog
from tools.errors import ToolInputError
from tools.performance import (
    ModelOnGpus,
    decode_step,
    prefill_time,
    static_batching_factor,
    training_time,
)
from tools.units import format_bytes, format_count
from tools.workload import Workload

# A PCIe card has no node size in the catalog; common servers hold 8 (e.g. AWS g6e.48xlarge:
# 8× L40S, g6.48xlarge: 8× L4 — catalog gpus_per_node of those cards).
DEFAULT_GPUS_PER_NODE = 8
# Pipeline stages tried across nodes before giving up (e.g. 405B BF16 on H100 needs 2).
MAX_PIPELINE_STAGES = 16


class Option(BaseModel):
    """One configuration of one GPU type: layout, memory, KV capacity, speed, cost, reasons."""

    gpu: str = Field(description="Catalog GPU id.")
    gpu_name: str
    count: int = Field(description="GPUs in total (tp × pp × dp).")
    tp: int = Field(description="Tensor-parallel size (GPUs sharing each layer).")
    pp: int = Field(description="Pipeline-parallel stages.")
    dp: int = Field(description="Data-parallel replicas.")
    nodes: int = Field(description="Servers needed (GPUs per node from the catalog).")
    fits: bool
    meets_targets: bool
    per_gpu_bytes: int = Field(description="Memory needed per GPU, bytes (requested load).")
    budget_bytes_per_gpu: int = Field(description="Memory the engine may use per GPU, bytes.")
    headroom_bytes: int = Field(description="Budget − needed, bytes (negative: overflow).")
    kv_cache_capacity_bytes: int = Field(description="Bytes per GPU left for KV cache.")
    kv_cache_capacity_tokens: int = Field(description="KV tokens one replica can hold.")
    max_concurrent_sequences: int = Field(description="Sequences of the requested context.")
    decode_tokens_per_s_per_seq: float | None = Field(
        default=None, description="Decode speed each user sees at the chosen concurrency, tok/s."
    )
    aggregate_tokens_per_s: float | None = Field(
        default=None, description="Output tokens/s over all replicas at that concurrency."
    )
    prefill_tokens_per_s: float | None = Field(default=None, description="Prompt tokens/s.")
    ttft_s: float | None = Field(default=None, description="Time to first token, seconds.")
    training_step_s: float | None = None
    training_hours: float | None = None
    gpu_hours: float | None = None
    usd_per_hour: float | None = Field(default=None, description="count × price, USD/hour.")
    reasons: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    gpu_as_of: str = ""


class Recommendation(BaseModel):
    """Options ranked by the objective (best per GPU), rejected layouts, notes, assumptions."""

    model_id: str
    total_params: int
    active_params: int
    weight_bytes: int
    kv_cache_bytes_per_token: int
    context_tokens: int
    objective: str
    options: list[Option]
    rejected: list[Option]
    notes: list[str]
    assumptions: list[str]
    nearest_feasible: str | None = Field(
        default=None, description="When nothing meets the targets: what comes closest and why."
    )


def _memory() -> Any:
    # Imported on first use: tools.memory is built in parallel and importing this module must
    # not depend on it (tests/test_layers.py imports every tools module).
    import tools.memory

    return tools.memory


def estimate_memory(request: Any) -> Any:
    """tools.memory.estimate_memory, imported lazily."""
    return _memory().estimate_memory(request)


def _memory_request(w: Workload, gpu: GpuSpec, tp: int, pp: int, dp: int, batch: int) -> Any:
    fields: dict[str, Any] = {
        "model": w.model,
        "params": w.params,
        "config_path": w.config_path,
        "task": w.task,
        "weights": w.weights,
        "kv_dtype": w.kv_dtype,
        "engine": w.engine,
        "gpu_memory_utilization": w.gpu_memory_utilization,
        "context": w.training_sequence_tokens if w.is_training else w.context_tokens,
        "batch": batch,
        "gpus": tp * pp * dp,
        "tp": tp,
        "pp": pp,
        "gpu": gpu.id,
        "lora_rank": w.lora_rank,
        "checkpointing": w.checkpointing,
        "zero": w.zero,
    }
    return _memory().MemoryRequest(**{k: v for k, v in fields.items() if v is not None})


def _node_size(gpu: GpuSpec) -> int:
    return gpu.gpus_per_node or DEFAULT_GPUS_PER_NODE


def _tp_candidates(w: Workload, gpu: GpuSpec, heads: int) -> list[int]:
    limit = min(_node_size(gpu), w.constraints.max_gpus)
    return [t for t in range(1, limit + 1) if heads % t == 0]


def _allowed_gpus(w: Workload) -> list[GpuSpec]:
    catalog = get_catalog()
    gpus = list(catalog.gpus.values())
    c = w.constraints
    if c.only_gpus:
        gpus = [catalog.gpu(name) for name in c.only_gpus]
    excluded = {catalog.gpu(name).id for name in c.exclude_gpus}
    gpus = [g for g in gpus if g.id not in excluded]
    if c.require_fast_interconnect:
        gpus = [g for g in gpus if g.multi_gpu_fast_link]
    if not gpus:
        raise ToolInputError(
            "constraints",
            "no catalog GPU is left after only_gpus / exclude_gpus / require_fast_interconnect",
            "loosen the GPU filters",
        )
    return gpus


def _gib(n: float) -> str:
    return format_bytes(n, "GiB", 1)


def _layouts(w: Workload, gpu: GpuSpec, heads: int) -> list[tuple[int, int]]:
    tps = _tp_candidates(w, gpu, heads)
    layouts = [(t, 1) for t in tps]
    if not w.constraints.single_node and w.constraints.allow_pipeline_parallel:
        node_tp = max(tps)
        for pp in range(2, MAX_PIPELINE_STAGES + 1):
            if node_tp * pp <= w.constraints.max_gpus:
                layouts.append((node_tp, pp))
    return layouts


def _decode_at(mg: ModelOnGpus, batch: int, context: int) -> float:
    """Per-sequence decode tokens/s at `batch` concurrent sequences."""
    return 1.0 / decode_step(mg, batch, context).seconds


def _largest_batch_meeting(mg: ModelOnGpus, max_batch: int, context: int, target: float) -> int:
    """Largest concurrency ≤ max_batch whose per-sequence speed is ≥ target (0 if none)."""
    if _decode_at(mg, 1, context) < target:
        return 0
    lo, hi = 1, max_batch
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if _decode_at(mg, mid, context) >= target:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _inference_option(
    w: Workload, gpu: GpuSpec, tp: int, pp: int, prices: dict[str, float]
) -> Option:
    est = estimate_memory(_memory_request(w, gpu, tp, pp, 1, 1))
    ctx = w.context_tokens
    kv_one_seq = int(est.breakdown.get("kv_cache", 0))
    non_kv = est.per_gpu_bytes - kv_one_seq
    capacity = int(est.budget_bytes_per_gpu - non_kv)
    per_token = est.kv_cache_bytes_per_token_per_gpu or 1
    capacity_tokens = max(0, int(capacity // per_token))
    max_seqs = max(0, capacity // kv_one_seq) if kv_one_seq else 0
    reasons: list[str] = []
    opt = dict(
        gpu=gpu.id,
        gpu_name=gpu.name,
        tp=tp,
        pp=pp,
        per_gpu_bytes=est.per_gpu_bytes,
        budget_bytes_per_gpu=int(est.budget_bytes_per_gpu),
        kv_cache_capacity_bytes=max(0, capacity),
        kv_cache_capacity_tokens=capacity_tokens,
        max_concurrent_sequences=int(max_seqs),
        gpu_as_of=gpu.as_of,
    )
    if max_seqs < 1:
        need = non_kv + kv_one_seq
        reasons.append(
            f"TP={tp} PP={pp}: needs {_gib(need)} per GPU for weights, runtime and one "
            f"{ctx:,}-token sequence > {_gib(est.budget_bytes_per_gpu)} budget"
        )
        return Option(
            count=tp * pp,
            dp=1,
            nodes=math.ceil(tp * pp / _node_size(gpu)),
            fits=False,
            meets_targets=False,
            headroom_bytes=int(est.budget_bytes_per_gpu - need),
            reasons=reasons,
            **opt,
        )
    weight_total = int(est.breakdown.get("weights", 0)) * tp * pp
    mg = ModelOnGpus(
        arch=_arch(w),
        params=_params(w),
        weight_bytes_total=weight_total,
        weight_format=w.weights,
        kv_bytes_per_token_per_gpu=float(per_token),
        gpu=gpu,
        tp=tp,
        pp=pp,
    )
    batch = min(max_seqs, w.users)
    if w.tokens_per_s_per_user is not None:
        ok_batch = _largest_batch_meeting(mg, batch, ctx, w.tokens_per_s_per_user)
        if ok_batch == 0:
            speed = _decode_at(mg, 1, ctx)
            reasons.append(
                f"decode {speed:.1f} tok/s per user even alone < target "
                f"{w.tokens_per_s_per_user:g} tok/s"
            )
        batch = max(ok_batch, 1)
    per_seq = _decode_at(mg, batch, ctx)
    factor = 1.0
    if w.batching == "static":
        longest = w.max_output_tokens or 2 * w.output_tokens
        factor = static_batching_factor(w.output_tokens, longest)
    per_replica = batch * per_seq * factor
    dp = math.ceil(w.users / batch)
    if w.tokens_per_s is not None:
        dp = max(dp, math.ceil(w.tokens_per_s / per_replica))
    count = tp * pp * dp
    if w.users > max_seqs and dp > 1:
        reasons_note = (
            f"KV capacity {_gib(capacity)} per GPU holds {format_count(capacity_tokens)} tokens "
            f"= {max_seqs} × {ctx:,}-token sequences < {w.users:,} users → {dp} replicas"
        )
        reasons.append(reasons_note)
    prefill = prefill_time(mg, w.prompt_tokens)
    ttft = None if prefill is None else prefill.seconds + decode_step(mg, 1, ctx).seconds
    meets = not any("< target" in r for r in reasons)
    if w.ttft_s is not None and ttft is not None and ttft > w.ttft_s:
        meets = False
        reasons.append(
            f"TTFT {ttft * 1000:,.0f} ms for a {w.prompt_tokens:,}-token prompt > target "
            f"{w.ttft_s * 1000:,.0f} ms"
            + ("" if tp > 1 else " (more tensor parallelism splits the prefill)")
        )
    if w.ttft_s is not None and ttft is None:
        reasons.append(f"{gpu.name} publishes no tensor throughput: TTFT not estimated")
    if count > w.constraints.max_gpus:
        meets = False
        reasons.append(f"needs {count:,} GPUs > max_gpus {w.constraints.max_gpus:,}")
    nodes = math.ceil(tp * pp / _node_size(gpu)) * dp
    if w.constraints.single_node and count > _node_size(gpu):
        meets = False
        reasons.append(f"needs {count} GPUs > one node of {_node_size(gpu)} (single_node)")
    usd = prices.get(gpu.id)
    usd_per_hour = None if usd is None else usd * count
    budget = w.constraints.budget_usd_per_hour
    if budget is not None and usd_per_hour is not None and usd_per_hour > budget:
        meets = False
        reasons.append(f"costs ${usd_per_hour:,.2f}/h > budget ${budget:,.2f}/h")
    return Option(
        count=count,
        dp=dp,
        nodes=nodes,
        fits=True,
        meets_targets=meets,
        headroom_bytes=int(est.budget_bytes_per_gpu - non_kv - kv_one_seq * batch),
        decode_tokens_per_s_per_seq=per_seq,
        aggregate_tokens_per_s=per_replica * dp,
        prefill_tokens_per_s=None if prefill is None else w.prompt_tokens / prefill.seconds,
        ttft_s=ttft,
        usd_per_hour=usd_per_hour,
        reasons=reasons,
        **opt,
    )


def _training_option(
    w: Workload, gpu: GpuSpec, tp: int, pp: int, dp: int, prices: dict[str, float]
) -> Option:
    est = estimate_memory(_memory_request(w, gpu, tp, pp, dp, w.micro_batch_sequences))
    count = tp * pp * dp
    fits = bool(est.fits)
    reasons: list[str] = []
    if not fits:
        reasons.append(
            f"{count} GPUs (TP={tp}, PP={pp}, DP={dp}): {_gib(est.per_gpu_bytes)} per GPU > "
            f"{_gib(est.budget_bytes_per_gpu)} budget"
        )
    step = hours = gpu_hours = None
    meets = fits
    if fits and w.train_tokens is not None:
        weight_total = int(est.breakdown.get("weights", 0)) * tp * pp
        mg = ModelOnGpus(_arch(w), _params(w), weight_total, w.weights, 0.0, gpu, tp=tp, pp=pp)
        task: Literal["full", "lora", "qlora"] = w.task  # type: ignore[assignment]
        recompute = w.checkpointing is not False
        tt = training_time(
            mg,
            task,
            count,
            w.training_sequence_tokens,
            w.global_batch_sequences,
            w.train_tokens,
            recompute,
            w.micro_batch_sequences,
        )
        if tt is None:
            reasons.append(f"{gpu.name} publishes no bf16 throughput: training time unknown")
        else:
            step, hours, gpu_hours = tt.step_s, tt.hours, tt.gpu_hours
            if w.deadline_hours is not None and hours > w.deadline_hours:
                meets = False
                reasons.append(
                    f"{hours:,.1f} h on {count} GPUs > deadline {w.deadline_hours:,.1f} h"
                )
    usd = prices.get(gpu.id)
    usd_per_hour = None if usd is None else usd * count
    if count > w.constraints.max_gpus:
        meets = False
        reasons.append(f"needs {count:,} GPUs > max_gpus {w.constraints.max_gpus:,}")
    return Option(
        gpu=gpu.id,
        gpu_name=gpu.name,
        count=count,
        tp=tp,
        pp=pp,
        dp=dp,
        nodes=math.ceil(count / _node_size(gpu)),
        fits=fits,
        meets_targets=meets,
        per_gpu_bytes=est.per_gpu_bytes,
        budget_bytes_per_gpu=int(est.budget_bytes_per_gpu),
        headroom_bytes=int(est.headroom_bytes),
        kv_cache_capacity_bytes=0,
        kv_cache_capacity_tokens=0,
        max_concurrent_sequences=0,
        training_step_s=step,
        training_hours=hours,
        gpu_hours=gpu_hours,
        usd_per_hour=usd_per_hour,
        reasons=reasons,
        gpu_as_of=gpu.as_of,
    )


@lru_cache(maxsize=64)
def _resolve(model: str | None, params: str | float | None, config_path: str | None) -> Any:
    return _memory().resolve_model(model=model, params=params, config_path=config_path)


def _resolved(w: Workload) -> Any:
    return _resolve(w.model, w.params, w.config_path)


def _arch(w: Workload) -> Architecture:
    arch: Architecture = _resolved(w).architecture
    return arch


def _params(w: Workload) -> ParamCounts:
    return _param_counts(_arch(w))


@lru_cache(maxsize=64)
def _param_counts(arch: Architecture) -> ParamCounts:
    return count_parameters(arch)


def _best(options: list[Option]) -> Option:
    """The smallest option meeting targets; else the smallest that fits; else the largest tried
    (it failed by the least memory)."""
    meeting = [o for o in options if o.meets_targets]
    if meeting:
        return min(meeting, key=lambda o: (o.count, -(o.decode_tokens_per_s_per_seq or 0)))
    fitting = [o for o in options if o.fits]
    if fitting:
        return min(fitting, key=lambda o: (len(o.reasons), o.count))
    return max(options, key=lambda o: o.headroom_bytes)


def _gpu_options(w: Workload, gpu: GpuSpec, prices: dict[str, float]) -> list[Option]:
    heads = _arch(w).num_attention_heads
    options: list[Option] = []
    if not w.is_training:
        for tp, pp in _layouts(w, gpu, heads):
            opt = _inference_option(w, gpu, tp, pp, prices)
            options.append(opt)
            if opt.meets_targets and opt.dp == 1:
                break  # larger layouts only add GPUs
        return options
    for tp, pp in _layouts(w, gpu, heads):
        dp = 1
        while tp * pp * dp <= w.constraints.max_gpus:
            opt = _training_option(w, gpu, tp, pp, dp, prices)
            options.append(opt)
            if opt.meets_targets or (opt.fits and w.train_tokens is None):
                return options
            if not opt.fits and w.zero in (None, 0) and w.task == "full":
                break  # without ZeRO, replicas do not reduce memory per GPU: next layout
            dp *= 2
    return options


def _rank_key(objective: str, prices: dict[str, float]) -> Any:
    def speed(o: Option) -> float:
        if o.training_hours is not None:
            return -o.training_hours
        return o.decode_tokens_per_s_per_seq or 0.0

    def key(o: Option) -> tuple[Any, ...]:
        head = (not o.meets_targets, not o.fits)
        if objective == "fastest":
            return (*head, -speed(o), o.count)
        if objective == "cheapest" and prices:
            cost = o.usd_per_hour if o.usd_per_hour is not None else math.inf
            return (*head, cost, o.count, -speed(o))
        return (*head, o.count, -speed(o))

    return key


def recommend(
    workload: Workload, price_per_gpu_hour: dict[str, float] | None = None
) -> Recommendation:
    """Rank, for every allowed catalog GPU, its smallest layout that fits and meets the targets.

    `price_per_gpu_hour` maps catalog GPU ids to USD per GPU-hour (the cost tool passes it);
    without it, `cheapest` falls back to fewest GPUs then fastest.
    """
    prices = dict(price_per_gpu_hour or {})
    gpus = _allowed_gpus(workload)
    resolved = _resolved(workload)
    arch, params = _arch(workload), _params(workload)
    best: list[Option] = []
    rejected: list[Option] = []
    for gpu in gpus:
        opts = _gpu_options(workload, gpu, prices)
        chosen = _best(opts)
        best.append(chosen)
        rejected.extend(o for o in opts if o is not chosen)
    best.sort(key=_rank_key(workload.objective, prices))
    base = estimate_memory(_memory_request(workload, gpus[0], 1, 1, 1, 1))
    weight_bytes = int(base.breakdown.get("weights", 0))
    notes, nearest = advise(workload, arch, params, best, weight_bytes, base)
    assumptions = [
        *resolved.assumptions,
        *base.assumptions,
        *performance_assumptions(workload),
    ]
    return Recommendation(
        model_id=resolved.id,
        total_params=params.total,
        active_params=params.active_per_token,
        weight_bytes=weight_bytes,
        kv_cache_bytes_per_token=int(base.kv_cache_bytes_per_token),
        context_tokens=workload.training_sequence_tokens
        if workload.is_training
        else workload.context_tokens,
        objective=workload.objective,
        options=best,
        rejected=rejected,
        notes=notes,
        assumptions=list(dict.fromkeys(assumptions)),
        nearest_feasible=nearest,
    )
