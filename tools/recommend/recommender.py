"""`recommend()`: every allowed GPU's layouts evaluated (smallest first until no larger one can do
better; every one for "fastest" and "cheapest_per_token"), the best per GPU ranked by the
objective, and the notes, assumptions and memory-calculator warnings assembled into a
`Recommendation`.
"""

from __future__ import annotations

from typing import Any

from tools.advice import advise, performance_assumptions
from tools.catalog import GpuSpec, get_catalog
from tools.memory import devices
from tools.memory.devices import DeviceNotes
from tools.memory.sharding import zero_single_rank_warning
from tools.notes import Note
from tools.performance import training_mfu_caveat
from tools.pricing import RankingPrices, catalog_ranking_prices
from tools.recommend.fit_notes import _fit_notes, _lower_format_notes, _shorter_sequence_note
from tools.recommend.inference import _inference_option, with_load_latency
from tools.recommend.layouts import _allowed_gpus, _gpu_limit, _layouts
from tools.recommend.memory_calls import (
    _arch,
    _memory_request,
    _params,
    _resolved,
    _whole_weight_bytes,
    estimate_memory,
)
from tools.recommend.models import Option, Recommendation
from tools.recommend.ranking import _best, _rank_key, ranks_by_job_usd
from tools.recommend.training import _training_option
from tools.workload import Workload

LATENCY_CURVE_OPTIONS = 3
"""Ranked serving options that carry a latency curve (`Option.latency_curve`)."""


def _gpu_options(w: Workload, gpu: GpuSpec, prices: RankingPrices) -> list[Option]:
    """Every layout evaluated on `gpu`, smallest first, until no larger one can do better."""
    options: list[Option] = []
    fewest_meeting: int | None = None
    # "fastest" tries every layout: a larger tensor-parallel group decodes each token faster
    # (and more GPUs train sooner), so the smallest layout that meets the targets is not it;
    # "cheapest_per_token" likewise: a larger group frees more memory for KV cache, runs a
    # larger batch and can cost less per token although more per hour (QA round 3, B).
    # A training job's total USD likewise: a GPU sold only in 8-GPU machines bills 8 for one
    # GPU's job, and 8 in use finish it 8× sooner for the same price per hour.
    every_layout = w.objective in ("fastest", "cheapest_per_token") or ranks_by_job_usd(w)
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
        eu_only = workload.constraints.eu_only
        prices = catalog_ranking_prices(eu_only=eu_only)
    eur = (
        "EUR only at a rate you give"
        if prices.eur_to_usd is None
        else f"EUR at {prices.eur_to_usd:g} USD per EUR"
    )
    price_notes = [
        "Prices for ranking and budgets: each configuration at its cheapest current on-demand "
        f"price {prices.scope} ({len(prices.priced_gpus())} GPUs priced; USD, {eur}): "
        "whole instances billed, each tensor-parallel group in one machine "
        "(a 1-GPU VM cannot host TP 2+; per-GPU quotes are kept with a note to check); prices "
        f"undated or older than {prices.max_age_days} days on {prices.day.isoformat()} only "
        "when no fresher price can host the layout (dates in the option notes and "
        "`gpu-sizer cost`)."
    ]
    gpus = _allowed_gpus(workload)
    implied = {devices.default_engine(g, DeviceNotes()) for g in gpus}
    if (
        workload.engine is None
        and not workload.is_training
        and len(implied) == 1
        and None not in implied
    ):
        # Only GPUs without CUDA (Macs, Strix Halo): the engine they run, for every estimate,
        # the GPU-free one included, so no vLLM figure appears in the answer.
        workload = workload.model_copy(update={"engine": implied.pop()})
    resolved = _resolved(workload)
    if not any(g.supports_bf16 for g in gpus) and workload.task != "full":
        # Only GPUs without bf16 (T4, V100, P100): 16-bit means fp16 there, in every estimate.
        updates = {"kv_dtype": workload.kv_dtype or "fp16"}
        if workload.weights is None and resolved.checkpoint_format is None:
            updates["weights"] = "fp16"
        workload = workload.model_copy(update=updates)
        resolved = _resolved(workload)
    arch, params = _arch(workload), _params(workload)
    # One GPU-free estimate first: it validates the memory fields (bad weights → the memory
    # calculator's ToolInputError) and gives the model-level figures.
    base = estimate_memory(_memory_request(workload, None, 1, 1, 1, 1))
    fmt = "bf16" if workload.task == "full" else str(base.weights_format)
    weight_bytes = _whole_weight_bytes(workload, fmt)
    best: list[Option] = []
    rejected: list[Option] = []
    per_gpu: dict[str, list[Option]] = {}
    for gpu in gpus:
        opts = _gpu_options(workload, gpu, prices)
        per_gpu[gpu.id] = opts
        chosen = _best(workload, opts)
        best.append(chosen)
        rejected.extend(o for o in opts if o is not chosen)
    best.sort(key=_rank_key(workload, prices))
    if not workload.is_training:
        # The latency curve of the options an answer leads with (a curve costs ~30 engine
        # steps; every option would double the recommender's time).
        best = [
            with_load_latency(workload, o, i < LATENCY_CURVE_OPTIONS) for i, o in enumerate(best)
        ]
    notes, nearest = advise(workload, arch, params, best, weight_bytes, base, best + rejected)
    if workload.is_training and best and best[0].training_hours is not None:
        # The headline's hours (and job cost) rest on an MFU measured elsewhere: say so where
        # the answer shows notes, not only in the option's own notes.
        caveat = training_mfu_caveat(get_catalog().gpu(best[0].gpu))
        if caveat:
            notes.insert(0, Note(code="training_mfu_caveat", text=caveat, gpu=best[0].gpu))
    notes.extend(_cheapest_training_notes(workload))
    if not workload.is_training:
        notes.extend(_fit_notes(workload, resolved.name, fmt, best, per_gpu, prices, base))
        notes.extend(_lower_format_notes(workload, resolved.name, fmt, best, prices))
    elif best and not any(o.fits for o in best):
        notes.extend(_shorter_sequence_note(workload, max(best, key=lambda o: o.headroom_bytes)))
    assumptions = [
        *([workload.weights_reading] if workload.weights_reading else []),
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


def training_layouts_at(
    workload: Workload, gpu_id: str, count: int, prices: RankingPrices | None = None
) -> list[Option]:
    """Every training layout of exactly `count` `gpu_id`s (TP × PP × DP = count, the TP / PP
    sizes the search tries): what a named cluster ('on 256 H100s') does, evaluated even when
    the search stopped at a smaller layout or its DP doublings step over the count."""
    if not workload.is_training:
        return []
    gpu = get_catalog().gpu(gpu_id)
    prices = prices if prices is not None else catalog_ranking_prices(workload.constraints.eu_only)
    out: list[Option] = []
    for tp, pp in _layouts(workload, gpu, _arch(workload)):
        if count % (tp * pp) == 0:
            out.append(_training_option(workload, gpu, tp, pp, count // (tp * pp), prices))
    return out


def _cheapest_training_notes(w: Workload) -> list[Note]:
    """What "cheapest" ranked a training job by: its total USD when the token count gives its
    hours, else USD/hour (and what would change that)."""
    if w.objective != "cheapest" or not w.is_training:
        return []
    if ranks_by_job_usd(w):
        text = (
            "Cheapest training: ranked by the job's total USD (USD/hour × training hours, as "
            "`gpu-sizer cost` sorts), not USD/hour: a dearer, faster configuration can finish "
            "the job for less."
        )
    else:
        text = (
            "Cheapest training: ranked by USD/hour, since without a token count (train_tokens) "
            "the job's hours and so its total USD are unknown; give the dataset size to rank by "
            "the job's total."
        )
    return [Note(code="cheapest_training_basis", text=text)]


def _warnings(w: Workload, base: Any, ranked: list[Option]) -> list[Note]:
    """The memory calculator's warnings about the request. Its one-GPU `base` estimate has a
    single data-parallel rank, so its "zero has no effect" warning is about that probe, not
    the recommendation: it is kept only when the recommended layout itself has DP = 1."""
    if not w.zero:
        return list(base.warnings)
    out = [x for x in base.warnings if x.code != "zero_single_rank"]
    if w.is_training and ranked and ranked[0].dp == 1:
        o = ranked[0]
        out.append(
            Note(
                code="zero_single_rank",
                text=f"{zero_single_rank_warning(w.zero)}: the recommended {o.count}× "
                f"{o.gpu_name} (TP={o.tp}, PP={o.pp}, DP=1) keeps full model state on every GPU",
                gpu=o.gpu,
                count=o.count,
                severity="warning",
            )
        )
    return out
