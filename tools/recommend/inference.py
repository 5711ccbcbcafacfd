"""One serving layout (tp × pp, data-parallel replicas added): memory per GPU at the users'
load, KV-cache capacity, concurrent sequences, decode and prefill speed, TTFT, replicas for
the users / throughput targets, price, and a reason with numbers for every target missed.
"""

from __future__ import annotations

from tools.catalog import GpuSpec
from tools.memory.request import MemoryEstimate
from tools.performance import ModelOnGpus, decode_step, prefill_time, static_batching_factor
from tools.pricing import RankingPrices
from tools.recommend.layouts import _node_size, _replicas_within_limit, serving_nodes
from tools.recommend.memory_calls import _memory_request, _model_on_gpus, estimate_memory
from tools.recommend.models import Option
from tools.recommend.prices import _hourly_cost, quote_fields
from tools.replicas import full_load, plan_replicas
from tools.units import format_count
from tools.units import format_gib as _gib
from tools.workload import Workload


def _decode_at(mg: ModelOnGpus, batch: int, context: int) -> float:
    """Per-sequence decode tokens/s at `batch` concurrent sequences."""
    return 1.0 / decode_step(mg, batch, context).seconds


def _kv_bytes_per_token_at_context(est: MemoryEstimate, kv_one_seq: int, ctx: int) -> float:
    """KV bytes per GPU one token costs in sequences of `ctx` tokens: one sequence's KV cache
    over its tokens. Sliding-window layers (gpt-oss, Gemma 2, Mistral) hold at most the window,
    so at a long context a token costs less than the full-attention per-token rate (gpt-oss-120b
    at 32k: (18 × 32,768 + 18 × 128) × 2,048 B / 32,768 ≈ 37,008 B, not 73,728 B). The lower of
    the two: vLLM's 16-token blocks round a sequence up, which must not raise the rate."""
    full_rate = float(est.kv_cache_bytes_per_token_per_gpu or 1)
    if kv_one_seq <= 0 or ctx <= 0:
        return full_rate
    return min(full_rate, kv_one_seq / ctx)


def _inference_option(w: Workload, gpu: GpuSpec, tp: int, pp: int, prices: RankingPrices) -> Option:
    est = estimate_memory(_memory_request(w, gpu, tp, pp, 1, 1))
    ctx = w.context_tokens
    kv_one_seq = int(est.breakdown.get("kv_cache", 0))
    # tools.memory keeps per_gpu_bytes = Σ breakdown, so everything that is not KV cache is
    # per_gpu − kv_cache, and the KV cache may grow into the rest of the engine's budget.
    non_kv = est.per_gpu_bytes - kv_one_seq
    capacity = int(est.budget_bytes_per_gpu - non_kv)
    capacity_tokens = max(0, int(capacity // _kv_bytes_per_token_at_context(est, kv_one_seq, ctx)))
    # Each further sequence adds its KV cache and whatever else the memory calculator scales
    # with the batch (the sampled logits, 6·V bytes each): est(2) − est(1), so the concurrency
    # planned here is one the memory tool also finds within the budget.
    # When one sequence does not fit (est(1) over budget), none does: no second estimate.
    est_two = None
    max_seqs = 0
    if kv_one_seq and est.per_gpu_bytes <= est.budget_bytes_per_gpu:
        est_two = estimate_memory(_memory_request(w, gpu, tp, pp, 1, 2))
        per_sequence = int(est_two.per_gpu_bytes - est.per_gpu_bytes)
        without_sequences = est.per_gpu_bytes - per_sequence
        if per_sequence > 0:
            max_seqs = max(0, int(est.budget_bytes_per_gpu - without_sequences) // per_sequence)
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
        need = non_kv + kv_one_seq
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
            nodes=serving_nodes(tp, pp, 1, _node_size(gpu)),
            fits=False,
            meets_targets=False,
            per_gpu_bytes=need,
            headroom_bytes=int(est.budget_bytes_per_gpu - need),
            reasons=reasons,
            **opt,
        )
    mg = _model_on_gpus(w, est, gpu, tp, pp)
    factor = 1.0
    if w.batching == "static":
        longest = w.max_output_tokens or 2 * w.output_tokens
        factor = static_batching_factor(w.output_tokens, longest)
    # Users are the concurrency when given (or when no throughput target replaces them).
    users_given = "users" in w.model_fields_set or w.tokens_per_s is None
    plan = plan_replicas(
        lambda b: _decode_at(mg, b, ctx),
        max_seqs,
        users=w.users if users_given else None,
        tokens_per_s=w.tokens_per_s,
        tokens_per_s_per_user=w.tokens_per_s_per_user,
        useful_share=factor,
    )
    meets = plan.meets
    reasons.extend(plan.reasons)
    batch, dp, per_seq = plan.sequences_per_replica, plan.replicas, plan.tokens_per_s_per_seq
    per_replica = batch * per_seq * factor
    full_batch, full_per_replica = full_load(
        lambda b: _decode_at(mg, b, ctx),
        max_seqs,
        tokens_per_s_per_user=w.tokens_per_s_per_user,
        useful_share=factor,
    )
    count = tp * pp * dp
    if users_given and dp > 1 and w.users > max_seqs:
        reasons.append(
            f"KV capacity {_gib(capacity)} per GPU holds {format_count(capacity_tokens)} tokens "
            f"= {max_seqs:,} × {ctx:,}-token sequences < {w.users:,} users → {dp:,} replicas"
        )
    prefill = prefill_time(mg, w.prompt_tokens)
    ttft = None if prefill is None else prefill.seconds + decode_step(mg, 1, ctx).seconds
    if w.ttft_s is not None and ttft is not None and ttft > w.ttft_s:
        meets = False
        reasons.append(
            f"TTFT {ttft * 1000:,.0f} ms for a {w.prompt_tokens:,}-token prompt > target "
            f"{w.ttft_s * 1000:,.0f} ms"
            + ("" if tp > 1 else " (more tensor parallelism splits the prefill)")
        )
    if w.ttft_s is not None and ttft is None:
        meets = False  # an unknown TTFT cannot be promised to meet a target
        reasons.append(f"{gpu.name} publishes no tensor throughput: TTFT cannot be estimated")
    if count > w.constraints.max_gpus:
        meets = False
        fit_dp = _replicas_within_limit(w, tp, pp, dp)
        within = (
            f"; {fit_dp * tp * pp:,} GPUs ({fit_dp:,} replica(s)) serve {fit_dp * batch:,} users "
            f"at {fit_dp * per_replica:,.0f} tok/s"
            if fit_dp >= 1
            else ""
        )
        reasons.append(f"needs {count:,} GPUs > max_gpus {w.constraints.max_gpus:,}{within}")
    nodes = serving_nodes(tp, pp, dp, _node_size(gpu))
    if w.constraints.single_node and count > _node_size(gpu):
        meets = False
        reasons.append(f"needs {count:,} GPUs > one node of {_node_size(gpu)} (single_node)")
    quote, within_budget, price_notes = _hourly_cost(w, gpu, count, tp, prices, reasons)
    meets = meets and within_budget
    # What each GPU holds serving `batch` sequences: the memory calculator's figure at that
    # batch. With flash attention (the recommender never turns it off) its inference estimate
    # is affine in the batch — KV blocks and sampled logits per sequence, a prefill chunk that
    # does not depend on it — so est(1) + (batch − 1)·(est(2) − est(1)) is that figure exactly,
    # without a third estimate per layout (tests/test_recommend* compare the two).
    step = 0 if est_two is None else int(est_two.per_gpu_bytes - est.per_gpu_bytes)
    loaded_bytes = int(est.per_gpu_bytes) + (batch - 1) * step
    return Option(
        count=count,
        dp=dp,
        nodes=nodes,
        fits=True,
        meets_targets=meets,
        per_gpu_bytes=loaded_bytes,
        headroom_bytes=int(est.budget_bytes_per_gpu - loaded_bytes),
        sequences_per_replica=batch,
        decode_tokens_per_s_per_seq=per_seq,
        aggregate_tokens_per_s=plan.aggregate_tokens_per_s,
        full_load_sequences_per_replica=full_batch,
        full_load_tokens_per_s=full_per_replica * dp,
        prefill_tokens_per_s=None if prefill is None else w.prompt_tokens / prefill.seconds,
        ttft_s=ttft,
        **quote_fields(quote, prices),
        reasons=reasons,
        notes=[*plan.notes, *price_notes],
        **opt,
    )
