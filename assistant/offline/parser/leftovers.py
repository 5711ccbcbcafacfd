"""What is not read: negative numbers (asked back, never sized as positive) and the
fragments no extractor consumed (`unplaced`)."""

from __future__ import annotations

import re

from assistant.offline import vocab
from assistant.offline.parser.text import Text
from assistant.reading.coverage import CJK_LETTERS
from assistant.reading.parsed import ParsedWorkload
from assistant.reading.quantities import (
    HUGE_NUMBER,
    QUANTITY,
    huge_value,
    out_of_range_question,
    too_large,
)
from assistant.regex_cache import compiled


def negative_numbers(t: Text, p: ParsedWorkload) -> None:
    """'-5 users', '-7B': a count or size cannot be negative. Reading the digits alone would
    size 5 users silently, so the fragment is not read and the user is asked instead."""
    # The minus sign against the digits: '- 2x 3090' is a list's bullet, not minus two.
    for m in t.each(rf"(?<![\w.\-])[-−]({QUANTITY})(?:[\s-]*([a-z]+))?"):
        said = m.group(0).strip()
        p.unplaced.append(said)
        p.ask(
            "figure",
            "invalid",
            f"'{said}' is negative: counts, sizes and lengths must be positive. Did you mean "
            f"'{said.lstrip('-−').strip()}'?",
            said,
        )


def huge_numbers(t: Text, p: ParsedWorkload) -> None:
    """'1e400 users', a 26-digit count, '10^20 tokens': past every bound the tools accept.
    Reading part of it ('400 users') or dropping it (sizing 1 user) would answer another
    question, so the fragment is not read and the user is asked for the real figure."""
    adjective = r"(?:(?:concurrent|simultaneous|parallel|active|daily|total|peak)\s+)?"
    noun = rf"(?:[\s-]*({adjective}[a-z]+(?:\s*(?:/|per)\s*(?:s|sec|second)\b)?))?"
    for m in compiled(HUGE_NUMBER + noun, re.I).finditer(t.work):
        if not too_large(huge_value(m)):
            continue
        t.consume(m.start(), m.end())
        said = m.group(0).strip()
        p.unplaced.append(said)
        p.ask("figure", "invalid", out_of_range_question(said, m.group(6) or ""), said)


def unplaced_fragments(t: Text, p: ParsedWorkload) -> None:
    """What no extractor read and is not filler, as runs of adjacent words, into `unplaced`."""
    fragment: list[str] = []
    for m in list(compiled(r"[^\s]+").finditer(t.work)):
        token = m.group(0)
        word = token.strip(".,;:!?()[]{}\"'`").lower()
        # Words are Latin letters or digits, or CJK (which the gate then holds the verdict on).
        letters = compiled(rf"[a-z0-9{CJK_LETTERS}]")
        if not word or word in vocab.FILLER or not letters.search(word):
            if fragment:
                p.unplaced.append(" ".join(fragment))
                fragment = []
            continue
        fragment.append(token.strip(".,;:!?()[]{}\"'`"))
        # Consumed, so the reading records where it is (`provenance.run_extractors`).
        inner = len(token) - len(token.lstrip(".,;:!?()[]{}\"'`"))
        t.consume(m.start() + inner, m.start() + inner + len(fragment[-1]))
    if fragment:
        p.unplaced.append(" ".join(fragment))
