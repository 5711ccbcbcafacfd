"""Data-triggered notes about fit: the engine reserve deciding a one-GPU fit, a model that
fits no single node (and what does: more nodes, fp8 weights, larger GPUs), and, for training
that fits nowhere, the longest sequence that fits.
"""

from __future__ import annotations

from typing import Any

from tools.advice import engine_reserve_note, one_node_note
from tools.catalog import GpuSpec, get_catalog
from tools.notes import Note
from tools.pricing import RankingPrices
from tools.recommend.inference import inference_option
from tools.recommend.layouts import node_size_of, tp_candidates
from tools.recommend.memory_calls import architecture_of, estimate_memory, memory_request_for
from tools.recommend.models import Option
from tools.units import format_gib as _gib
from tools.workload import Constraints, Workload

_SIXTEEN_BIT = ("bf16", "fp16", "fp32")


SEQUENCE_STEP = 256
"""Granularity of the longest-fitting training sequence search, tokens."""


def shorter_sequence_note(w: Workload, closest: Option) -> list[Note]:
    """Training that fits nowhere: the longest sequence (a multiple of SEQUENCE_STEP tokens)
    with which the closest layout fits, found by asking the memory calculator (activations
    grow with the sequence; weights and optimizer state do not). Empty when none fits."""
    gpu = get_catalog().gpu(closest.gpu)
    batch = w.micro_batch_sequences

    def fits(tokens: int) -> bool:
        request = memory_request_for(
            w, gpu, closest.tp, closest.pp, closest.dp, batch, context=tokens
        )
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
    text = (
        f"Shorter sequences fit: {closest.count}× {closest.gpu_name} (TP={closest.tp}, "
        f"PP={closest.pp}) holds training sequences of up to {lo * SEQUENCE_STEP:,} tokens at "
        f"micro-batch {batch:,}; {w.training_sequence_tokens:,} tokens need "
        f"{_gib(closest.per_gpu_bytes)} per GPU > {_gib(closest.budget_bytes_per_gpu)} budget."
    )
    return [
        Note(
            code="shorter_training_sequences",
            text=text,
            gpu=closest.gpu,
            count=closest.count,
        )
    ]


# Lower weight formats tried on a named GPU that holds nothing at the asked one, best quality
# first: what llama.cpp/Ollama users pick (GGUF) and what vLLM serves (fp8, AWQ int4).
_LOWER_FORMATS = {"generic": ("q8_0", "q4_k_m"), "vllm": ("fp8", "int4-awq")}


def lower_format_notes(
    w: Workload, model_name: str, fmt: str, best: list[Option], prices: RankingPrices
) -> list[Note]:
    """A named GPU that holds nothing in 16-bit weights (a Mac, a GeForce card): the first lower
    format that fits its largest layout tried, with the memory it needs, so the answer says
    what the user can run on the hardware they have."""
    if w.is_training or fmt not in _SIXTEEN_BIT or not w.constraints.only_gpus:
        return []
    notes: list[Note] = []
    for o in best:
        if o.fits:
            continue
        gpu = get_catalog().gpu(o.gpu)
        engine = estimate_memory(memory_request_for(w, gpu, o.tp, o.pp, 1, 1)).engine
        for lower in _LOWER_FORMATS.get(engine, ()):
            if lower == "fp8" and not gpu.supports_bf16:
                continue  # no FP8 on T4/V100/P100
            probe = inference_option(
                w.model_copy(update={"weights": lower}), gpu, o.tp, o.pp, prices
            )
            if probe.fits:
                text = (
                    f"In {lower} weights {model_name} fits {probe.count}× {o.gpu_name}: "
                    f"{_gib(probe.per_gpu_bytes)} of {_gib(probe.budget_bytes_per_gpu)} per GPU "
                    f"(in {fmt}: {_gib(o.per_gpu_bytes)})."
                )
                notes.append(
                    Note(code="lower_format_fits", text=text, gpu=o.gpu, count=probe.count)
                )
                break
    return notes


def option_fit_notes(
    w: Workload,
    model_name: str,
    fmt: str,
    best: list[Option],
    per_gpu: dict[str, list[Option]],
    prices: RankingPrices,
    base: Any,
) -> list[Note]:
    """Data-triggered fit notes: the engine reserve deciding a one-GPU fit, and a model that
    does not fit one node (with what does: more nodes, fp8 weights, larger GPUs)."""
    catalog = get_catalog()
    notes: list[Note] = []
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
    # one-node layout — or, when the user allowed fewer GPUs than a node, the largest layout
    # within that count — does not fit; PCIe cards already say why in their reasons.
    short: list[Option] = []
    for o in best:
        gpu = catalog.gpu(o.gpu)
        in_node = [x for x in per_gpu[o.gpu] if x.tp * x.pp <= _group_limit(w, gpu)]
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
        low = inference_option(probe, catalog.gpu(first.gpu), first.tp, first.pp, prices)
        if low.fits:
            lower.append(("fp8", low))
    larger = _larger_gpus_that_fit(w, catalog.gpu(first.gpu), chosen, per_gpu, short_ids, prices)
    return [*notes, one_node_note(w, model_name, fmt, short, multi_node, lower, larger)]


def _group_limit(w: Workload, gpu: GpuSpec) -> int:
    """The most GPUs one group may span here: a node, or fewer when the user allowed fewer."""
    return min(node_size_of(gpu), w.constraints.max_gpus)


def _larger_gpus_that_fit(
    w: Workload,
    short_gpu: GpuSpec,
    chosen: dict[str, Option],
    per_gpu: dict[str, list[Option]],
    short_ids: set[str],
    prices: RankingPrices,
) -> list[Option]:
    """GPUs with more memory each than `short_gpu`, at the smallest count of each that fits
    within one group (a node, or the count allowed): the layouts the recommender evaluated for
    the GPUs it ranked, else the smallest TP that splits the heads and fits, for the default
    candidates outside the user's filter (owned hardware such as Macs only when named).
    Ordered by memory per GPU from the catalog (issue 18, class 8), then by count."""
    catalog = get_catalog()
    weighed = {gid: catalog.gpu(gid) for gid in chosen}
    weighed |= {g.id: g for g in catalog.default_candidates() if g.id not in weighed}
    out: list[Option] = []
    for gpu in weighed.values():
        if gpu.id in short_ids or gpu.memory_bytes <= short_gpu.memory_bytes:
            continue
        limit = _group_limit(w, gpu)
        if gpu.id in per_gpu:
            fitting = [x for x in per_gpu[gpu.id] if x.fits and x.tp * x.pp <= limit]
            if fitting:
                out.append(min(fitting, key=lambda x: (x.count, -x.kv_cache_capacity_tokens)))
            continue
        free = w.model_copy(update={"constraints": Constraints()})
        for tp in sorted(tp_candidates(free, gpu, architecture_of(w))):
            if tp > limit:
                break
            option = inference_option(w, gpu, tp, 1, prices)
            if option.fits:
                out.append(option)
                break
    memory = {gid: g.memory_bytes for gid, g in weighed.items()}
    return sorted(out, key=lambda o: (memory[o.gpu], o.count, -o.kv_cache_capacity_tokens))
