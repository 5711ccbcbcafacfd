"""Settings said in words: budget (amount, currency, period), a cost-per-token question,
LoRA rank, activation checkpointing, serving engine, objective and region."""

from __future__ import annotations

import re

from assistant.offline import vocab
from assistant.offline.parsed import BudgetPeriod, ParsedWorkload
from assistant.offline.parser.text import Q, Text, qty


def extract_cost_per_token(t: Text, p: ParsedWorkload) -> None:
    """A cost-per-token question ('per million tokens', '$/M') ranks by USD per million output
    tokens at full load (the recommender's `cheapest_per_token`)."""
    if t.each(vocab.COST_PER_TOKEN):
        p.objective = "cheapest_per_token"


_PERIODS: dict[str, BudgetPeriod] = {
    "month": "month",
    "mo": "month",
    "mth": "month",
    "hour": "hour",
    "hr": "hour",
    "h": "hour",
    "day": "day",
    "year": "year",
    "yr": "year",
}
_PERIOD = r"(?:\s*(?:/|per|a|an|each|every)\s*(month|mo|mth|hour|hr|h|day|year|yr)\b)"
_SYMBOLS = {"$": "USD", "€": "EUR", "£": "GBP"}
_CURRENCY_WORDS = {
    "usd": "USD",
    "dollars": "USD",
    "bucks": "USD",
    "eur": "EUR",
    "euros": "EUR",
    "gbp": "GBP",
    "pounds": "GBP",
}
# An amount with no currency at or past this is not read as money ('50M a day' is tokens).
_PLAIN_AMOUNT_LIMIT = 1e6
# "5 grand" is 5,000 of the currency, said or not.
_GRAND = r"(?:\s*(grand))?"


def extract_budget(t: Text, p: ParsedWorkload) -> None:
    """A budget: amount, currency (USD, EUR, GBP by symbol or word) and period (hour, day,
    month, year; 'total' when none is said). An amount said with a period or 'grand' but no
    currency ('5k/month', '5 grand a month', 'budget of 5000') is read as US dollars, noted."""
    found: list[tuple[str, str, str | None, str]] = []  # amount, currency, period, said
    for m in t.each(rf"([$€£])\s*{Q}{_GRAND}{_PERIOD}?"):
        found.append((_amount(m.group(2), m.group(3)), _SYMBOLS[m.group(1)], m.group(4), ""))
    words = "|".join(_CURRENCY_WORDS)
    for m in t.each(rf"{Q}{_GRAND}\s*({words})\b{_PERIOD}?", re.I):
        found.append(
            (_amount(m.group(1), m.group(2)), _CURRENCY_WORDS[m.group(3).lower()], m.group(4), "")
        )
    # No currency: a plain amount per period, 'N grand', or an amount after 'budget'. Millions
    # without a currency are left to the token volumes ('50M a day').
    for m in re.finditer(
        rf"(?<![\w.,]){Q}(?![\w])(?:\s*(grand)\b{_PERIOD}?|{_PERIOD})"
        rf"|\bbudget\s+(?:of\s+|is\s+|about\s+|around\s+|up\s+to\s+|:\s*)?{Q}{_GRAND}(?![\w])"
        rf"{_PERIOD}?",
        t.work,
        re.I,
    ):
        if m.group(1) is not None:
            amount, period = _amount(m.group(1), m.group(2)), m.group(3) or m.group(4)
        else:
            amount, period = _amount(m.group(5), m.group(6)), m.group(7)
        value = qty(amount)
        if value is None or value >= _PLAIN_AMOUNT_LIMIT:
            continue
        t.consume(m.start(), m.end())
        found.append((amount, "USD", period, m.group(0).strip()))
    for amount, currency, period, said in found:
        value = qty(amount)
        if value is None:
            continue
        p.budget_amount = value
        p.budget_currency = currency
        p.budget_period = _PERIODS.get((period or "").lower(), "total")
        if said:
            per = "" if p.budget_period == "total" else f" per {p.budget_period}"
            p.notes.append(
                f"'{said}' read as a budget of {value:,.0f} USD{per} (no currency said; write "
                "'€' or 'EUR' for euros)"
            )


def _amount(number: str, grand: str | None) -> str:
    """The amount as a quantity text: '5' with 'grand' is 5k."""
    return f"{number.strip()}k" if grand else number


def extract_rank_and_flags(t: Text, p: ParsedWorkload) -> None:
    """LoRA rank, activation checkpointing on / off, serving engine, objective and region."""
    for m in t.each(r"\b(?:lora\s+)?(?:rank|r)\s*(?:=|of|:)?\s*(\d+)\b(?!\s*(?:gb|b\b))"):
        p.lora_rank = int(m.group(1))
    if t.each(r"\b(?:without|no)\s+(?:gradient\s+|activation\s+)?checkpointing\b"):
        p.checkpointing = False
    if t.each(r"\b(?:gradient|activation)\s+checkpointing\b|\brecompute\b|\bcheckpointing\b"):
        p.checkpointing = True
    named: dict[str, str] = {}
    for pattern, engine, note in vocab.ENGINES:
        for m in t.each(pattern):
            p.engine = engine
            named.setdefault(engine, m.group(0).strip())
            if note:
                p.notes.append(note.format(text=m.group(0).strip()))
    if len(named) > 1 and p.engine is not None:
        # One answer sizes one engine ("compare vLLM and llama.cpp"): say which, and how to
        # get the other, rather than dropping it silently (QA round 4, 3).
        others = ", ".join(f"'{text}'" for engine, text in named.items() if engine != p.engine)
        p.notes.append(
            f"Several serving engines named: sized for '{named[p.engine]}' only (one engine per "
            f"answer); ask again with {others} alone to size it"
        )
    for pattern, objective in vocab.OBJECTIVES:
        # "cheaper per million tokens" stays a per-token question: "cheaper" must not undo it.
        if t.each(pattern) and p.objective != "cheapest_per_token":
            p.objective = objective
    for pattern, region in vocab.REGIONS:
        if t.each(pattern):
            p.region = region
