"""Where each slot of the workload was read: the spans of the question an extractor consumed go
to the fields it set (`ParsedWorkload.sources`), the spans of what it consumed but could not
place to `ParsedWorkload.unread`. Offsets are the question's own (before `normalise`)."""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from difflib import SequenceMatcher

from pydantic import BaseModel

from assistant.offline.parser.text import Text
from assistant.reading.model import SlotSource, Span
from assistant.reading.parsed import ParsedWorkload
from assistant.reading.quantities import QUANTITY, parse_quantity
from assistant.regex_cache import compiled

_NOT_SLOTS = frozenset({"text", "notes", "questions", "unplaced", "unread", "sources"})
SLOT_FIELDS = tuple(name for name in ParsedWorkload.model_fields if name not in _NOT_SLOTS)
"""The workload's fields that are slots of the reading."""


def _frozen(value: list[object]) -> tuple[object, ...]:
    return tuple(v.model_dump() if isinstance(v, BaseModel) else v for v in value)


_SLOT_VALUES = operator.attrgetter(*SLOT_FIELDS, "unplaced")


def _values(p: ParsedWorkload) -> tuple[object, ...]:
    """The slots' values (lists copied), compared before and after each extractor: a question
    is read by ~50 extractors over ~90 slots, so this is half of what a reading costs."""
    return tuple([_frozen(v) if isinstance(v, list) else v for v in _SLOT_VALUES(p)])


def _consumed(original: str, before: str, after: str) -> list[tuple[int, int]]:
    """Runs of characters blanked between `before` and `after` (both as long as `original`)."""
    runs: list[tuple[int, int]] = []
    start: int | None = None
    for i, (b, a) in enumerate(zip(before, after, strict=True)):
        blanked = b != " " and a == " "
        if blanked and start is None:
            start = i
        elif not blanked and start is not None:
            # A space of the question inside a consumed phrase ('40 users') joins its runs.
            if original[i].isspace() and a == " ":
                continue
            runs.append((start, i))
            start = None
    if start is not None:
        runs.append((start, len(before)))
    return [(s, e - len(before[s:e]) + len(before[s:e].rstrip())) for s, e in runs]


class Offsets:
    """Maps offsets of the normalised text back to the question as written."""

    def __init__(self, raw: str, normalised: str) -> None:
        self.raw = raw
        self._same = raw == normalised
        self._blocks = (
            []
            if self._same
            else SequenceMatcher(None, normalised, raw, False).get_matching_blocks()
        )

    def to_raw(self, position: int) -> int:
        if self._same:
            return position
        for a, b, size in self._blocks:
            if a <= position <= a + size:
                return b + (position - a)
            if a > position:
                return b
        return len(self.raw)

    def span(self, start: int, end: int) -> Span:
        raw_start, raw_end = self.to_raw(start), self.to_raw(end)
        raw_end = max(raw_start, raw_end)
        return Span(start=raw_start, end=raw_end, text=self.raw[raw_start:raw_end])


_NUMBER = compiled(rf"({QUANTITY})", re.I)


def _spans_of(value: object, spans: list[Span]) -> list[Span]:
    """Of the spans one extractor read for several fields, those that say `value` (a number
    whose figure is the field's: '2,000-token prompts' is the prompt's, '500 token answers'
    the output's); all of them when none says it or the value is not a number."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        return spans
    own = []
    for span in spans:
        for m in _NUMBER.finditer(span.text):
            said = parse_quantity(m.group(1).replace(" ", ""))
            if said is None:
                continue
            # 'Nk' tokens are read as N × 1024 when a power of two (quantities).
            if abs(said - value) <= 0.03 * value or abs(said * 1.024 - value) <= 0.001 * value:
                own.append(span)
                break
    return own or spans


def run_extractors(
    t: Text,
    p: ParsedWorkload,
    extractors: tuple[Callable[[Text, ParsedWorkload], None], ...],
    offsets: Offsets,
) -> None:
    """Run `extractors` in order over `t`, recording which spans each one read into which
    fields (`p.sources`) and which spans it consumed without placing them (`p.unread`)."""
    names = (*SLOT_FIELDS, "unplaced")
    # What the slots held after one extractor is what the next starts from: the bookkeeping
    # below writes only `sources` and `unread`, which are not slots.
    after = _values(p)
    for extract in extractors:
        work, before, asked = t.work, after, len(p.questions)
        extract(t, p)
        after = _values(p)
        changed = [n for n, b, a in zip(names, before, after, strict=True) if b != a]
        if not changed:
            continue
        spans = [offsets.span(s, e) for s, e in _consumed(t.original, work, t.work)]
        for name in changed:
            if name == "unplaced":
                # Words set aside with a question about them are asked, not unread.
                if len(p.questions) == asked:
                    p.unread += [s for s in spans if s not in p.unread]
                continue
            own = _spans_of(getattr(p, name), spans)
            source = p.sources.setdefault(name, SlotSource())
            source.spans += [s for s in own if s not in source.spans]
