"""Numbers as people write them: "16k", "2B", "1,000", "1.5M", "two", "a dozen".

Kept apart from the parser so every extractor reads quantities the same way. Context lengths
written with "k" are ambiguous (128k context is 131,072 tokens in Llama 3.1's config, while
"100k-token documents" means 100,000): `context_tokens_from` uses the binary reading only when
it lands on a power of two, the way model cards name their windows, and says which it chose.
"""

from __future__ import annotations

import math
import re

from assistant.regex_cache import compiled
from tools.limits import MAX_CONTEXT_TOKENS, MAX_SEQUENCES

NUMBER_WORDS: dict[str, int] = {
    "a": 1,
    "an": 1,
    "one": 1,
    "single": 1,
    "two": 2,
    "pair": 2,
    "couple": 2,
    "dual": 2,
    "twin": 2,
    "quad": 4,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "twelve": 12,
    "dozen": 12,
    "sixteen": 16,
    "twenty": 20,
    "hundred": 100,
    "thousand": 1000,
}

SUFFIX_MULTIPLIER: dict[str, float] = {
    "": 1.0,
    "k": 1e3,
    "thousand": 1e3,
    "m": 1e6,
    "mn": 1e6,
    "million": 1e6,
    "b": 1e9,
    "bn": 1e9,
    "billion": 1e9,
    "t": 1e12,
    "trillion": 1e12,
}

# A number with optional thousands separators / decimals and an optional SI-ish suffix.
# Never ending in a separator: '1, but' is 1, not 1 with a comma and a 'b'illion after it.
NUMBER = r"\d(?:[\d,]*\d)?(?:\.\d+)?"
# A suffix is a whole word part: '1 but' is 1, not 1 billion and 'ut'.
_SUFFIX_WORD = r"(?:(?:thousand|million|billion|trillion|bn|mn|k|m|b|t)(?![a-z]))"
SUFFIX = rf"{_SUFFIX_WORD}?"
# The space before a suffix only with the suffix: '60 ' is 60, its space left to what follows.
QUANTITY = rf"{NUMBER}(?:\s?{_SUFFIX_WORD})?"
WORD_NUMBER = "|".join(sorted(NUMBER_WORDS, key=len, reverse=True))

_QUANTITY_RE = compiled(rf"^\s*({NUMBER})\s?({SUFFIX})\s*$", re.IGNORECASE)

MAX_READ_QUANTITY = 1e15
"""Numbers above this are never read as a figure: they are beyond every bound the tools accept
(tools.limits: 10^7 users, 2^24 tokens of context, 10^15 training tokens), so "1e400 users" or a
26-digit count is answered as out of range, never sized as 400 users or dropped for 1."""

# A number the text states that may be past MAX_READ_QUANTITY: scientific forms ("1e400",
# "5×10^30", "10^20") with any exponent, or digits with an optional suffix ("9999…9", "5000T").
HUGE_NUMBER = (
    rf"(?<![\w.])(?:({NUMBER})\s*(?:[x×*]\s*10\s*\^|e)\s*\+?(\d+)|10\s*\^\s*\+?(\d+)"
    rf"|({NUMBER})\s?({SUFFIX}))(?![\w.])"
)


def huge_value(match: re.Match[str]) -> float:
    """The value a HUGE_NUMBER match states (inf when past float range; never raises). Its
    first five groups are read, so a pattern may append groups of its own."""
    mantissa, exponent, power, digits, suffix = match.groups()[:5]
    if exponent is not None:
        return float(f"{mantissa.replace(',', '')}e{exponent}")
    if power is not None:
        return float(f"1e{power}")
    value = float(digits.replace(",", "")) if digits.replace(",", "") else 0.0
    return value * SUFFIX_MULTIPLIER[(suffix or "").lower()]


def too_large(value: float) -> bool:
    """True for a number the parser must not read as a figure (see MAX_READ_QUANTITY)."""
    return not math.isfinite(value) or value > MAX_READ_QUANTITY


def out_of_range_question(said: str, noun: str = "") -> str:
    """The question for a figure past what the tools size: what was said, the bound that
    applies (by the word after the number) and a request for the real figure. Such a figure is
    never sized at the bound, nor dropped."""
    word = noun.lower()
    if compiled(
        r"(?:[a-z]+\s+)?(?:users?|requests?|sequences?|sessions?|clients?|"
        r"people|streams?|chats?|conversations?|customers?|queries)"
    ).fullmatch(word):
        bound = f"at most {MAX_SEQUENCES:,} concurrent users"
    elif compiled(r"(?:tokens?|toks?|context|ctx)").fullmatch(word):
        bound = f"at most {MAX_CONTEXT_TOKENS:,} tokens per sequence"
    else:
        bound = "every count, length and rate it sizes is far below 10^15"
    return f"'{said}' is more than gpu-sizer can size ({bound}). What is the real figure?"


def parse_quantity(text: str) -> float | None:
    """'16k' → 16000.0, '2B' → 2e9, '1,000' → 1000.0, 'two' → 2.0; None when not a number."""
    word = text.strip().lower()
    if word in NUMBER_WORDS:
        return float(NUMBER_WORDS[word])
    match = _QUANTITY_RE.match(text)
    if match is None:
        return None
    digits = match.group(1).replace(",", "")
    try:
        value = float(digits)
    except ValueError:
        return None
    return value * SUFFIX_MULTIPLIER[match.group(2).lower()]


def context_tokens_from(text: str) -> tuple[int, str | None]:
    """Tokens for a context-like length ('16k' → 16384) and a note when 'k' was read as 1024.

    Model cards name windows by their binary size (Llama 3.1: "128K" = 131,072 in config.json
    max_position_embeddings), so 'Nk' is N×1024 when that is a power of two, else N×1000.
    """
    value = parse_quantity(text)
    if value is None:
        raise ValueError(f"not a token count: {text!r}")
    match = _QUANTITY_RE.match(text)
    suffix = match.group(2).lower() if match else ""
    if suffix == "k" and value.is_integer():
        kilo = int(value // 1000)
        if kilo > 0 and kilo * 1000 == int(value) and (kilo & (kilo - 1)) == 0:
            tokens = kilo * 1024
            return tokens, f"'{text.strip()}' read as {tokens:,} tokens (binary k, as model cards)"
    return round(value), None
