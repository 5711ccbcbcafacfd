"""Model-facing summaries of large tool results, built when request messages are prepared.

The conversation keeps every tool's FULL lean result (the app's tool cards, the proposal export
and the grounding check read it). What is sent to the model is a per-tool summary: the verdict
and the figures an answer needs, each value copied from the full result under its own key —
never recomputed or converted — plus short forms of the assumptions and reasons. Error results
and tools without a summariser are sent unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from assistant.registry import compact_json
from assistant.schemas import first_sentence

TEXT_CHARS = 100
"""Assumptions, reasons and notes are sent as their first sentence, cut to this length."""
MAX_ASSUMPTIONS = 6
MAX_FEASIBLE_OPTIONS = 3
MAX_REJECTED_GPUS = 8
MAX_API_ROWS = 3
MAX_CONFIG_ROWS = 3

SEEN_IN_FULL = "summary for the model; the user sees the full result"

_MEMORY_KEYS = (
    "model_id",
    "task",
    "weights_format",
    "kv_dtype",
    "engine",
    "context",
    "batch",
    "total_params",
    "active_params",
    "trainable_params",
    "per_gpu_GB",
    "total_GB",
    "kv_cache_bytes_per_token",
    "kv_cache_bytes_per_token_per_gpu",
    "num_gpus",
    "tp",
    "pp",
    "dp",
    "gpu",
    "usable_bytes_per_gpu",
    "budget_bytes_per_gpu",
    "fits",
    "headroom_GB",
    "host_ram_GB",
)
_OPTION_KEYS = (
    "gpu",
    "count",
    "tp",
    "pp",
    "dp",
    "nodes",
    "fits",
    "meets_targets",
    "per_gpu_GB",
    "headroom_GB",
    "kv_cache_capacity_tokens",
    "max_concurrent_sequences",
    "decode_tokens_per_s_per_seq",
    "sequences_per_replica",
    "aggregate_tokens_per_s",
    "full_load_sequences_per_replica",
    "full_load_tokens_per_s",
    "ttft_s",
    "speed_basis",
    "throughput_basis",
    "ttft_basis",
    "training_hours",
    "gpu_hours",
)
_RECOMMEND_KEYS = (
    "model_id",
    "total_params",
    "active_params",
    "weight_GB",
    "kv_cache_bytes_per_token",
    "context_tokens",
    "objective",
    "nearest_feasible",
)
_SERVING_ROW_KEYS = (
    "provider",
    "gpu",
    "count",
    "billed_gpus",
    "region",
    "currency",
    "per_hour",
    "per_month",
    "usd_per_hour",
    "usd_per_month",
    "usd_per_million_tokens",
    "usd_per_million_blended_tokens",
    "as_of",
    "age",
)
_API_KEYS = (
    "provider",
    "model",
    "match",
    "input_per_mtok",
    "output_per_mtok",
    "usd_blended_per_mtok",
    "as_of",
    "age",
)
_BREAK_EVEN_KEYS = (
    "tier",
    "provider",
    "self_hosted_usd_per_month",
    "break_even_output_tokens_per_month",
    "capacity_output_tokens_per_month",
    "reachable",
)
_BREAK_EVEN_API_KEYS = ("api_provider", "api_id", "api_usd_per_million_output_tokens")
_TRAINING_ROW_KEYS = (
    "provider",
    "gpu",
    "count",
    "tier",
    "currency",
    "per_hour",
    "wall_hours",
    "gpu_hours",
    "cost",
    "usd_cost",
    "meets_deadline",
    "as_of",
    "age",
)


def _pick(data: Mapping[str, Any], keys: Sequence[str]) -> dict[str, Any]:
    """The listed keys present in `data`, values copied as they are."""
    return {k: data[k] for k in keys if k in data and data[k] is not None}


def _short(texts: Any, limit: int) -> list[str]:
    if not isinstance(texts, list):
        return []
    return [first_sentence(str(t), TEXT_CHARS) for t in texts[:limit]]


def summarize_memory(result: Mapping[str, Any]) -> dict[str, Any]:
    """Totals, per-GPU breakdown (non-zero components, bytes), fit and headroom, KV bytes per
    token, warnings and the assumptions (first sentence each)."""
    out = _pick(result, _MEMORY_KEYS)
    breakdown = result.get("breakdown")
    if isinstance(breakdown, Mapping):
        out["breakdown_bytes_per_gpu"] = {k: v for k, v in breakdown.items() if v}
    if result.get("warnings"):
        out["warnings"] = _short(result["warnings"], MAX_ASSUMPTIONS)
    out["assumptions"] = _short(result.get("assumptions"), MAX_ASSUMPTIONS)
    return out


def _option(option: Mapping[str, Any]) -> dict[str, Any]:
    out = _pick(option, _OPTION_KEYS)
    if option.get("notes"):
        out["notes"] = _short(option["notes"], 2)
    return out


def summarize_recommend(result: Mapping[str, Any]) -> dict[str, Any]:
    """The best few feasible options with their key figures, one short reason per GPU that
    has no feasible option, notes and assumptions."""
    out = _pick(result, _RECOMMEND_KEYS)
    options = [o for o in result.get("options", []) if isinstance(o, Mapping)]
    feasible = [o for o in options if o.get("fits") and o.get("meets_targets")]
    shown = feasible[:MAX_FEASIBLE_OPTIONS]
    if not shown:  # nothing meets every target: the closest that fit, so the model can explain
        shown = [o for o in options if o.get("fits")][:MAX_FEASIBLE_OPTIONS]
    out["best_options"] = [_option(o) for o in shown]
    if len(feasible) > len(shown):
        out["more_feasible_gpus"] = [o.get("gpu") for o in feasible[len(shown) :]]
    feasible_gpus = {o.get("gpu") for o in feasible}
    reasons: dict[str, dict[str, Any]] = {}
    tried = [*options, *(r for r in result.get("rejected", []) if isinstance(r, Mapping))]
    for entry in tried:
        gpu = entry.get("gpu")
        if gpu in feasible_gpus or gpu in reasons or not entry.get("reasons"):
            continue
        if any(o is entry for o in shown):
            continue
        reasons[str(gpu)] = {"count": entry.get("count"), "reason": _short(entry["reasons"], 1)[0]}
    out["not_feasible"] = dict(list(reasons.items())[:MAX_REJECTED_GPUS])
    if len(reasons) > MAX_REJECTED_GPUS:
        out["more_not_feasible_gpus"] = list(reasons)[MAX_REJECTED_GPUS:]
    out["notes"] = _short(result.get("notes"), 4)
    out["assumptions"] = _short(result.get("assumptions"), MAX_ASSUMPTIONS)
    return out


def _rows_by_id(rows: Any) -> dict[str, Mapping[str, Any]]:
    return {str(r.get("price_id")): r for r in rows or [] if isinstance(r, Mapping)}


def _price_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """A serving row without the duplicates: a USD row's native-currency fields equal its
    usd_* fields, and billed_gpus matters only when whole instances bill more GPUs."""
    out = _pick(row, _SERVING_ROW_KEYS)
    if out.get("currency") == "USD":
        for key in ("currency", "per_hour", "per_month"):
            out.pop(key, None)
    if out.get("billed_gpus") == out.get("count"):
        out.pop("billed_gpus", None)
    return out


def summarize_costs(result: Mapping[str, Any]) -> dict[str, Any]:
    """Cheapest row per tier, the cheapest on-demand row per configuration, the cheapest API
    rows, break-even per tier, and for training the cheapest job per tier and under the
    deadline."""
    out: dict[str, Any] = {}
    if "rows" in result:
        by_id = _rows_by_id(result.get("rows"))
        cheapest = result.get("cheapest_by_tier") or {}
        out["cheapest_by_tier"] = {
            tier: _price_row(by_id[pid]) for tier, pid in cheapest.items() if pid in by_id
        }
        per_config: dict[str, dict[str, Any]] = {}
        for row in by_id.values():  # the tool sorts rows by tier, then USD price
            key = f"{row.get('count')}x {row.get('gpu')}"
            if row.get("tier") == "on_demand" and row.get("usd_per_hour") is not None:
                per_config.setdefault(key, _price_row(row))
        if len(per_config) > 1:  # with one configuration this repeats the on_demand row
            out["cheapest_on_demand_per_configuration"] = dict(
                list(per_config.items())[:MAX_CONFIG_ROWS]
            )
        out["api_comparison"] = [
            _pick(a, _API_KEYS) for a in (result.get("api_comparison") or [])[:MAX_API_ROWS]
        ]
        evens = [b for b in result.get("break_even") or [] if isinstance(b, Mapping)]
        if evens:  # every row is against the same (cheapest) API
            out["break_even_api"] = _pick(evens[0], _BREAK_EVEN_API_KEYS)
            out["break_even"] = [_pick(b, _BREAK_EVEN_KEYS) for b in evens]
        out["assumptions"] = _short(result.get("assumptions"), MAX_ASSUMPTIONS)
    training = result.get("training")
    if isinstance(training, Mapping):
        by_id = _rows_by_id(training.get("rows"))
        out["training"] = {
            "cheapest_by_tier": {
                tier: _pick(by_id[pid], _TRAINING_ROW_KEYS)
                for tier, pid in (training.get("cheapest_by_tier") or {}).items()
                if pid in by_id
            },
            "assumptions": _short(training.get("assumptions"), MAX_ASSUMPTIONS),
        }
        best = training.get("cheapest_meeting_deadline")
        if isinstance(best, Mapping):
            out["training"]["cheapest_meeting_deadline"] = _pick(best, _TRAINING_ROW_KEYS)
    return out


SUMMARIZERS: dict[str, Callable[[Mapping[str, Any]], dict[str, Any]]] = {
    "estimate_memory": summarize_memory,
    "recommend": summarize_recommend,
    "compare_costs": summarize_costs,
}


def summarize_content(tool_name: str, content: str) -> str:
    """The tool message content to send to the model for `tool_name`'s full `content`.

    Error results, non-JSON content and tools without a summariser pass through unchanged.
    """
    summarizer = SUMMARIZERS.get(tool_name)
    if summarizer is None:
        return content
    try:
        data = json.loads(content)
    except ValueError:
        return content
    if not isinstance(data, dict) or "error" in data:
        return content
    summary = summarizer(data)
    summary["note"] = SEEN_IN_FULL
    return compact_json(summary)


def model_view(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Copies of `messages` with each calculator result replaced by its summary.

    The tool name of a result is found from the assistant message's `tool_calls` with the
    same id. The input messages (the conversation) are not modified.
    """
    names: dict[str, str] = {}
    out: list[dict[str, Any]] = []
    for message in messages:
        for call in message.get("tool_calls") or []:
            names[str(call.get("id"))] = str(call.get("function", {}).get("name", ""))
        if message.get("role") == "tool" and isinstance(message.get("content"), str):
            name = names.get(str(message.get("tool_call_id")), "")
            message = {**message, "content": summarize_content(name, message["content"])}
        out.append(message)
    return out
