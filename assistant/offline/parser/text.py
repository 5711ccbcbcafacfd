"""The text being parsed: spellings rewritten before parsing, the scanner that blanks out
what each extractor consumed, and the quantity patterns and readers they all share."""

from __future__ import annotations

import re

from assistant.offline.parser.glossary import in_english
from assistant.reading.quantities import QUANTITY, WORD_NUMBER, parse_quantity
from assistant.regex_cache import compiled

# A quantity ('16k', '2B', '1,000') as group 1; QW also takes a number word ('eight').
Q = rf"({QUANTITY})"
QW = rf"({QUANTITY}|\b(?:{WORD_NUMBER})\b)"


class Text:
    """The text being parsed, with consumed spans blanked out (same length as the original)."""

    def __init__(self, text: str) -> None:
        self.original = text
        self.work = text
        # "4 nodes of 8 H100s": nodes said, and whether the GPU count that follows is per node.
        self.nodes: int | None = None
        self.per_node = False
        self.nodes_text = ""
        self.nodes_ambiguous = False
        # Memory said as a GPU's own in words ('the GPU memory is 40G', 'each with 8GB of
        # memory', '24GB GPU memory'), bytes: checked against the cards named
        # (`card_memory.check_card_memory`).
        self.card_memory: list[int] = []
        self.card_memory_each = False  # said per card ('each with 8GB'), never a total

    def consume(self, start: int, end: int) -> None:
        self.work = self.work[:start] + " " * (end - start) + self.work[end:]

    def each(self, pattern: str, flags: int = re.I) -> list[re.Match[str]]:
        """Matches of `pattern` in the unconsumed text, consumed as they are returned (the
        extractors' patterns are fixed: compiled once per interpreter, `assistant.regex_cache`)."""
        matches = list(compiled(pattern, flags).finditer(self.work))
        for m in matches:
            self.consume(m.start(), m.end())
        return matches


def qty(text: str) -> float | None:
    """The number a quantity says ('16k' → 16000.0, 'two' → 2.0), spaces ignored; None
    when it is not a number."""
    return parse_quantity(text.replace(" ", ""))


def positive_int(text: str) -> int | None:
    """A count from a quantity, rounded; None when it is not a number, not positive or
    over 1e15."""
    value = qty(text)
    return None if value is None or value <= 0 or value > 1e15 else round(value)


def _power_of_ten(m: re.Match[str]) -> str:
    mantissa, exponent = m.group(1) or "1", int(m.group(2))
    if exponent > 15:
        return m.group(0)  # beyond any count the tools accept: left for `unplaced`
    value = float(mantissa.replace(",", "")) * 10**exponent
    return f"{value:.0f}" if value.is_integer() else m.group(0)


def normalise(text: str) -> str:
    """Spellings the extractors would misread, rewritten before parsing: "8xH100" → "8x H100"
    (the GPU name must start a word), "2x4090" → "2x 4090", "10^9" / "1e9" / "2×10^6" →
    plain digits (else "10^9 users" reads as 9 users)."""
    # A count is small and written against its x ("8xH100", "16×A100"): "7900 XTX" and
    # "7900XT" are GPU names, not 7,900 of a GPU "TX".
    # ('3x8xA100': the count per machine after the machines' count too.)
    count_x = compiled(r"(?:(?<![\w.])|(?<=\d[x×*]))(\d{1,3})([x×])(?=[a-z])", re.I)
    text = count_x.sub(r"\1\2 ", text)
    # "2x4090": a small count before a four-digit GPU number ("2x 4090" already parses).
    text = compiled(r"(?<![\w.])(\d{1,3})([x×])(?=\d{4}\b)", re.I).sub(r"\1\2 ", text)
    # Markdown's escapes as pasted from an issue ('3\\*8\\*A100', 'n\\_gpu\\_layers'): the
    # characters themselves.
    text = compiled(r"\\([*_#`])").sub(r"\1", text)
    # "3060M", "RTX 4090M": GeForce laptop parts written with an M, not 3,060 million
    # parameters.
    text = compiled(
        r"\b((?:rtx|gtx)?\s?(?:[1-5]0[5-9]0|16[5-6]0)(?:\s?ti)?)\s?m\b(?!\s*(?:param|token))", re.I
    ).sub(r"\1 Laptop", text)
    # "7b*8", "7bx8": a mixture of experts written size first, as the catalog writes "8x7b".
    text = compiled(r"\b(\d{1,3})b\s*[x×*]\s*(\d{1,2})\b", re.I).sub(r"\2x\1b", text)
    text = compiled(
        r"(?<![\w.])(?:(\d[\d,]*(?:\.\d+)?)\s*(?:[x×*]\s*10\s*\^|e)|10\s*\^)\s*(\d{1,3})\b", re.I
    ).sub(_power_of_ten, text)
    text = in_english(text)  # the Chinese sizing words the glossary knows
    # Chinese and Japanese run into Latin words without a space ('使用lora微调', '4090加576g
    # ram跑'): Python counts both as word characters, so no pattern's \b would see the Latin
    # word. A space between them.
    text = compiled(rf"(?<=[{_CJK}])(?=[A-Za-z0-9])|(?<=[A-Za-z0-9])(?=[{_CJK}])").sub(" ", text)
    # "a 4090gpu", "3090nvidia", "8g4060": a four-digit card number run into the word or the
    # memory beside it (the card name must start and end a word).
    text = compiled(r"\b((?:[1-9]0[5-9]0|[1-9]0[5-9]5))(gpus?|nvidia|graphics|card)\b", re.I).sub(
        r"\1 \2", text
    )
    text = compiled(r"\b(\d{1,2}\s?g(?:b)?)((?:[1-9]0[5-9]0))\b", re.I).sub(r"\1 \2", text)
    # "24gVram and 32gRam": a memory run into what it is of.
    text = compiled(r"\b(\d{1,4}(?:\.\d+)?\s?(?:gb|g))(v?ram)\b", re.I).sub(r"\1 \2", text)
    # "24Gx2", "80GBx8": a memory and a count run together.
    return compiled(r"\b(\d{1,3}\s?(?:gb|gib|g))([x×])(\d{1,3})\b", re.I).sub(r"\1 \2\3", text)


_CJK = "\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef"
"""CJK punctuation, kana, ideographs and full-width forms."""
