"""What goes over the wire to the model: lean JSON derived from the typed tool results.

The conversation keeps every tool's typed result (`assistant.results`); the model reads this
module's forms of it, and nothing else does:

- `lean`: JSON-ready and token-lean — nulls dropped, `*_bytes` renamed `*_GB` (10^9 bytes, so
  the unit is in every field name and numbers stay short), floats at 6 significant digits;
- `model_content`: the tool message content sent to the model. Large calculator results
  (memory, recommend, cost, size) are summarised: the verdict and the figures an answer needs,
  each value copied from the lean result under its own key — never recomputed or converted —
  plus the first sentence of assumptions, reasons and notes. Errors and look-ups go whole.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from assistant.schemas import first_sentence
from tools.cost import CostComparison, ServingCostRow
from tools.local_serving import LocalServingPlan
from tools.memory import MemoryEstimate
from tools.recommend import Option, Recommendation
from tools.sizing import FormatFit, Headline, SizedConfiguration, SizingReport
from tools.units import GB

SIGNIFICANT_DIGITS = 6
"""Floats in results keep 6 significant digits: well below any display rounding, fewer tokens."""

TEXT_CHARS = 100
"""Assumptions, reasons and notes are sent as their first sentence, cut to this length."""
MAX_ASSUMPTIONS = 6
MAX_FEASIBLE_OPTIONS = 3
MAX_REJECTED_GPUS = 8
MAX_API_ROWS = 3
MAX_CONFIG_ROWS = 3
MAX_REPORT_OPTIONS = 2

SEEN_IN_FULL = "summary for the model; the user sees the full result"


def _round(value: float) -> float | int:
    if not math.isfinite(value) or value == 0:
        return value
    digits = SIGNIFICANT_DIGITS - 1 - math.floor(math.log10(abs(value)))
    rounded = round(value, digits)
    return int(rounded) if float(rounded).is_integer() and abs(rounded) < 2**53 else rounded


def lean(value: Any) -> Any:
    """JSON-ready, token-lean form: nulls dropped, `*_bytes` → `*_GB`, floats rounded.

    A cost comparison goes flat, as the model has always read it: the serving result's fields
    at the top, the training result under `training`."""
    # The JSON types a model dump is made of first, by exact type (a training report holds
    # ~100,000 values); anything else (models, other mappings, subclasses) as it always was.
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if kind is float:
        return _round(value)
    if kind is dict:
        return _lean_mapping(value)
    if kind is list:
        return [lean(v) for v in value]
    if isinstance(value, CostComparison):
        flat: dict[str, Any] = {}
        if value.serving is not None:
            flat.update(lean(value.serving))
        if value.training is not None:
            flat["training"] = lean(value.training)
        return flat
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json", exclude_none=True)
    if isinstance(value, Mapping):
        return _lean_mapping(value)
    if isinstance(value, list | tuple):
        return [lean(v) for v in value]
    if isinstance(value, float):
        return _round(value)
    return value


def _lean_mapping(value: Mapping[Any, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, item in value.items():
        if item is None:
            continue
        name = str(key)
        kind = type(item)
        if kind is str or kind is bool:
            out[name] = item
        elif kind is int or kind is float or (isinstance(item, int | float) and kind is not bool):
            if name.endswith("_bytes"):
                name, item = name.removesuffix("_bytes") + "_GB", item / GB
            elif name.endswith("_bytes_per_s"):
                name, item = name.removesuffix("_bytes_per_s") + "_GB_per_s", item / GB
            out[name] = _round(item) if isinstance(item, float) else item
        else:
            out[name] = lean(item)
    return out


def lean_result(value: BaseModel) -> dict[str, Any]:
    """`lean(value)` as a JSON object (a result that is not one is wrapped as `result`)."""
    data = lean(value)
    return data if isinstance(data, dict) else {"result": data}


def compact_json(value: Any) -> str:
    """Serialise without spaces (the model reads it; people see the rendered events)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


# --- summaries of the large results -----------------------------------------------------------

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
    "weights_format",
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
    """The listed keys present in `data` (a lean dict), values copied as they are."""
    return {k: data[k] for k in keys if k in data and data[k] is not None}


def _short(texts: Sequence[object], limit: int) -> list[str]:
    return [first_sentence(str(t), TEXT_CHARS) for t in texts[:limit]]


def summarize_memory(est: MemoryEstimate) -> dict[str, Any]:
    """Totals, per-GPU breakdown (non-zero components, bytes), fit and headroom, KV bytes per
    token, warnings and the assumptions (first sentence each)."""
    out = _pick(lean(est), _MEMORY_KEYS)
    out["breakdown_bytes_per_gpu"] = {k: v for k, v in est.breakdown.items() if v}
    if est.warnings:
        out["warnings"] = _short(est.warnings, MAX_ASSUMPTIONS)
    out["assumptions"] = _short(est.assumptions, MAX_ASSUMPTIONS)
    return out


def _option(option: Option) -> dict[str, Any]:
    out = _pick(lean(option), _OPTION_KEYS)
    if option.notes:
        out["notes"] = _short(option.notes, 2)
    return out


def summarize_recommend(rec: Recommendation) -> dict[str, Any]:
    """The best few feasible options with their key figures, one short reason per GPU that
    has no feasible option, notes and assumptions."""
    # The top-level figures only: leaning the options and rejected layouts (a training search
    # holds ~1,600, each with its latency curve) just to pick scalars cost seconds per turn.
    top = rec.model_dump(mode="json", exclude_none=True, exclude={"options", "rejected"})
    out = _pick(lean(top), _RECOMMEND_KEYS)
    feasible = [o for o in rec.options if o.fits and o.meets_targets]
    shown = feasible[:MAX_FEASIBLE_OPTIONS]
    if not shown:  # nothing meets every target: the closest that fit, so the model can explain
        shown = [o for o in rec.options if o.fits][:MAX_FEASIBLE_OPTIONS]
    out["best_options"] = [_option(o) for o in shown]
    if len(feasible) > len(shown):
        out["more_feasible_gpus"] = [o.gpu for o in feasible[len(shown) :]]
    feasible_gpus = {o.gpu for o in feasible}
    reasons: dict[str, dict[str, Any]] = {}
    for entry in [*rec.options, *rec.rejected]:
        if entry.gpu in feasible_gpus or entry.gpu in reasons or not entry.reasons:
            continue
        if any(o is entry for o in shown):
            continue
        reasons[entry.gpu] = {"count": entry.count, "reason": _short(entry.reasons, 1)[0]}
    out["not_feasible"] = dict(list(reasons.items())[:MAX_REJECTED_GPUS])
    if len(reasons) > MAX_REJECTED_GPUS:
        out["more_not_feasible_gpus"] = list(reasons)[MAX_REJECTED_GPUS:]
    out["notes"] = _short(rec.notes, 4)
    out["assumptions"] = _short(rec.assumptions, MAX_ASSUMPTIONS)
    return out


def _price_row(row: ServingCostRow) -> dict[str, Any]:
    """A serving row without the duplicates: a USD row's native-currency fields equal its
    usd_* fields, and billed_gpus matters only when whole instances bill more GPUs."""
    out = _pick(lean(row), _SERVING_ROW_KEYS)
    if row.low_confidence:  # said only where true, as the answers say it
        out["low_confidence"] = True
    if row.currency == "USD":
        for key in ("currency", "per_hour", "per_month"):
            out.pop(key, None)
    if row.billed_gpus == row.count:
        out.pop("billed_gpus", None)
    return out


def summarize_costs(cost: CostComparison) -> dict[str, Any]:
    """Cheapest row per tier, the cheapest on-demand row per configuration, the cheapest API
    rows, break-even per tier, and for training the cheapest job per tier and under the
    deadline."""
    out: dict[str, Any] = {}
    serving = cost.serving
    if serving is not None:
        by_id = {r.price_id: r for r in serving.rows}
        out["cheapest_by_tier"] = {
            tier: _price_row(by_id[pid])
            for tier, pid in serving.cheapest_by_tier.items()
            if pid in by_id
        }
        per_config: dict[str, dict[str, Any]] = {}
        for row in serving.rows:  # the tool sorts rows by tier, then USD price
            if row.tier == "on_demand" and row.usd_per_hour is not None:
                per_config.setdefault(f"{row.count}x {row.gpu}", _price_row(row))
        if len(per_config) > 1:  # with one configuration this repeats the on_demand row
            out["cheapest_on_demand_per_configuration"] = dict(
                list(per_config.items())[:MAX_CONFIG_ROWS]
            )
        out["api_comparison"] = [
            _pick(lean(a), _API_KEYS) for a in serving.api_comparison[:MAX_API_ROWS]
        ]
        if serving.break_even:  # every row is against the same (cheapest) API
            out["break_even_api"] = _pick(lean(serving.break_even[0]), _BREAK_EVEN_API_KEYS)
            out["break_even"] = [_pick(lean(b), _BREAK_EVEN_KEYS) for b in serving.break_even]
        out["assumptions"] = _short(serving.assumptions, MAX_ASSUMPTIONS)
    training = cost.training
    if training is not None:
        jobs = {r.price_id: r for r in training.rows}
        part: dict[str, Any] = {
            "cheapest_by_tier": {
                tier: _pick(lean(jobs[pid]), _TRAINING_ROW_KEYS)
                for tier, pid in training.cheapest_by_tier.items()
                if pid in jobs
            },
            "assumptions": _short(training.assumptions, MAX_ASSUMPTIONS),
        }
        if training.cheapest_meeting_deadline is not None:
            best = lean(training.cheapest_meeting_deadline)
            part["cheapest_meeting_deadline"] = _pick(best, _TRAINING_ROW_KEYS)
        out["training"] = part
    return out


_SIZED_KEYS = (
    "gpu",
    "num_gpus",
    "tp",
    "pp",
    "weights_format",
    "context",
    "batch",
    "fits",
    "per_gpu_GB",
    "budget_bytes_per_gpu",
    "headroom_GB",
)
_BRIEF_OPTION_KEYS = (
    "gpu",
    "count",
    "tp",
    "pp",
    "dp",
    "per_gpu_GB",
    "kv_cache_capacity_tokens",
    "max_concurrent_sequences",
)
_BRIEF_SIZED_KEYS = ("fits", "per_gpu_GB", "budget_bytes_per_gpu")
_BRIEF_ROW_KEYS = (
    "provider",
    "gpu",
    "count",
    "usd_per_hour",
    "usd_per_million_tokens",
    "as_of",
    "age",
)
_PRICE_KEYS = (
    "provider",
    "tier",
    "usd_per_hour",
    "usd_per_month",
    "usd_per_million_tokens",
    "usd_job",
    "as_of",
    "age",
)


def _sized(sized: SizedConfiguration | FormatFit) -> dict[str, Any]:
    if sized.estimate is None:
        return {"gpu": sized.gpu, "error": "" if sized.error is None else sized.error.text}
    return _pick(lean(sized.estimate), _SIZED_KEYS)


def _brief(option: Option) -> dict[str, Any]:
    return _pick(lean(option), _BRIEF_OPTION_KEYS)


def local_record(plan: LocalServingPlan) -> dict[str, Any]:
    """A local plan as the model and `ask --json` read it (bytes as integers)."""
    record: dict[str, Any] = _pick(
        plan.model_dump(mode="json"),
        (
            "launcher",
            "gpu",
            "gpu_label",
            "gpus",
            "weights_format",
            "fits_fully",
            "fits_in_ram",
            "n_layers",
            "gpu_layers",
            "n_gpu_layers",
            "gpu_bytes",
            "budget_bytes",
            "host_bytes",
            "context_per_slot",
            "longest_context_tokens",
            "decode_tokens_per_s",
            "decode_label",
            "launch_command",
        ),
    )
    if plan.format_choice is not None:
        record["format_rule"] = plan.format_choice.reason
    if plan.launch is not None:
        record["ollama"] = plan.launch.ollama_reference
    return record


def _report_costs(costs: CostComparison) -> dict[str, Any]:
    """The sizing report's costs as the model reads them: the cheapest per tier, the hosted APIs
    compared, the break-even and the training cost."""
    summary = summarize_costs(costs)
    out: dict[str, Any] = {}
    if "cheapest_by_tier" in summary:
        out["cheapest_by_tier"] = {
            tier: _pick(row, _BRIEF_ROW_KEYS) for tier, row in summary["cheapest_by_tier"].items()
        }
    serving = costs.serving
    if serving is not None and serving.api_comparison:
        out["api_comparison"] = [
            _pick(lean(a), _API_KEYS) for a in serving.api_comparison[:MAX_REPORT_OPTIONS]
        ]
    for key in ("break_even_api", "training"):
        if key in summary:
            out[key] = summary[key]
    return out


def summarize_report(report: SizingReport) -> dict[str, Any]:
    """The sizing report as the model reads it: the headline with its price and the load $/M
    is priced at (with the reason), the memory verdict of each configuration named, the
    best options, the cheapest prices, the follow-ups and the notes."""
    out: dict[str, Any] = {"model_id": report.model_id, "weights_format": report.weights_format}
    out |= _framing_summary(report)
    if report.headline is not None:
        out["headline"] = _headline_summary(report.headline)
    out["memory"] = [_sized(m) for m in report.memory]
    errors = [e for e in (report.recommendation_error, report.costs_error) if e is not None]
    if errors:
        out["errors"] = [e.text for e in errors]
    if report.recommendation is not None:
        out |= _options_summary(report.recommendation, scaled_out=report.scale_out is not None)
    if report.costs is not None:
        out |= _report_costs(report.costs)
    out |= _other_sizings_summary(report)
    if report.budget_check is not None:
        check = report.budget_check
        out["budget_check"] = {
            "amount_usd": check.amount_usd,
            "period": check.period,
            "within": check.within,
        }
    out |= deployment_summary(report)  # issue 30 items 5-7
    out |= workload_summary(report)  # issue 30 items 1-4
    return {k: v for k, v in out.items() if v is not None}


def _framing_summary(report: SizingReport) -> dict[str, Any]:
    """What frames the verdict: the local plan when it leads (owned hardware), the load $/M is
    priced at with its reason, the question asked back, the architecture question."""
    out: dict[str, Any] = {}
    if report.leads_with_local:
        # Owned hardware (issue 29): the local plan is the verdict, the rest the alternative.
        out["leads_with"] = "local plan (llama.cpp / Ollama); datacenter sizing is the alternative"
        out["local"] = [local_record(p) for p in report.local]
    out["price_load"] = {"basis": report.price_load.basis, "reason": report.price_load.reason}
    if report.question is not None:
        out["question"] = report.question.question
    if report.shape_question is not None:
        out["architecture_question"] = report.shape_question.question
    return out


def _headline_summary(headline: Headline) -> dict[str, Any]:
    """The headline's rule, reason and figures, without the options table's bookkeeping, and
    its price (its low confidence said only where true: a flag, not a field)."""
    figures = _option(headline.option)
    for key in ("notes", "nodes", "fits", "meets_targets"):
        figures.pop(key, None)
    out: dict[str, Any] = {"rule": headline.rule, "reason": headline.reason, **figures}
    if headline.price is not None:
        out["price"] = _pick(lean(headline.price), _PRICE_KEYS)
        if headline.price.low_confidence:
            out["price"]["low_confidence"] = True
    return out


def _options_summary(rec: Recommendation, scaled_out: bool) -> dict[str, Any]:
    """What else fits, after the headline: two more options (without their notes) and up to
    `MAX_REJECTED_GPUS` other GPUs' names (the user sees the whole table), what comes closest
    when nothing fits, and the recommender's notes. A scale-out (`scaled_out`) says what holds
    and comes closest instead of the options and the nearest."""
    summary = summarize_recommend(rec)
    keys = ["not_feasible", "more_feasible_gpus"]
    if not scaled_out:
        keys += ["best_options", "nearest_feasible"]
    out = {key: summary[key] for key in keys if key in summary}
    if "best_options" in out:
        best = [dict(o) for o in out["best_options"][:MAX_REPORT_OPTIONS]]
        for option in best:
            option.pop("notes", None)
        out["best_options"] = best
    if "more_feasible_gpus" in out:
        out["more_feasible_gpus"] = out["more_feasible_gpus"][:MAX_REJECTED_GPUS]
    out["notes"] = summary["notes"]
    return out


def _other_sizings_summary(report: SizingReport) -> dict[str, Any]:
    """The follow-up sizings the report made: the ZeRO-3 resize, the scale-out past the GPUs
    named, the lower weight formats, the longest context per configuration."""
    out: dict[str, Any] = {}
    if report.zero3_resize:
        out["zero3_resize"] = [_sized(z) for z in report.zero3_resize]
    if report.scale_out is not None:
        scale = report.scale_out
        out["scale_out"] = {
            "named": {"gpu": scale.gpu, "count": scale.count},
            "within": None if scale.within is None else _option(scale.within),
            "holds": None if scale.holds is None else _option(scale.holds),
        }
    if report.lower_formats:
        out["lower_formats"] = [{"weights": f.weights, **_sized(f)} for f in report.lower_formats]
    if report.longest_context:
        out["longest_context"] = [
            _pick(lean(c), ("gpu", "count", "context_tokens", "gpu_memory_utilization"))
            for c in report.longest_context
        ]
    return out


_ENGINE_KEYS: tuple[str, ...] = (
    *("engine", "command", "config_file", "kv_pool_bytes_per_gpu", "pool_tokens"),
    *("max_sequences", "fits", "memory_fraction"),
)
_BUY_KEYS: tuple[str, ...] = (
    *("purchase_usd_low", "purchase_usd_high", "power_usd_per_month", "rent_usd_per_month"),
    *("break_even_months_low", "break_even_months_high", "kwh_per_million_tokens"),
)


def deployment_summary(report: SizingReport) -> dict[str, Any]:
    """The deployment parts the question asked for (engine launch line, buy vs rent,
    speed-ups), as the model reads them: figures copied for it to state."""
    out: dict[str, Any] = {}
    if report.engine_plan is not None:
        out["engine_plan"] = _pick(lean(report.engine_plan), _ENGINE_KEYS)
    if report.buy_vs_rent is not None:
        out["buy_vs_rent"] = _pick(lean(report.buy_vs_rent), _BUY_KEYS)
    if report.speedups is not None:
        speedups = lean(report.speedups)
        speedups.pop("sources", None)
        out["speedups"] = speedups
    return out


_WORKLOAD_DROPPED = ("source", "as_of", "throughput_note", "assumptions")
"""Fields of a workload part the model's summary leaves out (the full result keeps them)."""


def _workload_part(part: BaseModel) -> dict[str, Any]:
    """A workload part, lean, without the fields the model's summary leaves out."""
    return {k: v for k, v in lean(part).items() if k not in _WORKLOAD_DROPPED}


def workload_summary(report: SizingReport) -> dict[str, Any]:
    """The report's workload parts (issue 30 items 1-4), lean, for the model's summary."""
    out: dict[str, Any] = {}
    if report.lora_serving is not None:
        out["lora_serving"] = _workload_part(report.lora_serving)
    job = report.batch_job
    if job is not None:
        # The three cheapest hosted APIs for the same tokens are enough to compare with.
        out["batch_job"] = {"apis": []} | _workload_part(
            job.model_copy(update={"apis": job.apis[:3]})
        )
    if report.request_rate is not None:
        out["request_rate"] = _workload_part(report.request_rate)
    if report.workloads_error is not None:
        out["workloads_error"] = report.workloads_error.text
    return out


def summary(value: BaseModel) -> dict[str, Any] | None:
    """The summary the model reads of a large result; None for results sent whole."""
    if isinstance(value, SizingReport):
        return summarize_report(value)
    if isinstance(value, MemoryEstimate):
        return summarize_memory(value)
    if isinstance(value, Recommendation):
        return summarize_recommend(value)
    if isinstance(value, CostComparison):
        return summarize_costs(value)
    return None


def model_content(tool_name: str, value: BaseModel, lean_form: dict[str, Any] | None = None) -> str:
    """The tool message content the model reads for `value`, the typed result of `tool_name`
    (errors and look-ups whole, the large results summarised). `lean_form`: `lean_result(value)`
    where the caller already has it (`ToolOutcome.result`), not computed again."""
    short = summary(value)
    if short is None:
        return compact_json(lean_result(value) if lean_form is None else lean_form)
    short["note"] = SEEN_IN_FULL
    return compact_json(short)
