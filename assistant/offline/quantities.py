"""Numbers as people write them: "16k", "2B", "1,000", "1.5M", "two", "a dozen".

Kept apart from the parser so every extractor reads quantities the same way. Context lengths
written with "k" are ambiguous (128k context is 131,072 tokens in Llama 3.1's config, while
"100k-token documents" means 100,000): `context_tokens_from` uses the binary reading only when
it lands on a power of two, the way model cards name their windows, and says which it chose.
"""

from __future__ import annotations

import re

NUMBER_WORDS: dict[str, int] = {
    "a": 1,
    "an": 1,
    "one": 1,
    "single": 1,
    "two": 2,
    "pair": 2,
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
NUMBER = r"\d[\d,]*(?:\.\d+)?"
SUFFIX = r"(?:thousand|million|billion|trillion|bn|mn|k|m|b|t)?"
QUANTITY = rf"{NUMBER}\s?{SUFFIX}"
WORD_NUMBER = "|".join(sorted(NUMBER_WORDS, key=len, reverse=True))

_QUANTITY_RE = re.compile(rf"^\s*({NUMBER})\s?({SUFFIX})\s*$", re.IGNORECASE)


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
