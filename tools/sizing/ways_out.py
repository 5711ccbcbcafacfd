"""A way out when nothing fits (issue 18, class 9): a training job that fits none of the GPUs
the user named, re-sized by the memory calculator with each lever people pull — shorter
sequences, a lower LoRA rank, an 8-bit optimizer, gradient checkpointing — and with all of them
together, so the answer says what does fit, with the figures. When even all together do not
fit, the lighter method (LoRA for a full fine-tune, QLoRA's 4-bit base for LoRA) is sized at
the sequence asked, alone or with the other levers (`LIGHTER`) — not for pre-training, which
adapters cannot do. A full training job still over the GPUs named is sized with ZeRO-3 over
the fewest GPUs that hold it (`fewest_zero3_gpus`).

The subject is the named configuration with the most headroom (the one closest to fitting).
Each lever changes one memory-request field; the shorter sequence is the longest that fits (a
multiple of `SEQUENCE_STEP` tokens), found by a binary search (memory grows with the sequence).

Serving (`serving_ways_out`): a named GPU configuration that does not hold the load as asked is
re-sized at the longest context it holds at the format and load asked (the search of
`tools.sizing.memory.longest_fitting_context`), and with an 8-bit KV cache (`KV_8BIT`) when that
makes it fit, else when it makes a longer context fit. What count of that GPU holds the load is
the scale-out (`tools.sizing.plan._scale_out`, `SizingReport.scale_out`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tools.limits import MAX_GPUS
from tools.memory import MemoryEstimate
from tools.memory.estimate import DEFAULT_LORA_RANK, DEFAULT_QLORA_RANK
from tools.recommend import Recommendation
from tools.sizing.memory import (
    configuration_fields,
    estimate_fields,
    longest_fitting_context,
    shorter_context_limit,
)
from tools.sizing.report import Lever, SizedConfiguration, WayOut
from tools.sizing.request import SizingRequest

SEQUENCE_STEP = 256
"""Granularity of the longest fitting training sequence, tokens."""

LOWER_RANK = 8
"""The LoRA rank tried when a higher one does not fit: PEFT's default (LoraConfig r=8)."""

LIGHTER = {"full": "lora", "lora": "qlora"}
"""The next lighter training method: adapters instead of every weight, then a 4-bit base."""

KV_8BIT = {"vllm": "fp8"}
"""The 8-bit KV cache tried per engine: vLLM `--kv-cache-dtype fp8` (vLLM docs, 'Quantized KV
Cache'). Not llama.cpp: its q8_0 cache takes 34 bytes per 32 elements, which the local-serving
tool (tools/local_serving) plans with its partial offload, not the memory calculator's 1-byte
int8; nor Transformers."""


def _fits(fields: dict[str, Any]) -> tuple[bool, MemoryEstimate | None]:
    estimate, _ = estimate_fields(fields)
    return estimate is not None and bool(estimate.fits), estimate


def longest_fitting_sequence(fields: dict[str, Any], below: int) -> int:
    """The longest training sequence under `below` tokens, a multiple of `SEQUENCE_STEP`, at
    which `fields` fits; 0 when not even one step does."""
    low, high = 0, (below - 1) // SEQUENCE_STEP
    while low < high:
        middle = (low + high + 1) // 2
        if _fits({**fields, "context": middle * SEQUENCE_STEP})[0]:
            low = middle
        else:
            high = middle - 1
    return low * SEQUENCE_STEP


def _levers(request: SizingRequest, estimate: MemoryEstimate) -> list[tuple[Lever, dict[str, Any]]]:
    """The single levers that apply to this job (each one field changed)."""
    w = request.workload
    out: list[tuple[Lever, dict[str, Any]]] = []
    if estimate.task in ("lora", "qlora"):
        default = DEFAULT_QLORA_RANK if estimate.task == "qlora" else DEFAULT_LORA_RANK
        rank = w.lora_rank or default
        if rank > LOWER_RANK:
            out.append(("lower_lora_rank", {"lora_rank": LOWER_RANK}))
    if (request.optimizer or "adamw") == "adamw":
        out.append(("8bit_optimizer", {"optimizer": "adamw-8bit"}))
    if w.checkpointing is False:
        out.append(("checkpointing", {"checkpointing": True}))
    return out


def _closest_short(
    request: SizingRequest,
    memory: list[SizedConfiguration],
    rec: Recommendation | None,
    resized: list[SizedConfiguration],
) -> SizedConfiguration | None:
    """The subject of the ways out: the named training configuration closest to fitting (its
    ZeRO-3 re-size included) when nothing fits — none of those named, no layout the
    recommender tried on their GPUs, no re-size; None otherwise."""
    if not request.workload.is_training:
        return None
    named = [m for m in memory if m.gpu is not None and m.estimate is not None]
    if not named or any(m.fits for m in [*named, *resized]):
        return None
    gpus = {m.gpu for m in named}
    if rec is not None and any(o.fits for o in rec.evaluated() if o.gpu in gpus):
        return None
    candidates = [*named, *(m for m in resized if m.gpu is not None and m.estimate is not None)]
    return max(candidates, key=lambda m: m.estimate.headroom_bytes or 0 if m.estimate else 0)


def ways_out(
    request: SizingRequest,
    memory: list[SizedConfiguration],
    rec: Recommendation | None,
    resized: list[SizedConfiguration],
) -> list[WayOut]:
    """Each lever, and all together, on the named training configuration closest to fitting,
    when nothing fits: none of those named, no layout the recommender tried on them (`rec`), no
    ZeRO-3 re-size (`resized`). Empty otherwise."""
    closest = _closest_short(request, memory, rec, resized)
    if closest is None or closest.gpu is None or closest.estimate is None:
        return []
    fields = configuration_fields(request, closest.gpu, closest.count)
    if closest.zero is not None:
        fields["zero"] = closest.zero
    asked = closest.estimate.context
    out: list[WayOut] = []

    def way(lever: Lever, changes: dict[str, Any]) -> WayOut:
        _, estimate = _fits({**fields, **changes})
        return WayOut(
            lever=lever,
            gpu=closest.gpu or "",
            count=closest.count,
            zero=closest.zero,
            changes=changes,
            estimate=estimate,
        )

    shorter = longest_fitting_sequence(fields, asked)
    out.append(way("shorter_sequence", {"context": shorter or SEQUENCE_STEP}))
    levers = _levers(request, closest.estimate)
    out += [way(lever, changes) for lever, changes in levers]
    if levers:
        together: dict[str, Any] = {k: v for _, changes in levers for k, v in changes.items()}
        if not _fits({**fields, **together})[0]:
            tokens = longest_fitting_sequence({**fields, **together}, asked)
            together["context"] = tokens or SEQUENCE_STEP
        out.append(way("all_together", together))
    if not any(w.fits for w in out) and not request.pretraining:
        out += lighter_method(closest.estimate.task, levers, way)
    if not any(w.fits for w in out) and closest.estimate.task == "full":
        more = fewest_zero3_gpus(fields, closest.count)
        if more is not None:
            out.append(way("more_gpus", {"gpus": more, "zero": 3}))
    return out


def fewest_zero3_gpus(fields: dict[str, Any], count: int) -> int | None:
    """The fewest GPUs above `count` over which ZeRO-3 shards the job enough to fit: 2, 4, then
    whole 8-GPU nodes (found by doubling, then a binary search over node counts); None when
    not even `MAX_GPUS` do. ZeRO-3 partitions weights, gradients and optimizer state, so the
    need per GPU falls as GPUs are added."""

    def fits(n: int) -> bool:
        return _fits({**fields, "gpus": n, "zero": 3})[0]

    for small in (2, 4, 8):
        if small > count and fits(small):
            return small
    nodes = max(count // 8, 1) + 1
    while nodes * 8 <= MAX_GPUS and not fits(nodes * 8):
        nodes *= 2
    if nodes * 8 > MAX_GPUS:
        if not fits(MAX_GPUS // 8 * 8):
            return None
        nodes = MAX_GPUS // 8
    low = max(count // 8, 1)  # does not fit (or is not above `count`)
    while nodes - low > 1:
        middle = (low + nodes) // 2
        if fits(middle * 8):
            nodes = middle
        else:
            low = middle
    return nodes * 8


def lighter_method(
    task: str,
    levers: list[tuple[Lever, dict[str, Any]]],
    way: Callable[[Lever, dict[str, Any]], WayOut],
) -> list[WayOut]:
    """The lighter methods down `LIGHTER` from `task`, each alone then with the other levers
    (not the LoRA rank), up to the first that fits; the last one tried when none does."""
    others = {k: v for _, changes in levers for k, v in changes.items() if k != "lora_rank"}
    tried: WayOut | None = None
    lighter = LIGHTER.get(task)
    while lighter is not None:
        for changes in ({"task": lighter}, {"task": lighter, **others}):
            if len(changes) > 1 and not others:
                continue
            tried = way("lighter_method", changes)
            if tried.fits:
                return [tried]
        lighter = LIGHTER.get(lighter)
    return [] if tried is None else [tried]


def serving_ways_out(request: SizingRequest, memory: list[SizedConfiguration]) -> list[WayOut]:
    """The ways out on the first named serving configuration that does not fit (not a
    max-context question, whose answer is already the longest context): the longest context it
    holds at the format and load asked, shorter than asked (none when not even one token fits),
    then an 8-bit KV cache at the context asked when that fits, else at the longest context it
    holds when that is longer than with the KV cache asked. Empty otherwise."""
    if request.workload.is_training or request.longest_context:
        return []
    subject = next(
        (m for m in memory if m.gpu is not None and m.estimate is not None and m.fits is False),
        None,
    )
    if subject is None or subject.gpu is None or subject.estimate is None:
        return []
    estimate = subject.estimate
    fields = configuration_fields(request, subject.gpu, subject.count)
    fields = {k: v for k, v in fields.items() if k not in ("context", "batch")}
    out: list[WayOut] = []

    def way(lever: Lever, changes: dict[str, Any]) -> WayOut:
        sized, _ = estimate_fields({**fields, "batch": estimate.batch, **changes})
        return WayOut(
            lever=lever,
            gpu=subject.gpu or "",
            count=subject.count,
            changes=changes,
            estimate=sized,
        )

    limit = shorter_context_limit(estimate)
    shorter = longest_fitting_context(fields, limit, estimate.batch)
    if shorter > 0:
        out.append(way("shorter_context", {"context": shorter}))
    kv = KV_8BIT.get(estimate.engine)
    if kv is not None and estimate.kv_dtype not in ("fp8", "int8"):
        eight = way("fp8_kv_cache", {"kv_dtype": kv, "context": estimate.context})
        if eight.fits:
            out.append(eight)
        else:
            longer = longest_fitting_context({**fields, "kv_dtype": kv}, limit, estimate.batch)
            if longer > shorter:
                out.append(way("fp8_kv_cache", {"kv_dtype": kv, "context": longer}))
    return out
