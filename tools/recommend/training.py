"""One training layout (tp × pp × dp): memory per GPU from the memory calculator, step time
and hours from the performance model, and the deadline, budget and max_gpus checks.
"""

from __future__ import annotations

import math
from typing import Literal

from tools.catalog import GpuSpec
from tools.performance import training_mfu_caveat, training_time
from tools.pricing import RankingPrices
from tools.recommend.layouts import node_size_of
from tools.recommend.memory_calls import estimate_memory, memory_request_for, model_on_gpus
from tools.recommend.models import Option
from tools.recommend.prices import hourly_cost, quote_fields
from tools.units import format_gib as _gib
from tools.workload import Workload


def training_option(
    w: Workload, gpu: GpuSpec, tp: int, pp: int, dp: int, prices: RankingPrices
) -> Option:
    est = estimate_memory(memory_request_for(w, gpu, tp, pp, dp, w.micro_batch_sequences))
    count = tp * pp * dp
    fits = bool(est.fits)
    reasons: list[str] = []
    notes: list[str] = []
    if not fits:
        reasons.append(
            f"needs {_gib(est.per_gpu_bytes)} per GPU > {_gib(est.budget_bytes_per_gpu)} "
            f"budget on {count} GPU{'s' if count != 1 else ''} (DP={dp})"
        )
    step = hours = gpu_hours = None
    basis = None
    source = None
    meets = fits
    if fits and w.train_tokens is not None:
        mg = model_on_gpus(w, est, gpu, tp, pp)
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
            meets = meets and w.deadline_hours is None
        else:
            step, hours, gpu_hours = tt.step_s, tt.hours, tt.gpu_hours
            basis = tt.basis
            source = (
                f"{tt.basis}: {tt.mfu:.1%} MFU (6N + attention basis) for {gpu.name}'s "
                f"generation, {tt.wallclock_efficiency:.0%} effective training time "
                "(catalog/performance.toml training_mfu)"
            )
            caveat = training_mfu_caveat(gpu)
            if caveat:
                notes.append(caveat)
            if w.deadline_hours is not None and hours > w.deadline_hours:
                meets = False
                reasons.append(
                    f"{hours:,.1f} h on {count} GPUs > deadline {w.deadline_hours:,.1f} h"
                )
    quote, within_budget, price_notes = hourly_cost(w, gpu, count, tp, prices, reasons)
    meets = meets and within_budget
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
        nodes=math.ceil(count / node_size_of(gpu)),
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
        speed_basis=basis,
        speed_source=source,
        **quote_fields(quote, prices),
        reasons=reasons,
        notes=[*notes, *price_notes],
        gpu_as_of=gpu.as_of,
    )
