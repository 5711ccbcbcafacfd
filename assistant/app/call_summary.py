"""One line per tool call for "How this was computed": what was sized, on what, and the figure
that came out — `Memory · Llama 3.1 70B int4-awq · 2× L40S TP 2 · 46.3 GiB per GPU, does not fit`.

Only selection and labels over the typed results (`assistant.results`): each figure is a field
of the tool's model, converted to the card's unit for display; GPU and model names come from
the catalog (`render.gpu_name`, `model_name`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from assistant.app.labels import tool_title, words
from assistant.app.results import TableUnit
from assistant.app.workloads import workload_part_name, workload_summary
from assistant.render.results import gpu_name
from tools.catalog import get_catalog
from tools.cost import CostComparison, ServingCostResult
from tools.fits import FitsResult
from tools.local_serving import LocalServingPlan
from tools.memory import MemoryEstimate
from tools.recommend import Option, Recommendation
from tools.sizing import SizingReport
from tools.units import format_bytes

SEPARATOR = " · "
TRAINING_TASKS = {"full": "full fine-tune", "lora": "LoRA", "qlora": "QLoRA"}


def model_name(model_id: str | None) -> str | None:
    """A catalog model's name ('Llama 3.1 70B'); anything else as given (a tag, a path)."""
    if model_id is None:
        return None
    entry = get_catalog().models.get(model_id)
    return entry.name if entry is not None else model_id


def _size(num_bytes: float | None, unit: TableUnit) -> str | None:
    return None if num_bytes is None else format_bytes(num_bytes, unit, 1)


def _model(name: str | None, weights: str | None) -> str | None:
    if name is None:
        return weights
    return f"{name} {weights}" if weights else name


def layout_text(tp: int, pp: int, dp: int = 1) -> str:
    """'TP 2 × 2 replicas' (parts equal to 1 left out)."""
    parts = [f"TP {tp}"] if tp > 1 else []
    parts += [f"PP {pp}"] if pp > 1 else []
    parts += [f"{dp} replicas"] if dp > 1 else []
    return " × ".join(parts)


def option_text(option: Option) -> str:
    """'4× L40S (TP 2 × 2 replicas)'."""
    layout = layout_text(option.tp, option.pp, option.dp)
    return f"{option.count}× {gpu_name(option.gpu)}" + (f" ({layout})" if layout else "")


def memory_parts(est: MemoryEstimate, unit: TableUnit) -> list[str]:
    """What a memory estimate sized and found."""
    parts = [p for p in (_model(est.model_name, est.weights_format),) if p]
    if est.task in TRAINING_TASKS:
        parts.append(TRAINING_TASKS[est.task])
    if est.gpu is not None:
        layout = layout_text(est.tp, est.pp)
        parts.append(f"{est.num_gpus}× {gpu_name(est.gpu)}" + (f" {layout}" if layout else ""))
    per_gpu = _size(est.per_gpu_bytes, unit)
    if per_gpu is not None:
        fits = "" if est.fits is None else (", fits" if est.fits else ", does not fit")
        parts.append(f"{per_gpu} per GPU{fits}")
    return parts


def recommendation_parts(rec: Recommendation) -> list[str]:
    """What the recommender searched and its first option (its own ranking)."""
    parts = [p for p in (_model(model_name(rec.model_id), rec.weights_format),) if p]
    parts.append(f"{rec.context_tokens:,} tokens")
    options = rec.options
    if not options:
        parts.append("no configuration fits")
    elif len(options) == 1:
        parts.append(f"1 option: {option_text(options[0])}")
    else:
        parts.append(f"{len(options)} options, first {option_text(options[0])}")
    return parts


def serving_cost_parts(costs: ServingCostResult) -> list[str]:
    """How many prices, and the cost tool's own cheapest on-demand row."""
    parts = [f"{len(costs.rows)} price{'s' if len(costs.rows) != 1 else ''}"]
    chosen = costs.cheapest_by_tier.get("on_demand")
    row = next((r for r in costs.rows if r.price_id == chosen), None)
    if row is not None and row.usd_per_hour is not None:
        parts.append(
            f"cheapest on demand: {row.provider} {row.count}× {gpu_name(row.gpu)} "
            f"{row.usd_per_hour:,.2f} USD/h"
        )
    if costs.unconverted:
        parts.append(f"{len(costs.unconverted)} not in USD")
    return parts


def cost_parts(cost: CostComparison) -> list[str]:
    """A cost comparison: its serving prices, or its training jobs."""
    if cost.serving is not None:
        return serving_cost_parts(cost.serving)
    if cost.training is not None:
        return [f"{len(cost.training.rows)} training prices"]
    return []


def local_parts(plan: LocalServingPlan) -> list[str]:
    """A llama.cpp / Ollama plan: where the layers go and the estimated speed."""
    parts = [p for p in (_model(plan.model_name, plan.weights_format),) if p]
    parts.append(f"{plan.launcher} on {plan.gpu_label}")
    if plan.fits_fully:
        parts.append("all layers on the GPU")
    else:
        parts.append(f"{plan.gpu_layers} of {plan.n_layers} layers on the GPU")
    if plan.decode_tokens_per_s is not None:
        parts.append(
            f"≈{plan.decode_tokens_per_s:,.1f} tokens/s, {plan.decode_label or 'estimated'}"
        )
    return parts


def report_parts(report: SizingReport, unit: TableUnit) -> list[str]:
    """A sizing report: the model, the configurations named, the headline."""
    workload = report.request.workload
    parts = [p for p in (_model(model_name(report.model_id), report.weights_format),) if p]
    if workload.task in TRAINING_TASKS:
        parts.append(TRAINING_TASKS[workload.task])
    named = [f"{m.count}× {gpu_name(m.gpu)}" for m in report.memory if m.gpu is not None]
    if named:
        parts.append(", ".join(dict.fromkeys(named)))
    if report.leads_with_local and report.local:
        # Owned hardware (issue 29): the local plan leads, the headline is the alternative.
        parts.append("leads: " + ", ".join(local_parts(report.local[0])[1:]))
        if report.headline is not None:
            parts.append(f"datacenter: {option_text(report.headline.option)}")
    elif report.headline is not None:
        parts.append(f"leads: {option_text(report.headline.option)}")
    return parts


def fits_parts(result: FitsResult) -> list[str]:
    """The reverse question: how many models run on the hardware, the first one listed."""
    parts = [f"{result.listed} models on {result.hardware}"]
    first = next((m for g in result.groups for m in g.models), None)
    if first is not None:
        parts.append(f"first: {first.model_name} {first.weights_format}")
    return parts


def _parts(value: BaseModel, unit: TableUnit) -> list[str] | None:
    if isinstance(value, MemoryEstimate):
        return memory_parts(value, unit)
    if isinstance(value, Recommendation):
        return recommendation_parts(value)
    if isinstance(value, CostComparison):
        return cost_parts(value)
    if isinstance(value, ServingCostResult):
        return serving_cost_parts(value)
    if isinstance(value, LocalServingPlan):
        return local_parts(value)
    if isinstance(value, SizingReport):
        return report_parts(value, unit)
    if isinstance(value, FitsResult):
        return fits_parts(value)
    return workload_summary(value)  # issue 30 items 1-4


def _argument_parts(arguments: Mapping[str, Any]) -> list[str]:
    model = arguments.get("model") or arguments.get("model_id")
    parts = [model_name(model) or "" if isinstance(model, str) else ""]
    parts += [str(arguments[k]) for k in ("weights", "gpu") if isinstance(arguments.get(k), str)]
    return [p for p in parts if p]


def call_summary(
    name: str,
    arguments: Mapping[str, Any],
    value: BaseModel | None,
    unit: TableUnit = "GiB",
    error: str | None = None,
) -> str:
    """The one-line summary of a call: its tool's title, then what it sized and found. Before
    the result arrives (`value` None) the line says what is being computed."""
    title = tool_title(name)
    if error is not None:
        return f"{title}{SEPARATOR}error: {error}"
    if value is None:
        return SEPARATOR.join([title, *_argument_parts(arguments), "running…"])
    parts = _parts(value, unit)
    if parts is None:  # a look-up or a result of an older shape: what was asked
        parts = _argument_parts(arguments) or [words(type(value).__name__)]
    return SEPARATOR.join([title, *parts])


def part_name(value: BaseModel) -> str:
    """The tool whose result `value` is (for the parts of a sizing report)."""
    if isinstance(value, MemoryEstimate):
        return "estimate_memory"
    if isinstance(value, Recommendation):
        return "recommend"
    if isinstance(value, CostComparison | ServingCostResult):
        return "compare_costs"
    return workload_part_name(value) or "size"
