"""Does the model's text contradict the tools? Fit / no fit, GPU counts, cheaper / dearer.

The LLM engine leads every answer with the deterministic verdict, but the model's explanation
follows it, and a small model happily writes "Yes, it fits comfortably on a single H100" under a
result with `fits: false`. This module reads the answer clause by clause and compares each
claim it can pin down with the facts the turn's tools computed:

- a fit claim ("fits on 2× H100", "does not fit on one L40S", "it fits") against the exact
  configuration sized, or the recommender's smallest fitting count on that GPU (fewer GPUs than
  that do not fit; more do), or — when no GPU is named in the clause — the configuration the
  user asked about;
- a count claim ("you need 4 H100s") against the recommender's smallest fitting count;
- a price comparison ("the L40S is cheaper than the H100", "X is the cheapest") against the
  on-demand hourly price of each configuration.

Only claims that can be pinned to facts are judged: questions, conditionals ("if you quantise
to 4-bit it fits") and clauses naming a GPU the tools did not size are left alone, so a flag
means a real disagreement. GPU names are read with the offline parser's catalog matcher (the
same reading as the user's words). Facts come from the turn's typed tool results: the typed
sizing report (issue 14) and the finer tools' typed results feed `SizingFacts`.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from assistant.offline.parser.gpus import extract_gpus
from assistant.offline.parser.text import Text, normalise
from assistant.reading.parsed import GpuMention, ParsedWorkload
from assistant.results import LegacyResult, ToolError, stored_calls
from tools.catalog import get_catalog
from tools.cost.comparison import CostComparison
from tools.memory.request import MemoryEstimate
from tools.recommend import Recommendation
from tools.sizing import SizingReport


@dataclass(frozen=True)
class Contradiction:
    """One claim of the answer the tools disagree with: the words, and what the tools say."""

    claim: str
    tools_say: str

    def __str__(self) -> str:
        return f"“{self.claim}” — the tools: {self.tools_say}"


@dataclass
class SizingFacts:
    """What the turn's tools decided, keyed by catalog GPU id."""

    fits: dict[tuple[str, int], bool] = field(default_factory=dict)
    """(GPU, count) → fits, for every configuration a tool sized."""
    min_fitting: dict[str, int] = field(default_factory=dict)
    """The recommender's smallest fitting count per GPU (fewer GPUs do not fit)."""
    primary: tuple[str | None, int, bool] | None = None
    """The configuration the user asked about (first one sized): GPU, count, fits."""
    usd_per_hour: dict[str, float] = field(default_factory=dict)
    """Cheapest on-demand hourly price of the configuration sized on each GPU."""

    def __bool__(self) -> bool:
        return bool(self.fits or self.min_fitting or self.primary or self.usd_per_hour)


def _turn_values(messages: Sequence[dict[str, Any]], skip: Collection[str] = ()) -> list[Any]:
    """The typed results of the last turn's successful tool calls, in order
    (`assistant.results.stored_calls`; error results, unreadable ones and the calls `skip`
    names left out)."""
    last = sum(1 for m in messages if m.get("role") == "user")
    return [
        c.value
        for c in stored_calls(messages, turn=last)
        if not isinstance(c.value, ToolError | LegacyResult) and c.call_id not in skip
    ]


def _sized(facts: SizingFacts, gpu: str | None, count: int, fits: bool | None) -> None:
    if fits is None:
        return
    if gpu is not None:
        facts.fits.setdefault((gpu, count), fits)
    if facts.primary is None:
        facts.primary = (gpu, count, fits)


def _options(facts: SizingFacts, rec: Recommendation) -> None:
    for option in [*rec.options, *rec.rejected]:
        facts.fits.setdefault((option.gpu, option.count), option.fits)
        if option.fits:
            facts.min_fitting[option.gpu] = min(
                facts.min_fitting.get(option.gpu, option.count), option.count
            )
            if option.usd_per_hour is not None:
                price = option.usd_per_hour
                facts.usd_per_hour[option.gpu] = min(
                    facts.usd_per_hour.get(option.gpu, price), price
                )


def _rows(facts: SizingFacts, costs: CostComparison | None) -> None:
    serving = None if costs is None else costs.serving
    for row in [] if serving is None else serving.rows:
        price = row.usd_per_hour
        if row.tier == "on_demand" and price is not None:
            facts.usd_per_hour[row.gpu] = min(facts.usd_per_hour.get(row.gpu, price), price)


def facts_from_messages(
    messages: Sequence[dict[str, Any]], skip: Collection[str] = ()
) -> SizingFacts:
    """The facts of the last turn's typed tool results: the sizing report's configurations,
    recommender options and priced rows, or those of the finer tools the model called.
    `skip`: calls whose results are not the answer's (the parser's, when the model's reading
    of the question was chosen instead: `assistant.reading.reconcile`)."""
    facts = SizingFacts()
    for value in _turn_values(messages, skip):
        if isinstance(value, SizingReport):
            for sized in value.memory:
                if sized.estimate is not None:
                    _sized(facts, sized.gpu, sized.count, sized.estimate.fits)
            if value.recommendation is not None:
                _options(facts, value.recommendation)
            _rows(facts, value.costs)
        elif isinstance(value, MemoryEstimate):
            _sized(facts, value.gpu, value.num_gpus, value.fits)
        elif isinstance(value, Recommendation):
            _options(facts, value)
        elif isinstance(value, CostComparison):
            _rows(facts, value)
    return facts


# --- reading the answer --------------------------------------------------------------------

_CLAUSE_SPLIT = re.compile(
    r"(?<=[.!?])\s+|\n+|;\s*|,\s*(?:but|while|whereas|although)\s+|\s+but\s+"
)
_NEGATIVE = re.compile(
    r"\b(?:does\s*n[o']t|doesn't|do\s*n[o']t|don't|won't|will\s+not|cannot|can't|can\s+not|"
    r"is\s+not\s+enough|isn't\s+enough|not\s+enough|too\s+(?:big|large|much)|exceeds?|"
    r"out\s+of\s+memory|insufficient|won't\s+fit|no\s+single)\b"
    r"|\bnot\b[^.]{0,20}\bfit",
    re.I,
)
_POSITIVE = re.compile(
    r"\b(?:fits?|fitting|can\s+(?:run|serve|hold)|will\s+run|runs\s+(?:on|fine|comfortably)|"
    r"is\s+enough|are\s+enough|enough\s+(?:memory|vram))\b",
    re.I,
)
_NEED = re.compile(r"\b(?:need|needs|require|requires|required|takes|minimum\s+of)\b", re.I)
_CONDITIONAL = re.compile(r"\b(?:if|would|could|unless|once|when\s+you|after)\b", re.I)
_CHEAPER = re.compile(r"\b(?:cheaper|less\s+expensive|lower[- ]cost|more\s+affordable)\b", re.I)
_DEARER = re.compile(r"\b(?:more\s+expensive|pricier|costlier|dearer)\b", re.I)
_CHEAPEST = re.compile(r"\b(?:cheapest|least\s+expensive|most\s+affordable)\b", re.I)
_PLURAL_AFTER = re.compile(r"^\s*(?:s\b|gpus\b|cards\b)", re.I)


def _clauses(text: str) -> Iterable[str]:
    for clause in _CLAUSE_SPLIT.split(text):
        clause = clause.strip(" -*#>\t")
        if len(clause) >= 4 and not clause.endswith("?"):
            yield clause


def _mentions(clause: str) -> list[GpuMention]:
    parsed = ParsedWorkload()
    extract_gpus(Text(normalise(clause)), parsed)
    return [m for m in parsed.gpus if m.gpu is not None]


def _count(mention: GpuMention, clause: str) -> int | None:
    """The count said with a GPU name; 1 for a singular name ('an H100'), None for a plural
    without a number ('H100s')."""
    if mention.count is not None:
        return mention.count
    written = mention.text.lower()
    tails = [g.rsplit("-", 1)[-1] for g in (mention.gpu or "", *mention.variants)]
    if written.endswith("s") and not any(written.endswith(t) for t in tails if t):
        return None  # 'H100s'
    index = clause.lower().find(mention.text.lower())
    after = clause[index + len(mention.text) :] if index >= 0 else ""
    return None if _PLURAL_AFTER.match(after) else 1


def _label(gpu: str | None, count: int) -> str:
    if gpu is None:
        return "one GPU" if count == 1 else f"{count} GPUs"
    spec = get_catalog().gpus.get(gpu)
    name = spec.name.removeprefix("NVIDIA ").removeprefix("AMD ") if spec else gpu
    return f"{count}× {name}"


def _candidates(mention: GpuMention, facts: SizingFacts) -> list[str]:
    """Catalog ids the mention may mean that the tools sized ('H100' → the sized variant)."""
    ids = [mention.gpu, *mention.variants]
    sized = {g for g, _ in facts.fits} | set(facts.min_fitting) | set(facts.usd_per_hour)
    return [g for g in dict.fromkeys(ids) if g in sized]


def _fit_fact(gpu: str, count: int, facts: SizingFacts) -> tuple[bool, str] | None:
    """Whether `count`× `gpu` fits by the tools, and how they know; None when they did not say."""
    if (gpu, count) in facts.fits:
        fits = facts.fits[(gpu, count)]
        return fits, f"{_label(gpu, count)} {'fits' if fits else 'does not fit'}"
    smallest = facts.min_fitting.get(gpu)
    if smallest is None:
        return None
    if count < smallest:
        return False, f"{_label(gpu, count)} does not fit (the smallest fitting is {smallest}×)"
    return True, f"{_label(gpu, count)} fits (the smallest fitting is {smallest}×)"


def _fit_claims(clause: str, facts: SizingFacts) -> list[Contradiction]:
    negative = bool(_NEGATIVE.search(clause))
    positive = not negative and bool(_POSITIVE.search(clause))
    need = bool(_NEED.search(clause))
    if not (negative or positive or need) or _CONDITIONAL.search(clause):
        return []
    mentions = _mentions(clause)
    out: list[Contradiction] = []
    if not mentions:
        if facts.primary is not None and (negative or positive):
            gpu, named_count, fits = facts.primary
            if fits != positive:
                said = "fits" if fits else "does not fit"
                out.append(Contradiction(clause, f"{_label(gpu, named_count)} {said}"))
        return out
    for mention in mentions:
        count = _count(mention, clause)
        if count is None:
            continue
        verdicts = [
            v for v in (_fit_fact(g, count, facts) for g in _candidates(mention, facts)) if v
        ]
        if not verdicts:
            continue
        if negative or positive:
            wrong = [why for fits, why in verdicts if fits != positive]
            if len(wrong) == len(verdicts):
                out.append(Contradiction(clause, wrong[0]))
        elif need:
            smallest = [
                (g, facts.min_fitting[g])
                for g in _candidates(mention, facts)
                if g in facts.min_fitting
            ]
            if smallest and all(n != count for _, n in smallest):
                gpu, n = smallest[0]
                out.append(
                    Contradiction(clause, f"the smallest fitting configuration is {_label(gpu, n)}")
                )
    return out


def _price(mention: GpuMention, facts: SizingFacts) -> tuple[str, float] | None:
    for gpu in _candidates(mention, facts):
        if gpu in facts.usd_per_hour:
            return gpu, facts.usd_per_hour[gpu]
    return None


def _price_claims(clause: str, facts: SizingFacts) -> list[Contradiction]:
    cheaper, dearer = bool(_CHEAPER.search(clause)), bool(_DEARER.search(clause))
    cheapest = bool(_CHEAPEST.search(clause))
    if not (cheaper or dearer or cheapest) or _CONDITIONAL.search(clause) or not facts.usd_per_hour:
        return []
    prices = [p for p in (_price(m, facts) for m in _mentions(clause)) if p is not None]
    if cheapest and len(prices) == 1 and len(facts.usd_per_hour) > 1:
        _, price = prices[0]
        best = min(facts.usd_per_hour, key=lambda g: facts.usd_per_hour[g])
        if facts.usd_per_hour[best] < price:
            return [
                Contradiction(
                    clause,
                    f"{_label(best, 1).removeprefix('1× ')} is cheaper on demand "
                    f"(${facts.usd_per_hour[best]:,.2f}/h vs ${price:,.2f}/h)",
                )
            ]
        return []
    if len(prices) < 2 or not (cheaper or dearer):
        return []
    (first, p1), (second, p2) = prices[0], prices[1]
    if first == second or p1 == p2:
        return []
    if (cheaper and p1 > p2) or (dearer and p1 < p2):
        name1 = _label(first, 1).removeprefix("1× ")
        name2 = _label(second, 1).removeprefix("1× ")
        return [
            Contradiction(clause, f"on demand {name1} costs ${p1:,.2f}/h and {name2} ${p2:,.2f}/h")
        ]
    return []


def contradictions(text: str, facts: SizingFacts) -> list[Contradiction]:
    """Claims in `text` that the tools' facts contradict, in order (empty without facts)."""
    if not facts or not text:
        return []
    out: list[Contradiction] = []
    for clause in _clauses(text):
        for found in (*_fit_claims(clause, facts), *_price_claims(clause, facts)):
            if found not in out:
                out.append(found)
    return out
