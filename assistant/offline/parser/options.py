"""Settings said in words: budget (amount, currency, period), a cost-per-token question,
LoRA rank, activation checkpointing, serving engine, objective and region."""

from __future__ import annotations

from assistant.offline import vocab
from assistant.offline.parsed import BudgetPeriod, ParsedWorkload
from assistant.offline.parser.text import Q, Text, qty


def extract_cost_per_token(t: Text, p: ParsedWorkload) -> None:
    """A cost-per-token question ('per million tokens', '$/M') ranks by USD per million output
    tokens at full load (the recommender's `cheapest_per_token`)."""
    if t.each(vocab.COST_PER_TOKEN):
        p.objective = "cheapest_per_token"


def extract_budget(t: Text, p: ParsedWorkload) -> None:
    """A budget: amount, currency (USD, EUR, GBP by symbol or word) and period (hour, day,
    month, year; 'total' when none is said)."""
    period = r"(?:\s*(?:/|per|a|an|each|every)\s*(month|mo|hour|hr|h|day|year|yr))?"
    sym = {"$": "USD", "€": "EUR", "£": "GBP"}
    words = {"usd": "USD", "dollars": "USD", "eur": "EUR", "euros": "EUR", "gbp": "GBP"}
    matches = [(m, sym[m.group(1)]) for m in t.each(rf"([$€£])\s*{Q}{period}")]
    matches += [
        (m, words[m.group(2).lower()])
        for m in t.each(rf"{Q}\s*(usd|dollars|eur|euros|gbp){period}")
    ]
    for m, currency in matches:
        amount_text = m.group(2) if m.group(1) in sym else m.group(1)
        p.budget_amount = qty(amount_text)
        p.budget_currency = currency
        word = (m.group(3) or "").lower()
        periods: dict[str, BudgetPeriod] = {
            "month": "month",
            "mo": "month",
            "hour": "hour",
            "hr": "hour",
            "h": "hour",
            "day": "day",
            "year": "year",
            "yr": "year",
        }
        p.budget_period = periods.get(word, "total")


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
