"""The verdict lines an answer leads with: fits or not per configuration sized, the
recommender's layout when a named one does not fit, and the option to lead with when no GPU was
named (cheapest priced option that fits and meets the targets).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from assistant.offline.render.costs import billed_as, cheapest_usd
from assistant.offline.render.results import (
    CallResult,
    bytes_from,
    config_label,
    error_text,
    gib,
    gpu_name,
    is_training,
    per_gpu_figure,
    plain_data_parallel,
    priced_by,
)
from tools.catalog import get_catalog


def _fitting_option(
    recommend: CallResult | None, gpu_id: str | None, accept: Callable[[int], bool]
) -> dict[str, Any] | None:
    """The recommender's first fitting option on `gpu_id` whose GPU count `accept`s."""
    if recommend is None or recommend.is_error or gpu_id is None:
        return None
    for option in recommend.result.get("options", []):
        if option.get("gpu") == gpu_id and option.get("fits") and accept(option.get("count", 0)):
            return dict(option)
    return None


def _fitting_layout_within(
    recommend: CallResult | None, gpu_id: str | None, count: int
) -> dict[str, Any] | None:
    """The recommender's first fitting option on `gpu_id` with at most `count` GPUs."""
    return _fitting_option(recommend, gpu_id, lambda n: n <= count)


def _kv_capacity(recommend: CallResult | None, gpu_id: str | None, count: int) -> str | None:
    if recommend is None or recommend.is_error or gpu_id is None:
        return None
    for option in [*recommend.result.get("options", []), *recommend.result.get("rejected", [])]:
        if option.get("gpu") == gpu_id and option.get("count") == count and option.get("fits"):
            kv = bytes_from(option, "kv_cache_capacity")
            tokens = option.get("kv_cache_capacity_tokens")
            if kv is not None:
                text = gib(kv)
                return text + (f" ({int(tokens):,} tokens)" if tokens is not None else "")
    return None


def _larger_fitting_option(
    recommend: CallResult | None, gpu_id: str | None, count: int
) -> dict[str, Any] | None:
    """The recommender's fitting option on `gpu_id` with more GPUs than `count`, if any."""
    return _fitting_option(recommend, gpu_id, lambda n: n > count)


def _needs_line(option: dict[str, Any], verb: str = "Needs", why: str = "") -> str:
    label = f"{option['count']}× {gpu_name(option.get('gpu'))}"
    layout = f"TP {option.get('tp')} × PP {option.get('pp')} × {option.get('dp')} replica(s)"
    tokens = option.get("kv_cache_capacity_tokens")
    kv = "" if not tokens else f", {int(tokens):,} KV-cache tokens per replica"
    per_gpu = gib(bytes_from(option, "per_gpu"))
    return f"**{verb} {label}**{why} ({layout}) — {per_gpu} per GPU{kv}."


def _priced_meeting(
    recommend: CallResult | None, cost: CallResult | None
) -> tuple[list[dict[str, Any]], list[tuple[dict[str, Any], dict[str, Any]]]]:
    """The recommender's options that fit and meet the targets, and those of them priced
    (cheapest on-demand row, option) pairs."""
    if recommend is None or recommend.is_error:
        return [], []
    options = recommend.result.get("options", [])
    meeting = [o for o in options if o.get("fits") and o.get("meets_targets")]
    prices = cheapest_usd(cost)
    priced = [
        (prices[key], o)
        for o in meeting
        if (key := (str(o.get("gpu", "")), int(o.get("count", 0)))) in prices
    ]
    return meeting, priced


def headline_option(recommend: CallResult | None, cost: CallResult | None) -> dict[str, Any] | None:
    """The option the answer leads with when no GPU was named: the cheapest priced option that
    fits and meets the targets, else the recommender's first such option; None when none."""
    meeting, priced = _priced_meeting(recommend, cost)
    if priced:
        return min(priced, key=lambda pair: float(pair[0]["_usd"]))[1]
    return meeting[0] if meeting else None


def recommended_lines(recommend: CallResult | None, cost: CallResult | None) -> list[str]:
    """The verdict when no GPU was named: the recommender's first option (its ranking), the
    cheapest priced fitting option when that differs, or why nothing qualifies."""
    if recommend is None or recommend.is_error:
        return []
    meeting, priced = _priced_meeting(recommend, cost)
    if not meeting:
        fitting = [o for o in recommend.result.get("options", []) if o.get("fits")]
        head = "No option meets every target" if fitting else "Nothing fits"
        nearest = str(recommend.result.get("nearest_feasible") or "")
        nearest = nearest.removeprefix("No configuration meets every target.").strip()
        return [f"**{head}.**" + (f" {nearest}" if nearest else "")]
    best = meeting[0]
    if not priced:
        return [_needs_line(best, "Recommended:", " (the recommender's first option)")]
    # The recommender ranks without prices (fewest GPUs, then fastest), so the priced rows
    # decide "cheapest"; the recommender's first option follows when it is another one.
    price, cheapest = min(priced, key=lambda pair: float(pair[0]["_usd"]))
    unit = "total" if cheapest.get("training_hours") is not None else "per hour"
    lines = [
        _needs_line(cheapest, "Cheapest priced option that fits and meets the targets:")
        + f" {price['_usd']:,.2f} USD {unit} on demand{billed_as(price)} ({priced_by(price)})."
    ]
    if cheapest is not best:
        lines.append(_needs_line(best, "Fewest GPUs, then fastest:"))
    return lines


def verdict_lines(
    memory: list[CallResult],
    recommend: CallResult | None,
    cost: CallResult | None = None,
    breakdown_below: bool = True,
    layout: CallResult | None = None,
    scaled: bool = False,
) -> list[str]:
    """One line per configuration sized: fits or not, needed vs budget per GPU. When a sized
    configuration does not fit but the recommender found a larger one on the same GPU, that
    answer comes first: it is the verdict the user asked for ("on H100s" → how many). With no
    GPU named, the recommender's option leads and the one-GPU need follows. GPUs with the same
    need and budget (a '24 GB GPU' matches several) share one line. `scaled`: the answer says
    what holds the load with `scale_out_lines`, so no larger option of the same search leads."""
    # Each entry is a finished line, or the key of a "does not fit" line shared by GPUs.
    entries: list[str | tuple[str, str, str]] = []
    not_fitting: dict[tuple[str, str, str], list[str]] = {}
    for call in memory:
        if call.is_error:
            if call.arguments.get("gpu") is None:
                entries += recommended_lines(recommend, cost)
            entries.append(f"- Could not size {config_label(call.arguments)}: {error_text(call)}")
            continue
        r = call.result
        needed = bytes_from(r, "per_gpu")
        budget = per_gpu_figure(r, "budget")
        headroom = bytes_from(r, "headroom")
        label = config_label(call.arguments)
        if call.arguments.get("gpu") is None or r.get("fits") is None:
            entries += recommended_lines(recommend, cost)
            below = "; breakdown below" if breakdown_below else ""
            if layout is not None and not layout.is_error:
                # The recommended layout sized at the sequences it serves per replica: the
                # figure the options table shows, not one sequence on one GPU.
                batch = layout.arguments.get("batch")
                load = "" if batch is None else f", {int(batch):,} sequences per replica"
                entries.append(
                    f"Needs {gib(bytes_from(layout.result, 'per_gpu'))} per GPU for this load on "
                    f"the recommended layout ({config_label(layout.arguments)}{load}; "
                    "breakdown below)."
                )
                continue
            parts = (
                "weights, gradients, optimizer state, activations and runtime"
                if is_training([call])
                else "weights, KV cache and runtime"
            )
            entries.append(
                f"Needs {gib(needed)} of GPU memory for this load on a single GPU ({parts}{below})."
            )
            continue
        count = int(call.arguments.get("gpus", 1))
        if r.get("fits"):
            training = is_training([call])
            kv = None if training else _kv_capacity(recommend, call.arguments.get("gpu"), count)
            extra = f"; KV-cache capacity {kv}" if kv else f"; {gib(headroom)} headroom per GPU"
            entries.append(
                f"**Fits on {label}** — needs {gib(needed)} of {gib(budget)} per GPU{extra}."
            )
            entries += _named_targets(recommend, call.arguments.get("gpu"), count)
            continue
        larger = (
            None if scaled else _larger_fitting_option(recommend, call.arguments.get("gpu"), count)
        )
        within = None
        if plain_data_parallel(call):
            # The recommender shards with TP/PP where plain replicas cannot: its layout on the
            # GPUs named is the answer, the replicated estimate says why it is not plain DP.
            within = _fitting_layout_within(recommend, call.arguments.get("gpu"), count)
            label += " as plain data parallelism (whole training state on every GPU)"
        if within is not None:
            entries.append(
                _needs_line(
                    within, "Fits as", f", the recommender's layout within the {count} named"
                )
            )
        elif larger is not None:
            # Under the per-token objective the recommender's layout is the cheapest per token,
            # not the fewest GPUs that fit: say which.
            per_token = (recommend.result.get("objective") if recommend else None) == (
                "cheapest_per_token"
            )
            entries.append(_needs_line(larger, "Cheapest per token:" if per_token else "Needs"))
        key = (gib(needed), gib(budget), gib(None if headroom is None else -headroom))
        if key not in not_fitting:
            entries.append(key)
        not_fitting.setdefault(key, []).append(label)
    lines: list[str] = []
    for entry in entries:
        if isinstance(entry, str):
            lines.append(entry)
            continue
        needed_text, budget_text, over_text = entry
        lines.append(
            f"**Does not fit on {', '.join(not_fitting[entry])}** — needs {needed_text} per GPU, "
            f"budget {budget_text} ({over_text} over)."
        )
    return lines


def _named_targets(recommend: CallResult | None, gpu_id: str | None, count: int) -> list[str]:
    """How the named configuration does against the targets (a deadline), from the recommender's
    fitting option with exactly the named count: '32× H100 SXM5 misses a target: 25.7 h on 32
    GPUs > deadline 24.0 h'. Empty when it meets them or the recommender did not size it."""
    if recommend is None or recommend.is_error or gpu_id is None:
        return []
    for option in [*recommend.result.get("options", []), *recommend.result.get("rejected", [])]:
        same = option.get("gpu") == gpu_id and option.get("count") == count
        if same and option.get("fits"):
            label = f"{count}× {gpu_name(gpu_id)}"
            hours = option.get("training_hours")
            took = "" if hours is None else f" ({float(hours):,.1f} h)"
            if option.get("meets_targets"):
                return [f"- {label} meets the targets{took}."] if hours is not None else []
            reasons = "; ".join(str(r) for r in option.get("reasons", []))
            return [f"**{label} misses a target**: {reasons or 'see the options below'}."]
    return []


def about_headline(note: str, headline: dict[str, Any] | None) -> str:
    """A recommender note as shown under the answer's headline option: a note about one GPU
    ("Fits on 1× NVIDIA H100 SXM5 … stop there") under a headline on another GPU or count says
    which GPU it is about (tools/advice.py writes them for its own first single-GPU option)."""
    if headline is None:
        return note
    gpu_id = _single_gpu_in(note)
    if gpu_id is None:
        return note
    if gpu_id == headline.get("gpu") and int(headline.get("count", 0)) == 1:
        return note
    shown = f"{headline.get('count')}× {gpu_name(headline.get('gpu'))}"
    return f"About 1× {gpu_name(gpu_id)}, not the {shown} recommended above: {note}"


def _single_gpu_in(note: str) -> str | None:
    """The catalog id of the GPU a note names as '1× <name>', matched as a whole name: 'NVIDIA
    L4' must not match inside 'NVIDIA L40S', nor 'NVIDIA A10' inside 'NVIDIA A100 80GB PCIe'
    (QA4 #4). The longest name wins, so a name that prefixes another cannot take its note."""
    found = [
        gpu
        for gpu in get_catalog().gpus.values()
        if re.search(rf"1× {re.escape(gpu.name)}(?![\w-])", note)
    ]
    return max(found, key=lambda gpu: len(gpu.name)).id if found else None


def scale_out_lines(
    memory: list[CallResult],
    recommend: CallResult | None,
    scale: CallResult | None,
    lower: list[CallResult],
) -> list[str]:
    """When the GPUs the user named do not hold the load (QA round 4, 2): what they hold (the
    recommender's largest fitting layout within them), what count holds the load (the
    recommender asked again without the GPU limit) and which lower weight formats fit the named
    GPUs (memory calls at those formats). Empty without the follow-up calls."""
    named = next((c for c in memory if c.arguments.get("gpu") and not c.is_error), None)
    if named is None or scale is None:
        return []
    gpu_id, count = str(named.arguments["gpu"]), int(named.arguments.get("gpus", 1))
    label = f"{count}× {gpu_name(gpu_id)}"
    users = named.arguments.get("batch")
    asked = "" if users is None else f", not the {int(users):,} users asked"
    context = None if recommend is None else recommend.result.get("context_tokens")
    length = "" if context is None else f" of {int(context):,} tokens"
    lines: list[str] = []
    within = _largest_within(recommend, gpu_id, count)
    if within is None:
        lines.append(
            f"**{label} hold no sequence{length}** at {named.result.get('weights_format')} "
            "weights: no layout within them fits."
        )
    else:
        group = int(within.get("tp") or 1) * int(within.get("pp") or 1)
        replicas = count // group
        seqs = int(within.get("max_concurrent_sequences") or 0)
        held = f"{seqs:,} concurrent sequence{'s' if seqs != 1 else ''}{length}"
        if replicas > 1:
            held += f" per replica × {replicas} replicas"
        tokens = within.get("kv_cache_capacity_tokens")
        kv = "" if tokens is None else f"; {int(tokens):,} KV-cache tokens per replica"
        lines.append(
            f"**{label} hold {held}**{asked} (TP {within.get('tp')} × PP {within.get('pp')}{kv})."
        )
    fitting = None
    if not scale.is_error:
        fitting = _fitting_option(scale, gpu_id, lambda n: True)
    if fitting is not None:
        seqs_text = ""
        if fitting.get("max_concurrent_sequences") is not None:
            seqs_text = (
                f"; it holds {int(fitting['max_concurrent_sequences']):,} concurrent sequences"
                " per replica"
            )
        lines.append(
            _needs_line(
                fitting, "What holds this load:", f", the recommender without the {count}-GPU limit"
            ).removesuffix(".")
            + f"{seqs_text}."
        )
    verdicts = []
    for call in lower:
        if call.is_error:
            continue
        fmt = call.arguments.get("weights")
        needed, budget = bytes_from(call.result, "per_gpu"), per_gpu_figure(call.result, "budget")
        verb = "fits" if call.result.get("fits") else "does not fit"
        verdicts.append(f"{fmt} {verb} ({gib(needed)} of {gib(budget)} per GPU)")
    if verdicts:
        lines.append(
            f"At lower weight precision on {label} at this load: " + "; ".join(verdicts) + "."
        )
    return lines


def _largest_within(recommend: CallResult | None, gpu_id: str, count: int) -> dict[str, Any] | None:
    """The recommender's fitting layout on `gpu_id` whose TP × PP group is the largest within
    `count` GPUs (its replicas may exceed them: the load asked for more)."""
    if recommend is None or recommend.is_error:
        return None
    options: list[dict[str, Any]] = [
        *recommend.result.get("options", []),
        *recommend.result.get("rejected", []),
    ]
    within = [
        o
        for o in options
        if o.get("gpu") == gpu_id
        and o.get("fits")
        and int(o.get("tp") or 1) * int(o.get("pp") or 1) <= count
    ]
    if not within:
        return None
    best: dict[str, Any] = max(within, key=lambda o: int(o.get("tp") or 1) * int(o.get("pp") or 1))
    return dict(best)
