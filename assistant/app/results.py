"""Typed tool results → what a tool card shows: a compact table, warnings and memory bars.

Pure functions, no Textual: the UI never computes a figure, so this module only selects,
labels and converts units for display (bytes → GiB via `tools.units`). One unit per card:
GiB (2^30 bytes) for memory, as every table of the CLI; GB only where a datasheet is quoted
(a GPU's marketed label, bandwidth in GB/s), labelled so. Each result type has its view
(`card_view` dispatches on the type).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from assistant.app.labels import field_label, words
from assistant.app.units import CARD_UNIT as CARD_UNIT
from assistant.app.units import TableUnit as TableUnit
from assistant.app.units import answer_unit as answer_unit
from assistant.app.workloads import workload_card_lines
from assistant.lookups import GpuFacts, GpuList, ModelFacts, ModelList
from assistant.render.deployment import (
    buy_vs_rent_lines,
    deployment_card_lines,
    engine_plan_lines,
    speedup_lines,
)
from assistant.render.results import gpu_name
from assistant.results import LegacyResult, ToolError
from tools.cost import CostComparison, ServingCostResult, ServingCostRow
from tools.deployment import BuyVsRent, EnginePlan, Speedups
from tools.fits import FitsResult
from tools.memory import MemoryEstimate
from tools.recommend import Option, Recommendation
from tools.sizing import SizingReport
from tools.units import GB, format_bytes

MAX_COLUMNS = 8
"""A card's table stays readable at 80 columns; the full result is in the session file."""

MAX_ROWS = 12
"""Rows of an options or price table shown on a card (the answer and `--json` have them all)."""

MEMORY_COMPONENTS = ("weights", "kv_cache", "activations", "gradients", "optimizer", "overhead")
"""Stacking order of a memory bar (the memory calculator's breakdown keys)."""

DATASHEET_FIELDS = frozenset({"memory_bytes"})
"""Byte fields that hold a datasheet's label, not a measured size: a GPU's marketed memory
('80 GB' is a product name — the part carries 80 GiB of chips), quoted as the datasheet prints
it, never converted to GiB (74.51 would read as less than the usable 79.65)."""


@dataclass(frozen=True)
class ResultTable:
    """A compact table for a tool card, plus its Markdown form for the clipboard."""

    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]

    def to_markdown(self) -> str:
        """The table as GitHub-flavoured Markdown (what "copy table" puts on the clipboard)."""
        lines = ["| " + " | ".join(self.columns) + " |"]
        lines.append("|" + "|".join("---" for _ in self.columns) + "|")
        lines.extend("| " + " | ".join(row) + " |" for row in self.rows)
        return "\n".join(lines)


@dataclass(frozen=True)
class MemoryBarData:
    """One GPU option's memory per GPU, stacked, against its capacity (bytes)."""

    label: str
    components: tuple[tuple[str, float], ...]
    capacity_bytes: float
    capacity_label: str
    """"budget" (usable × engine utilisation, what headroom is measured against) or "usable"."""
    headroom_bytes: float | None
    """As reported by the tool (negative = overflow); None when the tool did not report it."""


@dataclass(frozen=True)
class CardView:
    """What a card shows for one result: a table, warnings, memory bars, or an error/notice."""

    table: ResultTable = field(default_factory=lambda: ResultTable((), ()))
    warnings: tuple[str, ...] = ()
    bars: tuple[MemoryBarData, ...] = ()
    error: str | None = None
    notice: str | None = None
    lines: tuple[str, ...] = ()
    """Lines shown above the table (a sizing report's headline and named configurations)."""


def size_text(num_bytes: float | None, unit: TableUnit = CARD_UNIT) -> str:
    """A byte figure in the card's unit ('16.06 GB'); 'n/a' when absent."""
    return "n/a" if num_bytes is None else format_bytes(num_bytes, unit)


def format_value(value: Any) -> str:
    """A non-byte value as cell text: numbers compact, lists joined, bools yes/no."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:,.4g}"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, list | tuple):
        return ", ".join(format_value(v) for v in value)
    return "" if value is None else str(value)


def _fields(rows: Sequence[tuple[str, str]]) -> ResultTable:
    return ResultTable(("field", "value"), tuple(rows))


def _breakdown_parts(breakdown: Mapping[str, int]) -> tuple[tuple[str, float], ...]:
    ordered = [(n, float(breakdown[n])) for n in MEMORY_COMPONENTS if n in breakdown]
    ordered += sorted((n, float(v)) for n, v in breakdown.items() if n not in MEMORY_COMPONENTS)
    return tuple(ordered)


def estimate_bar(est: MemoryEstimate, label: str | None = None) -> MemoryBarData | None:
    """The memory bar of one estimate: its breakdown against the budget (else usable memory)."""
    capacity = est.budget_bytes_per_gpu
    capacity_label = "budget"
    if capacity is None:
        capacity, capacity_label = est.usable_bytes_per_gpu, "usable"
    if capacity is None:
        return None
    return MemoryBarData(
        label=label or (f"{est.num_gpus}× {gpu_name(est.gpu)}" if est.gpu else "per GPU"),
        components=_breakdown_parts(est.breakdown),
        capacity_bytes=float(capacity),
        capacity_label=capacity_label,
        headroom_bytes=None if est.headroom_bytes is None else float(est.headroom_bytes),
    )


def memory_view(est: MemoryEstimate, unit: TableUnit = CARD_UNIT) -> CardView:
    """A memory estimate: what was sized, the per-GPU need and fit, the breakdown, one bar."""
    rows: list[tuple[str, str]] = [
        ("model", f"{est.model_name} · {est.weights_format} · KV {est.kv_dtype} · {est.engine}"),
        (
            "sized",
            f"{est.context:,} tokens × {est.batch:,} · {est.num_gpus} GPU(s), TP {est.tp} × "
            f"PP {est.pp}",
        ),
        (field_label("per_gpu"), size_text(est.per_gpu_bytes, unit)),
    ]
    if est.num_gpus > 1:
        rows.append((field_label("total"), size_text(est.total_bytes, unit)))
    rows += [
        (field_label(f"breakdown.{name}"), size_text(value, unit))
        for name, value in _breakdown_parts(est.breakdown)
        if value
    ]
    if est.usable_bytes_per_gpu is not None:
        rows.append((field_label("usable_per_gpu"), size_text(est.usable_bytes_per_gpu, unit)))
    if est.budget_bytes_per_gpu is not None:
        rows.append((field_label("budget_per_gpu"), size_text(est.budget_bytes_per_gpu, unit)))
    if est.headroom_bytes is not None:
        rows.append((field_label("headroom"), size_text(est.headroom_bytes, unit)))
    if est.fits is not None:
        rows.append(("fits", format_value(est.fits)))
    bar = estimate_bar(est)
    return CardView(
        table=_fields(rows),
        warnings=tuple(str(w) for w in est.warnings),
        bars=() if bar is None else (bar,),
    )


def option_bar(option: Option) -> MemoryBarData:
    """One recommender option as a bar: what it needs per GPU, as one segment, vs its budget."""
    return MemoryBarData(
        label=f"{option.count}× {gpu_name(option.gpu)}",
        components=(("needed", float(option.per_gpu_bytes)),),
        capacity_bytes=float(option.budget_bytes_per_gpu),
        capacity_label="budget",
        headroom_bytes=float(option.headroom_bytes),
    )


OPTION_COLUMNS = (
    "GPU",
    "GPUs",
    "TP×PP×DP",
    "fits",
    "meets targets",
    "per GPU ({unit})",
    "KV tokens",
    "tok/s per user",
    "speed basis",
)


def options_table(options: Sequence[Option], unit: TableUnit = CARD_UNIT) -> ResultTable:
    """The recommender's options as rows (the unit named in the header)."""
    rows = tuple(
        (
            o.gpu,
            str(o.count),
            f"{o.tp}×{o.pp}×{o.dp}",
            format_value(o.fits),
            format_value(o.meets_targets),
            size_text(o.per_gpu_bytes, unit).removesuffix(f" {unit}"),
            f"{o.kv_cache_capacity_tokens:,}",
            "n/a"
            if o.decode_tokens_per_s_per_seq is None
            else f"{o.decode_tokens_per_s_per_seq:,.1f}",
            o.basis_label or "n/a",
        )
        for o in options[:MAX_ROWS]
    )
    return ResultTable(tuple(c.format(unit=unit) for c in OPTION_COLUMNS), rows)


def recommendation_view(rec: Recommendation, unit: TableUnit = CARD_UNIT) -> CardView:
    """The recommender's best option per GPU type, with a bar each."""
    return CardView(
        table=options_table(rec.options, unit),
        warnings=tuple(str(w) for w in rec.warnings),
        bars=tuple(option_bar(o) for o in rec.options[:MAX_ROWS]),
    )


COST_COLUMNS = ("provider", "GPU", "GPUs", "tier", "USD/h", "USD/M out tok", "as of")


def _usd(value: float | None, digits: int = 2) -> str:
    return "n/a" if value is None else f"{value:,.{digits}f}"


def cost_view(cost: CostComparison) -> CardView:
    """Price rows (serving: USD/h and USD/M tokens; training: the job's USD), cheapest first."""
    rows: list[tuple[str, ...]] = []
    if cost.serving is not None:
        rows += [
            (r.provider, r.gpu_label, str(r.count), words(r.tier), _usd(r.usd_per_hour),
             _usd(r.usd_per_million_tokens, 3), r.as_of)
            for r in cost.serving.rows[:MAX_ROWS]
        ]  # fmt: skip
    if cost.training is not None:
        rows += [
            (
                r.provider,
                r.gpu,
                str(r.count),
                words(r.tier),
                _usd(r.usd_cost, 0) + " total",
                "",
                r.as_of,
            )
            for r in cost.training.rows[:MAX_ROWS]
        ]
    return CardView(
        table=ResultTable(COST_COLUMNS, tuple(rows)), warnings=tuple(cost.unconverted_notes)
    )


def report_view(report: SizingReport, unit: TableUnit = CARD_UNIT) -> CardView:
    """A sizing report: the headline (the rule that chose it, its weight format and quoted
    price at the report's load) and each configuration named with its fit, as lines; the
    recommender's options as the table; a bar per configuration named and per option."""
    lines: list[str] = []
    if report.question is not None:
        lines.append(report.question.question)
    if report.shape_question is not None:
        lines.append(report.shape_question.question)
    headline = report.headline
    if headline is not None:
        o = headline.option
        line = f"headline: {o.count}× {gpu_name(o.gpu)} (TP {o.tp} × PP {o.pp} × {o.dp}), "
        line += f"{headline.weights_format} weights ({headline.rule})"
        price = headline.price
        if price is not None and price.usd_per_million_tokens is not None:
            line += f", {price.usd_per_million_tokens:,.3f} USD/M{report.price_load.label}"
        elif price is not None:
            line += f", {price.usd:,.2f} USD ({price.tier})"
        if price is not None and price.low_confidence:
            line += " (low-confidence price)"
        lines.append(line)
    for sized in report.memory:
        est = sized.estimate
        if est is None:
            problem = "not sized" if sized.error is None else sized.error.text
            lines.append(f"{sized.count}× {sized.gpu or 'GPU'}: {problem}")
        elif est.fits is not None:
            verdict = "fits" if est.fits else "does not fit"
            lines.append(
                f"{sized.count}× {sized.gpu}: {verdict} ({size_text(est.per_gpu_bytes, unit)} of "
                f"{size_text(est.budget_bytes_per_gpu, unit)} per GPU)"
            )
    lines += deployment_card_lines(report)  # issue 30 items 5-7
    bars = [bar for m in report.memory if m.estimate and (bar := estimate_bar(m.estimate))]
    table = ResultTable((), ())
    if report.recommendation is not None:
        table = options_table(report.recommendation.options, unit)
        bars += [option_bar(o) for o in report.recommendation.options[:MAX_ROWS]]
    return CardView(
        table=table,
        warnings=(*report.warnings, *(n.text for n in report.notes)),
        bars=tuple(bars),
        lines=tuple(lines),
    )


def _facts_view(value: BaseModel, unit: TableUnit = CARD_UNIT) -> CardView:
    rows = []
    for name, item in value:
        if name in DATASHEET_FIELDS and isinstance(item, int | float):
            rows.append((f"{field_label(name)} (datasheet)", _datasheet_label(item)))
        elif name.endswith("_bytes") and isinstance(item, int | float):
            rows.append((field_label(name), size_text(item, unit)))
        elif name.endswith("_bytes_per_s") and isinstance(item, int | float):
            # A bandwidth is the datasheet's GB/s (10^9 bytes per second), labelled so.
            label = field_label(name.removesuffix("_per_s"))
            rows.append((f"{label} (datasheet)", f"{item / GB:,.0f} GB/s"))
        elif isinstance(item, str | int | float | bool) or item is None:
            rows.append((field_label(name), format_value(item)))
    return CardView(table=_fields(rows))


def _datasheet_label(num_bytes: float) -> str:
    """A marketed capacity as the datasheet labels it ('80 GB'): a product name, not a size."""
    return f"{num_bytes / GB:,.0f} GB"


def _cell(name: str, value: Any, unit: TableUnit) -> str:
    if name in DATASHEET_FIELDS and isinstance(value, int | float):
        return _datasheet_label(value)
    if name.endswith("_bytes") and isinstance(value, int | float):
        return size_text(value, unit)
    return format_value(value)


def _list_view(rows: Sequence[BaseModel], unit: TableUnit = CARD_UNIT) -> CardView:
    if not rows:
        return CardView()
    columns = tuple(type(rows[0]).model_fields)
    headers = tuple(
        f"{field_label(c)} (datasheet)" if c in DATASHEET_FIELDS else field_label(c)
        for c in columns
    )
    return CardView(
        table=ResultTable(
            headers,
            tuple(tuple(_cell(c, getattr(r, c), unit) for c in columns) for r in rows),
        )
    )


MARKETED_NOTE = (
    "memory (datasheet) is the vendor's label in GB (10^9 bytes), not a byte count: the part "
    "carries that many GiB of chips, and usable memory is what one process can allocate of them "
    "(the driver and firmware keep the rest)."
)
"""Said on a card that shows a GPU's marketed label beside its usable memory."""


def _gpu_facts_view(value: GpuFacts, unit: TableUnit = CARD_UNIT) -> CardView:
    view = _facts_view(value, unit)
    return CardView(table=view.table, lines=(MARKETED_NOTE,))


def fits_view(result: FitsResult, unit: TableUnit = CARD_UNIT) -> CardView:
    """The models that run on the hardware: one row each, in the result's order (its size
    classes and rank), with the format, the memory on the GPU, the longest context, the
    estimated speed and its basis."""
    rows = tuple(
        (
            group.name,
            m.model_name,
            m.weights_format.upper(),
            size_text(m.gpu_bytes, unit).removesuffix(f" {unit}"),
            "n/a" if m.longest_context_tokens is None else f"{m.longest_context_tokens:,}",
            "n/a" if m.decode_tokens_per_s is None else f"{m.decode_tokens_per_s:,.0f}",
            m.decode_label or "n/a",
        )
        for group in result.groups
        for m in group.models
    )
    columns = ("size class", "model", "format", f"GPU {unit}", "longest context", "tok/s")
    lead = (
        f"{result.listed} models run on {result.hardware} with every layer on the GPU, by "
        f"{result.rank_by}."
    )
    return CardView(
        table=ResultTable((*columns, "speed basis"), rows[:MAX_ROWS]),
        lines=(lead,),
    )


_VIEWS: tuple[tuple[type[BaseModel], Callable[[Any, TableUnit], CardView]], ...] = (
    (MemoryEstimate, memory_view),
    (Recommendation, recommendation_view),
    (CostComparison, lambda v, unit: cost_view(v)),
    (SizingReport, report_view),
    (EnginePlan, lambda v, unit: CardView(lines=tuple(engine_plan_lines(v)))),  # issue 30
    (BuyVsRent, lambda v, unit: CardView(lines=tuple(buy_vs_rent_lines(v)))),
    (Speedups, lambda v, unit: CardView(lines=tuple(speedup_lines(v)))),
    (ModelFacts, _facts_view),
    (GpuFacts, _gpu_facts_view),
    (ModelList, lambda v, unit: _list_view(v.models, unit)),
    (GpuList, lambda v, unit: _list_view(v.gpus, unit)),
    (FitsResult, fits_view),
)


def card_view(value: BaseModel, unit: TableUnit = CARD_UNIT) -> CardView:
    """The card of one typed result (see the module docstring)."""
    if isinstance(value, ToolError):
        return CardView(error=value.text)
    if isinstance(value, LegacyResult):
        return CardView(notice=value.notice)
    for kind, view in _VIEWS:
        if isinstance(value, kind):
            return view(value, unit)
    lines = workload_card_lines(value)  # issue 30 items 1-4
    return _facts_view(value, unit) if lines is None else CardView(lines=tuple(lines))


@dataclass(frozen=True)
class ChartBar:
    """One bar: what it stands for, the tool's figure (drawn to scale) and its text."""

    label: str
    value: float
    shown: str
    detail: str = ""


@dataclass(frozen=True)
class BarChart:
    """Bars on one scale, under a title that names the unit."""

    title: str
    bars: tuple[ChartBar, ...]


MAX_CHART_BARS = 6
"""Bars per chart: the options a person compares at a glance (the card's table has them all)."""


def cost_charts(costs: ServingCostResult | None) -> list[BarChart]:
    """A serving cost comparison as bar charts: USD per month and USD per million output
    tokens, one bar per configuration (its cheapest on-demand offer) — or, when only one
    configuration was priced, one bar per provider offering it (its cheapest offer).

    Rows are taken in the cost tool's order (by tier, fresh before stale, then cheapest), so
    the first on-demand USD row of a configuration is its cheapest: selection, no arithmetic."""
    if costs is None:
        return []
    rows = [r for r in costs.rows if r.tier == "on_demand" and r.usd_per_month is not None]
    by_configuration = len({(r.gpu, r.count) for r in rows}) > 1

    def key(row: ServingCostRow) -> str:
        return f"{row.count}× {gpu_name(row.gpu)}" if by_configuration else row.provider

    chosen: dict[str, ServingCostRow] = {}
    for row in rows:
        chosen.setdefault(key(row), row)
    picked = list(chosen.items())[:MAX_CHART_BARS]
    if not picked:
        return []
    scope = (
        "cheapest on-demand offer of each"
        if by_configuration
        else f"{rows[0].count}× {gpu_name(rows[0].gpu)}, on demand, cheapest offer per provider"
    )
    charts = [
        BarChart(
            f"USD per month · {scope}",
            tuple(
                ChartBar(
                    name,
                    float(row.usd_per_month or 0.0),
                    f"{row.usd_per_month or 0.0:,.0f}",
                    row.provider if by_configuration else row.gpu_label,
                )
                for name, row in picked
            ),
        )
    ]
    per_token = [(n, r) for n, r in picked if r.usd_per_million_tokens is not None]
    if per_token:
        charts.append(
            BarChart(
                "USD per million output tokens",
                tuple(
                    ChartBar(
                        name,
                        float(row.usd_per_million_tokens or 0.0),
                        f"{row.usd_per_million_tokens or 0.0:,.3f}",
                    )
                    for name, row in per_token
                ),
            )
        )
    return charts


def chart_users(option: Option, users_stated: bool = True) -> int:
    """How far a latency chart runs: one replica's share of the users asked for, or — with no
    user count — the sequences one replica holds at full load (where $/M is priced)."""
    if users_stated:
        return max(1, option.sequences_per_replica)
    return max(1, option.full_load_sequences_per_replica, option.sequences_per_replica)


def latency_charts(option: Option | None, users_stated: bool = True) -> list[BarChart]:
    """The performance model's latency-vs-users curve of one option, as two bar charts (one
    bar per concurrency it computed, one replica, up to `chart_users`: never past one
    replica's share of the users — the curve's points beyond it are loads nobody asked
    about, and their queueing would set the scale): time to first token, and the decode
    speed each user sees. Empty when the option carries no curve."""
    if option is None or not option.latency_curve:
        return []
    limit = chart_users(option, users_stated)
    curve = [p for p in option.latency_curve if p.concurrency <= limit]
    if not curve:
        return []
    share = f"up to {limit:,} user{'s' if limit != 1 else ''}"
    if option.dp > 1 and users_stated:
        share += " (one replica's share)"
    where = f"{option.count}× {gpu_name(option.gpu)}, per replica, {share}"
    ttft_basis = option.ttft_basis or "estimated"
    speed_basis = option.throughput_basis or option.speed_basis or "estimated"

    def users(n: int) -> str:
        return f"{n:,} user{'s' if n != 1 else ''}"

    return [
        BarChart(
            f"Time to first token (s) by concurrent users · {where} · {ttft_basis}",
            tuple(ChartBar(users(p.concurrency), p.ttft_s, f"{p.ttft_s:,.2f}") for p in curve),
        ),
        BarChart(
            f"Tokens/s each user sees · {where} · {speed_basis}",
            tuple(
                ChartBar(
                    users(p.concurrency), p.tokens_per_s_per_user, f"{p.tokens_per_s_per_user:,.1f}"
                )
                for p in curve
            ),
        ),
    ]
