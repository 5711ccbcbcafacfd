"""What kind of answer the question asks for: a count ('how many 8k chats fit on one H100?'),
a length ('max context for 70B on 2x 4090?'), or alternatives to the GPUs named. Read before
the load and the lengths, so '8k chats' in a capacity question is a context, not 8,000 users."""

from __future__ import annotations

import re

from assistant.offline.parsed import ParsedWorkload
from assistant.offline.parser.lengths import set_context
from assistant.offline.parser.text import Q, Text

_SEQUENCE_NOUNS = (
    r"(?:chats?|users?|sequences?|conversations?|requests?|sessions?|streams?|contexts?|"
    r"clients?|agents?)"
)


# 'how many H100s / 4090s / GPUs / nodes to serve …' asks for a GPU count, not how many fit.
_HARDWARE_NEXT = (
    r"\s+(?:more\s+)?(?:gpus?|cards?|nodes?|servers?|machines?|boxes|devices?|accelerators?|"
    r"[a-z]*\d[\w-]*)\b"
)


_MEMORY_ASKED = (
    r"\bhow\s+much\s+(?:gpu\s+|video\s+)?(?:memory|vram)\b"
    r"|\bhow\s+many\s+(?:gb|gib|gigs?|gigabytes?)\b"
    r"|\b(?:memory|vram)\s+(?:do|does|would|will|should)\s+(?:i|we|it|you|that|this)\s+need"
    r"|\bwhat(?:'s|\s+is|\s+are)\s+the\s+(?:gpu\s+)?(?:memory|vram)"
    r"(?:\s+(?:requirements?|footprint|usage|needed))?\b"
    r"|\b(?:memory|vram)\s+(?:requirements?|footprint|usage|needed|need)\b"
)
_COST_ASKED = (
    r"\bhow\s+much\s+(?:does|would|will|do|did)\s+(?:it|this|that|they|we|i)\s+(?:\w+\s+)?cost"
    r"|\bwhat\s+(?:does|would|will)\s+(?:it|this|that)\s+cost\b"
    r"|\bwhat(?:'s|\s+is)\s+the\s+(?:monthly\s+|hourly\s+)?(?:cost|price|bill)\b"
)

_PER_SECOND = r"(?:tokens?|tok)\s*(?:/\s*s(?:ec)?\b|per\s+sec(?:ond)?\b|a\s+second\b)"
_TTFT_ASKED = (
    r"\bwhat(?:'s|\s+is|\s+will\s+be|\s+would\s+be)\s+(?:the\s+)?(?:expected\s+)?"
    r"(?:time\s+to\s+first\s+token|ttft|first[-\s]token\s+latency)\b"
    r"|\bhow\s+(?:long|quickly|soon)\s+(?:until|before|to|for)\s+(?:the\s+)?first\s+token\b"
    r"|\bwhat\s+(?:ttft|time\s+to\s+first\s+token)\s+(?:do|does|would|will|can)\b"
)
_SPEED_ASKED = (
    rf"\bhow\s+many\s+{_PER_SECOND}"
    r"|\bhow\s+fast\s+(?:is|does|would|will|can|could|do)\b"
    r"|\bwhat(?:'s|\s+is|\s+will\s+be|\s+would\s+be)\s+the\s+(?:decode\s+|generation\s+|"
    rf"output\s+)?(?:speed|throughput|{_PER_SECOND})"
    rf"|\bwhat\s+(?:speed|throughput|{_PER_SECOND})\s+(?:do|does|would|will|can|could)\b"
)


def extract_asked_number(t: Text, p: ParsedWorkload) -> None:
    """The number the question asks for, which the answer opens with: memory ('how much VRAM
    does Llama 3.1 70B need?'), a cost ('how much would it cost per month?'), the time to first
    token ('what's the TTFT on 2x H100?') or the speed ('how many tokens/s on one H100?')."""
    if t.each(_MEMORY_ASKED):
        p.asked = "memory"
    elif t.each(_COST_ASKED):
        p.asked = "cost"
    elif t.each(_TTFT_ASKED):
        p.asked = "ttft"
    elif t.each(_SPEED_ASKED):
        p.asked = "speed"
    # 'how long will it take / for 100M tokens': the job's duration, which a training answer
    # leads with; not a length ('how long a context' is read by the max-context question).
    t.each(r"\bhow\s+long\b(?=\s+(?:will|would|does|do|did|is|to|for|might|should)\b)")


def extract_question_kind(t: Text, p: ParsedWorkload) -> None:
    """Capacity, longest-context and alternatives questions (flags on `p`); a length inside a
    capacity question ('8k chats', '8k-token sequences') is the context per sequence; the
    number asked for (`extract_asked_number`)."""
    extract_asked_number(t, p)
    extract_max_context_question(t, p)
    adjectives = r"(?:(?:more|concurrent|simultaneous|parallel|active)\s+)*"
    length = rf"(?:{Q}[\s-]*(?:tokens?[\s-]+)?(?:(?:context|ctx)[\s-]+)?)?"
    for m in t.each(rf"\bhow\s+many\s+{adjectives}{length}(?P<noun>{_SEQUENCE_NOUNS})\b"):
        p.capacity = True
        said = m.group(1)
        if said is not None:
            before = p.context
            set_context(p, said)
            if p.context is not None and p.context != before:
                noun = m.group("noun")
                p.notes.append(
                    f"'{said.strip()} {noun}' read as {noun} of {p.context:,} tokens each (the "
                    "context per sequence), not a count of users: the answer is how many fit"
                )
    for m in t.each(r"\bhow\s+many\b(?=.*\b(?:fit|fits|serve|handle|hold|run|support)\b)"):
        # Read on the original text: the GPU extractor has already consumed 'H100s'.
        if not re.match(_HARDWARE_NEXT, t.original[m.end() :], re.I):
            p.capacity = True
    if t.each(r"\b(?:alternatives?|other\s+options|other\s+gpus|what\s+else|more\s+gpus)\b"):
        p.alternatives = True


_CTX = r"(?:context(?:[\s-](?:window|length|size))?|sequence(?:[\s-]length)?|ctx|prompt)"
_FIT = r"(?:fit|fits|get|run|use|support|handle|hold|serve)"


def extract_max_context_question(t: Text, p: ParsedWorkload) -> None:
    """A question whose answer is a length: 'max context', 'longest context', 'how long a
    context', 'how much context can I fit', 'what context fits', 'how many tokens of context'.
    Read before the capacity patterns, whose 'how many … fit' would take the last one."""
    if t.each(
        rf"\b(?:max(?:imum)?|longest|largest|biggest)\s+(?:possible\s+|usable\s+)?{_CTX}\b"
        rf"|\bhow\s+(?:long|large|big)\s+(?:of\s+)?(?:an?\s+)?{_CTX}\b"
        rf"|\bhow\s+(?:long|large|big)\s+(?:can|could|will|would|may)\s+(?:the\s+|my\s+|a\s+)?"
        rf"{_CTX}\s+(?:be|get|go)\b"
        rf"|\bhow\s+much\s+{_CTX}\b"
        rf"|\bhow\s+many\s+tokens\s+(?:of\s+)?{_CTX}\b"
        rf"|\bwhat(?:'s|\s+is)?\s+(?:the\s+)?{_CTX}\s+(?:(?:can|could|will|would|do|does)\s+)?"
        rf"(?:(?:i|we|you|it)\s+)?{_FIT}\b"
    ):
        p.max_context = True
