"""Training runs: optimizer, dataset size (examples, tokens, epochs), deadline, ZeRO / FSDP
stage, and '4k sequences' read as the training sequence length."""

from __future__ import annotations

import re
from typing import Literal, cast

from assistant.offline import vocab
from assistant.offline.parser.lengths import set_context
from assistant.offline.parser.load import BATCH
from assistant.offline.parser.task import extract_task
from assistant.offline.parser.text import QW, Q, Text, positive_int, qty
from assistant.reading.parsed import ParsedWorkload, Task
from assistant.reading.quantities import context_tokens_from
from assistant.regex_cache import compiled


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
    for m in compiled(
        rf"{Q}\s+(?:{examples}|sequences)\s*(?:of|with|averaging|at|each of|,)?"
        rf"\s*(?:about|around|~|roughly)?\s*{Q}[\s-]*tokens?(?:\s+each)?",
        re.I,
    ).finditer(t.work):
        if "batch" in t.work[max(0, m.start() - 24) : m.start()].lower():
            continue
        t.consume(m.start(), m.end())
        p.train_examples = positive_int(m.group(1))
        p.tokens_per_example, note = context_tokens_from(m.group(2).replace(" ", ""))
        if note:
            p.notes.append(note)
    # '100 8k conversations' is 100 of 8k tokens each (the concurrency reads it), not 8,000.
    for m in t.each(rf"(?<![\d.,]\s)(?<![\d.,]){Q}\s+(?:training\s+)?{examples}"):
        p.train_examples = positive_int(m.group(1))
    for m in t.each(rf"{QW}\s+epochs?"):
        p.epochs = qty(m.group(1))
    # Large token counts are datasets, unless said of the context ('context 10M tokens', '10M
    # tokens of context': Llama 4 Scout's window is 10,485,760 tokens).
    for m in compiled(rf"{Q}\s*(?:training\s+)?tokens?\b", re.I).finditer(t.work):
        value = qty(m.group(1))
        before = t.work[max(0, m.start() - 24) : m.start()]
        after = t.work[m.end() : m.end() + 24]
        of_context = compiled(r"\b(?:context|ctx|window)\b[^.,;]*$", re.I).search(
            before
        ) or compiled(r"\s*(?:of\s+)?(?:context|ctx|window)\b", re.I).match(after)
        if value is not None and value >= 1e7 and not of_context:
            p.train_tokens = value
            t.consume(m.start(), m.end())
    # 'fine-tune it on my own data': the data's owner, no figure (its size, when said, is read
    # above); with a training verb only.
    if _task_said(t.work) not in (None, "inference"):
        t.each(
            r"\b(?:on|with)\s+(?:my|our)\s+(?:own\s+)?(?:custom\s+|private\s+|company\s+)?data(?:sets?)?\b"
        )


def extract_deadline(t: Text, p: ParsedWorkload) -> None:
    """A deadline ('in 3 days', 'within 12 hours') in hours (a month is 730 hours)."""
    lead = r"(?:in|within|under|by|over|in\s+under|less\s+than|no\s+more\s+than|at\s+most|"
    lead += r"deadline(?:\s+(?:of|is|in|within|under))?\s*[:=]?)"
    hours = {"h": 1.0, "hr": 1.0, "hrs": 1.0, "hour": 1.0, "hours": 1.0, "day": 24.0}
    hours |= {"days": 24.0, "week": 168.0, "weeks": 168.0, "month": 730.0, "months": 730.0}
    for m in t.each(rf"\b{lead}\s*(?:an?\b|{QW})\s*(h|hrs?|hours?|days?|weeks?|months?)\b"):
        value = qty(m.group(1)) if m.group(1) else 1.0
        if value is not None:
            p.deadline_hours = value * hours[m.group(2).lower()]
    if p.deadline_hours is None and _task_said(t.work) not in (None, "inference"):
        _deadline_said_enough(t, p, hours)
    _relative_deadline(t, p)


def _deadline_said_enough(t: Text, p: ParsedWorkload, hours: dict[str, float]) -> None:
    """'Is a week on 64 H100s enough to train …', '3 days sufficient?': a time said enough for
    a training run is its deadline ('2 hours a day, is a 3090 enough?' serving is none)."""
    for m in t.each(
        rf"\b(?:an?\b|{QW})\s*(h|hrs?|hours?|days?|weeks?|months?)\b"
        r"(?=[^.?!]{0,60}?\b(?:enough|sufficient)\b)"
    ):
        value = qty(m.group(1)) if m.group(1) else 1.0
        if value is not None:
            p.deadline_hours = value * hours[m.group(2).lower()]


_OVERNIGHT_HOURS = 12.0
"""'Overnight' as a batch window: 12 hours (evening to morning), a stated default reading."""

_BY_A_DATE = (
    r"\b(?:by|before|until|till|due)\s+(?:this\s+|next\s+|the\s+)?(?:monday|tuesday|wednesday|"
    r"thursday|friday|saturday|sunday|tomorrow(?:\s+morning)?|tonight|(?:the\s+)?weekend|"
    r"end\s+of\s+(?:the\s+|this\s+|next\s+)?(?:day|week|month|quarter)|eod|eow|monday)\b"
)


def _relative_deadline(t: Text, p: ParsedWorkload) -> None:
    """'Overnight' is a 12-hour window, said; a deadline given as a date ('by Friday', 'by
    end of week') is asked back in hours — when the job starts is not said."""
    if p.deadline_hours is not None:
        return
    for m in t.each(r"\bovernight\b"):
        p.deadline_hours = _OVERNIGHT_HOURS
        p.notes.append(
            f"'{m.group(0)}' read as a {_OVERNIGHT_HOURS:g}-hour window (say the hours if the "
            "job has more or fewer)"
        )
        return
    for m in t.each(_BY_A_DATE):
        said = m.group(0).strip()
        p.ask(
            "deadline",
            "missing",
            f"'{said}' is a date, and when the job starts is not said: how many hours does it "
            "have (e.g. '72 hours')? Its GPU count follows from the hours.",
            said,
        )
        return


def extract_zero(t: Text, p: ParsedWorkload) -> None:
    """'with ZeRO-3', 'ZeRO stage 2', 'DeepSpeed ZeRO-2', 'FSDP' (full shard = stage 3)."""
    for pattern, stage, note in vocab.ZERO_STAGES:
        for m in t.each(pattern):
            said = stage if stage is not None else int(m.group(1))
            p.zero = cast(Literal[0, 1, 2, 3], said)
            if note:
                p.notes.append(note.format(text=m.group(0).strip()))


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
    for m in compiled(rf"{Q}[\s-]+{seqs}\b", re.I).finditer(t.work):
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
