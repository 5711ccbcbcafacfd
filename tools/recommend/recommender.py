"""`recommend()`: every allowed GPU's layouts evaluated (smallest first until no larger one can do
better; every one for "fastest" and "cheapest_per_token"), the best per GPU ranked by the
objective, and the notes, assumptions and memory-calculator warnings assembled into a
`Recommendation`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from tools.advice import advise, llama_cpp_build_notes, performance_assumptions
from tools.catalog import GpuSpec, get_catalog
from tools.memory import devices
from tools.memory.devices import DeviceNotes
from tools.memory.engine_versions import vllm_budget_inputs
from tools.memory.sharding import zero_single_rank_warning
from tools.notes import Note
from tools.performance import training_mfu_caveat
from tools.pricing import RankingPrices, catalog_ranking_prices
from tools.recommend.fit_notes import lower_format_notes, option_fit_notes, shorter_sequence_note
from tools.recommend.inference import inference_option, with_load_latency
from tools.recommend.layouts import (
    allowed_gpus,
    candidate_layouts,
    gpu_count_limit,
    node_size_of,
    serving_nodes,
)
from tools.recommend.memory_calls import (
    architecture_of,
    estimate_memory,
    memory_request_for,
    param_counts,
    resolved_model,
    whole_weight_bytes,
    whole_weights,
)
from tools.recommend.models import Option, Recommendation
from tools.recommend.ranking import best_option, rank_key, ranks_by_job_usd
from tools.recommend.training import training_option
from tools.units import format_gib
from tools.workload import Workload

LATENCY_CURVE_OPTIONS = 3
"""Ranked serving options that carry a latency curve (`Option.latency_curve`)."""


@lru_cache(maxsize=1)
def _rejection_template() -> Option:
    """A validated Option that layouts the bound rejects are copied from (no validation per
    copy: every field is set from the bound)."""
    return Option(
        gpu="",
        gpu_name="",
        count=1,
        tp=1,
        pp=1,
        dp=1,
        nodes=1,
        fits=False,
        meets_targets=False,
        per_gpu_bytes=0,
        budget_bytes_per_gpu=0,
        headroom_bytes=0,
        kv_cache_capacity_bytes=0,
        kv_cache_capacity_tokens=0,
        max_concurrent_sequences=0,
    )


@dataclass(frozen=True)
class LayoutBound:
    """What a layout needs at the least, from whole-model figures and no memory estimate:
    each of the tp × pp GPUs holds at least its share of the text weights (replicated KV
    heads, activations and runtime only add) within the engine's budget (the memory
    calculator's rule: vLLM usable × gpu_memory_utilization, others usable), and the group's
    KV cache per sequence is at least one sequence's KV on one GPU (tensor parallelism
    replicates, never removes, KV)."""

    text_weight_bytes: int
    kv_sequence_bytes: int
    engine: str | None
    gpu_memory_utilization: float | None
    runtime_bytes_per_gpu: int = 0
    engine_version: str | None = None
    """The memory calculator's runtime overhead per GPU (CUDA context, cuBLAS workspace, vLLM's
    CUDA graphs: the same on every CUDA GPU; none on a Mac)."""

    budgets: dict[str, tuple[int, int]] = field(default_factory=dict, compare=False)

    def budget(self, gpu: GpuSpec) -> tuple[int, int]:
        """(the memory calculator's engine budget on `gpu` — vLLM: usable × utilization —,
        the runtime overhead it holds besides weights and KV cache: the CUDA context, cuBLAS
        workspace and CUDA graphs of a vLLM estimate, which no GPU's vLLM estimate lacks)."""
        found = self.budgets.get(gpu.id)
        if found is None:
            engine = self.engine or devices.default_engine(gpu, DeviceNotes()) or "vllm"
            total, util, runtime = gpu.usable_memory_bytes, 1.0, 0
            if engine == "vllm":
                total, util = vllm_budget_inputs(
                    gpu, self.gpu_memory_utilization, self.engine_version
                )
                runtime = self.runtime_bytes_per_gpu
            found = self.budgets[gpu.id] = (int(total * util), runtime)
        return found

    def room(self, gpu: GpuSpec) -> int:
        """What weights and KV cache may use at most on one GPU, bytes."""
        budget, runtime = self.budget(gpu)
        return budget - runtime

    def holds_weights(self, gpu: GpuSpec, tp: int, pp: int) -> bool:
        """False when the weights alone exceed the budgets of tp × pp GPUs."""
        return self.text_weight_bytes <= self.room(gpu) * tp * pp

    def rejection(self, gpu: GpuSpec, tp: int, pp: int) -> Option:
        """A layout whose weights alone exceed its GPUs, with the reason (no estimate: the
        bytes are the lower bound, the usable memory the upper bound of any budget)."""
        share = -(-self.text_weight_bytes // (tp * pp))
        budget, runtime = self.budget(gpu)
        usable = budget - runtime
        runtime_text = f" + {format_gib(runtime)} runtime" if runtime else ""
        reason = (
            f"TP={tp} PP={pp}: the weights alone take at least {format_gib(share)} per GPU"
            f"{runtime_text} > budget {format_gib(budget)}"
        )
        return _rejection_template().model_copy(
            update=dict(
                gpu=gpu.id,
                gpu_name=gpu.name,
                count=tp * pp,
                tp=tp,
                pp=pp,
                dp=1,
                nodes=serving_nodes(tp, pp, 1, node_size_of(gpu)),
                fits=False,
                meets_targets=False,
                per_gpu_bytes=share,
                budget_bytes_per_gpu=budget,
                headroom_bytes=usable - share,
                kv_cache_capacity_bytes=0,
                kv_cache_capacity_tokens=0,
                max_concurrent_sequences=0,
                reasons=[reason],
                notes=[],
                latency_curve=[],
                gpu_as_of=gpu.as_of,
            )
        )

    def fewest_gpus(self, w: Workload, gpu: GpuSpec, tp: int, pp: int) -> int:
        """A lower bound on the GPUs the layout needs for the users: each replica runs at
        most the sequences whose KV fits beside the weights."""
        group = tp * pp
        if w.replicas is not None:
            return group * w.replicas  # fixed: users past the cap wait, no scale-out
        users_given = "users" in w.model_fields_set or w.tokens_per_s is None
        if not users_given or self.kv_sequence_bytes <= 0:
            return group
        free = self.room(gpu) * group - self.text_weight_bytes
        most_sequences = max(1, free // self.kv_sequence_bytes)
        return group * math.ceil(w.users / most_sequences)


def _gpu_options(
    w: Workload, gpu: GpuSpec, prices: RankingPrices, bound: LayoutBound | None = None
) -> list[Option]:
    """Every layout evaluated on `gpu`, smallest first, until no larger one can do better
    (serving: `_serving_options`, which `bound` prunes)."""
    options: list[Option] = []
    # "fastest" tries every layout: a larger tensor-parallel group decodes each token faster
    # (and more GPUs train sooner), so the smallest layout that meets the targets is not it;
    # "cheapest_per_token" likewise: a larger group frees more memory for KV cache, runs a
    # larger batch and can cost less per token although more per hour (QA round 3, B).
    # A training job's total USD likewise: a GPU sold only in 8-GPU machines bills 8 for one
    # GPU's job, and 8 in use finish it 8× sooner for the same price per hour.
    every_layout = w.objective in ("fastest", "cheapest_per_token") or ranks_by_job_usd(w)
    if not w.is_training:
        return _serving_options(w, gpu, prices, bound, every_layout)
    limit = gpu_count_limit(w, gpu)
    for tp, pp in candidate_layouts(w, gpu, architecture_of(w)):
        dp = 1
        while tp * pp * dp <= limit:
            opt = training_option(w, gpu, tp, pp, dp, prices)
            options.append(opt)
            if not every_layout and (opt.meets_targets or (opt.fits and w.train_tokens is None)):
                return options
            if not opt.fits and w.zero in (None, 0) and w.task == "full":
                break  # without ZeRO, replicas do not reduce memory per GPU: next layout
            dp *= 2
    return options


def _serving_options(
    w: Workload, gpu: GpuSpec, prices: RankingPrices, bound: LayoutBound | None, every: bool
) -> list[Option]:
    """The serving layouts of `gpu` evaluated, in search order. `bound` prunes before any
    memory estimate: layouts that cannot hold the weights (the largest one is still evaluated
    when none can, so the GPU says by how much it falls short), and layouts whose GPU count
    must exceed max_gpus, which cannot meet the targets: those are evaluated only when no
    other layout meets them (the best option then comes from every fitting one)."""
    layouts = candidate_layouts(w, gpu, architecture_of(w))
    if bound is None:
        return _walk_layouts(w, gpu, prices, layouts, every, None)
    order = {lay: i for i, lay in enumerate(layouts)}
    holding = [(t, p) for t, p in layouts if bound.holds_weights(gpu, t, p)]
    # Where some layout holds the weights, the smaller ones are listed as rejected with the
    # bound as their reason; where none does, only the largest is (its estimate says by how
    # much it falls short, and no bound's optimistic headroom may outrank it).
    short = [lay for lay in layouts if lay not in holding] if holding else []
    rejected = [bound.rejection(gpu, t, p) for t, p in short]
    layouts = holding or layouts[-1:]
    limit = w.constraints.max_gpus
    within = [lay for lay in layouts if bound.fewest_gpus(w, gpu, *lay) <= limit]
    options = _walk_layouts(w, gpu, prices, within, every, bound)
    if not any(o.meets_targets for o in options) and len(within) < len(layouts):
        rest = [lay for lay in layouts if lay not in within]
        options += _walk_layouts(w, gpu, prices, rest, every, bound)
    return sorted(rejected + options, key=lambda o: order[(o.tp, o.pp)])


def _walk_layouts(
    w: Workload,
    gpu: GpuSpec,
    prices: RankingPrices,
    layouts: list[tuple[int, int]],
    every: bool,
    bound: LayoutBound | None,
) -> list[Option]:
    """`layouts` evaluated smallest first, until no larger one can do better (`every`: all)."""
    options: list[Option] = []
    fewest_meeting: int | None = None
    for tp, pp in layouts:
        if not every and fewest_meeting is not None:
            if tp * pp >= fewest_meeting:
                break  # a larger group cannot meet the targets with fewer GPUs
            if bound is not None and bound.fewest_gpus(w, gpu, tp, pp) >= fewest_meeting:
                continue  # its KV capacity needs more replicas than the layout found
        opt = inference_option(w, gpu, tp, pp, prices)
        options.append(opt)
        if opt.meets_targets:
            fewest_meeting = min(opt.count, fewest_meeting or opt.count)
    return options


def _ranking_prices_note(prices: RankingPrices) -> str:
    """Which prices rank the options and check budgets, in words."""
    eur = (
        "EUR only at a rate you give"
        if prices.eur_to_usd is None
        else f"EUR at {prices.eur_to_usd:g} USD per EUR"
    )
    return (
        "Prices for ranking and budgets: each configuration at its cheapest current on-demand "
        f"price {prices.scope} ({len(prices.priced_gpus())} GPUs priced; USD, {eur}): "
        "whole instances billed, each tensor-parallel group in one machine "
        "(a 1-GPU VM cannot host TP 2+; per-GPU quotes are kept with a note to check); prices "
        f"undated or older than {prices.max_age_days} days on {prices.day.isoformat()} only "
        "when no fresher price can host the layout, and rates the research marks low "
        "confidence only when no confirmed price as fresh can (dates in the option notes and "
        "`gpu-sizer cost`)."
    )


def _for_the_gpus(workload: Workload, gpus: list[GpuSpec]) -> Workload:
    """The workload as every GPU allowed runs it: their engine when none has CUDA, fp16 where
    none has bf16."""
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
    if not any(g.supports_bf16 for g in gpus) and workload.task != "full":
        # Only GPUs without bf16 (T4, V100, P100): 16-bit means fp16 there, in every estimate.
        updates = {"kv_dtype": workload.kv_dtype or "fp16"}
        if workload.weights is None and resolved_model(workload).checkpoint_format is None:
            updates["weights"] = "fp16"
        workload = workload.model_copy(update=updates)
    return workload


def _mfu_caveat(workload: Workload, best: list[Option]) -> list[Note]:
    """Training: the headline's hours (and job cost) rest on an MFU measured elsewhere — said
    where the answer shows notes, not only in the option's own notes."""
    if not workload.is_training or not best or best[0].training_hours is None:
        return []
    caveat = training_mfu_caveat(get_catalog().gpu(best[0].gpu))
    return [Note(code="training_mfu_caveat", text=caveat, gpu=best[0].gpu)] if caveat else []


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
    price_notes = [_ranking_prices_note(prices)]
    gpus = allowed_gpus(workload)
    workload = _for_the_gpus(workload, gpus)
    resolved = resolved_model(workload)
    arch, params = architecture_of(workload), param_counts(workload)
    # One GPU-free estimate first: it validates the memory fields (bad weights → the memory
    # calculator's ToolInputError) and gives the model-level figures.
    base = estimate_memory(memory_request_for(workload, None, 1, 1, 1, 1))
    fmt = "bf16" if workload.task == "full" else str(base.weights_format)
    weight_bytes = whole_weight_bytes(workload, fmt)
    best: list[Option] = []
    rejected: list[Option] = []
    per_gpu: dict[str, list[Option]] = {}
    bound = None
    if not workload.is_training:
        text_weights = weight_bytes - int(whole_weights(workload, fmt).vision)
        bound = LayoutBound(
            text_weights,
            int(base.breakdown.get("kv_cache", 0)),
            workload.engine,
            workload.gpu_memory_utilization,
            int(base.breakdown.get("overhead", 0)),
            workload.engine_version,
        )
    for gpu in gpus:
        opts = _gpu_options(workload, gpu, prices, bound)
        per_gpu[gpu.id] = opts
        chosen = best_option(workload, opts)
        best.append(chosen)
        rejected.extend(o for o in opts if o is not chosen)
    best.sort(key=rank_key(workload, prices))
    if not workload.is_training:
        # The latency curve of the options an answer leads with (a curve costs ~30 engine
        # steps; every option would double the recommender's time).
        best = [
            with_load_latency(workload, o, i < LATENCY_CURVE_OPTIONS) for i, o in enumerate(best)
        ]
    notes, nearest = advise(workload, arch, params, best, weight_bytes, base, best + rejected)
    notes[:0] = _mfu_caveat(workload, best)
    notes.extend(llama_cpp_build_notes(workload))
    notes.extend(_cheapest_training_notes(workload))
    if not workload.is_training:
        notes.extend(option_fit_notes(workload, resolved.name, fmt, best, per_gpu, prices, base))
        notes.extend(lower_format_notes(workload, resolved.name, fmt, best, prices))
    elif best and not any(o.fits for o in best):
        notes.extend(shorter_sequence_note(workload, max(best, key=lambda o: o.headroom_bytes)))
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
    for tp, pp in candidate_layouts(workload, gpu, architecture_of(workload)):
        if count % (tp * pp) == 0:
            out.append(training_option(workload, gpu, tp, pp, count // (tp * pp), prices))
    return out


def serving_layout_at(
    workload: Workload, gpu_id: str, tp: int, pp: int, prices: RankingPrices | None = None
) -> Option:
    """One serving layout, `tp` × `pp` `gpu_id`s with the workload's replicas (`replicas`,
    else as many as its targets need), evaluated as the search evaluates it, with its TTFT at
    the load and its latency curve: what a request rate's headline becomes at the replicas
    the rate needs (`tools.sizing.workloads.rate_deployment`)."""
    gpu = get_catalog().gpu(gpu_id)
    prices = prices if prices is not None else catalog_ranking_prices(workload.constraints.eu_only)
    return with_load_latency(workload, inference_option(workload, gpu, tp, pp, prices), True)


def with_latency_curve(workload: Workload, option: Option) -> Option:
    """`option` with its latency curve (TTFT and decode speed from one user to past what one
    replica runs), as the ranked options carry one: for a layout past them that a request
    rate is sized on (`tools.sizing.workloads.rate_headline`); `option` itself when it has
    one or cannot be timed."""
    return option if option.latency_curve else with_load_latency(workload, option, True)


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
