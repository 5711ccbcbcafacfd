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

from typing import Any

from tools.advice import advise, engine_reserve_note, one_node_note, performance_assumptions
from tools.catalog import GpuSpec, get_catalog
from tools.memory.sharding import zero_single_rank_warning
from tools.pricing import RankingPrices, catalog_ranking_prices
from tools.recommend.inference import _inference_option
from tools.recommend.layouts import _allowed_gpus, _gpu_limit, _layouts, _node_size, _tp_candidates
from tools.recommend.memory_calls import (
    _arch,
    _memory_request,
    _params,
    _resolved,
    _whole_weight_bytes,
    estimate_memory,
)
from tools.recommend.models import Option, Recommendation, _gib
from tools.recommend.ranking import _best, _rank_key
from tools.recommend.training import _training_option
from tools.workload import Constraints, Workload


def _gpu_options(w: Workload, gpu: GpuSpec, prices: RankingPrices) -> list[Option]:
    """Every layout evaluated on `gpu`, smallest first, until no larger one can do better."""
    options: list[Option] = []
    fewest_meeting: int | None = None
    # "fastest" tries every layout: a larger tensor-parallel group decodes each token faster
    # (and more GPUs train sooner), so the smallest layout that meets the targets is not it.
    every_layout = w.objective == "fastest"
    if not w.is_training:
        for tp, pp in _layouts(w, gpu, _arch(w)):
            if not every_layout and fewest_meeting is not None and tp * pp >= fewest_meeting:
                break  # a larger group cannot meet the targets with fewer GPUs
            opt = _inference_option(w, gpu, tp, pp, prices)
            options.append(opt)
            if opt.meets_targets:
                fewest_meeting = min(opt.count, fewest_meeting or opt.count)
        return options
    limit = _gpu_limit(w, gpu)
    for tp, pp in _layouts(w, gpu, _arch(w)):
        dp = 1
        while tp * pp * dp <= limit:
            opt = _training_option(w, gpu, tp, pp, dp, prices)
            options.append(opt)
            if not every_layout and (opt.meets_targets or (opt.fits and w.train_tokens is None)):
                return options
            if not opt.fits and w.zero in (None, 0) and w.task == "full":
                break  # without ZeRO, replicas do not reduce memory per GPU: next layout
            dp *= 2
    return options


def recommend(workload: Workload, prices: RankingPrices | None = None) -> Recommendation:
    """Rank, for every allowed catalog GPU, its smallest layout that fits and meets the targets.

    `prices`: the rows "cheapest" ranks and budgets are checked by (the cost tool passes the
    user's price book under its filters); without them, the built-in catalog's current
    on-demand rows (EU regions only when the constraints ask for 'eu') on today's date. Each
    configuration is priced at its cheapest rentable price (`RankingPrices.configuration`).
    """
    if prices is None:
        eu_only = (workload.constraints.region or "").strip().lower() in ("eu", "europe")
        prices = catalog_ranking_prices(eu_only=eu_only)
    price_notes = [
        "Prices for ranking and budgets: each configuration at its cheapest current on-demand "
        f"price {prices.scope} ({len(prices.priced_gpus())} GPUs priced; USD, EUR only at a "
        "rate you give): whole instances billed, each tensor-parallel group in one machine "
        "(a 1-GPU VM cannot host TP 2+; per-GPU quotes are kept with a note to check); prices "
        f"undated or older than {prices.max_age_days} days on {prices.today.isoformat()} only "
        "when no fresher price can host the layout (dates in the option notes and "
        "`gpu-sizer cost`)."
    ]
    gpus = _allowed_gpus(workload)
    resolved = _resolved(workload)
    arch, params = _arch(workload), _params(workload)
    # One GPU-free estimate first: it validates the memory fields (bad weights → the memory
    # calculator's ToolInputError) and gives the model-level figures.
    base = estimate_memory(_memory_request(workload, None, 1, 1, 1, 1))
    fmt = "bf16" if workload.task == "full" else str(base.weights_format)
    weight_bytes = _whole_weight_bytes(arch, fmt, resolved.stated_params)
    best: list[Option] = []
    rejected: list[Option] = []
    per_gpu: dict[str, list[Option]] = {}
    for gpu in gpus:
        opts = _gpu_options(workload, gpu, prices)
        per_gpu[gpu.id] = opts
        chosen = _best(workload, opts)
        best.append(chosen)
        rejected.extend(o for o in opts if o is not chosen)
    best.sort(key=_rank_key(workload.objective, prices))
    notes, nearest = advise(workload, arch, params, best, weight_bytes, base, best + rejected)
    if not workload.is_training:
        notes.extend(_fit_notes(workload, resolved.name, fmt, best, per_gpu, prices, base))
    elif best and not any(o.fits for o in best):
        notes.extend(_shorter_sequence_note(workload, max(best, key=lambda o: o.headroom_bytes)))
    assumptions = [
        *workload.default_notes,
        *base.assumptions,
        *performance_assumptions(workload),
        *price_notes,
    ]
    return Recommendation(
        model_id=resolved.id,
        total_params=int(base.total_params),
        active_params=int(base.active_params),
        weights_format=fmt,
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
        warnings=_warnings(workload, base, best),
    )


def _warnings(w: Workload, base: Any, ranked: list[Option]) -> list[str]:
    """The memory calculator's warnings about the request. Its one-GPU `base` estimate has a
    single data-parallel rank, so its "zero has no effect" warning is about that probe, not
    the recommendation: it is kept only when the recommended layout itself has DP = 1."""
    if not w.zero:
        return list(base.warnings)
    single_rank = zero_single_rank_warning(w.zero)
    out = [x for x in base.warnings if x != single_rank]
    if w.is_training and ranked and ranked[0].dp == 1:
        o = ranked[0]
        out.append(
            f"{single_rank}: the recommended {o.count}× {o.gpu_name} (TP={o.tp}, PP={o.pp}, "
            "DP=1) keeps full model state on every GPU"
        )
    return out


_SIXTEEN_BIT = ("bf16", "fp16", "fp32")
MAX_LISTED_GPUS = 8  # GPU types named in one note before "+N more"


SEQUENCE_STEP = 256
"""Granularity of the longest-fitting training sequence search, tokens."""


def _shorter_sequence_note(w: Workload, closest: Option) -> list[str]:
    """Training that fits nowhere: the longest sequence (a multiple of SEQUENCE_STEP tokens)
    with which the closest layout fits, found by asking the memory calculator (activations
    grow with the sequence; weights and optimizer state do not). Empty when none fits."""
    gpu = get_catalog().gpu(closest.gpu)
    batch = w.micro_batch_sequences

    def fits(tokens: int) -> bool:
        request = _memory_request(w, gpu, closest.tp, closest.pp, closest.dp, batch, context=tokens)
        return bool(estimate_memory(request).fits)

    lo, hi = 0, (w.training_sequence_tokens - 1) // SEQUENCE_STEP  # in steps; the asked fails
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(mid * SEQUENCE_STEP):
            lo = mid
        else:
            hi = mid - 1
    if lo == 0:
        return []
    return [
        f"Shorter sequences fit: {closest.count}× {closest.gpu_name} (TP={closest.tp}, "
        f"PP={closest.pp}) holds training sequences of up to {lo * SEQUENCE_STEP:,} tokens at "
        f"micro-batch {batch:,}; {w.training_sequence_tokens:,} tokens need "
        f"{_gib(closest.per_gpu_bytes)} per GPU > {_gib(closest.budget_bytes_per_gpu)} budget."
    ]


def _fit_notes(
    w: Workload,
    model_name: str,
    fmt: str,
    best: list[Option],
    per_gpu: dict[str, list[Option]],
    prices: RankingPrices,
    base: Any,
) -> list[str]:
    """Data-triggered fit notes: the engine reserve deciding a one-GPU fit, and a model that
    does not fit one node (with what does: more nodes, fp8 weights, larger GPUs)."""
    catalog = get_catalog()
    notes: list[str] = []
    chosen = {o.gpu: o for o in best}
    # Failed 1-GPU layouts, grouped by GPU types with the same memory (H200 SXM / NVL).
    singles: dict[tuple[int, int], list[Option]] = {}
    for opts in per_gpu.values():
        single = next((o for o in opts if o.count == 1 and not o.fits), None)
        if single is not None:
            usable = catalog.gpu(single.gpu).usable_memory_bytes
            singles.setdefault((usable, single.per_gpu_bytes), []).append(single)
    for (usable, _), group in singles.items():
        note = engine_reserve_note(w, group, usable, int(base.kv_cache_bytes_per_token_per_gpu))
        if note:
            notes.append(note)
    # GPU types that host a model across a node (NVLink / Infinity Fabric) but whose largest
    # one-node layout does not fit; PCIe cards already say why in their reasons.
    short: list[Option] = []
    for o in best:
        gpu = catalog.gpu(o.gpu)
        in_node = [x for x in per_gpu[o.gpu] if x.tp * x.pp <= _node_size(gpu)]
        if gpu.multi_gpu_fast_link and in_node and not any(x.fits for x in in_node):
            short.append(max(in_node, key=lambda x: x.tp * x.pp))
    if not short:
        return notes
    short.sort(key=lambda x: -x.tp * x.pp)  # full 8-GPU servers first, then by rank
    short_ids = {o.gpu for o in short}
    multi_node = [
        min((x for x in per_gpu[o.gpu] if x.fits), key=lambda x: x.tp * x.pp)
        for o in short
        if any(x.fits for x in per_gpu[o.gpu])
    ]
    lower: list[tuple[str, Option]] = []
    first = short[0]
    if fmt in _SIXTEEN_BIT:
        probe = w.model_copy(update={"weights": "fp8"})
        low = _inference_option(probe, catalog.gpu(first.gpu), first.tp, first.pp, prices)
        if low.fits:
            lower.append(("fp8", low))
    one_node: list[Option] = []
    for gpu in catalog.gpus.values():
        if gpu.id in short_ids:
            continue
        if gpu.id in chosen:
            c = chosen[gpu.id]
            if c.fits and c.tp * c.pp <= _node_size(gpu):
                one_node.append(chosen[gpu.id])
            continue
        # Outside the user's GPU filter: the largest one-node layout, to name what would fit.
        tp = max(_tp_candidates(w.model_copy(update={"constraints": Constraints()}), gpu, _arch(w)))
        o = _inference_option(w, gpu, tp, 1, prices)
        if o.fits:
            one_node.append(o)
    one_node.sort(key=lambda o: (o.count, -o.kv_cache_capacity_tokens))
    return [*notes, one_node_note(w, model_name, fmt, short, multi_node, lower, one_node)]
