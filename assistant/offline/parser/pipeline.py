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
from typing import Literal, cast

from assistant.offline import vocab
from assistant.offline.parsed import BudgetPeriod, ParsedWorkload, Task, Use
from assistant.offline.parser.gpus import (
    apply_nodes,
    extract_gpu_generic,
    extract_gpus,
    extract_nodes,
    unknown_gpus,
)
from assistant.offline.parser.models import (
    extract_bare_size,
    extract_hf_and_catalog_models,
    family_questions,
    near_miss_models,
)
from assistant.offline.parser.text import QW, Q, Text, normalise, positive_int, qty
from assistant.offline.quantities import NUMBER, QUANTITY, context_tokens_from
from tools.memory import normalize_format


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


def extract_kv_dtype(t: Text, p: ParsedWorkload) -> None:
    """The KV-cache dtype ('fp8 KV cache', 'KV cache in int8'; '8-bit' → fp8, '16-bit' → bf16)."""
    dtype = r"(fp8|int8|fp16|bf16|8[\s-]?bit|16[\s-]?bit)"
    for m in t.each(rf"{dtype}\s+kv(?:[\s-]?cache)?|kv[\s-]?cache\s+(?:in|at|as|of)?\s*{dtype}"):
        word = (m.group(1) or m.group(2)).lower().replace(" ", "").replace("-", "")
        p.kv_dtype = {"8bit": "fp8", "16bit": "bf16"}.get(word, word)


def extract_optimizer(t: Text, p: ParsedWorkload) -> None:
    """The optimizer (`vocab.OPTIMIZERS`; the first in that table's order is kept)."""
    for pattern, name in vocab.OPTIMIZERS:
        if t.each(pattern):
            p.optimizer = p.optimizer or name


def extract_training_data(t: Text, p: ParsedWorkload) -> None:
    """Dataset size: examples × tokens each ('100k examples of 2k tokens'), example
    counts, epochs, and token counts of 10M or more (training tokens)."""
    examples = r"(?:examples|samples|rows|records|instructions|pairs|dialogues|conversations)"
    # "100k sequences of 2k tokens" is a dataset too (examples × tokens each), unless it is a
    # batch ("a batch of 8 sequences of 4k tokens", read with the sequence length).
    for m in re.finditer(
        rf"{Q}\s+(?:{examples}|sequences)\s*(?:of|with|averaging|at|each of|,)?"
        rf"\s*(?:about|around|~|roughly)?\s*{Q}[\s-]*tokens?(?:\s+each)?",
        t.work,
        re.I,
    ):
        if "batch" in t.work[max(0, m.start() - 24) : m.start()].lower():
            continue
        t.consume(m.start(), m.end())
        p.train_examples = positive_int(m.group(1))
        p.tokens_per_example, note = context_tokens_from(m.group(2).replace(" ", ""))
        if note:
            p.notes.append(note)
    for m in t.each(rf"{Q}\s+(?:training\s+)?{examples}"):
        p.train_examples = positive_int(m.group(1))
    for m in t.each(rf"{QW}\s+epochs?"):
        p.epochs = qty(m.group(1))
    # Large token counts are datasets, not prompts; 10M tokens is far beyond any context window.
    for m in re.finditer(rf"{Q}\s*(?:training\s+)?tokens?\b", t.work, re.I):
        value = qty(m.group(1))
        if value is not None and value >= 1e7:
            p.train_tokens = value
            t.consume(m.start(), m.end())


def extract_throughput_and_latency(t: Text, p: ParsedWorkload) -> None:
    """Time to first token (seconds), token rates (tokens/s, aggregate or per user) and
    per-token latency in ms (read as a per-user rate of 1000 / ms tokens/s)."""
    ttft = r"(?:ttft|time[\s-]to[\s-]first[\s-]token|first[\s-]token(?:\s+latency)?)"
    bound = r"(?:\s*(?:of|under|below|<=?|≤|within|in|less\s+than|at\s+most|max(?:imum)?|:|=|is|"
    bound += r"around|about|~))*"
    unit = r"(ms|msec|milliseconds?|s|secs?|seconds?)\b"
    for m in t.each(rf"{ttft}{bound}\s*({NUMBER})\s*{unit}"):
        p.ttft_s = _seconds(m.group(1), m.group(2))
    for m in t.each(rf"({NUMBER})\s*{unit}\s*(?:of\s+)?{ttft}"):
        p.ttft_s = _seconds(m.group(1), m.group(2))
    per_user = (
        r"(\s*(?:per|/|for\s+each|each|a)\s*(?:user|request|sequence|stream|session|person))?"
    )
    # A qualifier may also follow the rate ("500 tokens/s aggregate throughput").
    after = r"((?:\s+(?:in\s+)?(?:aggregate|total|overall|combined))?(?:\s+throughput)?)"
    rate = rf"{Q}\s*(?:output\s+)?(?:tokens?|toks?)\s*(?:/|per|a)\s*(?:s|sec|second)\b{per_user}"
    for m in t.each(rate + after):
        value = qty(m.group(1))
        before = t.original[max(0, m.start() - 40) : m.start()].lower() + m.group(3).lower()
        if m.group(2) or "each" in before or "per user" in before:
            p.tokens_per_s_per_user = value
        elif re.search(r"aggregate|total|overall|throughput|combined", before) or (
            value is not None and value >= 500
        ):
            p.tokens_per_s = value
        else:
            p.tokens_per_s_per_user = value
            p.notes.append(f"{m.group(0).strip()!r} read as the speed each user sees")
    for m in t.each(
        rf"({NUMBER})\s*ms\s*(?:per|/|a)\s*(?:output\s+)?token|(?:itl|tpot|inter[\s-]token"
        rf"(?:\s+latency)?){bound}\s*({NUMBER})\s*ms"
    ):
        ms = float(m.group(1) or m.group(2))
        if ms > 0:
            p.tokens_per_s_per_user = 1000.0 / ms


def _seconds(number: str, unit: str) -> float:
    value = float(number.replace(",", ""))
    return value / 1000.0 if unit.lower().startswith("m") else value


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


def extract_deadline(t: Text, p: ParsedWorkload) -> None:
    """A deadline ('in 3 days', 'within 12 hours') in hours (a month is 730 hours)."""
    lead = r"(?:in|within|under|by|over|in\s+under|less\s+than|no\s+more\s+than|at\s+most|"
    lead += r"deadline(?:\s+(?:of|is|in|within|under))?\s*[:=]?)"
    hours = {"h": 1.0, "hr": 1.0, "hrs": 1.0, "hour": 1.0, "hours": 1.0, "day": 24.0}
    hours |= {"days": 24.0, "week": 168.0, "weeks": 168.0, "month": 730.0, "months": 730.0}
    for m in t.each(rf"\b{lead}\s*{QW}\s*(h|hrs?|hours?|days?|weeks?|months?)\b"):
        value = qty(m.group(1))
        if value is not None:
            p.deadline_hours = value * hours[m.group(2).lower()]


def extract_zero(t: Text, p: ParsedWorkload) -> None:
    """'with ZeRO-3', 'ZeRO stage 2', 'DeepSpeed ZeRO-2', 'FSDP' (full shard = stage 3)."""
    for pattern, stage, note in vocab.ZERO_STAGES:
        for m in t.each(pattern):
            said = stage if stage is not None else int(m.group(1))
            p.zero = cast(Literal[0, 1, 2, 3], said)
            if note:
                p.notes.append(note.format(text=m.group(0).strip()))


def extract_precision(t: Text, p: ParsedWorkload) -> None:
    """The weights' number format (`vocab.PRECISIONS`; the first read is kept, with its note)."""
    for pattern, fmt, note in vocab.PRECISIONS:
        for m in t.each(pattern):
            if p.weights is None:
                p.weights = fmt
                if note:
                    p.notes.append(note.format(text=m.group(0).strip()))


def extract_task(t: Text, p: ParsedWorkload) -> None:
    """Task and use (`vocab.TASKS`): LoRA / QLoRA outrank a plain fine-tune; a QLoRA
    base is then read as the paper's NF4 with double quantization."""
    for pattern, task, use in vocab.TASKS:
        for m in t.each(pattern):
            if task == "serving-finetuned":
                p.task = p.task or "inference"
                continue
            assumed = task == "full?"
            task = "full" if assumed else task
            if p.task is None or (p.task == "full" and task in ("lora", "qlora")):
                p.task = cast(Task, task)
            if use is not None and (p.use is None or p.use in ("serve", "fine-tune")):
                p.use = cast(Use, use)
            if assumed and p.task == "full":
                p.notes.append(
                    f"'{m.group(0).strip()}' without LoRA/QLoRA read as a full fine-tune "
                    "(LoRA and QLoRA need far less memory)"
                )
    if p.task == "qlora":
        _qlora_base(t, p)


# QLoRA (Dettmers et al. 2023, arXiv 2305.14314, §3) quantizes the base to NF4 *with double
# quantization*; the memory tool names that format for "qlora" (tools/memory/formats.py aliases),
# so the parser asks it rather than repeating the name.
QLORA_WEIGHTS = normalize_format("qlora")


def _qlora_base(t: Text, p: ParsedWorkload) -> None:
    """A QLoRA base: a generic '4-bit' or 'NF4' is the paper's NF4 + double quantization;
    AWQ/GPTQ named, or 'without double quant', stay as written."""
    if "awq" in t.original.lower() or _NO_DOUBLE_QUANT.search(t.original):
        return
    if p.weights == "nf4":
        p.notes.append(
            "'NF4' in a QLoRA request read as NF4 with double quantization, as in the QLoRA "
            "paper (say 'without double quant' for plain NF4)"
        )
    elif p.weights == "int4-awq":
        p.notes = [n for n in p.notes if "AWQ" not in n]
    elif p.weights is not None:
        return
    p.weights = QLORA_WEIGHTS


_NO_DOUBLE_QUANT = re.compile(
    r"\b(?:without|no|w/o|disable[ds]?)\s+(?:the\s+)?double[\s-]?quant", re.I
)


def extract_context(t: Text, p: ParsedWorkload) -> None:
    """Context, prompt and output lengths in tokens ('32k context', '2,000-token prompts',
    '500-token answers'), a bare length ('at 8k') and 'long-context' said without a size."""
    ctx = r"(?:context(?:[\s-]window|[\s-]length)?|ctx|window|sequence(?:[\s-]length)?s?|"
    ctx += r"seq(?:uence)?[\s-]?len(?:gth)?|max[\s-]len(?:gth)?)"
    doc = r"(?:documents?|docs?|prompts?|inputs?|contexts?|conversations?|files?|pages?|"
    doc += r"transcripts?|chats?|queries|sequences?)"
    for m in t.each(rf"{Q}[\s-]*(?:tokens?[\s-]+)?(?:of\s+)?{ctx}\b"):
        set_context(p, m.group(1))
    for m in t.each(
        rf"{ctx}\s*(?:length\s*)?(?:of|=|:|is|up\s+to|around|about)?\s*{Q}\b(?:\s*tokens?)?"
    ):
        set_context(p, m.group(1))
    prompt_context: int | None = None
    for m in t.each(rf"{Q}[\s-]*tokens?[\s-]+(?:long\s+)?{doc}"):
        set_context(p, m.group(1))
        if re.search(r"prompt|input|quer", m.group(0), re.I):
            p.prompt_tokens = prompt_context = p.context
    for m in t.each(rf"(?:prompts?|inputs?)\s+(?:of|with|around|about|up\s+to)?\s*{Q}\s*tokens?"):
        p.prompt_tokens = _length(p, m.group(1))
    for m in t.each(rf"{Q}\s*(?:input|prompt)\s+tokens?"):
        p.prompt_tokens = _length(p, m.group(1))
    out = r"(?:output|generated|completion|new|response)"
    answers = r"(?:answers?|responses?|completions?|repl(?:y|ies)|generations?|outputs?)"
    for m in t.each(
        rf"{Q}\s*{out}\s+tokens?"
        rf"|{Q}[\s-]*tokens?[\s-]+(?:long\s+)?{answers}\b"
        rf"|(?:generat\w*|{answers})\s+(?:of\s+|up\s+to\s+)?(?:about\s+|around\s+|~\s*)?"
        rf"{Q}\s*tokens?"
    ):
        p.output_tokens = _length(p, m.group(1) or m.group(2) or m.group(3))
    if prompt_context is not None and p.output_tokens is not None and p.context == prompt_context:
        # "2,000-token prompts and 500-token answers": the sequence is prompt + output, which
        # the tools add up themselves; a context equal to the prompt alone would undersize it.
        p.context = None
    extract_bare_context(t, p)
    for m in t.each(rf"{Q}[\s-]*tokens?\b"):
        set_context(p, m.group(1))
    if t.each(r"\blong[\s-]*context\b|\blong\s+(?:documents?|prompts?)\b"):
        p.long_context = True


# What may follow a bare length ("at 8k, on an L40S"): punctuation, the end, or a joining word;
# "at 8k steps" is not a context.
_AFTER_BARE_LENGTH = (
    r"(?=\s*(?:[,.;:!?)\]]|$|(?:and|on|for|with|in|using|via|across|over|to|at|of|or|but|"
    r"please|what|which|how|is|would|could|can|will)\b))"
)


def extract_bare_context(t: Text, p: ParsedWorkload) -> None:
    """'batch 64 of Qwen2.5 7B at 8k', 'Llama 3.1 8B with 32k': a bare token length after 'at'
    / 'with' is the context. Only 'Nk' or a plain power of two ≥ 512 (how windows are written:
    4096, 8192) is read so; other bare numbers stay unplaced rather than guessed."""
    for m in re.finditer(
        rf"\b(?:at|with|@)\s+({NUMBER}\s?k|\d{{3,7}})\b{_AFTER_BARE_LENGTH}", t.work, re.I
    ):
        text = m.group(1).replace(" ", "")
        tokens, note = context_tokens_from(text)
        plain = not text.lower().endswith("k")
        if plain and (tokens < 512 or tokens & (tokens - 1)):
            continue
        t.consume(m.start(), m.end())
        p.context = tokens
        how = " (binary k, as model cards)" if note else ""
        p.notes.append(
            f"'{m.group(0).strip()}' read as the context: {tokens:,} tokens per sequence{how}"
        )


def _length(p: ParsedWorkload, text: str) -> int:
    """Tokens of a prompt/answer length, the same 'Nk' rule as a context, the reading noted."""
    tokens, note = context_tokens_from(text.replace(" ", ""))
    if note:
        p.notes.append(note)
    return tokens


def set_context(p: ParsedWorkload, text: str) -> None:
    """The context in tokens from a length such as '8k' (binary-k rule, noted); a text that
    is not a positive token count leaves it unset."""
    try:
        tokens, note = context_tokens_from(text.replace(" ", ""))
    except ValueError:
        return
    if tokens <= 0:
        return
    p.context = tokens
    if note:
        p.notes.append(note)


BATCH = r"\b(?:micro[\s-]?|global[\s-]|per[\s-]gpu[\s-])?batch(?:[\s-]?size)?"


def _task_said(text: str) -> Task | None:
    """The task the words say, read ahead of the task extractor (nothing consumed)."""
    preview = ParsedWorkload()
    extract_task(Text(text), preview)
    return preview.task


def extract_training_sequence_length(t: Text, p: ParsedWorkload) -> None:
    """'4k sequences' in a training request is the sequence length, not 4,000 users.

    Training data is counted in examples or tokens and the batch in sequences per GPU, never
    in thousands, so a binary 'Nk' (4k, 8k: model-card window sizes) before 'sequences' can
    only be their length. '10k sequences' (not a power-of-two kilo) is left to be a count.
    """
    if _task_said(t.work) in (None, "inference"):
        return
    seqs = r"seq(?:uence)?s?"
    for m in t.each(
        rf"{BATCH}\s*(?:of|=|:)?\s*{Q}\s+{seqs}\s+(?:of|at|with)\s+{Q}\b(?:[\s-]*tokens?)?"
    ):
        # "a batch of 8 sequences of 4k": the count is the batch, the size their length.
        p.batch = positive_int(m.group(1))
        set_context(p, m.group(2))
    for m in re.finditer(rf"{Q}[\s-]+{seqs}\b", t.work, re.I):
        try:
            tokens, binary = context_tokens_from(m.group(1).replace(" ", ""))
        except ValueError:
            continue
        if binary is None:
            continue
        t.consume(m.start(), m.end())
        p.context = tokens
        p.notes.append(
            f"'{m.group(0).strip()}' read as the training sequence length: {tokens:,} tokens "
            "(binary k, as model cards), not a count of sequences"
        )


def extract_concurrency(t: Text, p: ParsedWorkload) -> None:
    """Concurrent users ('50 concurrent users', '20 at a time', 'concurrency 8') and the
    batch size in sequences."""
    adjectives = r"(?:(?:concurrent|simultaneous|parallel|active|daily|monthly|long[\s-]context|"
    adjectives += r"short|chat|rag|api|internal|external|different|total|peak|)\s+){0,3}"
    nouns = r"(?:users?|requests?|chats?|sessions?|conversations?|clients?|customers?|streams?|"
    nouns += r"sequences?|agents?|employees?|people|queries)"
    for m in t.each(rf"{QW}\s+{adjectives}{nouns}\b"):
        value = positive_int(m.group(1))
        if value is None:
            continue
        p.users = value
        if re.search(r"long[\s-]context", m.group(0), re.I):
            p.long_context = True
        if re.search(r"chat|conversation", m.group(0), re.I):
            p.task, p.use = p.task or "inference", p.use or "chat"
        if re.search(r"daily|monthly|total", m.group(0), re.I):
            p.notes.append(
                f"'{m.group(0).strip()}' read as {value:,} at the same time; peak concurrency is "
                "usually far lower, tell me if you know it"
            )
    for m in t.each(rf"{QW}\s+(?:at\s+a\s+time|concurrently|in\s+parallel|at\s+once)"):
        p.users = positive_int(m.group(1))
    for m in t.each(rf"concurrency\s*(?:of|=|:)?\s*{Q}"):
        p.users = positive_int(m.group(1))
    for m in t.each(rf"{BATCH}\s*(?:of|=|:)?\s*{Q}"):
        p.batch = positive_int(m.group(1))


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
