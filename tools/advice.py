"""Advice notes for a recommendation, each triggered by a number, and the speed assumptions.

A note is only emitted when the figures of this workload call for it (fits on one GPU, tensor
parallelism over a slow link, MoE, KV-dominated memory, room for more tenants), and it carries
those figures. Notes never contain a figure that no tool computed. Each is a typed
`tools.notes.Note`: its code says what it is about and, when it is about one configuration, its
GPU and count, so a renderer selects and labels notes without reading their text.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from tools.architecture import Architecture, ParamCounts
from tools.catalog import get_catalog
from tools.defaults import DEFAULT_KV_DTYPE
from tools.memory.formats import BYTE_DTYPES
from tools.notes import Note
from tools.performance import resolve
from tools.performance.assumptions import model_assumptions
from tools.units import format_count
from tools.units import format_gib as _gib
from tools.workload import Workload

if TYPE_CHECKING:
    from tools.recommend import Option


def fp8_kv_saving(kv_dtype: str | None) -> str | None:
    """What switching the KV cache from `kv_dtype` (None: the default) to fp8 does to its
    size, in words ("halves it"), or None when fp8 saves nothing (already 1 byte/element)."""
    dtype = kv_dtype or DEFAULT_KV_DTYPE
    if dtype not in BYTE_DTYPES:
        return None  # ExLlamaV2's Q4 / Q6 / Q8 cache: already at or under about a byte
    factor = BYTE_DTYPES[dtype] // BYTE_DTYPES["fp8"]
    if factor <= 1:
        return None
    return "halves it" if factor == 2 else f"cuts it {factor}×"


def _single_gpu_notes(w: Workload, o: Option, weight_bytes: int) -> list[Note]:
    """One GPU meets the targets: stop there, no link needed, and room for other tenants."""
    notes: list[Note] = []
    what = (
        f"{_gib(o.kv_cache_capacity_bytes)} left for KV cache "
        f"({format_count(o.kv_cache_capacity_tokens)} tokens)"
        if not w.is_training
        else f"{_gib(o.headroom_bytes)} headroom"
    )
    notes.append(
        Note(
            code="single_gpu_enough",
            text=f"Fits on 1× {o.gpu_name} with {what}: stop there — a second GPU adds cost "
            "and all-reduce traffic, not capacity this workload needs.",
            gpu=o.gpu,
            count=1,
        )
    )
    if not w.is_training:
        notes.append(
            Note(
                code="single_gpu_no_link_needed",
                text="Single-GPU inference has no GPU-to-GPU traffic: PCIe / NVL cards serve "
                "it as well as SXM parts with the same memory and bandwidth.",
            )
        )
    spare = o.headroom_bytes
    # Serving only: a training job's spare memory is not a place for a second model's
    # users (QA round 4, 11).
    if not w.is_training and weight_bytes and spare >= weight_bytes:
        notes.append(
            Note(
                code="room_for_tenants",
                text=f"1× {o.gpu_name} keeps {_gib(spare)} free after this load, ≥ the "
                f"{_gib(weight_bytes)} of weights: room for a second model or many LoRA "
                "adapters on the same GPU (multi-tenant serving).",
                gpu=o.gpu,
                count=1,
            )
        )
    return notes


def advise(
    w: Workload,
    arch: Architecture,
    params: ParamCounts,
    best: list[Option],
    weight_bytes: int,
    base: Any,
    evaluated: list[Option] | None = None,
) -> tuple[list[Note], str | None]:
    """Notes triggered by the numbers of `best` (best option per GPU, ranked), and an
    explanation of the nearest feasible configuration when nothing meets the targets."""
    notes: list[Note] = []
    meeting = [o for o in best if o.meets_targets]
    # Serving only: a training job on more GPUs finishes sooner for about the same GPU-hours,
    # so "a second GPU adds cost" is not true of it (and "cheapest" training ranks job totals).
    single = [o for o in meeting if o.count == 1] if not w.is_training else []
    if single:
        notes += _single_gpu_notes(w, single[0], weight_bytes)
    multi = [o for o in meeting if o.tp > 1 or (w.is_training and o.count > 1)]
    if multi and not single:
        o = multi[0]
        why = (
            training_traffic(w, arch, o)
            if w.is_training
            else (
                f"TP={o.tp} runs {2 * arch.num_layers} all-reduces per generated token "
                f"(≈ {_allreduce_us(o, w):.1f} µs each, calibrated)"
            )
        )
        notes.append(
            Note(
                code="multi_gpu_link",
                text=f"Multi-GPU: {why} — prefer SXM/OAM parts with NVLink / Infinity Fabric "
                "over PCIe cards (catalog one-direction links: NVLink 300–900 GB/s vs PCIe Gen4 "
                "32 GB/s).",
            )
        )
    if arch.moe is not None:
        moe_text = (
            f"MoE: memory holds all {format_count(params.total)} parameters "
            f"({weights_figure(w, weight_bytes, base)}) but each token runs "
            f"{format_count(params.active_per_token)} ({arch.moe.experts_per_token} of "
            f"{arch.moe.num_experts} experts): "
            + (
                # tools/performance.training_flops_per_token counts the active parameters.
                f"training FLOPs per token are those of a {format_count(params.active_per_token)} "
                "dense model, memory that of the whole one."
                if w.is_training
                else f"decode speed is near a {format_count(params.active_per_token)} dense "
                "model at small batch, approaching all experts read per step as the batch grows."
            )
        )
        notes.append(Note(code="moe", text=moe_text))
    if not w.is_training:
        kv_total = base.kv_cache_bytes_per_token * w.context_tokens * w.users
        if weight_bytes and kv_total > weight_bytes:
            kv_dtype = str(base.kv_dtype)
            saving = fp8_kv_saving(kv_dtype)
            remedy = (
                f"an fp8 KV cache {saving}"
                if saving
                else f"the KV cache is already {kv_dtype}: a shorter context or more replicas "
                "(fewer users each) lower it per GPU"
            )
            notes.append(
                Note(
                    code="kv_dominated",
                    text=f"KV-dominated: {w.users:,} × {w.context_tokens:,} tokens need "
                    f"{_gib(kv_total)} of KV cache ({kv_dtype}) vs {_gib(weight_bytes)} of "
                    f"weights — memory scales with users × context; {remedy}.",
                )
            )
    return notes, nearest_feasible(w, best, evaluated or best)


def weights_figure(w: Workload, weight_bytes: int, base: Any) -> str:
    """The weights a note quotes, with their size: `weight_bytes` (the 16-bit or quantized
    weights a server holds) when serving; when training, the memory calculator's weights
    component of the whole model (`base`: its one-GPU estimate), which for a full fine-tune
    counts the fp32 master copy beside the 16-bit weights (6 B per parameter in the HF
    accounting) and for LoRA / QLoRA the frozen base plus the adapters (QA round 4, 11)."""
    if not w.is_training:
        return f"{_gib(weight_bytes)} of weights"
    trained = int(base.breakdown["weights"])
    if w.task == "full":
        per_param = trained / int(base.total_params)
        return f"{_gib(trained)} of training weights, {per_param:.0f} B per parameter"
    return f"{_gib(trained)} of base weights and adapters"


def training_traffic(w: Workload, arch: Architecture, o: Option) -> str:
    """What a training layout sends between GPUs every step, in words: gradients only cross
    data-parallel ranks (none with DP = 1); TP all-reduces activations, PP passes them on."""
    parts: list[str] = []
    if o.dp > 1:
        if (w.zero or 0) >= 3:
            parts.append(
                f"DP={o.dp} all-gathers parameters and reduce-scatters gradients every step "
                "(ZeRO-3/FSDP)"
            )
        elif (w.zero or 0) == 2:
            parts.append(f"DP={o.dp} reduce-scatters gradients every step (ZeRO-2)")
        else:
            parts.append(f"DP={o.dp} all-reduces gradients every step")
    if o.tp > 1:
        # Megatron-LM (Shoeybi et al. 2019, §3): 2 all-reduces per layer forward, 2 backward.
        parts.append(
            f"TP={o.tp} all-reduces activations {4 * arch.num_layers} times per micro-batch "
            "(2 per layer forward, 2 backward)"
        )
    if o.pp > 1:
        parts.append(
            f"PP={o.pp} passes activations (and their gradients back) between stages per "
            "micro-batch"
        )
    return "; ".join(parts)


def engine_reserve_note(
    w: Workload, singles: list[Option], usable_bytes: int, kv_bytes_per_token: int
) -> Note | None:
    """When one GPU misses only because of the serving engine's reserve: the smallest
    gpu_memory_utilization at which one GPU holds the requested load (`w.users` sequences of
    `w.context_tokens`), or, when only fewer sequences fit in the usable memory, how many
    users one GPU holds at the utilisation that fits one; and the KV tokens each further 0.01
    adds. `singles`: the failed 1-GPU layouts of GPU types with the same usable memory (their
    per_gpu_bytes is the one-sequence minimum); `kv_bytes_per_token`: KV bytes per token on
    one GPU."""
    first = singles[0]
    need = first.per_gpu_bytes  # weights + activations + runtime + one sequence's KV
    if first.fits or first.count != 1 or need > usable_bytes:
        return None
    if first.budget_bytes_per_gpu >= usable_bytes:
        return None  # no engine reserve to trade
    util = first.budget_bytes_per_gpu / usable_bytes
    per_percent = int(usable_bytes * 0.01 // kv_bytes_per_token)
    names = " / ".join(o.gpu_name for o in singles)
    users, context = w.users, w.context_tokens
    # Each further user adds one full-context sequence of KV cache (vLLM's 16-token block
    # rounding adds < 16 tokens per sequence; ignored here).
    sequence_kv = context * kv_bytes_per_token
    load_need = need + (users - 1) * sequence_kv
    head = (
        f"Engine reserve decides the fit on 1× {names}: weights, runtime and one "
        f"{context:,}-token sequence need {_gib(need)} > the "
        f"{_gib(first.budget_bytes_per_gpu)} budget at gpu_memory_utilization {util:.2f} "
        f"({_gib(usable_bytes)} usable)."
    )
    step = (
        f"each further 0.01 adds {_gib(usable_bytes * 0.01)} = "
        f"{format_count(per_percent)} KV tokens"
    )
    saving = fp8_kv_saving(w.kv_dtype)
    helps = (
        "a shorter context or an fp8 KV cache also helps"
        if saving
        else "a shorter context also helps"
    )
    if load_need <= usable_bytes:
        load_util = math.ceil(load_need / usable_bytes * 100) / 100
        what = (
            "it fits one GPU"
            if users == 1
            else f"one GPU holds all {users:,} users' {context:,}-token sequences "
            f"({_gib(load_need)})"
        )
        text = f"{head} At {load_util:.2f} {what}, and {step}; {helps}."
        return Note(code="engine_reserve", text=text, gpu=first.gpu, count=1)
    min_util = math.ceil(need / usable_bytes * 100) / 100
    non_kv = need - sequence_kv

    def held(utilisation: float) -> int:
        return int((usable_bytes * utilisation - non_kv) // sequence_kv)

    at_min, at_full = max(1, held(min_util)), held(1.0)  # min_util fits one by construction
    more = f" ({at_full:,} at 1.00)" if at_full > at_min else ""
    text = (
        f"{head} At {min_util:.2f} one GPU holds {at_min:,} of the {users:,} users' "
        f"{context:,}-token sequences{more}: all {users:,} need {_gib(load_need)} > the "
        f"{_gib(usable_bytes)} usable, so more GPUs serve them; {step}; {helps}."
    )
    return Note(code="engine_reserve", text=text, gpu=first.gpu, count=1)


def one_node_note(
    w: Workload,
    model_name: str,
    fmt: str,
    short: list[Option],
    multi_node: list[Option],
    lower_precision: list[tuple[str, Option]],
    larger_gpus: list[Option],
    max_listed: int = 6,
) -> Note:
    """The model does not fit one node of the GPUs in `short` (their largest single-node
    layout, which failed) — or, when the user allowed fewer GPUs than a node, that many: the
    note says which limit it is, never calling a count a node. What does fit: more nodes,
    lower-precision weights, larger GPUs (`larger_gpus`: more memory each, at the fewest that
    fit, in the order given: memory per GPU)."""
    catalog = get_catalog()
    first = short[0]
    node = catalog.gpu(first.gpu).gpus_per_node or 8
    limited = w.constraints.max_gpus < node
    scope = f"the {w.constraints.max_gpus:,} GPUs allowed" if limited else "one node"
    shortfall = (
        f"{first.count}× {first.gpu_name} at TP={first.tp} needs {_gib(first.per_gpu_bytes)} "
        f"per GPU > {_gib(first.budget_bytes_per_gpu)} budget"
    )
    kind = f"{w.constraints.max_gpus:,}" if limited else "one node"
    others = "" if len(short) == 1 else f" (nor {kind} of {len(short) - 1} other GPU types)"
    fixes: list[str] = []
    for o in multi_node[:1]:
        nodes = math.ceil(o.nodes / o.dp)
        fixes.append(
            f"{nodes} nodes: {o.tp * o.pp}× {o.gpu_name} as TP={o.tp} × PP={o.pp}, "
            f"{_gib(o.per_gpu_bytes)} per GPU"
        )
    for low, o in lower_precision[:1]:
        where = f"within {scope}" if limited else "in one node"
        fixes.append(
            f"{low} weights: {o.tp * o.pp}× {o.gpu_name} at TP={o.tp} {where}, "
            f"{_gib(o.per_gpu_bytes)} per GPU"
        )
    if larger_gpus:
        names = ", ".join(
            f"{o.tp * o.pp}× {o.gpu_name} ({catalog.gpu(o.gpu).memory_bytes / 1e9:,.0f} GB each)"
            for o in larger_gpus[:max_listed]
        )
        more = len(larger_gpus) - max_listed
        fixes.append(
            f"GPUs with more memory each, the fewest that fit in {fmt}: {names}"
            + (f" (+{more} more)" if more > 0 else "")
        )
    what = "; ".join(fixes) if fixes else "nothing in the catalog within the constraints"
    return Note(
        code="no_single_node",
        text=f"{model_name} in {fmt} does not fit {scope}: {shortfall}{others}. What fits: {what}.",
        gpu=first.gpu,
        count=first.count,
    )


def _ttft_line(w: Workload, tried: list[Option]) -> list[str]:
    """A TTFT target no layout meets: the fastest prefill of the prompt any layout gets."""
    timed = [o for o in tried if o.ttft_s is not None]
    if w.ttft_s is None or not timed or min(o.ttft_s or 0 for o in timed) <= w.ttft_s:
        return []
    o = min(timed, key=lambda x: x.ttft_s or 0)
    return [
        f"TTFT target {w.ttft_s * 1000:,.0f} ms: the fastest prefill of a "
        f"{w.prompt_tokens:,}-token prompt is {(o.ttft_s or 0) * 1000:,.0f} ms on "
        f"{o.tp * o.pp}× {o.gpu_name} (TP={o.tp}); shorter prompts or a smaller model "
        "lower it."
    ]


def _speed_line(w: Workload, tried: list[Option]) -> list[str]:
    """A per-user speed target no layout meets: the fastest decode any layout gets."""
    if w.tokens_per_s_per_user is None:
        return []
    fastest = max(tried, key=lambda x: x.decode_tokens_per_s_per_seq or 0)
    speed = fastest.decode_tokens_per_s_per_seq or 0
    if speed >= w.tokens_per_s_per_user:
        return []
    return [
        f"Per-user speed target {w.tokens_per_s_per_user:g} tok/s: the fastest is "
        f"{speed:,.1f} tok/s on {fastest.tp * fastest.pp}× {fastest.gpu_name} "
        f"(TP={fastest.tp}); lower-bit weights read fewer bytes per token."
    ]


def _scale_line(w: Workload, fitting: list[Option]) -> list[str]:
    """The load needs more GPUs than max_gpus: the fewest that hold it, and the most users
    served within the limit (whole replicas of the layout that serves most)."""
    limit = w.constraints.max_gpus
    over = [o for o in fitting if o.count > limit]
    if not over or [o for o in fitting if o.count <= limit and not o.reasons]:
        return []

    def replicas(o: Option) -> int:
        return limit // (o.tp * o.pp)

    def served(o: Option) -> int:
        return replicas(o) * o.sequences_per_replica

    o = max(over, key=served)
    cheapest_full = min(over, key=lambda x: x.count)
    rate = f" / {w.tokens_per_s:,.0f} tok/s" if w.tokens_per_s else ""
    return [
        f"Scale: {w.users:,} users{rate} need at least {cheapest_full.count:,}× "
        f"{cheapest_full.gpu_name}; within max_gpus {limit:,} the most served is "
        f"{served(o):,} concurrent users on {replicas(o) * o.tp * o.pp:,}× {o.gpu_name} "
        f"({replicas(o):,} replica(s) of TP={o.tp} × PP={o.pp}, "
        f"{o.sequences_per_replica:,} sequences each)."
    ]


def _within_budget(o: Option, budget: float | None) -> bool:
    return budget is None or (o.usd_per_hour is not None and o.usd_per_hour <= budget)


def _deadline_line(w: Workload, tried: list[Option]) -> list[str]:
    """A training deadline missed: the fastest layout within max_gpus and the budget."""
    if not w.is_training or w.deadline_hours is None:
        return []
    # Every layout tried that meets the other training targets (fits, within max_gpus and the
    # budget), not only the one kept per GPU type.
    budget = w.constraints.budget_usd_per_hour
    timed = [
        o
        for o in tried
        if o.training_hours is not None
        and o.count <= w.constraints.max_gpus
        and _within_budget(o, budget)
    ]
    if not timed:
        return []
    o = min(timed, key=lambda x: x.training_hours or math.inf)
    return [
        f"Deadline {w.deadline_hours:,.1f} h: the fastest within max_gpus is "
        f"{o.training_hours or 0:,.1f} h on {o.count}× {o.gpu_name}."
    ]


def nearest_feasible(w: Workload, best: list[Option], evaluated: list[Option]) -> str | None:
    """When no option meets every target: for each target missed, the closest any evaluated
    layout gets (`evaluated`: every layout tried), and the configuration that comes nearest
    (`best`: the best option per GPU, ranked)."""
    if not best or any(o.meets_targets for o in best):
        return None
    fitting = [o for o in best if o.fits]
    lines = ["No configuration meets every target."]
    if not fitting:
        o = max(best, key=lambda x: x.headroom_bytes)
        lines.append(
            f"Nothing fits within the constraints; closest: {o.count}× {o.gpu_name} "
            f"(TP={o.tp}, PP={o.pp}): " + "; ".join(o.reasons or ["-"])
        )
        return " ".join(lines)
    tried = [o for o in evaluated if o.fits]
    lines += _ttft_line(w, tried)
    lines += _speed_line(w, tried)
    lines += _scale_line(w, fitting)
    lines += _deadline_line(w, tried)
    o = fitting[0]
    lines.append(
        f"Nearest: {o.count:,}× {o.gpu_name} (TP={o.tp}, PP={o.pp}, DP={o.dp}) fits but "
        "misses: " + "; ".join(o.reasons or ["-"])
    )
    return " ".join(lines)


def _allreduce_us(o: Option, w: Workload) -> float:
    """Latency of one all-reduce over the option's TP group, microseconds (performance model)."""
    eff = resolve(get_catalog().gpu(o.gpu), w.weights or "bf16", w.engine)
    return eff.allreduce_latency_s(o.tp) * 1e6


def llama_cpp_build_notes(w: Workload) -> list[Note]:
    """A llama.cpp build named that cannot be dated (a commit hash): the newest builds'
    constants are assumed, said as a note (issue 31: 'an unknown version uses the newest with
    the assumption stated')."""
    build = _llama_cpp_build(w)
    if build is None or not build.assumed:
        return []
    return [Note(code="engine_version", text=build.statement())]


def _llama_cpp_build(w: Workload) -> Any:
    """The llama.cpp build the workload names (`tools.performance.llama_builds.LlamaBuild`),
    None without one or for another engine."""
    if w.engine != "generic" or w.engine_version is None:
        return None
    from tools.performance.llama_builds import read_llama_build

    return read_llama_build(w.engine_version)


def performance_assumptions(w: Workload) -> list[str]:
    """The performance model's assumptions, with their sources, for display (the llama.cpp
    build named and the era it is timed as among them)."""
    out = model_assumptions(w.is_training)
    build = _llama_cpp_build(w)
    if build is not None and not build.assumed:  # an assumed one is a note (above)
        out.append(build.statement())
    if w.batching == "static":
        longest = w.max_output_tokens or 2 * w.output_tokens
        out.append(
            f"Static batching: slots wait for the longest output ({longest:,} tokens) → "
            f"throughput × {w.output_tokens / longest:.2f} (mean/max) vs continuous batching."
        )
    return out
