"""Settings said in words: budget (amount, currency, period), a cost-per-token question,
LoRA rank, activation checkpointing, serving engine, objective and region."""

from __future__ import annotations

import re
from functools import cache

from assistant.offline import vocab
from assistant.offline.parser.text import Q, Text, qty
from assistant.reading.parsed import BudgetPeriod, ParsedWorkload
from assistant.reading.quantities import QUANTITY
from assistant.regex_cache import compiled


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
_GRAND = r"(?:\s*(grand)(?:\s+total\b)?)?"  # '2 grand total': the total said


_API = (
    r"\bself[\s-]?host(?:ing|ed)?\b|\bon[\s-]prem(?:ise)?s?\b(?=.*\bapis?\b)"
    r"|\b(?:hosted|managed|an|the|openai|together|groq|fireworks|provider)\s+apis?\b"
    r"|\bapis?\s+(?:pricing|prices|costs?|providers?|calls?|instead)\b|\bvs\.?\s+(?:an?\s+)?apis?\b"
    r"|\bthan\s+(?:using\s+)?(?:an?\s+)?apis?\b"
    r"|\bhost(?:ing)?\s+(?:it\s+|them\s+)?(?:ourselves|in[\s-]house)\b"
)


@cache
def _api_providers() -> list[str]:
    """Provider names of the built-in hosted API price catalog."""
    from tools.pricing import load_price_book

    return sorted({a.provider for a in load_price_book().api_prices})


@cache
def _api_model_patterns() -> tuple[str, ...]:
    """Patterns of the hosted API models of the price catalog that are no catalog model's
    (GPT, Claude, Gemini, …; their keys are `tools.cost.hosted_api.api_names`, less the
    provider-prefixed price ids), longest first so 'GPT-4o mini' is read before 'GPT-4o'.
    Separators are free ('gpt 4o-mini', 'GPT-4o mini', 'Claude Sonnet 4.5')."""
    from tools.cost.hosted_api import api_key, api_names
    from tools.pricing import load_price_book

    keys: set[str] = set()
    for api in load_price_book().api_prices:
        if api.model_id is None and api.comparable_model_id is None and not api.superseded:
            prefix = api_key(api.provider) + "-"
            keys |= {key for key in api_names(api) if not key.startswith(prefix)}
    ordered = sorted(keys, key=lambda key: (-len(key), key))
    return tuple(
        r"(?<![\w.])" + r"[\s\-_.]*".join(map(re.escape, key.split("-"))) + r"(?![\w])"
        for key in ordered
    )


def extract_api_models(t: Text, p: ParsedWorkload) -> None:
    """A hosted API model named to compare with ('self-host Llama 3.3 70B or use GPT-4o
    mini?', 'vs Claude Sonnet 4.5'): a model no one self-hosts, so naming it in a sizing
    question weighs self-hosting against its API (priced by the cost tool, on price only)."""
    for pattern in _api_model_patterns():
        for m in t.each(pattern):
            p.api_models.append(m.group(0).strip())
    if p.api_models:
        p.api_comparison = True
        p.task, p.use = p.task or "inference", p.use or "serve"


def extract_api_comparison(t: Text, p: ParsedWorkload) -> None:
    """Self-hosting weighed against a hosted API ('is self-hosting cheaper than an API?', 'vs
    the OpenAI API'): the answer compares both bills (the cost tool's API prices and
    break-even). Serving, unless a training task is said."""
    if not compiled(r"\bapis?\b|self[\s-]?host|ourselves|in[\s-]house", re.I).search(t.work):
        return
    providers = _api_providers()
    for m in compiled(r"\b([a-z][\w.\-]*)(?:\s+ai)?(?:'s)?\s+apis?\b", re.I).finditer(t.work):
        named = next((name for name in providers if m.group(1).lower() in name.lower()), None)
        if named is not None and len(m.group(1)) >= 3:
            p.api_providers.append(named)
            t.consume(m.start(1), m.end(1))
    if t.each(_API):
        p.api_comparison = True
        p.task, p.use = p.task or "inference", p.use or "serve"
        t.each(r"\bapis?\b")


def api_model_question(t: Text, p: ParsedWorkload) -> None:
    """Self-hosting vs an API for a bare size ('a 70B'): hosted API prices are per model, so
    ask which one, naming the catalog models of that size."""
    if not p.api_comparison or p.params is None or p.model is not None or p.model_file:
        return
    from assistant.offline.names import model_name_parts
    from tools.catalog import get_catalog
    from tools.units import format_count

    size = format_count(p.params, 0).lower()
    catalog = get_catalog()
    same = list(dict.fromkeys(n.id for n in model_name_parts() if n.size == size))
    names = " or ".join(catalog.models[i].name for i in same) or "a model name"
    p.ask(
        "model",
        "ambiguous",
        f"Hosted API prices are per model, so a generic {size.upper()} has none to compare "
        f"with: which {size.upper()} model is it — {names}?",
        p.model_text,
    )


_DOTTED = r"\d{1,3}(?:\.\d{3})+"
_ADJECTIVE_PERIODS: dict[str, BudgetPeriod] = {
    "monthly": "month",
    "hourly": "hour",
    "daily": "day",
    "yearly": "year",
    "annual": "year",
}
_BUDGET_WORD = r"\b(?:(monthly|hourly|daily|yearly|annual)\s+)?budget\b"


def _dotted_thousands(number: str) -> str:
    """'1.500' as written across Europe is 1500; any other quantity as it is."""
    return number.replace(".", "") if compiled(_DOTTED).fullmatch(number) else number


def extract_budget(t: Text, p: ParsedWorkload) -> None:
    """A budget: amount, currency (USD, EUR, GBP by symbol or word) and period (hour, day,
    month, year; 'total' when none is said). An amount said with a period or 'grand' but no
    currency ('5k/month', '5 grand a month', 'budget of 5000') is read as US dollars, noted."""
    found: list[tuple[str, str, str | None, str]] = []  # amount, currency, period, said
    # '€1.500': across Europe the dot separates thousands (never three decimals of money).
    for m in t.each(rf"([$€£])\s*(?:({_DOTTED})(?!,?\d)|{Q}){_GRAND}{_PERIOD}?"):
        number = _dotted_thousands(m.group(2)) if m.group(2) else m.group(3)
        found.append((_amount(number, m.group(4)), _SYMBOLS[m.group(1)], m.group(5), ""))
    # The symbol after the amount, as written across Europe ('1000€', '500 £', '1.000 € per
    # month': the dot there separates thousands).
    for m in t.each(rf"(?<![\d.,])({_DOTTED}|{QUANTITY}){_GRAND}\s*([€£$])(?!\w){_PERIOD}?"):
        number = _dotted_thousands(m.group(1))
        found.append((_amount(number, m.group(2)), _SYMBOLS[m.group(3)], m.group(4), ""))
    words = "|".join(_CURRENCY_WORDS)
    for m in t.each(rf"{Q}{_GRAND}\s*({words})\b{_PERIOD}?", re.I):
        found.append(
            (_amount(m.group(1), m.group(2)), _CURRENCY_WORDS[m.group(3).lower()], m.group(4), "")
        )
    # No currency: a plain amount per period, 'N grand', or an amount after 'budget'. Millions
    # without a currency are left to the token volumes ('50M a day').
    for m in compiled(
        rf"(?<![\w.,]){Q}(?![\w])(?:\s*(grand)\b(?:\s+total\b)?{_PERIOD}?|{_PERIOD})"
        rf"|\bbudget\s+(?:of\s+|is\s+|about\s+|around\s+|up\s+to\s+|:\s*)?{Q}{_GRAND}(?![\w])"
        rf"{_PERIOD}?",
        re.I,
    ).finditer(t.work):
        if m.group(1) is not None:
            amount, period = _amount(m.group(1), m.group(2)), m.group(3) or m.group(4)
        else:
            amount, period = _amount(m.group(5), m.group(6)), m.group(7)
        value = qty(amount)
        if value is None or value >= _PLAIN_AMOUNT_LIMIT:
            continue
        t.consume(m.start(), m.end())
        found.append((amount, "USD", period, m.group(0).strip()))
    # The word 'budget' read with its amount, and the period it may say ('a monthly budget').
    adjective = (
        next((m.group(1) for m in t.each(_BUDGET_WORD) if m.group(1)), None) if found else None
    )
    for amount, currency, period, said in found:
        value = qty(amount)
        if value is None:
            continue
        p.budget_amount = value
        p.budget_currency = currency
        p.budget_period = _PERIODS.get((period or "").lower(), "total")
        if p.budget_period == "total" and adjective is not None:
            p.budget_period = _ADJECTIVE_PERIODS[adjective.lower()]
        if said:
            per = "" if p.budget_period == "total" else f" per {p.budget_period}"
            p.notes.append(
                f"'{said}' read as a budget of {value:,.0f} USD{per} (no currency said; write "
                "'€' or 'EUR' for euros)"
            )


def extract_price_period(t: Text, p: ParsedWorkload) -> None:
    """'per month', 'a month', 'monthly', '/mo' (or 'per hour', 'hourly') left after budgets,
    token volumes and deadlines: the period the cost is asked in (issue 18, class 10)."""
    month = r"\b(?:per|a|an|each|every)\s+month\b|/\s*mo(?:nth)?\b|\bmonthly\b|\bmonth\b"
    hour = r"\b(?:per|an|each|every)\s+hour\b|/\s*h(?:ou)?r\b|\bhourly\b"
    if t.each(month):
        p.price_period = "month"
    elif t.each(hour):
        p.price_period = "hour"


_ENGINE_NAMES = (
    (r"tgi|text[\s-]generation", "tgi"),
    (r"sglang", "sglang"),
    (r"tensorrt", "tensorrt-llm"),
    (r"vllm", "vllm"),
    (r"llama\.cpp", "llama.cpp"),
    (r"ollama", "ollama"),
    (r"lm\s+studio", "lm-studio"),
    (r"ex[\s-]?llama|exl2|tabby[\s-]?api", "exllamav2"),
)


def _engine_named(words: str) -> str:
    """The engine the words name, by its usual id ('text-generation-inference' → tgi); the
    Transformers family of words ('from_pretrained', 'accelerate') is transformers."""
    return next(
        (name for pattern, name in _ENGINE_NAMES if compiled(pattern, re.I).match(words)),
        "transformers",
    )


def _amount(number: str, grand: str | None) -> str:
    """The amount as a quantity text: '5' with 'grand' is 5k."""
    return f"{number.strip()}k" if grand else number


def extract_llama_cpp_build(t: Text, p: ParsedWorkload) -> None:
    """The llama.cpp build said ('llama.cpp b2797', 'build 2797', llama-bench's 'build:
    858f6b73 (2797)') as b<number>, or its date ('a build from 2024-05'): it picks the build
    era's speed constants. A bare 'b' number needs four digits or more (B200 is a GPU)."""
    build = r"\bbuild\s*:?\s*(?:[0-9a-f]{7,40}\s*\()?b?(\d{3,6})\b|\bb(\d{4,6})\b"
    for m in t.each(build):
        p.engine_version = f"b{m.group(1) or m.group(2)}"
    for m in t.each(r"\bbuild\s+(?:of|from|dated)\s+(20\d\d-[01]\d(?:-[0-3]\d)?)\b"):
        p.engine_version = m.group(1)


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
            p.engine_named = p.engine_named or _engine_named(m.group(0))
            if note and engine not in named:  # once per engine ('TabbyAPI … exl2': one note)
                p.notes.append(note.format(text=m.group(0).strip()))
            named.setdefault(engine, m.group(0).strip())
    if len(named) > 1 and p.engine is not None:
        # One answer sizes one engine ("compare vLLM and llama.cpp"): say which, and how to
        # get the other, rather than dropping it silently (QA round 4, 3).
        t.each(r"\bcompar(?:e|ed|ing|ison)\b|\bversus\b|\bvs\b\.?")  # the engines compared
        others = ", ".join(f"'{text}'" for engine, text in named.items() if engine != p.engine)
        p.notes.append(
            f"Several serving engines named: sized for '{named[p.engine]}' only (one engine per "
            f"answer); ask again with {others} alone to size it"
        )
    if p.engine == "generic":
        extract_llama_cpp_build(t, p)
    for pattern, objective in vocab.OBJECTIVES:
        # "cheaper per million tokens" stays a per-token question: "cheaper" must not undo it.
        if t.each(pattern) and p.objective != "cheapest_per_token":
            p.objective = objective
    for pattern, region in vocab.REGIONS:
        if t.each(pattern):
            p.region = region
