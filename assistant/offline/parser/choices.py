"""Choices between two options: "GPTQ instead of AWQ", "use X rather than Y", "switch from Y
to X", "replace Y with X". The rejected option is blanked out before any extractor reads it,
so the one the user chose is the only one parsed (QA round 4, 3: "switch from AWQ to GPTQ"
was sized as AWQ, the first format read)."""

from __future__ import annotations

import re

from assistant.offline.names import names_a_gpu
from assistant.offline.parser.text import Text
from assistant.reading.parsed import ParsedWorkload
from assistant.regex_cache import compiled

# One option: a word such as 'AWQ', 'llama.cpp', 'H100', 'int4-awq', with an optional variant
# or size word after it ('A100 80GB', 'H100 SXM'), so the variant goes with its GPU.
_OPTION = r"[\w.+-]+(?:\s+(?:\d+\s?gb|sxm\d?|pcie|nvl|kv(?:[\s-]?cache)?)\b)?"
_PATTERNS = (
    # "X instead of Y", "X rather than Y": group 1 chosen, group 2 rejected.
    (rf"({_OPTION})\s+(?:instead\s+of|rather\s+than)\s+({_OPTION})", 1, 2),
    # "switch from Y to X", "move from Y to X", "go from Y to X"
    (
        rf"\b(?:switch(?:ing|ed)?|mov(?:e|ing)|migrat(?:e|ing)|go(?:ing)?)\s+from\s+({_OPTION})"
        rf"\s+to\s+({_OPTION})",
        2,
        1,
    ),
    # "replace Y with X", "swap Y for X"
    (rf"\b(?:replac(?:e|ing)|swap(?:ping)?)\s+({_OPTION})\s+(?:with|for|by)\s+({_OPTION})", 2, 1),
)


def set_aside_rejected(t: Text, p: ParsedWorkload) -> None:
    """Blank out the option a choice rejects (and the words of the choice), keeping the chosen
    one in the text for the extractors; say how the words were read."""
    for pattern, chosen, rejected in _PATTERNS:
        for m in compiled(pattern, re.I).finditer(t.work):
            if _weighed(t.work, m.start()) and names_a_gpu(t.work[m.start(rejected) :][:30]):
                continue  # 'Should I get a 4090 rather than two 3090s?': both, compared
            start, end = m.span(chosen)
            t.consume(m.start(), start)
            t.consume(end, m.end())
            p.notes.append(
                f"'{m.group(0).strip()}' read as {m.group(chosen)}: {m.group(rejected)} set "
                "aside, not sized"
            )


_WEIGHING = compiled(
    r"\b(?:should|shall|would|could)\s+(?:i|we)\b|\b(?:is\s+it|would\s+it\s+be)\s+better\b"
    r"|\bbetter\s+to\b|\bworth\s+(?:it\s+)?(?:to\s+)?(?:get|buy|go)",
    re.I,
)


def _weighed(text: str, start: int) -> bool:
    """Whether the choice at `start` is asked, not made: its sentence asks which to take
    ('should I …', 'is it better to …') before it."""
    sentence = compiled(r"[^.?!\n]*$").search(text[:start])
    return bool(sentence and _WEIGHING.search(sentence.group(0)))
