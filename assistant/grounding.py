"""Check that every figure with a unit in an answer comes from the turn's tool results.

Figures recognised: memory (GB, GiB, TB, TiB, MB, MiB), throughput (tokens/s), latency (ms, s),
money ($), and GPU counts ("8 GPUs", "8x H100"). A figure is verified when some number in the
tool results (or in the tool arguments / the user's own words) equals it within the rounding the
figure shows (e.g. "140 GB" covers 139.5-140.5, "150 GB" 145-155), or within 1 % of it, after
unit conversion (GB↔GiB↔bytes, s↔ms). What is left is returned for `Done.unverified_figures`.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from tools.units import GB, GiB

RELATIVE_TOLERANCE = 0.01
"""1 %: covers rounding to 2-3 significant figures, the precision prose uses."""

_NUMBER = r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
_FIGURE = re.compile(
    r"(?P<dollar>\$\s?)?" + _NUMBER + r"\s?(?P<suffix>[kKMB](?![A-Za-z]))?\s?"
    r"(?P<unit>GiB|GB|TiB|TB|MiB|MB|tokens?\s?/\s?s(?:ec)?|tok/s|tokens per second|ms|"
    r"seconds?|s(?![A-Za-z])|(?:x|×)\s?(?=[A-Z])|GPUs?|cards?)?",
)
_SUFFIX = {"k": 1e3, "K": 1e3, "M": 1e6, "B": 1e9}


@dataclass(frozen=True)
class Figure:
    """A figure found in text: as written, its value in the base unit, and that unit."""

    text: str
    value: float
    unit: str  # "GB" (memory, in GB), "tok/s", "s", "$", "gpus"
    decimals: int
    factor: float = 1.0
    """Base units per written unit (GiB → GB: 1.0737...), to scale the rounding step."""


def _unit_of(raw: str) -> tuple[str, float] | None:
    raw = raw.strip().lower().replace(" ", "")
    table: dict[str, tuple[str, float]] = {
        "gb": ("GB", 1.0),
        "gib": ("GB", GiB / GB),
        "tb": ("GB", 1000.0),
        "tib": ("GB", 1024 * GiB / GB),
        "mb": ("GB", 1e-3),
        "mib": ("GB", 2**20 / GB),
        "ms": ("s", 1e-3),
        "s": ("s", 1.0),
        "sec": ("s", 1.0),
        "second": ("s", 1.0),
        "seconds": ("s", 1.0),
        "gpu": ("gpus", 1.0),
        "gpus": ("gpus", 1.0),
        "card": ("gpus", 1.0),
        "cards": ("gpus", 1.0),
        "x": ("gpus", 1.0),
        "×": ("gpus", 1.0),
    }
    if raw in table:
        return table[raw]
    if raw.startswith(("token", "tok/")):
        return ("tok/s", 1.0)
    return None


def extract_figures(text: str) -> list[Figure]:
    """Figures with a unit (or a $ sign) in `text`, in order."""
    figures: list[Figure] = []
    for match in _FIGURE.finditer(text):
        unit_raw = match.group("unit")
        dollar = match.group("dollar")
        if not unit_raw and not dollar:
            continue
        num = match.group("num").replace(",", "")
        value = float(num)
        decimals = len(num.split(".")[1]) if "." in num else 0
        suffix = match.group("suffix")
        if suffix:
            value *= _SUFFIX[suffix]
        if dollar:
            unit, factor = "$", 1.0
        else:
            found = _unit_of(unit_raw)
            if found is None:
                continue
            unit, factor = found
        figures.append(Figure(match.group(0).strip(), value * factor, unit, decimals, factor))
    return figures


def _numbers(value: Any, key: str = "") -> Iterable[tuple[str, float]]:
    if isinstance(value, bool):
        return
    if isinstance(value, int | float):
        yield key, float(value)
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _numbers(v, str(k))
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _numbers(v, key)
    elif isinstance(value, str):
        for fig in extract_figures(value):
            yield fig.unit, fig.value
        for num in re.findall(r"\d+(?:\.\d+)?", value):
            yield key, float(num)


# (family, name suffixes, name prefixes or whole names) for result fields.
_FAMILY_HINTS: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("$", ("_usd", "_eur", "_price"), ("usd_", "price_", "cost_", "usd", "price", "cost")),
    ("tok/s", ("tokens_per_s", "tokens_per_s_per_seq", "tok_s"), ()),
    ("GB", ("_gb", "_gib", "_bytes", "_mb", "_mib"), ("bytes_", "bytes")),
    ("s", ("_ms", "_s", "_seconds"), ("ttft",)),
    ("gpus", ("count", "_gpus"), ("gpus", "tp", "pp", "dp", "count")),
)
_UNIT_KEYS = {"$", "tok/s", "GB", "s", "gpus"}


def _family(key: str) -> str | None:
    """The unit family a result field holds, from its name (`usd_per_hour` → "$"), or None
    when the name carries no unit (then the number may support a figure of any unit)."""
    if key in _UNIT_KEYS:  # a figure parsed out of a string already knows its unit
        return key
    k = key.lower()
    for family, suffixes, prefixes in _FAMILY_HINTS:
        if (
            k.endswith(suffixes)
            or k in prefixes
            or k.startswith(tuple(p for p in prefixes if p.endswith("_")))
        ):
            return family
    return None


def _candidates(key: str, value: float) -> list[float]:
    """The values a source number may be displayed as, in the figure's base units."""
    k = key.lower()
    out = [value]
    if k.endswith("_bytes") or k == "bytes":
        out += [value / GB]
    if k.endswith("_gib"):
        out += [value * GiB / GB]
    if k.endswith("_ms"):
        out += [value / 1000]
    # The model may convert GB<->GiB itself; both readings of a memory number are allowed.
    out += [value * GiB / GB, value * GB / GiB, value / GB]
    return out


def _tolerance(fig: Figure) -> float:
    step = 10.0 ** (-fig.decimals)
    written = fig.value / fig.factor
    if fig.decimals == 0 and written >= 1:
        # "150" may be 150 rounded to the tens: trailing zeros widen the rounding step.
        digits = str(round(written))
        zeros = len(digits) - len(digits.rstrip("0"))
        step = 10.0**zeros
    return max(step / 2 * fig.factor, RELATIVE_TOLERANCE * abs(fig.value))


def source_numbers(sources: Sequence[Any]) -> list[tuple[str, float]]:
    """All numbers in tool results, tool arguments and user text (JSON strings are parsed)."""
    out: list[tuple[str, float]] = []
    for src in sources:
        if isinstance(src, str):
            with contextlib.suppress(ValueError):
                src = json.loads(src)
        out.extend(_numbers(src))
    return out


def unverified_figures(text: str, sources: Sequence[Any]) -> list[str]:
    """Figures in `text` that no number in `sources` supports (as written, in order)."""
    numbers = source_numbers(sources)
    missing: list[str] = []
    for fig in extract_figures(text):
        tol = _tolerance(fig)
        # A number supports a figure only when its field holds the same kind of quantity
        # ("$3.99" is not verified by 3.99 GB), or when the field name says nothing of units.
        usable = [(k, v) for k, v in numbers if _family(k) in (None, fig.unit)]
        ok = any(
            abs(candidate - fig.value) <= tol
            for key, value in usable
            for candidate in _candidates(key, value)
        )
        if fig.unit == "gpus":
            ok = any(value == fig.value for _, value in usable)
        if not ok and fig.text not in missing:
            missing.append(fig.text)
    return missing


def turn_sources(messages: Sequence[dict[str, Any]]) -> list[Any]:
    """Tool results, tool-call arguments and user text of the last turn (from its user message)."""
    start = 0
    for i, message in enumerate(messages):
        if message.get("role") == "user":
            start = i
    from assistant.results import result_payload

    sources: list[Any] = []
    for message in messages[start:]:
        role = message.get("role")
        if role == "tool":
            sources.append(result_payload(message))
        elif role == "user":
            sources.append(message.get("content") or "")
        for call in message.get("tool_calls") or []:
            sources.append(call.get("function", {}).get("arguments") or "")
    return sources
