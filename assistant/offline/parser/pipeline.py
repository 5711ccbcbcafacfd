"""Plain language → `ParsedWorkload`: the extractors' order, `parse_workload` and the
follow-up merge.

Extractors run in a fixed order over a working copy of the text; each one blanks out what it
consumed so a later, looser one cannot misread it ("8-bit Adam" is an optimizer before "8-bit"
can be a precision; "2B tokens" is training data before "2B" can be a model size). Whatever is
left that is not filler is reported in `unplaced`. No figures are computed here.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from assistant.offline import vocab
from assistant.offline.parsed import BudgetPeriod, ParsedWorkload
from assistant.offline.parser.gpus import (
    apply_nodes,
    extract_gpu_generic,
    extract_gpus,
    extract_nodes,
    unknown_gpus,
)
from assistant.offline.parser.lengths import extract_context
from assistant.offline.parser.load import extract_concurrency, extract_throughput_and_latency
from assistant.offline.parser.models import (
    extract_bare_size,
    extract_hf_and_catalog_models,
    family_questions,
    near_miss_models,
)
from assistant.offline.parser.task import extract_kv_dtype, extract_precision, extract_task
from assistant.offline.parser.text import Q, Text, normalise, qty
from assistant.offline.parser.training import (
    extract_deadline,
    extract_optimizer,
    extract_training_data,
    extract_training_sequence_length,
    extract_zero,
)
from assistant.offline.quantities import QUANTITY


def negative_numbers(t: Text, p: ParsedWorkload) -> None:
    """'-5 users', '-7B': a count or size cannot be negative. Reading the digits alone would
    size 5 users silently, so the fragment is not read and the user is asked instead."""
    for m in t.each(rf"(?<![\w.\-])[-−]\s?({QUANTITY})(?:[\s-]*([a-z]+))?"):
        said = m.group(0).strip()
        p.unplaced.append(said)
        p.questions.append(
            f"'{said}' is negative: counts, sizes and lengths must be positive. Did you mean "
            f"'{said.lstrip('-−').strip()}'?"
        )


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
    for pattern, engine, note in vocab.ENGINES:
        for m in t.each(pattern):
            p.engine = engine
            if note:
                p.notes.append(note.format(text=m.group(0).strip()))
    for pattern, objective in vocab.OBJECTIVES:
        if t.each(pattern):
            p.objective = objective
    for pattern, region in vocab.REGIONS:
        if t.each(pattern):
            p.region = region


def unplaced_fragments(t: Text, p: ParsedWorkload) -> None:
    """What no extractor read and is not filler, as runs of adjacent words, into `unplaced`."""
    fragment: list[str] = []
    for token in re.findall(r"[^\s]+", t.work):
        word = token.strip(".,;:!?()[]{}\"'`").lower()
        if not word or word in vocab.FILLER or not re.search(r"[a-z0-9]", word):
            if fragment:
                p.unplaced.append(" ".join(fragment))
                fragment = []
            continue
        fragment.append(token.strip(".,;:!?()[]{}\"'`"))
    if fragment:
        p.unplaced.append(" ".join(fragment))


def extract_cost_per_token(t: Text, p: ParsedWorkload) -> None:
    """A cost-per-token question ('per million tokens', '$/M') sets the cheapest objective."""
    if t.each(vocab.COST_PER_TOKEN):
        p.objective = "cheapest"


_EXTRACTORS: tuple[Callable[[Text, ParsedWorkload], None], ...] = (
    extract_hf_and_catalog_models,
    negative_numbers,
    extract_cost_per_token,
    extract_budget,
    extract_kv_dtype,
    extract_optimizer,
    extract_training_data,
    extract_throughput_and_latency,
    extract_deadline,
    extract_zero,
    extract_nodes,
    extract_gpus,
    extract_gpu_generic,
    apply_nodes,
    extract_precision,
    extract_training_sequence_length,
    extract_concurrency,
    extract_task,
    extract_context,
    extract_rank_and_flags,
    extract_bare_size,
    near_miss_models,
    family_questions,
    unknown_gpus,
    unplaced_fragments,
)


# Fields a follow-up turn inherits from the previous workload when it does not restate them.
_INHERITED = tuple(
    name
    for name in ParsedWorkload.model_fields
    if name not in ("text", "notes", "questions", "unplaced", "model", "model_text", "params")
)


def parse_workload(text: str, previous: ParsedWorkload | None = None) -> ParsedWorkload:
    """Parse a sizing request. With `previous`, the text refines it ("what about 8-bit?").

    Never raises on any input text; what cannot be placed is listed in `unplaced`, missing
    verdict-changing facts in `questions`.
    """
    t = Text(normalise(text[:4000]))
    parsed = ParsedWorkload(text=text)
    for extract in _EXTRACTORS:
        extract(t, parsed)
    if parsed.train_tokens is None and parsed.train_examples and parsed.tokens_per_example:
        epochs = parsed.epochs or 1.0
        parsed.train_tokens = parsed.train_examples * parsed.tokens_per_example * epochs
    if previous is not None:
        parsed = _merge(previous, parsed)
    if not parsed.has_model and not any("model" in q for q in parsed.questions):
        parsed.questions.append(
            "Which model? Give a name (e.g. 'Llama 3.1 70B'), a Hugging Face id or a size "
            "such as '13B'."
        )
    if parsed.long_context and parsed.context is None and parsed.prompt_tokens is None:
        # "Long-context" with no size would be sized at the tools' short default context,
        # the opposite of what was said: the KV cache (and the verdict) scale with it.
        parsed.questions.append(
            "How long is the context per sequence, in tokens (e.g. '32k context' or '128k "
            "context')? 'Long-context' sets the KV cache, and so the verdict."
        )
    parsed.notes = list(dict.fromkeys(parsed.notes))
    return parsed


def _merge(previous: ParsedWorkload, new: ParsedWorkload) -> ParsedWorkload:
    data = new.model_dump()
    if not new.has_model and not any("catalog" in q for q in new.questions):
        data["model"], data["model_text"], data["params"] = (
            previous.model,
            previous.model_text,
            previous.params,
        )
        data["questions"] = [q for q in new.questions if not q.startswith("Which ")]
    blank = ParsedWorkload()
    for name in _INHERITED:
        if getattr(new, name) == getattr(blank, name):
            data[name] = getattr(previous, name)
    data["notes"] = [*previous.notes, *new.notes]
    return ParsedWorkload.model_validate(data)
