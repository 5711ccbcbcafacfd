"""Rules of thumb the user states, read as claims to check (issue 18, class 4): '18 bytes per
parameter', 'means 126 GB', '4× the model', 'adds 10-20%'. Each becomes a typed
`tools.sizing.Claim` on the workload, which `tools.sizing` checks against the memory calculator;
its words are consumed so no later extractor reads '64 GB' as a GPU or '4x' as a count.

Read after the model names (so '7B' is the model) and before budgets, GPUs and precisions.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import ValidationError

from assistant.offline.parser.text import Text
from assistant.reading.parsed import ParsedWorkload
from assistant.regex_cache import compiled
from tools.sizing import Claim
from tools.sizing.claims import MemoryUnit

_NUM = r"(\d+(?:\.\d+)?)"
_ABOUT = r"(?:(?:only|just|about|around|roughly|approximately|approx\.?|~)\s*)?"
_RANGE = rf"{_NUM}\s*%?\s*(?:[-–—]|to)\s*{_NUM}\s*%"
_PERCENT = rf"(?:{_RANGE}|{_NUM}\s*%)"

_BYTES_PER_PARAMETER = (
    rf"\b{_ABOUT}{_NUM}\s*(?:bytes?|b)\s*(?:per|/|an?|for\s+each|for\s+every)\s*"
    r"(?:param(?:eter)?s?|weights?)\b"
)
# A per-parameter rule said in memory per billion parameters: 'half a gig per billion',
# '0.5 GB per billion params', '2GB per 1B parameters' — a rule to check, never a GPU's memory.
_GB_PER_BILLION = (
    rf"\b{_ABOUT}(?:(?P<half>half\s+an?)|(?P<n>\d+(?:\.\d+)?))\s*"
    r"(?:gigs?|gb|gigabytes?|gib)\s*(?:per|/|a|an|for\s+each|for\s+every|each)\s*"
    r"(?:1\s*)?(?:billion|b|bn)\b(?:\s*(?:params?|parameters?|weights?))?"
)
_MULTIPLE = (
    rf"\b{_ABOUT}{_NUM}\s*(?:x|×|times)\s+(?:the\s+)?(?:size\s+of\s+the\s+)?"
    r"(?:model(?:'s)?(?:\s+(?:size|weights))?|weights|parameters|params)\b"
)
_PERCENT_MORE = (
    r"\b(?:adds?|adding|costs?|needs?|takes?|uses?|is|an?\s+extra|extra|overhead(?:\s+of)?|"
    rf"increases?\s+(?:(?:the\s+)?memory\s+)?by)\s+{_ABOUT}{_PERCENT}"
    r"(?:\s+(?:more|extra|overhead|on\s+top(?:\s+of\s+(?:the\s+)?(?:model|weights))?))?"
)
# A memory figure stated as a conclusion ('means 126 GB', 'so 64 GB', 'a 7B needs 40 GB'), never
# a GPU's memory.
_MEMORY = (
    r"(?:\b(?:means?|so|equals?|that'?s|which\s+is|i\.e\.|gives?|is|needs?|takes|requires|"
    # A use seen ('it uses 70GB', 'took 75 G of video memory', 'consumes around 69GB'): the
    # figure to set against what the calculator says it needs.
    r"uses|used|using|took|consumes?|consuming|occupies|occupied|eats|ate|allocates?|"
    r"(?:be\s+)?at\s+least)\s+"
    r"|(?:=|→|->)\s*)"
    rf"{_ABOUT}{_NUM}\s*(gb|gib|tb|g(?=\s+of\s+(?:video\s+|gpu\s+)?(?:memory|vram)))\b"
    r"(?!\s*(?:gpus?|cards?|graphics|of\s+vram|vram\s+cards?))"
    # 'Is 24 GB enough for …' asks whether the need fits within 24 GB: a bound, not a figure
    # of the need to check within a tolerance.
    r"(?!\s*(?:of\s+)?(?:v?ram|(?:gpu\s+)?memory)?\s*(?:be\s+)?(?:enough|sufficient|adequate)\b)"
    # 'Is 64GB of RAM plus a 3090 enough …', 'is 32GB system memory …': the machine's RAM.
    r"(?!\s*(?:of\s+)?(?:system\s+memory|(?:system\s+|ddr\d\s+)?(?:ram|ddr\d))\b)"
)
# 'would need 10GB of VRAM', 'at least 30 GB of vram': a need stated, in VRAM words too.
_NEED_VRAM = (
    rf"\b(?:needs?|requires?|(?:be\s+)?at\s+least)\s+{_ABOUT}{_NUM}\s*(gb|gib|tb)\s+(?:of\s+)?"
    r"(?:vram|gpu\s+memory|memory)\b"
)
_MY_MEMORY = compiled(r"\b(?:my|our)\s+(?:system\s+|cpu\s+)?(?:memory|ram)\s*$", re.I)
"""'my memory' / 'our RAM' right before 'is …GB': the machine's memory said, not a need."""
_SEEN_VRAM = (
    rf"\b(?:uses|used|using|took|takes|consumes?|consuming|occupies|occupied|eats|allocates?)\s+"
    rf"{_ABOUT}{_NUM}\s*(gb|gib|g)\s+(?:of\s+)?(?:vram|gpu\s+memory|video\s+memory)\b"
)
"""A use of GPU memory seen ('using 19gb of vram'): the figure to set against the need."""
_SEEN_VERB = r"(?:uses|used|using|took|consumes?|consuming|occupies|occupied|eats|ate|allocates?)\b"
"""The verbs of a memory use seen, not a rule stated."""
_UNITS: dict[str, MemoryUnit] = {"gb": "GB", "g": "GB", "gib": "GiB", "tb": "TB"}

TRAINING_BYTES_PER_PARAMETER = 6.0
"""A bytes-per-parameter rule above what any inference format stores (fp32: 4 B) is about
training state: with no task said, the question is read as full fine-tuning."""


def _number(text: str) -> float:
    return float(text)


def _claim(p: ParsedWorkload, **fields: Any) -> bool:
    """Add the claim the words state; one no claim can hold ('0% more', '0 GB': the model
    needs more than nothing) is kept as words not understood, never an error. Whether it was
    added."""
    try:
        p.claims.append(Claim(**fields))
    except ValidationError:
        p.unplaced.append(str(fields["words"]))
        return False
    return True


def extract_claims(t: Text, p: ParsedWorkload) -> None:
    """Bytes per parameter, a multiple of the model, a percentage more, and a memory figure
    stated as a conclusion, each as a `Claim`."""
    for m in t.each(_BYTES_PER_PARAMETER):
        _claim(p, kind="bytes_per_parameter", value=_number(m.group(1)), words=m.group(0).strip())
    for m in t.each(_GB_PER_BILLION):
        # '0.5 GB per billion parameters' is 0.5 bytes per parameter (1e9 B / 1e9 parameters).
        amount = 0.5 if m.group("half") else _number(m.group("n"))
        _claim(p, kind="bytes_per_parameter", value=amount, words=m.group(0).strip())
    for m in t.each(_MULTIPLE):
        _claim(p, kind="multiple_of_model", value=_number(m.group(1)), words=m.group(0).strip())
    for m in t.each(_PERCENT_MORE):
        low, high, single = m.group(1), m.group(2), m.group(3)
        if single is not None:
            _claim(p, kind="percent_over_model", value=_number(single), words=m.group(0).strip())
        else:
            words = m.group(0).strip()
            _claim(
                p, kind="percent_over_model", value=_number(low), high=_number(high), words=words
            )
    for m in t.each(_SEEN_VRAM):
        # 'It's using 19gb of vram for a 13b model': the memory seen in use, not a card's size.
        unit = _UNITS[m.group(2).lower()]
        if _claim(p, kind="memory", value=_number(m.group(1)), unit=unit, words=m.group(0).strip()):
            p.asked = p.asked or "memory"
            p.notes.append(f"'{m.group(0).strip()}' read as the memory seen in use")
    for m in t.each(_NEED_VRAM):
        unit = _UNITS[m.group(2).lower()]
        _claim(p, kind="memory", value=_number(m.group(1)), unit=unit, words=m.group(0).strip())
    for m in compiled(_MEMORY, re.I).finditer(t.work):
        if _MY_MEMORY.search(t.work[max(0, m.start() - 24) : m.start()]):
            continue  # 'my memory is only 256GB': the machine's RAM (extract_system_ram)
        t.consume(m.start(), m.end())
        unit = _UNITS[m.group(2).lower()]
        if not _claim(
            p, kind="memory", value=_number(m.group(1)), unit=unit, words=m.group(0).strip()
        ):
            continue
        if compiled(_SEEN_VERB, re.I).match(m.group(0)):
            p.asked = p.asked or "memory"  # 'it uses 70GB, why?': the memory it needs, asked
            p.notes.append(
                f"'{m.group(0).strip()}' read as the memory seen in use, set against what the "
                "model needs. vLLM and SGLang reserve a fixed share of each GPU's memory at start "
                "(vLLM's gpu_memory_utilization) for the weights and their KV-cache pool, "
                "whatever the model needs: a use seen near the GPU's memory is that reservation "
                "(the KV-cache capacity below)"
            )


def claims_reading(p: ParsedWorkload) -> None:
    """After every extractor: a training-sized bytes-per-parameter rule with no task said is
    read as full fine-tuning, and said so."""
    big = [
        c
        for c in p.claims
        if c.kind == "bytes_per_parameter" and c.value >= TRAINING_BYTES_PER_PARAMETER
    ]
    if big and p.task is None:
        p.task = "full"
        p.notes.append(
            f"'{big[0].words}' is a training rule (no inference format stores more than 4 "
            "bytes per parameter): sized as full fine-tuning; say 'inference' to size serving"
        )
