"""Check that every figure with a unit in an answer comes from the turn's tool results.

Figures recognised: memory (GB, GiB, TB, TiB, MB, MiB), throughput (tokens/s), latency (ms, s),
money ($), and GPU counts ("8 GPUs", "8x H100"). A figure is verified when some *evidence*
equals it within the rounding the figure shows, after unit conversion (GB↔GiB↔bytes, s↔ms).

Evidence is a number that carries its unit (issue 17):
- a numeric field of a tool result or tool-call argument whose name — or the name of the field
  it sits in (`breakdown_bytes_per_gpu: {weights: ...}`) — says its unit (`per_gpu_GB`,
  `usd_per_hour`, `ttft_s`, `count`);
- a figure written with its unit inside a tool's text ("budget 19.8 GiB") or the user's words
  ("I have 4 GPUs").
Digits inside names, ids and prose (`h100-sxm`, `bf16`, `llama-3.1-70b`) and numbers in fields
without a unit (`context: 8192`, `layers: 80`) are never evidence, so they cannot make "100 GB",
"$16 per hour" or "70 GPUs" pass. A figure of one kind is never verified by a number of another
("$3.99" is not verified by 3.99 GB). GPU counts must match exactly.

Quantity (issue 28): a figure is supported only by evidence of the same quantity, not by any
number of its unit family in the turn. Money says its period ("$3.80 per hour", "/month",
"per million tokens") and a speed whom it is for ("15.8 tokens/s per user", "630 tokens/s in
total"): such a figure needs a field of that quantity (`usd_per_hour`, `usd_per_month`,
`usd_per_million_tokens`; `..._per_seq` vs aggregate). A figure that says no quantity may be
any of its family's. Evidence is what the model read (`turn_sources`: the summaries
`assistant.wire` sends, not the full typed results behind them — a 70B report holds
thousands of figures, and a figure the model was never shown cannot be a figure it quoted).

Rounding: "140 GB" covers 139.5-140.5, "35.2" covers 35.15-35.25, or 1 % of the value when that
is wider. A round number is read as rounded to two significant figures at most ("150 GB" covers
145-155, "100 GB" 95-105, "1,000 GB" 950-1,050), never to one: otherwise "100 GB" would be
"verified" by anything from 50 to 150.
"""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tools.nesting import loads_json
from tools.units import GB, GiB

RELATIVE_TOLERANCE = 0.002
"""0.2 %: a 6-significant-digit result converted (GB → GiB) and rounded again stays inside it;
rounding itself is the figure's written precision (`_tolerance`). It was 1 % until issue 28:
at 1 % a random '48 GB' found some result figure nearly half the time."""

_NUMBER = r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
_FIGURE = re.compile(
    r"(?<![\w.])(?P<dollar>\$\s?)?" + _NUMBER + r"\s?(?P<suffix>[kKMB](?![A-Za-z]))?\s?"
    r"(?P<unit>GiB|GB|TiB|TB|MiB|MB|tokens?\s?/\s?s(?:ec)?|tok/s|tokens per second|ms|"
    r"seconds?|s(?![A-Za-z])|(?:x|×)\s?(?=[A-Z])|GPUs?|cards?)?",
)
_SUFFIX = {"k": 1e3, "K": 1e3, "M": 1e6, "B": 1e9}


Quantity = str | None
"""Which quantity of a family a figure or a field is: "hour", "month", "mtok" (money per
million tokens), "year" for $; "per_seq", "total" for tokens/s; None when it does not say."""


@dataclass(frozen=True)
class Figure:
    """A figure found in text: as written, its value in the base unit, and that unit."""

    text: str
    value: float
    unit: str  # "GB" (memory, in GB), "tok/s", "s", "$", "gpus"
    decimals: int
    factor: float = 1.0
    """Base units per written unit (GiB → GB: 1.0737...), to scale the rounding step."""
    quantity: Quantity = None
    """The quantity the words around it name ('per hour', 'per user'), if any."""
    gpus: frozenset[str] = frozenset()
    """A GPU count's GPU ('2× MI300X'): the catalog ids its name may mean; empty when unnamed."""
    before: str = ""
    """The words right before it in its clause (a GPU name before '80GB' makes it the GPU's
    memory, a catalog fact: `supported`)."""


@dataclass(frozen=True)
class Evidence:
    """A number that may support a figure: its unit family, its value in the family's base
    unit (GB for memory, s, tokens/s, $, GPUs) and, when its field names one, its quantity."""

    family: str
    value: float
    quantity: Quantity = None


_MONEY_PERIODS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "mtok",
        re.compile(
            r"^\s*(?:/\s*|per\s+|a\s+|for\s+(?:a|each|every)\s+)(?:1\s*)?"
            r"(?:M\b|million\b|mtok)(?:\s*(?:output|input|generated|blended))?(?:\s*tok\w*)?",
            re.I,
        ),
    ),
    (
        "hour",
        re.compile(
            r"^\s*(?:/\s*(?:gpu[\s-]?)?(?:h|hr|hour)\b|(?:per|an|a|each|every)\s+(?:gpu[\s-]?)?"
            r"hour\b|(?:an?\s+)?hourly\b)",
            re.I,
        ),
    ),
    (
        "month",
        re.compile(
            r"^\s*(?:/\s*mo(?:nth)?\b|(?:per|a|each|every)\s+month\b|(?:a\s+)?monthly\b)", re.I
        ),
    ),
    ("year", re.compile(r"^\s*(?:/\s*y(?:ea)?r\b|(?:per|a|each)\s+year\b|yearly\b)", re.I)),
)
_PER_SEQUENCE = re.compile(
    r"^\s*(?:/\s*|per\s+|for\s+each\s+|each\s+|for\s+every\s+)"
    r"(?:user|sequence|seq|stream|request|session)\b",
    re.I,
)
_TOTAL = re.compile(
    r"^\s*(?:in\s+total|total|overall|aggregate|in\s+all|across\s+(?:all|the)|combined)\b",
    re.I,
)
_TOTAL_BEFORE = re.compile(r"\b(?:total|overall|aggregate|combined)\s+(?:\w+\s+){0,2}$", re.I)
_PER_SEQ_BEFORE = re.compile(r"\b(?:each|every|per)\s+(?:user|sequence|stream)\s+\w*\s*$", re.I)


def _quantity(unit: str, before: str, after: str) -> Quantity:
    """The quantity the words around a figure name, from the words right after it (and, for a
    speed, right before it in the same clause)."""
    if unit == "$":
        for quantity, pattern in _MONEY_PERIODS:
            if pattern.match(after):
                return quantity
        return None
    if unit == "tok/s":
        if _PER_SEQUENCE.match(after) or _PER_SEQ_BEFORE.search(before):
            return "per_seq"
        if _TOTAL.match(after) or _TOTAL_BEFORE.search(before):
            return "total"
    return None


@functools.lru_cache(maxsize=1024)
def _gpu_named(after: str) -> frozenset[str]:
    """The catalog GPU ids the GPU name in `after` ('MI300X', 'A100 80GB PCIe') may mean,
    read with the offline parser's catalog matcher (the reading of the user's words); empty
    when none."""
    from assistant.offline.parser.gpus import extract_gpus
    from assistant.offline.parser.text import Text, normalise
    from assistant.reading.parsed import ParsedWorkload

    parsed = ParsedWorkload()
    try:
        extract_gpus(Text(normalise("1x " + after)), parsed)
    except Exception:
        return frozenset()
    first = next((m for m in parsed.gpus if m.gpu is not None), None)
    if first is None or first.gpu is None:
        return frozenset()
    return frozenset({first.gpu, *first.variants})


@functools.lru_cache(maxsize=4096)
def field_quantity(key: str, family: str) -> Quantity:
    """The quantity a result field holds, from its name (`usd_per_hour` → "hour",
    `decode_tokens_per_s_per_seq` → "per_seq"); None when its name does not say."""
    k = key.lower()
    if family == "$":
        if "million" in k or "per_m_" in k or k.endswith("_per_m"):
            return "mtok"
        for word, quantity in (("hour", "hour"), ("month", "month"), ("year", "year")):
            if word in k:
                return quantity
        return None
    if family == "tok/s":
        return "per_seq" if ("per_seq" in k or "per_user" in k) else "total"
    return None


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
    """Figures with a unit (or a $ sign) in `text`, in order. Digits glued to letters or
    hyphens (`h100`, `bf16`, `3.1-70b`) are part of a name, not a figure."""
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
        before = text[max(0, match.start() - 40) : match.start()]
        before = re.split(r"[.;:!?\n]", before)[-1]
        after = text[match.end() : match.end() + 40]
        quantity = _quantity(unit, before, after)
        written = match.group(0).strip()
        named = unit == "gpus" and unit_raw.strip() in ("x", "×")
        gpus = _gpu_named(re.split(r"[,.;:!?(\n]", after)[0]) if named else frozenset()
        figures.append(
            Figure(written, value * factor, unit, decimals, factor, quantity, gpus, before)
        )
    return figures


_MEMORY_WORDS = {"bytes", "gb", "gib", "mb", "mib", "tb", "tib", "breakdown"}
_MONEY_WORDS = {"usd", "eur", "price", "cost", "dollars"}
_GPU_WORDS = {"count", "gpus", "tp", "pp", "dp"}
_TIME_WORDS = {"s", "ms", "seconds", "ttft"}


@functools.lru_cache(maxsize=4096)
def field_family(key: str) -> str | None:
    """The unit family a result field holds, from its name (`usd_per_hour` → "$",
    `per_gpu_GB` → "GB", `decode_tokens_per_s_per_seq` → "tok/s"); None when the name carries
    no unit (`context`, `layers`, `weights`)."""
    words = key.lower().split("_")
    joined = "_".join(words)
    if "tokens_per_s" in joined or "tok_s" in joined:
        return "tok/s"
    if _MONEY_WORDS & set(words):
        return "$"
    if _MEMORY_WORDS & set(words):
        return "GB"
    if words[-1] in _TIME_WORDS or "ttft" in words:
        return "s"
    if _GPU_WORDS & set(words):
        return "gpus"
    return None


def _field_values(key: str, family: str, value: float) -> list[float]:
    """The values, in the family's base unit, a field's number may be shown as."""
    k = key.lower()
    if family == "GB":
        if k.endswith(("_gb", "_gb_per_s")):
            return [value]
        if k.endswith(("_gib",)):
            return [value * GiB / GB]
        if k.endswith(("_mb",)):
            return [value / 1e3]
        return [value / GB]  # bytes (also `breakdown` entries, which the registry keeps in bytes)
    if family == "s" and k.endswith("_ms"):
        return [value / 1000]
    return [value]


def _evidence(value: Any, out: list[Evidence], key: str = "", family: str | None = None) -> None:
    """Append the numbers with units in a JSON value to `out`; a field without a unit in its
    name inherits the unit of the field it sits in (`breakdown_bytes_per_gpu: {"weights":
    ...}`). (One list filled in place, not nested generators: a training report holds ~100,000
    values.)"""
    if isinstance(value, bool):
        return
    if isinstance(value, int | float):
        own = field_family(key)
        if own is not None:
            values = _field_values(key, own, value)
        elif family is not None:
            # Inherited: the registry keeps such nested memory figures in bytes.
            values = _field_values("bytes" if family == "GB" else key, family, value)
        else:
            return
        kind = own or str(family)
        quantity = field_quantity(key, kind)
        out.extend(Evidence(kind, v, quantity) for v in values)
    elif isinstance(value, dict):
        here = field_family(key) or family
        gpu = value.get("gpu")
        for k, v in value.items():
            if isinstance(gpu, str) and type(v) is int and field_family(str(k)) == "gpus":
                # A count beside its GPU ('{"gpu": "mi300x", "count": 2}') counts that GPU.
                out.append(Evidence("gpus", float(v), gpu))
                continue
            _evidence(v, out, str(k), here)
    elif isinstance(value, list | tuple):
        for v in value:
            _evidence(v, out, key, family)
    elif isinstance(value, str):
        out.extend(_text_evidence(value))


def text_evidence(text: str) -> list[Evidence]:
    """Figures written with their unit in prose (a tool's note, the user's words)."""
    return list(_text_evidence(text))


@functools.lru_cache(maxsize=8192)
def _text_evidence(text: str) -> tuple[Evidence, ...]:
    # Remembered per text: a report repeats the same reasons and notes on many options.
    return tuple(Evidence(f.unit, f.value, f.quantity) for f in extract_figures(text))


def source_evidence(sources: Sequence[Any]) -> list[Evidence]:
    """Evidence in tool results, tool arguments (JSON strings are parsed) and user text."""
    out: list[Evidence] = []
    for src in sources:
        if isinstance(src, str):
            with contextlib.suppress(ValueError):
                src = loads_json(src)  # ValueError: not JSON or too deep
        _evidence(src, out)
    return out


def _tolerance(fig: Figure) -> float:
    step = 10.0 ** (-fig.decimals)
    written = fig.value / fig.factor
    if fig.decimals == 0 and written >= 1:
        # "150" may be 148 rounded to the tens; a round number is read as rounded to two
        # significant figures at most ("100" → 95-105), never to one (50-150).
        digits = str(round(written))
        zeros = len(digits) - len(digits.rstrip("0"))
        step = 10.0 ** min(zeros, max(0, len(digits) - 2))
    return max(step / 2 * fig.factor, RELATIVE_TOLERANCE * abs(fig.value))


def _same_quantity(fig: Figure, evidence: Evidence) -> bool:
    """The figure and the evidence are of one quantity: both say it and it is the same, or
    either does not say (a bare "$3.80" may be any dollar figure). A count of a named GPU
    ('2× MI300X') is supported only by a count of that GPU."""
    if fig.unit == "gpus":
        return not fig.gpus or evidence.quantity in fig.gpus
    return fig.quantity is None or evidence.quantity is None or fig.quantity == evidence.quantity


def _gpu_memory_named(fig: Figure) -> bool:
    """A memory figure that is the catalog memory of the GPU named right before it ('A100
    80GB', 'RTX 4060 Ti 16 GB'): part of the GPU's name, a catalog fact."""
    if fig.unit != "GB" or not fig.before.strip():
        return False
    from tools.catalog import get_catalog

    gpus = get_catalog().gpus
    tol = _tolerance(fig)
    words = re.split(r"[,;(]|\b(?:or|and|vs)\b", fig.before)[-1]
    named = _gpu_named(words[-30:].strip())
    return any(g in gpus and abs(gpus[g].memory_bytes / GB - fig.value) <= tol for g in named)


def supported(fig: Figure, evidence: Sequence[Evidence]) -> bool:
    """Whether some evidence of the figure's unit and quantity equals it within its rounding."""
    if _gpu_memory_named(fig):
        return True
    # A negative figure (a headroom of -542.8 GB) is written as its size ('542.8 GB over').
    same = [abs(e.value) for e in evidence if e.family == fig.unit and _same_quantity(fig, e)]
    if fig.unit == "gpus":
        return fig.value in same
    # The figure's own unit converts it (130.4 GiB = 140.0 GB); a GiB number labelled "GB"
    # is a wrong figure, not a rounding.
    tol = _tolerance(fig)
    return any(abs(v - fig.value) <= tol for v in same)


def unverified_figures(text: str, sources: Sequence[Any]) -> list[str]:
    """Figures in `text` that no evidence in `sources` supports (as written, in order)."""
    return unsupported_figures(text, source_evidence(sources))


def unsupported_figures(text: str, evidence: Sequence[Evidence]) -> list[str]:
    """`unverified_figures` against evidence already read from the sources
    (`source_evidence`), for many texts checked against one turn: reading a report's evidence
    is most of the cost of one check."""
    missing: list[str] = []
    for fig in extract_figures(text):
        if not supported(fig, evidence) and fig.text not in missing:
            missing.append(fig.text)
    return missing


def turn_sources(messages: Sequence[dict[str, Any]]) -> list[Any]:
    """Tool results as the model read them (their `content`: `assistant.wire.model_content`,
    the summaries of large results), tool-call arguments and user text of the last turn (from
    its user message)."""
    start = 0
    for i, message in enumerate(messages):
        if message.get("role") == "user":
            start = i
    sources: list[Any] = []
    for message in messages[start:]:
        role = message.get("role")
        if role == "tool":
            sources.append(message.get("content") or "")
        elif role == "user":
            # Plain text (the user's words) is prose: only figures written with units count.
            sources.append(message.get("content") or "")
        for call in message.get("tool_calls") or []:
            sources.append(call.get("function", {}).get("arguments") or "")
    return sources
