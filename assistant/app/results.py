"""Tool results (compact JSON dicts) → what a tool card shows: a table and memory bars.

Pure functions, no Textual: the UI never computes a figure, so this module only selects,
labels and converts units for display (bytes → GiB via `tools.units`). Field names follow the
registry's convention of units in names: `*_bytes` (also `*_gib` / `*_gb`, converted to bytes
for drawing), so a bar is drawn from whatever unit the tool chose.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from tools.units import GB, GiB, format_bytes

MAX_COLUMNS = 8
"""A card's table stays readable at 80 columns; the full result is in the session file."""

MEMORY_COMPONENTS = ("weights", "kv_cache", "activations", "gradients", "optimizer", "overhead")
"""Stacking order of a memory bar (the memory calculator's breakdown keys)."""

MAX_LIST_CHARS = 60
"""Longer lists of text are summarised as a count in the table."""

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
    """GB when the tool reported GB (the registry's compact form), else GiB: one unit per table
    so GB and GiB are never mixed, and the table matches the figures the answer quotes."""
    text = json.dumps(result)
    return "GB" if re.search(r'_GB(_per_gpu)?"', text) else "GiB"


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
    if isinstance(value, float):
        return f"{value:,.4g}"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, list):
        return ", ".join(format_value(key, v, unit) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}={format_value(k, v, unit)}" for k, v in value.items())
    return "" if value is None else str(value)


def _header(key: str, unit: TableUnit | None) -> str:
    # Byte fields are shown in the table's unit: the header names it (columns) or drops the
    # raw suffix (field/value rows, where each value prints its unit).
    byte_unit = _unit_suffix(key)
    if byte_unit is None:
        return key
    return f"{byte_unit[0]} ({unit})" if unit is not None else byte_unit[0]


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


def result_table(result: Mapping[str, Any]) -> ResultTable:
    """Rows of a list-shaped result (e.g. recommender options), else field/value pairs."""
    unit = table_unit(result)
    options = _option_list(result)
    if options is not None:
        keys: list[str] = []
        for option in options:
            for key, value in option.items():
                if key not in keys and _is_scalar(value):
                    keys.append(key)
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
        if isinstance(value, dict) and all(_is_scalar(v) for v in value.values()):
            # A breakdown keeps bare component names: its values are bytes.
            bare_bytes = key.startswith("breakdown") and _unit_suffix(key) is None
            for k, v in value.items():
                if bare_bytes and v == 0:
                    continue  # e.g. no optimizer state when serving: noise in a compact table
                name = k + "_bytes" if bare_bytes and _unit_suffix(k) is None else k
                rows.append((f"{key}.{_header(name, None)}", format_value(name, v, unit)))
        elif isinstance(value, list) and all(map(_is_scalar, value)):
            cell = format_value(key, value, unit)
            # Long prose lists (assumptions, notes) stay in the session and the answer.
            if cell:
                rows.append((key, cell if len(cell) <= MAX_LIST_CHARS else f"{len(value)} items"))
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
    gpu = option.get("gpu") or option.get("gpu_name") or "GPU"
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


def summarize_arguments(arguments: Mapping[str, Any], limit: int = 60) -> str:
    """A one-line `key=value` summary of a tool call's inputs for the card title."""
    parts: Sequence[str] = [
        f"{k}={format_value(k, v)}" for k, v in arguments.items() if _is_scalar(v) and v is not None
    ]
    text = ", ".join(parts)
    return text if len(text) <= limit else text[: limit - 1] + "…"
