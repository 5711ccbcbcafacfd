"""One serving layout (tp × pp, data-parallel replicas added): memory per GPU at the users'
load, KV-cache capacity, concurrent sequences, steady-state decode speed and throughput, TTFT
at the load, replicas for the users / throughput / latency targets, price, and a reason with
numbers for every target missed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tools.catalog import GpuSpec
from tools.performance import (
    EngineLimits,
    batch_cap,
    engine_limits,
    prefill_time,
    static_batching_factor,
)
from tools.performance.llama_split import split_note
from tools.pricing import RankingPrices
from tools.recommend.layouts import node_size_of, replicas_within_limit, serving_nodes
from tools.recommend.memory_calls import memory_figures, memory_request_for, model_on_gpus
from tools.recommend.models import Option
from tools.recommend.prices import hourly_cost, quote_fields
from tools.recommend.speed import ServingSpeed, speed_labels
from tools.replicas import full_load, plan_replicas
from tools.units import format_count
from tools.units import format_gib as _gib
from tools.workload import Workload

if TYPE_CHECKING:
    from tools.memory.estimate import MemoryFigures


def _kv_bytes_per_token_at_context(est: MemoryFigures, kv_one_seq: int, ctx: int) -> float:
    """KV bytes per GPU one token costs in sequences of `ctx` tokens: one sequence's KV cache
    over its tokens. Sliding-window layers (gpt-oss, Gemma 2, Mistral) hold at most the window,
    so at a long context a token costs less than the full-attention per-token rate (gpt-oss-120b
    at 32k: (18 × 32,768 + 18 × 128) × 2,048 B / 32,768 ≈ 37,008 B, not 73,728 B). The lower of
    the two: vLLM's 16-token blocks round a sequence up, which must not raise the rate."""
    full_rate = float(est.kv_cache_bytes_per_token_per_gpu or 1)
    if kv_one_seq <= 0 or ctx <= 0:
        return full_rate
    return min(full_rate, kv_one_seq / ctx)


def _sequences_held(
    w: Workload, gpu: GpuSpec, tp: int, pp: int, est: Any, kv_one_seq: int
) -> tuple[int, int]:
    """What each further sequence adds per GPU, bytes, and how many sequences the budget holds.

    Each further sequence adds its KV cache and whatever else the memory calculator scales
    with the batch (other engines' sampled logits, 6·V bytes each): est(2) − est(1), so the
    concurrency planned here is one the memory tool also finds within the budget. vLLM
    reserves its sampler for max_num_seqs requests whatever the batch, so there a sequence
    adds exactly its KV blocks (tests/test_recommend* compare with the memory calculator).
    When one sequence does not fit (est(1) over budget), none does: no second estimate."""
    if not kv_one_seq or est.per_gpu_bytes > est.budget_bytes_per_gpu:
        return 0, 0
    if est.engine == "vllm":
        per_sequence = kv_one_seq
    else:
        est_two = memory_figures(memory_request_for(w, gpu, tp, pp, 1, 2))
        per_sequence = int(est_two.per_gpu_bytes - est.per_gpu_bytes)
    if per_sequence <= 0:
        return per_sequence, 0
    without_sequences = est.per_gpu_bytes - per_sequence
    return per_sequence, max(0, int(est.budget_bytes_per_gpu - without_sequences) // per_sequence)


def _holding_no_sequence(
    w: Workload,
    gpu: GpuSpec,
    tp: int,
    pp: int,
    est: Any,
    kv_one_seq: int,
    capacity: int,
    opt: dict[str, Any],
) -> Option:
    """The layout does not hold one sequence: an option that does not fit, and why (`est`:
    the layout's `MemoryFigures`, a GPU given, so its budget and usable memory are set)."""
    ctx = w.context_tokens
    non_kv = est.per_gpu_bytes - kv_one_seq
    need = non_kv + kv_one_seq
    reasons: list[str] = []
    util = est.budget_bytes_per_gpu / est.usable_bytes_per_gpu
    left = (
        f"{_gib(capacity)} left for KV cache < one sequence ({_gib(kv_one_seq)})"
        if capacity >= 0
        else f"short by {_gib(-capacity)} before any KV cache"
    )
    reasons.append(
        f"TP={tp} PP={pp}: weights, activations and runtime take {_gib(non_kv)} per GPU; "
        f"budget {_gib(est.budget_bytes_per_gpu)} ({_gib(est.usable_bytes_per_gpu)} usable "
        f"× {util:.2f}): {left} of {ctx:,} tokens"
    )
    return Option(
        count=tp * pp,
        dp=1,
        nodes=serving_nodes(tp, pp, 1, node_size_of(gpu)),
        fits=False,
        meets_targets=False,
        per_gpu_bytes=need,
        headroom_bytes=int(est.budget_bytes_per_gpu - need),
        reasons=reasons,
        **opt,
    )


def _cap_note(limits: EngineLimits, cap: int, max_seqs: int, capacity_tokens: int, ctx: int) -> str:
    """What binds the batch cap per replica: the engine's max_num_seqs or the KV cache."""
    if limits.max_num_seqs is not None and limits.max_num_seqs <= max_seqs:
        binds = f"the engine's max_num_seqs {limits.max_num_seqs:,}"
    else:
        binds = (
            f"the KV cache: {format_count(capacity_tokens)} tokens = {max_seqs:,} × "
            f"{ctx:,}-token sequences"
        )
        if limits.max_num_seqs is not None:
            binds += f" (max_num_seqs {limits.max_num_seqs:,} does not bind)"
    return f"Batch cap {cap:,} sequences per replica: {binds}."


def _over_limits(
    w: Workload,
    gpu: GpuSpec,
    tp: int,
    pp: int,
    dp: int,
    batch: int,
    per_replica: float,
    throughput_basis: str,
) -> list[str]:
    """The GPU-count constraints the layout breaks (max_gpus, single_node), each with what
    the limit would serve."""
    count = tp * pp * dp
    reasons: list[str] = []
    if count > w.constraints.max_gpus:
        fit_dp = replicas_within_limit(w, tp, pp, dp)
        within = (
            f"; {fit_dp * tp * pp:,} GPUs ({fit_dp:,} replica(s)) serve {fit_dp * batch:,} users "
            f"at {fit_dp * per_replica:,.0f} tok/s ({throughput_basis})"
            if fit_dp >= 1
            else ""
        )
        reasons.append(f"needs {count:,} GPUs > max_gpus {w.constraints.max_gpus:,}{within}")
    if w.constraints.single_node and count > node_size_of(gpu):
        reasons.append(f"needs {count:,} GPUs > one node of {node_size_of(gpu)} (single_node)")
    return reasons


def _replicas_reason(
    w: Workload, dp: int, cap: int, capacity: int, capacity_tokens: int, max_seqs: int
) -> str:
    """Why the users need `dp` replicas: what one replica's KV capacity (or batch cap) holds."""
    held = (
        f"KV capacity {_gib(capacity)} per GPU holds {format_count(capacity_tokens)} tokens "
        f"= {max_seqs:,} × {w.context_tokens:,}-token sequences"
    )
    if cap < max_seqs:
        held += f", the engine runs at most {cap:,} (max_num_seqs)"
    return f"{held} < {w.users:,} users → {dp:,} replicas"


def _prefill_fields(w: Workload, prefill: Any) -> dict[str, float | None]:
    """The prompt's prefill rate (tokens/s) and time (s); None where it cannot be estimated."""
    if prefill is None:
        return {"prefill_tokens_per_s": None, "prefill_s": None}
    return {"prefill_tokens_per_s": w.prompt_tokens / prefill.seconds, "prefill_s": prefill.seconds}


def _useful_share(w: Workload) -> float:
    """The share of a batch's decode steps that produce tokens: 1 under continuous batching,
    mean/max output length under static batching (slots wait for the longest)."""
    if w.batching != "static":
        return 1.0
    longest = w.max_output_tokens or 2 * w.output_tokens
    return static_batching_factor(w.output_tokens, longest)


def inference_option(w: Workload, gpu: GpuSpec, tp: int, pp: int, prices: RankingPrices) -> Option:
    # The memory calculator's figures without its text: an option carries its own reasons,
    # and the answer's assumptions come from the recommender's one full estimate.
    est = memory_figures(memory_request_for(w, gpu, tp, pp, 1, 1))
    ctx = w.context_tokens
    kv_one_seq = int(est.breakdown.get("kv_cache", 0))
    # tools.memory keeps per_gpu_bytes = Σ breakdown, so everything that is not KV cache is
    # per_gpu − kv_cache, and the KV cache may grow into the rest of the engine's budget.
    non_kv = est.per_gpu_bytes - kv_one_seq
    capacity = int(est.budget_bytes_per_gpu - non_kv)
    capacity_tokens = max(0, int(capacity // _kv_bytes_per_token_at_context(est, kv_one_seq, ctx)))
    per_sequence, max_seqs = _sequences_held(w, gpu, tp, pp, est, kv_one_seq)
    reasons: list[str] = []
    opt = dict(
        gpu=gpu.id,
        gpu_name=gpu.name,
        tp=tp,
        pp=pp,
        budget_bytes_per_gpu=int(est.budget_bytes_per_gpu),
        kv_cache_capacity_bytes=max(0, capacity),
        kv_cache_capacity_tokens=capacity_tokens,
        max_concurrent_sequences=int(max_seqs),
        gpu_as_of=gpu.as_of,
    )
    if max_seqs < 1:
        return _holding_no_sequence(w, gpu, tp, pp, est, kv_one_seq, capacity, opt)
    mg = model_on_gpus(w, est, gpu, tp, pp)
    limits: EngineLimits = engine_limits(str(est.engine), gpu)
    cap = batch_cap(max_seqs, limits)
    factor = _useful_share(w)
    serving = ServingSpeed(mg, w.prompt_tokens, w.output_tokens, cap, limits)
    timed = w.ttft_s is not None and serving.can_prefill
    # A TTFT target the layouts are held to (only where the GPU's prefill can be estimated).
    ttft_targets: dict[str, Any] = (
        {"ttft": serving.ttft, "ttft_s": w.ttft_s} if timed else {"ttft": None, "ttft_s": None}
    )
    # Users are the concurrency when given (or when no throughput target replaces them).
    users_given = "users" in w.model_fields_set or w.tokens_per_s is None
    plan = plan_replicas(
        serving.speed,
        cap,
        users=w.users if users_given else None,
        tokens_per_s=w.tokens_per_s,
        tokens_per_s_per_user=w.tokens_per_s_per_user,
        useful_share=factor,
        throughput=serving.throughput,
        **ttft_targets,
        replicas=w.replicas,
    )
    meets = plan.meets
    reasons.extend(plan.reasons)
    cap_notes = (
        [] if w.replicas is None else [_cap_note(limits, cap, max_seqs, capacity_tokens, ctx)]
    )
    batch, dp, per_seq = plan.sequences_per_replica, plan.replicas, plan.tokens_per_s_per_seq
    per_replica = serving.throughput(batch) * factor
    full_batch, full_per_replica = full_load(
        serving.speed,
        cap,
        tokens_per_s_per_user=w.tokens_per_s_per_user,
        useful_share=factor,
        throughput=serving.throughput,
        **ttft_targets,
    )
    count = tp * pp * dp
    if users_given and dp > 1 and w.users > cap and w.replicas is None:
        reasons.append(_replicas_reason(w, dp, cap, capacity, capacity_tokens, max_seqs))
    prefill = prefill_time(mg, w.prompt_tokens, limits.max_num_batched_tokens)
    # TTFT at the load: for every layout when a target depends on it, else filled in for the
    # ranked options only (`with_load_latency`; a TTFT costs an engine step per layout).
    # With replicas fixed, users past the cap queue for a slot: the TTFT at their load.
    load = batch if w.replicas is None or not users_given else -(-w.users // dp)
    ttft = serving.ttft(load) if timed else None
    if w.ttft_s is not None and not serving.can_prefill:
        meets = False  # an unknown TTFT cannot be promised to meet a target
        reasons.append(f"{gpu.name} publishes no tensor throughput: TTFT cannot be estimated")
    labels = speed_labels(w, est, gpu, mg, batch)
    split_notes: list[str] = []
    if str(est.engine) == "generic" and tp * pp > 1:
        split_notes.append(split_note("tensor" if tp > 1 else "layer", tp * pp, mg.arch))
    modelled: float | None = None
    if labels.measured_tokens_per_s is not None:
        modelled, per_seq = per_seq, labels.measured_tokens_per_s
    over = _over_limits(w, gpu, tp, pp, dp, batch, per_replica, labels.throughput)
    meets = meets and not over
    reasons += over
    nodes = serving_nodes(tp, pp, dp, node_size_of(gpu))
    quote, within_budget, price_notes = hourly_cost(w, gpu, count, tp, prices, reasons)
    meets = meets and within_budget
    # What each GPU holds serving `batch` sequences: the memory calculator's figure at that
    # batch. With flash attention (the recommender never turns it off) its inference estimate
    # is affine in the batch — KV blocks (and other engines' sampled logits) per sequence, a
    # prefill chunk that does not depend on it — so est(1) + (batch − 1)·(est(2) − est(1)),
    # the per-sequence step above, is that figure exactly,
    # without a third estimate per layout (tests/test_recommend* compare the two).
    loaded_bytes = int(est.per_gpu_bytes) + (batch - 1) * per_sequence
    option = Option(
        count=count,
        dp=dp,
        nodes=nodes,
        fits=True,
        meets_targets=meets,
        per_gpu_bytes=loaded_bytes,
        headroom_bytes=int(est.budget_bytes_per_gpu - loaded_bytes),
        sequences_per_replica=batch,
        decode_tokens_per_s_per_seq=per_seq,
        modelled_tokens_per_s_per_seq=modelled,
        aggregate_tokens_per_s=plan.aggregate_tokens_per_s,
        full_load_sequences_per_replica=full_batch,
        full_load_tokens_per_s=full_per_replica * dp,
        **_prefill_fields(w, prefill),
        ttft_s=ttft,
        batch_cap=cap,
        engine_max_num_seqs=limits.max_num_seqs,
        speed_basis=labels.speed,
        throughput_basis=labels.throughput,
        ttft_basis=labels.ttft if serving.can_prefill else None,
        speed_source=labels.source,
        **quote_fields(quote, prices),
        reasons=reasons,
        notes=[*split_notes, *cap_notes, *plan.notes, *price_notes],
        **opt,
    )
    option._serving = serving
    return option


def with_load_latency(w: Workload, o: Option, curve: bool) -> Option:
    """`o` with its TTFT at the planned load (when no target needed it already) and, when
    `curve`, its latency curve: TTFT and decode speed from one user to past what one replica
    runs (for the ranked options answers show)."""
    serving = o._serving
    if not o.fits or o.batch_cap < 1 or serving is None or not serving.can_prefill:
        return o
    update: dict[str, object] = {}
    if o.ttft_s is None:
        load = o.sequences_per_replica
        if w.replicas is not None and ("users" in w.model_fields_set or w.tokens_per_s is None):
            load = max(load, -(-w.users // max(1, o.dp)))  # users past the cap wait for a slot
        update["ttft_s"] = serving.ttft(load)
    if curve:
        update["latency_curve"] = serving.curve(o.sequences_per_replica)
    return o.model_copy(update=update) if update else o
