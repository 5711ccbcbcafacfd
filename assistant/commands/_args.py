"""Text typed on the command line → the number it says; what is allowed is the pydantic
field's business (assistant/commands/_flags.py validates through the model).

Numbers are read faithfully, so validation sees what was typed: `-2` stays -2, `1e400` becomes
inf, `2.5` stays 2.5 for a whole-number field (then "Input should be a finite number" or "a
valid integer" comes from the field, with the same wording on every command). Token counts also
accept what engineers type: `16384`, `1e8`, `16k`, `128K`, `2B`, `1.5M`. The rule is the
offline parser's (one rule everywhere): 'Nk' is N×1024 when N is a power of two (model cards
name context windows that way: Llama 3.1's "128K" is 131,072), else N×1000.
"""

from __future__ import annotations

import math

MAX_DIGITS = 400
"""Longer digit strings are refused as text: Python will not convert over 4,300 digits, and
nothing a tool accepts needs more than 20."""


def number_from(text: str, whole: bool) -> int | float:
    """The number `text` says: an int for a whole number (exact, however large), else a float
    (inf for 1e400, nan for 'nan'). ValueError when it is not a number."""
    cleaned = text.strip().replace("_", "")
    if len(cleaned) > MAX_DIGITS:
        raise ValueError("too long to be a number")
    try:
        return int(cleaned)
    except ValueError:
        value = float(cleaned)  # ValueError for text; 1e400 → inf
    if whole and math.isfinite(value) and value.is_integer():
        return int(value)
    return value


def tokens_from(text: str) -> int | float:
    """A token count from `16384`, `1e8`, `16k`, `128K`, `1M`, `2B` (int when whole, inf past
    float range). ValueError when it is not a token count."""
    from assistant.reading.quantities import context_tokens_from  # lazy: parser vocabulary

    try:
        return number_from(text, whole=True)
    except ValueError:
        pass
    if len(text) > MAX_DIGITS:
        raise ValueError("too long to be a token count")
    try:
        tokens, _ = context_tokens_from(text)
    except OverflowError:  # '9…9k' past float range
        return math.inf
    return tokens
