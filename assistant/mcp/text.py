"""The short text an MCP client shows next to a tool's structured result: the verdict first.

The structured content is the tool's JSON (exactly what the chat's model receives); this text
is what a person — or an agent that reads only text — sees: the verdict, a few key figures,
and for an error what to fix. It is rendered from the typed result (`ToolOutcome.value`), never
from the JSON, and it selects and labels figures, never computes one. The verdicts are the
ones every other surface shows: a sizing report and a memory estimate lead with the lines
`gpu-sizer ask` leads with (`render.verdict_text`, `memory_verdict_text`), a local plan
with the offline answer's llama.cpp block. Memory in the text is in GiB (2^30 bytes, as the
chat answers); the structured content's `*_GB` fields are 10^9 bytes.

A tool the registry adds later, without a renderer here, leads with its `verdict` (or
`answer`, `summary`) field, else its first scalar fields.
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel

from assistant.lookups import GpuFacts, GpuList, ModelFacts, ModelList
from assistant.render import memory_verdict_text, verdict_text
from assistant.render.deployment import (
    buy_vs_rent_lines,
    deployment_lines,
    engine_plan_lines,
    speedup_lines,
)
from assistant.render.local import fits_lines, local_serving_lines
from assistant.render.results import CallResult, gib, gpu_name, priced_by
from assistant.render.workloads import embedding_lines, job_lead_lines, workload_lines
from assistant.results import ToolError
from assistant.sanitize import clean_text
from tools.cost import CostComparison
from tools.cost.results import ServingCostResult, ServingCostRow, TrainingCostResult
from tools.deployment import BuyVsRent, EnginePlan, Speedups
from tools.fits import FitsResult
from tools.local_serving import LocalServingPlan
from tools.memory import MemoryEstimate, component_name
from tools.recommend import Option, Recommendation
from tools.sizing import SizingReport
from tools.units import format_bytes
from tools.workloads.embedding import EmbeddingResult

MAX_LINES = 8
"""Lines of the rendering after the verdict (the full result is the structured content)."""

FULL = (
    "Full result in structuredContent (JSON; *_GB = 10^9 bytes, usd_* = US dollars, "
    "prices with as_of and age); memory above in GiB (2^30 bytes)."
)
SUMMARY = (
    "Summary in structuredContent (JSON; *_GB = 10^9 bytes, usd_* = US dollars, prices with "
    'as_of and age; "detail": "full" for the whole result); memory above in GiB (2^30 bytes).'
)


def _count(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.1f}"


def _usd(value: float, digits: int = 2) -> str:
    return f"${value:,.{digits}f}"


def _lines(markdown: str | list[str]) -> list[str]:
    """Markdown verdict text as plain lines (bold markers dropped, blank lines skipped)."""
    lines = markdown.splitlines() if isinstance(markdown, str) else markdown
    return [line.replace("**", "") for line in lines if line.strip()]


def option_line(option: Option) -> str:
    """'2× H100 SXM5 (TP 2 × PP 1 × DP 1), 57.6 GiB per GPU, 30.5 tok/s per user, ...'."""
    parts = [
        f"{option.count}× {gpu_name(option.gpu)} (TP {option.tp} × PP {option.pp} × "
        f"DP {option.dp}), {gib(option.per_gpu_bytes)} per GPU"
    ]
    basis = f" ({option.speed_basis})" if option.speed_basis else ""
    if option.decode_tokens_per_s_per_seq is not None:
        parts.append(f"{option.decode_tokens_per_s_per_seq:,.1f} tok/s per user{basis}")
    if option.aggregate_tokens_per_s is not None:
        parts.append(f"{option.aggregate_tokens_per_s:,.0f} tok/s in total")
    if option.training_hours is not None:
        parts.append(f"{option.training_hours:,.1f} h of training{basis}")
    if option.usd_per_hour is not None:
        when = ", ".join(d for d in (option.price_as_of, option.price_age) if d)
        parts.append(f"{_usd(option.usd_per_hour)}/h on demand" + (f" ({when})" if when else ""))
    return ", ".join(parts)


def _report(report: SizingReport) -> list[str]:
    lines = _lines(verdict_text(report, brief=True)) or [f"Sized {report.model_id}."]
    # issue 30: a job's lead first; the deployment and workload parts after the verdict.
    lead = _lines(job_lead_lines(report))
    return lead + lines + _lines(deployment_lines(report)) + _lines(workload_lines(report))


def _memory(est: MemoryEstimate) -> list[str]:
    what = (
        f"Sized: {est.model_name}, {est.weights_format} weights, {est.task}, context "
        f"{est.context:,}, batch {est.batch}, TP {est.tp} × PP {est.pp}."
    )
    items = ", ".join(
        f"{component_name(name)} {gib(value)}" for name, value in est.breakdown.items() if value
    )
    lines = [*_lines(memory_verdict_text([est])), what, f"Per GPU: {items}."]
    return lines + [f"Warning: {w.text}" for w in est.warnings[:3]]


def _recommend(rec: Recommendation) -> list[str]:
    meeting = [o for o in rec.options if o.meets_targets]
    objective = rec.objective.replace("_", " ")
    if meeting:
        lines = [f"Best for {rec.model_id} by {objective}: {option_line(meeting[0])}."]
        lines += [f"Also: {option_line(o)}." for o in meeting[1:3]]
    elif rec.nearest_feasible:
        lines = [f"No configuration meets the targets for {rec.model_id}: {rec.nearest_feasible}"]
    else:
        lines = [f"No configuration fits {rec.model_id} under the constraints."]
    return lines + [f"Warning: {w.text}" for w in rec.warnings[:2]]


def _cost_row(row: ServingCostRow) -> str:
    what = f"{row.provider} {row.instance or row.price_id}, {row.count}× {gpu_name(row.gpu)}"
    if row.usd_per_hour is None:
        line = f"{what}: {row.per_hour:,.2f} {row.currency}/h"
    else:
        line = f"{what}: {_usd(row.usd_per_hour)}/h"
        if row.usd_per_month is not None:
            line += f" ({_usd(row.usd_per_month, 0)}/month)"
    if row.usd_per_million_tokens is not None:
        line += f", {_usd(row.usd_per_million_tokens, 3)} per million output tokens"
    when = ", ".join(d for d in (row.as_of, row.age) if d)
    return line + f" ({when}{', stale' if row.stale else ''})"


def _serving_costs(serving: ServingCostResult) -> list[str]:
    rows = {r.price_id: r for r in serving.rows}
    lines: list[str] = []
    for tier, price_id in serving.cheapest_by_tier.items():
        row = rows.get(price_id)
        if row is not None:
            lead = "Cheapest on demand" if tier == "on_demand" else f"Cheapest {tier}"
            lines.append(f"{lead}: {_cost_row(row)}.")
    if not lines:
        lines.append("No price matches these filters.")
    priced = [a for a in serving.api_comparison if a.usd_blended_per_mtok is not None]
    if priced:
        api = min(priced, key=lambda a: a.usd_blended_per_mtok or 0.0)
        lines.append(
            f"Cheapest hosted API: {api.provider} {api.model} "
            f"{_usd(api.usd_blended_per_mtok or 0.0, 3)} per million blended tokens "
            f"({priced_by(api)})."
        )
    if serving.unconverted_note:
        lines.append(f"Not compared: {serving.unconverted_note}.")
    return lines


def _training_costs(training: TrainingCostResult) -> list[str]:
    job = training.cheapest_meeting_deadline
    lead = "Training: cheapest that meets the deadline"
    if job is None and training.rows:
        job, lead = training.rows[0], "Training"
    if job is None:
        return ["Training: no price matches these filters."]
    cost = _usd(job.usd_cost, 0) if job.usd_cost is not None else f"{job.cost:,.0f} {job.currency}"
    return [
        f"{lead}: {job.provider} {job.count}× {gpu_name(job.gpu)} ({job.tier}), "
        f"{job.wall_hours:,.1f} h, {cost} ({priced_by(job)})."
    ]


def _costs(cost: CostComparison) -> list[str]:
    lines = [] if cost.serving is None else _serving_costs(cost.serving)
    lines += [] if cost.training is None else _training_costs(cost.training)
    return lines or ["No configuration was priced."]


def _local(plan: LocalServingPlan) -> list[str]:
    call = CallResult("plan_local_serving", {}, plan)
    return _lines(local_serving_lines([call])) + [f"Warning: {w}" for w in plan.warnings[:2]]


def _fits(result: FitsResult) -> list[str]:
    return _lines(fits_lines([CallResult("fits_on_hardware", {}, result)]))


def _find_model(m: ModelFacts) -> list[str]:
    return [
        f"{m.name} ({m.id}): {m.total_params:,} parameters, {m.active_params_per_token:,} "
        f"active per token, {m.layers} layers, {m.kv_heads} KV heads, context up to "
        f"{m.max_context_tokens:,} tokens."
    ]


def _find_gpu(g: GpuFacts) -> list[str]:
    flops = "" if g.bf16_tflops is None else f", {_count(g.bf16_tflops)} dense BF16 TFLOPS"
    return [
        f"{g.name} ({g.id}): {format_bytes(g.memory_bytes, 'GB', 0)} "
        f"({gib(g.usable_memory_bytes)} usable), "
        f"{g.memory_bandwidth_bytes_per_s / 1e9:,.0f} GB/s{flops}, {g.interconnect}."
    ]


def _listing(kind: str, ids: list[str]) -> list[str]:
    names = ", ".join(ids[:20])
    more = f" and {len(ids) - 20} more" if len(ids) > 20 else ""
    return [f"{len(ids)} {kind}: {names}{more}." if ids else f"No {kind} match."]


def _models(listing: ModelList) -> list[str]:
    return _listing("models", [m.id for m in listing.models])


def _gpus(listing: GpuList) -> list[str]:
    return _listing("GPUs", [g.id for g in listing.gpus])


VERDICT_FIELDS = ("verdict", "answer", "summary")
"""Fields a tool without a renderer may lead with, in this order."""


def _generic(value: BaseModel) -> list[str]:
    """A result without a renderer: its verdict field, if it has one, else its first scalar
    fields."""
    fields = value.model_dump()
    for key in VERDICT_FIELDS:
        lead = fields.get(key)
        if isinstance(lead, str) and lead.strip():
            return [lead.strip()]
    scalars = [f"{k}: {v}" for k, v in fields.items() if isinstance(v, str | int | float)]
    return ["; ".join(scalars[:MAX_LINES]) or "Done."]


def _render(value: BaseModel) -> list[str]:
    renderers: list[tuple[type[BaseModel], Callable[..., list[str]]]] = [
        (SizingReport, _report),
        (MemoryEstimate, _memory),
        (Recommendation, _recommend),
        (LocalServingPlan, _local),
        (FitsResult, _fits),
        (EnginePlan, lambda plan: _lines(engine_plan_lines(plan))),  # issue 30 items 5-7
        (BuyVsRent, lambda b: _lines(buy_vs_rent_lines(b))),
        (Speedups, lambda s: _lines(speedup_lines(s))),
        (CostComparison, _costs),
        (ModelFacts, _find_model),
        (GpuFacts, _find_gpu),
        (ModelList, _models),
        (GpuList, _gpus),
        (EmbeddingResult, lambda v: _lines(embedding_lines(v))),  # issue 30 item 2
    ]
    for kind, render in renderers:
        if isinstance(value, kind):
            return render(value)
    return _generic(value)


def render_error(error: ToolError) -> str:
    """What went wrong and what to send instead, one line each."""
    lines = [f"Error in {error.field}: {error.error}" if error.field else f"Error: {error.error}"]
    lines += [f"- {p.field}: {p.problem}" for p in (error.problems or [])[:5]]
    if error.allowed:
        lines.append(f"Allowed: {error.allowed}")
    for label, values in (
        ("Did you mean", error.did_you_mean),
        ("Allowed fields", error.allowed_fields),
        ("Available tools", error.available_tools),
    ):
        if values:
            lines.append(f"{label}: {', '.join(values)}")
    return "\n".join(lines)


def verdict_lines(value: BaseModel) -> list[str]:
    """The verdict lines every surface leads with, for a sizing report or a memory estimate
    (the compact structured result carries them too); [] for other results."""
    if isinstance(value, SizingReport):
        return [clean_text(line) for line in _lines(verdict_text(value))]
    if isinstance(value, MemoryEstimate):
        return [clean_text(line) for line in _lines(memory_verdict_text([value]))]
    return []


def render_result(value: BaseModel, summarised: bool = False) -> str:
    """The text content of a tool result: verdict first, then a few figures (see module);
    the last line says where the rest is (`summarised`: a compact structured result)."""
    if isinstance(value, ToolError):
        return clean_text(render_error(value))
    lines = _render(value)
    # Names a user or a file gave can reach a result: no control sequence reaches a client.
    return clean_text("\n".join([*lines[: MAX_LINES + 1], SUMMARY if summarised else FULL]))
