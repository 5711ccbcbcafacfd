"""The numbers a text says, in every usual spelling, each with where it was written.

A model's tool call is grounded when each of its numbers is one the user wrote
(`assistant.reading.grounded`); people write the same number many ways: `16k`, `16K`, `16,384`,
`16384`, `1.5 million`, `70B`, `forty`, `a dozen`, `90%`, `500ms`, `$2k`. Each written number
yields the values it may mean — `16k` is 16,000 or 16,384 tokens; `500 ms` is 500 and 0.5
(seconds); `90%` is 90 and 0.9; `30 minutes` is 30 and 0.5 (hours) — with its span. Digits glued
after letters (`H100`, `bf16`, `MI300X`) are marked `in_name`: part of a name, not a figure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from assistant.reading.model import Span
from assistant.reading.quantities import NUMBER_WORDS
from assistant.regex_cache import compiled

_SUFFIX: dict[str, tuple[float, ...]] = {
    "k": (1e3, 2**10),
    "thousand": (1e3,),
    "m": (1e6, 2**20),
    "mil": (1e6,),
    "mio": (1e6,),
    "million": (1e6,),
    "millions": (1e6,),
    "b": (1e9,),
    "bn": (1e9,),
    "billion": (1e9,),
    "billions": (1e9,),
    "t": (1e12,),
    "trillion": (1e12,),
    "hundred": (1e2,),
}
"""Multipliers a number may be written with ('16k' tokens are 16,000 or 16,384)."""

_UNIT_SCALES: dict[str, tuple[float, ...]] = {
    "ms": (1e-3,),
    "msec": (1e-3,),
    "millisecond": (1e-3,),
    "milliseconds": (1e-3,),
    "min": (1 / 60,),
    "mins": (1 / 60,),
    "minute": (1 / 60,),
    "minutes": (1 / 60,),
    "%": (1e-2,),
    "percent": (1e-2,),
    "day": (24.0,),
    "days": (24.0,),
    "week": (24.0 * 7,),
    "weeks": (24.0 * 7,),
}
"""Units whose number is also meant in the tools' unit: seconds, hours, fractions."""

_WORDS: dict[str, float] = {
    **NUMBER_WORDS,
    "couple": 2,
    "double": 2,
    "twice": 2,
    "dual": 2,
    "triple": 3,
    "thrice": 3,
    "quad": 4,
    "eleven": 11,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
    "half": 0.5,
    "quarter": 0.25,
}
"""Numbers written as words ('forty users', 'a dozen GPUs', 'double the cards'): the parser's
(`reading.quantities.NUMBER_WORDS`) and the multiples a follow-up says."""

_NUMBER = compiled(
    r"(?<![\d.])(?P<num>\d{1,3}(?:[,\u202f\u00a0_]\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
    r"(?:\s?(?P<suffix>k|K|m|M|b|B|bn|t|T|thousand|million|millions|billion|billions|trillion|"
    r"hundred|mil|mio)(?![a-zA-Z]))?"
    r"(?:\s?(?P<unit>ms|msec|milliseconds?|mins?|minutes?|%|percent|days?|weeks?)(?![a-zA-Z]))?"
)
_WORD = compiled(r"\b(?P<word>" + "|".join(sorted(_WORDS, key=len, reverse=True)) + r")\b", re.I)


@dataclass(frozen=True)
class WrittenNumber:
    """A number as written (`span`) and the values it may mean; `digits`: the number as its
    digits say ('70' of '70B'); `in_name`: glued after letters ('H100', 'bf16', 'MI300X'),
    part of a name rather than a figure; `article`: 'a' / 'an' (one, said in passing)."""

    values: tuple[float, ...]
    span: Span
    digits: float = 0.0
    in_name: bool = False
    article: bool = False


def _plain(num: str) -> float:
    return float(compiled(r"[,\u202f\u00a0_]").sub("", num))


def written_numbers(text: str) -> list[WrittenNumber]:
    """Every number `text` writes, in digits or words, with the values each may mean."""
    out: list[WrittenNumber] = []
    for match in _NUMBER.finditer(text):
        base = _plain(match.group("num"))
        suffix = (match.group("suffix") or "").lower()
        # '16k' means 16,000 (or 16,384), never 16; '70B' means 70 billion.
        values = {base * scale for scale in _SUFFIX.get(suffix, (1.0,))}
        unit = (match.group("unit") or "").lower()
        for scale in _UNIT_SCALES.get(unit, ()):
            values |= {v * scale for v in list(values)}
        span = Span(start=match.start(), end=match.end(), text=match.group(0))
        glued = match.start() > 0 and text[match.start() - 1].isalpha()
        out.append(WrittenNumber(tuple(sorted(values)), span, base, glued))
    for match in _WORD.finditer(text):
        word = match.group("word").lower()
        span = Span(start=match.start(), end=match.end(), text=match.group(0))
        value = float(_WORDS[word])
        out.append(WrittenNumber((value,), span, value, article=word in ("a", "an")))
    return out
