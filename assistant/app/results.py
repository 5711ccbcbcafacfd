"""Tool results (compact JSON dicts) → what a tool card shows: a table and memory bars.

Pure functions, no Textual: the UI never computes a figure, so this module only selects,
labels and converts units for display (bytes → GiB via `tools.units`). Field names follow the
registry's convention of units in names: `*_bytes` (also `*_gib` / `*_gb`, converted to bytes
for drawing), so a bar is drawn from whatever unit the tool chose.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from assistant.app.labels import field_label, words
from assistant.offline.render.results import gpu_name
from tools.units import GB, GiB, format_bytes

MAX_COLUMNS = 8
"""A card's table stays readable at 80 columns; the full result is in the session file."""

MEMORY_COMPONENTS = ("weights", "kv_cache", "activations", "gradients", "optimizer", "overhead")
"""Stacking order of a memory bar (the memory calculator's breakdown keys)."""

MAX_LIST_CHARS = 60
"""Longer lists of text (assumptions, notes, reasons) stay out of the table: the answer and
the session hold them."""

LEADING_COLUMNS = (
    # recommender options
    "gpu_name", "gpu", "count", "tp", "pp", "dp", "fits", "meets_targets", "per_gpu_GB",
    "per_gpu_bytes", "kv_cache_capacity_tokens", "decode_tokens_per_s_per_seq", "ttft_s",
    # price rows
    "provider", "instance", "usd_per_hour", "usd_per_month", "usd_per_million_tokens", "tier",
    "as_of",
)  # fmt: skip
"""Columns an option or price table leads with, in this order (the rest follow as the tool
gives them, up to `MAX_COLUMNS`): the figures a reader compares before the identifiers."""

WORDED_VALUES = frozenset({"tier", "task", "objective", "pricing_type", "match", "launcher"})
"""Fields whose values are codes (`on_demand`) shown in words (`on demand`)."""

HIDDEN_FIELDS = frozenset({"price_id", "source", "gpu_as_of", "formula", "pricing_type"})
"""Identifiers and provenance kept in the session and the proposal, not on a card."""

_UNIT_FACTORS: dict[str, float] = {
    "_bytes": 1.0,
    "_GB": float(GB),
    "_gb": float(GB),
    "_GiB": float(GiB),
    "_gib": float(GiB),
}
TableUnit = Literal["GB", "GiB"]


def _unit_suffix(key: str) -> tuple[str, float] | None:
    """(`stem`, bytes per unit) for byte fields: `x_bytes`, `x_GB`, `x_GiB`, and the registry's
    `x_bytes_per_gpu` form; None for anything else (rates such as `x_GB_per_s` included)."""
    per_gpu = key.endswith("_per_gpu")
    base = key.removesuffix("_per_gpu")
    for suffix, factor in _UNIT_FACTORS.items():
        if base.endswith(suffix):
            stem = base[: -len(suffix)]
            return (stem + "_per_gpu" if per_gpu else stem), factor
    return None


def byte_field(data: Mapping[str, Any], *stems: str) -> float | None:
    """The first of `stems` present as a byte field in any unit spelling, in bytes; else None."""
    fields = {}
    for key, value in data.items():
        unit = _unit_suffix(key)
        if unit is not None and isinstance(value, int | float) and not isinstance(value, bool):
            fields[unit[0]] = float(value) * unit[1]
    for stem in stems:
        if stem in fields:
            return fields[stem]
    return None


def table_unit(result: Mapping[str, Any]) -> TableUnit:
    """GB when the tool reported GB (the registry's compact form), else GiB: the unit of a
    table drawn without an answer to match (a card normally takes its turn's `answer_unit`)."""
    text = json.dumps(result)
    return "GB" if re.search(r'_GB(_per_gpu)?"', text) else "GiB"


def answer_unit(mode: str) -> TableUnit:
    """The byte unit an answer of this engine mode quotes, so cards and bars match it: the
    offline renderer writes GiB (as nvidia-smi); a model reads the compact results in GB
    (prompts/system.md: "say GB") and so quotes GB."""
    return "GB" if mode == "llm" else "GiB"


def format_value(
    key: str, value: Any, unit: TableUnit = "GiB", unit_in_header: bool = False
) -> str:
    """One cell: byte fields in `unit` (printed unless the column header names it), numbers
    compact, lists joined."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    byte_unit = _unit_suffix(key)
    if byte_unit is not None and isinstance(value, int | float) and not isinstance(value, bool):
        shown = format_bytes(float(value) * byte_unit[1], unit)
        return shown.removesuffix(f" {unit}") if unit_in_header else shown
    if isinstance(value, str) and key in WORDED_VALUES:
        return words(value)
    if isinstance(value, float):
        return f"{value:,.4g}"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, list):
        return ", ".join(format_value(key, v, unit) for v in value)
    if isinstance(value, dict):
        return "; ".join(f"{field_label(k)}: {format_value(k, v, unit)}" for k, v in value.items())
    return "" if value is None else str(value)


def _header(key: str, unit: TableUnit | None) -> str:
    # A label in words (labels.field_label); byte fields are shown in the table's unit: the
    # header names it (columns) or each value prints it (field/value rows).
    label = field_label(key)
    if _unit_suffix(key) is None or unit is None:
        return label
    return f"{label} ({unit})"


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


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


def _option_list(result: Mapping[str, Any]) -> list[Mapping[str, Any]] | None:
    for key in ("options", "rows", "results", "items"):
        value = result.get(key)
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            return value
    return None


def result_table(result: Mapping[str, Any], unit: TableUnit | None = None) -> ResultTable:
    """Rows of a list-shaped result (e.g. recommender options), else field/value pairs; every
    name labelled in words, byte figures in `unit` (default: the tool's own, `table_unit`)."""
    unit = unit or table_unit(result)
    options = _option_list(result)
    if options is not None:
        present: list[str] = []
        for option in options:
            for key, value in option.items():
                if key not in present and key not in HIDDEN_FIELDS and _is_scalar(value):
                    present.append(key)
        if "gpu_name" in present and "gpu" in present:
            present.remove("gpu")  # the id beside its name says the same thing twice
        keys = [k for k in LEADING_COLUMNS if k in present]
        keys += [k for k in present if k not in keys]
        keys = keys[:MAX_COLUMNS]
        return ResultTable(
            columns=tuple(_header(k, unit) for k in keys),
            rows=tuple(
                tuple(format_value(k, o.get(k), unit, unit_in_header=True) for k in keys)
                for o in options
            ),
        )
    rows: list[tuple[str, str]] = []
    for key, value in result.items():
        if key in HIDDEN_FIELDS or (key == "model_id" and result.get("model_name")):
            continue
        if isinstance(value, dict) and all(_is_scalar(v) for v in value.values()):
            # A breakdown keeps bare component names: its values are bytes.
            bare_bytes = key.startswith("breakdown") and _unit_suffix(key) is None
            for k, v in value.items():
                if bare_bytes and v == 0:
                    continue  # e.g. no optimizer state when serving: noise in a compact table
                name = k + "_bytes" if bare_bytes and _unit_suffix(k) is None else k
                label = field_label(f"{key}.{k}")
                rows.append((label, format_value(name, v, unit)))
        elif isinstance(value, list) and all(map(_is_scalar, value)):
            cell = format_value(key, value, unit)
            # Prose lists (assumptions, notes) stay in the answer and the session.
            if cell and len(cell) <= MAX_LIST_CHARS:
                rows.append((field_label(key), cell))
        elif _is_scalar(value):
            rows.append((_header(key, None), format_value(key, value, unit)))
    return ResultTable(columns=("field", "value"), rows=tuple(rows))


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


def _breakdown(data: Mapping[str, Any]) -> tuple[tuple[str, float], ...] | None:
    raw = data.get("breakdown")
    if not isinstance(raw, dict):
        return None
    parts: dict[str, float] = {}
    for key, value in raw.items():
        if not isinstance(value, int | float) or isinstance(value, bool):
            continue
        # Bare component names ("weights") carry bytes; "weights_GB" carries its unit.
        unit = _unit_suffix(key)
        name, factor = unit if unit is not None else (key, 1.0)
        parts[name] = float(value) * factor
    ordered = [(n, parts.pop(n)) for n in MEMORY_COMPONENTS if n in parts]
    ordered.extend(sorted(parts.items()))
    return tuple(ordered)


def _bar_for(data: Mapping[str, Any], label: str) -> MemoryBarData | None:
    components = _breakdown(data)
    if components is None:
        # Options without a breakdown still show what they need per GPU, as one segment.
        needed = byte_field(data, "per_gpu")
        components = (("needed", needed),) if needed is not None else None
    budget = byte_field(data, "budget_per_gpu", "budget")
    usable = byte_field(data, "usable_per_gpu", "usable")
    capacity, capacity_label = (budget, "budget") if budget is not None else (usable, "usable")
    if components is None or capacity is None:
        return None
    return MemoryBarData(
        label=label,
        components=components,
        capacity_bytes=capacity,
        capacity_label=capacity_label,
        headroom_bytes=byte_field(data, "headroom"),
    )


def _option_label(option: Mapping[str, Any]) -> str:
    gpu_id = option.get("gpu")
    gpu = gpu_name(gpu_id) if isinstance(gpu_id, str) else option.get("gpu_name") or "GPU"
    count = option.get("count") or option.get("gpu_count") or option.get("num_gpus")
    return f"{count}× {gpu}" if count else str(gpu)


def memory_bars(result: Mapping[str, Any]) -> list[MemoryBarData]:
    """Memory bars for a result: one for a memory estimate, one per option that has a breakdown."""
    bars: list[MemoryBarData] = []
    top = _bar_for(result, _option_label(result) if result.get("gpu") else "per GPU")
    if top is not None:
        bars.append(top)
    for option in _option_list(result) or []:
        bar = _bar_for(option, _option_label(option))
        if bar is not None:
            bars.append(bar)
    return bars


def result_warnings(result: Mapping[str, Any]) -> list[str]:
    """The tool's warnings (shown under a card's table, never summarised away)."""
    warnings = result.get("warnings")
    return [str(w) for w in warnings] if isinstance(warnings, list) else []


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


def _usd_rows(result: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    # On-demand rows priced in USD, in the cost tool's order (fresh before stale, then
    # cheapest first within a tier), so the first row of a configuration is its cheapest.
    return [
        row
        for row in result.get("rows") or []
        if isinstance(row, Mapping)
        and row.get("tier") == "on_demand"
        and isinstance(row.get("usd_per_month"), int | float)
    ]


def _configuration(row: Mapping[str, Any]) -> tuple[str, int]:
    return str(row.get("gpu")), int(row.get("count") or 0)


def _configuration_label(row: Mapping[str, Any]) -> str:
    return f"{row.get('count', '?')}× {gpu_name(str(row.get('gpu')))}"


def cost_charts(result: Mapping[str, Any]) -> list[BarChart]:
    """A cost comparison as bar charts: USD per month and USD per million output tokens, one
    bar per configuration (its cheapest on-demand offer) — or, when only one configuration
    was priced, one bar per provider offering it (its cheapest offer)."""
    rows = _usd_rows(result)
    by_configuration = len({_configuration(row) for row in rows}) > 1
    chosen: dict[str, Mapping[str, Any]] = {}
    for row in rows:
        key = _configuration_label(row) if by_configuration else str(row.get("provider"))
        chosen.setdefault(key, row)
    picked = list(chosen.items())[:MAX_CHART_BARS]
    if not picked:
        return []
    scope = (
        "cheapest on-demand offer of each"
        if by_configuration
        else (f"{_configuration_label(rows[0])}, on demand, cheapest offer per provider")
    )

    def detail(row: Mapping[str, Any]) -> str:
        return str(row.get("provider") if by_configuration else row.get("gpu_label") or "")

    charts = [
        BarChart(
            f"USD per month · {scope}",
            tuple(
                ChartBar(
                    key, float(row["usd_per_month"]), f"{row['usd_per_month']:,.0f}", detail(row)
                )
                for key, row in picked
            ),
        )
    ]
    per_token = [
        (key, row)
        for key, row in picked
        if isinstance(row.get("usd_per_million_tokens"), int | float)
        and not isinstance(row.get("usd_per_million_tokens"), bool)
    ]
    if per_token:
        charts.append(
            BarChart(
                "USD per million output tokens",
                tuple(
                    ChartBar(
                        key,
                        float(row["usd_per_million_tokens"]),
                        f"{row['usd_per_million_tokens']:,.3f}",
                    )
                    for key, row in per_token
                ),
            )
        )
    return charts
