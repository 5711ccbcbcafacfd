"""Replies to a question asked back, read as what they answer: a bare variant answering "Which
'H100' do you mean?" ('SXM', 'the PCIe one', 'the 8 GB one') and a RAM size answering an Apple
chip's memory question ('24 GB'). `reply_text` rewrites such a reply into the words it means
('8× h100-sxm', 'MacBook Air M3 with 24 GB') before the extractors read it, by the slot the
previous turn asked about — never by the question's wording."""

from __future__ import annotations

import re

from assistant.offline.parser.text import positive_int
from assistant.reading.parsed import ParsedWorkload
from assistant.reading.quantities import WORD_NUMBER
from assistant.regex_cache import compiled
from tools.catalog import get_catalog
from tools.units import GB

_VARIANT_REPLY = compiled(
    r"^\s*(?:the\s+)?(?:(?P<v>sxm\d?|nvl|pcie)|(?P<gb>\d{1,4})\s*gb)"
    r"(?:\s+(?:one|version|variant|card|model))?\s*[.!]?\s*$",
    re.IGNORECASE,
)


_RAM_REPLY = compiled(
    r"^\s*(?:it\s+has\s+|with\s+|mine\s+has\s+)?(?:the\s+)?(?P<gb>\d{1,4})\s*gb"
    r"(?:\s+(?:of\s+)?(?:unified\s+)?(?:memory|ram))?(?:\s+(?:one|version|model))?\s*[.!]?\s*$",
    re.IGNORECASE,
)


def _apple_ram_reply(text: str, previous: ParsedWorkload) -> str | None:
    """'24 GB' answering 'How much unified memory does the MacBook Air M3 have?': the machine
    with that memory ('MacBook Air M3 with 24 GB'), so it is sized on its working set."""
    match = _RAM_REPLY.match(text)
    if match is None:
        return None
    for q in previous.questions:
        if q.slot == "unified_memory" and q.words:
            return f"{q.words} with {match.group('gb')} GB"
    return None


_HOURS_REPLY = compiled(
    r"^\s*(?:about\s+|around\s+|~\s*)?(?P<n>\d+(?:\.\d+)?)\s*(?P<unit>h|hrs?|hours?|days?|weeks?)"
    r"(?:\s+(?:from\s+now|left|in\s+total))?\s*[.!]?\s*$",
    re.IGNORECASE,
)


def _deadline_reply(text: str, previous: ParsedWorkload) -> str | None:
    """'72 hours' answering "'by Friday' is a date: how many hours does it have?": the job's
    deadline ('within 72 hours')."""
    match = _HOURS_REPLY.match(text)
    if match is None or not previous.asks("deadline"):
        return None
    return f"within {match.group('n')} {match.group('unit')}"


_COUNT_OF_THEM = compiled(
    r"^\s*(?:(?:so|and|ok|then)\s+)?(?:(?:what|how)\s+about\s+|with\s+|on\s+|try\s+|use\s+)?"
    rf"(?P<n>\d{{1,4}}|{WORD_NUMBER})\s+of\s+(?:them|those|these|it)\s*[?.!]*\s*$",
    re.IGNORECASE,
)


def _count_of_them(text: str, previous: ParsedWorkload) -> str | None:
    """'what about 4 of them?' after one GPU named: that many of it ('4× l40s')."""
    match = _COUNT_OF_THEM.match(text)
    gpus = {m.gpu for m in previous.gpus}
    if match is None or len(gpus) != 1 or None in gpus:
        return None
    count = positive_int(match.group("n"))
    return None if count is None else f"{count}× {gpus.pop()}"


def reply_text(text: str, previous: ParsedWorkload | None) -> str:
    """A bare variant answering "Which 'H100' do you mean?" ('SXM', 'the PCIe one', 'the 8 GB
    one') as the catalog GPU it picks, keeping the count asked about: 'SXM' → '8× h100-sxm'.
    Any other text is returned unchanged (so 'SXM' is not read as a wish for an NVLink
    interconnect)."""
    if previous is not None and (machine := _apple_ram_reply(text, previous)) is not None:
        return machine
    if previous is not None and (deadline := _deadline_reply(text, previous)) is not None:
        return deadline
    if previous is not None and (count := _count_of_them(text, previous)) is not None:
        return count
    if previous is not None and (variant := _variant_reply(text, previous)) is not None:
        return variant
    return text


def _variant_reply(text: str, previous: ParsedWorkload) -> str | None:
    """'SXM', 'the PCIe one', 'the 8 GB one' after a GPU name with variants: the one it picks,
    with the count kept ('8× h100-sxm'); None when it picks none or several."""
    match = _VARIANT_REPLY.match(text)
    if match is None:
        return None
    gpus = get_catalog().gpus
    for mention in previous.gpus:
        ids = {v for v in [mention.gpu, *mention.variants] if v}
        if match.group("gb"):
            # 'the 8 GB one': the variant with that memory as marketed ('RTX 4060 Ti 8 GB').
            size = int(match.group("gb")) * GB
            picked = sorted(v for v in ids if v in gpus and gpus[v].memory_bytes == size)
            if len(picked) > 1 and mention.gpu is not None:
                # 'the 40GB one' of A100s read as the 80GB SXM4: the same form factor, 40 GB
                # (the memory, which the verdict turns on, is the same either way).
                form = mention.gpu.rsplit("-", 1)[-1]
                picked = [v for v in picked if v.rsplit("-", 1)[-1] == form] or picked
        else:
            picked = sorted(v for v in ids if match.group("v").lower() in v)
        if len(ids) > 1 and len(picked) == 1:
            count = f"{mention.count}× " if mention.count else ""
            return f"{count}{picked[0]}"
    return None
