"""Follow-ups that change a figure of the previous question relative to it: 'double the cards',
'with one more', 'two more H100s', 'half the users', 'twice the context', '10x the users', 'one
fewer GPU'. Read first (before '1 GPU' or '10 users' could be read from the same words) into
typed changes (`ParsedWorkload.changes`), applied to the previous reading by the follow-up merge
(`pipeline`); with nothing earlier to change, asked back."""

from __future__ import annotations

from assistant.offline.parser.text import Text
from assistant.reading.parsed import Change, ChangedSlot, GpuMention, ParsedWorkload
from assistant.reading.quantities import NUMBER, NUMBER_WORDS

_FACTORS = {"double": 2.0, "twice": 2.0, "triple": 3.0, "thrice": 3.0, "quadruple": 4.0}
_FACTORS |= {"half": 0.5, "halve": 0.5, "doubled": 2.0, "halved": 0.5, "tripled": 3.0}
_SLOTS: dict[str, ChangedSlot] = {
    "gpu": "gpus", "card": "gpus", "node": "gpus", "server": "gpus", "device": "gpus",
    "user": "users", "request": "users", "session": "users", "chat": "users",
    "concurrency": "users", "sequence": "users",
    "context": "context", "ctx": "context", "window": "context",
}  # fmt: skip
_NOUN = (
    r"(?P<noun>gpus?|cards?|nodes?|servers?|devices?|users?|requests?|sessions?|chats?|"
    r"concurrency|sequences?|context(?:\s+(?:length|window))?|ctx|window|"
    r"[a-z]*\d[\w-]*?s?)"
)
_FACTOR = (
    r"(?P<factor>double|twice|triple|thrice|quadruple|half|halve|"
    r"(?P<times>\d+(?:\.\d+)?)\s*(?:x|×|times))"
)
_COUNT = rf"(?P<count>{NUMBER}|an?other|one|two|three|four|five|six|seven|eight|ten)"


def _slot(noun: str | None) -> ChangedSlot:
    if not noun:
        return "gpus"
    word = noun.lower().split()[0].rstrip("s")
    return _SLOTS.get(word, "gpus")  # a GPU name ('H100s') is the GPUs


def _count(text: str) -> float:
    word = text.lower()
    if word in ("another", "an other", "one"):
        return 1.0
    return float(NUMBER_WORDS.get(word, 0)) or float(word.replace(",", ""))


def _add(p: ParsedWorkload, noun: str | None, op: str, by: float, words: str) -> None:
    slot = _slot(noun)
    p.changes.append(Change(slot=slot, op="times" if op == "times" else "plus", by=by, words=words))


def extract_changes(t: Text, p: ParsedWorkload) -> None:
    """Relative changes of a count, the users or the context (see the module)."""
    for m in t.each(
        # 'double the cards', '10x the users', 'twice as many users' — never '2x H100' (a count).
        rf"\b{_FACTOR}\s+(?:the|as\s+many|as\s+much|more|my|our)\s+(?:number\s+of\s+)?"
        rf"{_NOUN}\b"
    ):
        word = m.group("factor").lower()
        factor = float(m.group("times")) if m.group("times") else _FACTORS.get(word, 0.0)
        if factor > 0:
            _add(p, m.group("noun"), "times", factor, m.group(0))
    for m in t.each(rf"\b{_NOUN}\s+(?P<factor>doubled|halved|tripled)\b"):
        _add(p, m.group("noun"), "times", _FACTORS[m.group("factor").lower()], m.group(0))
    for m in t.each(
        rf"\b(?:with\s+|add(?:ing)?\s+|plus\s+)?{_COUNT}\s+(?P<dir>more|fewer|less|extra)"
        rf"(?:\s+{_NOUN})?\b"
    ):
        amount = _count(m.group("count"))
        if m.group("dir").lower() in ("fewer", "less"):
            amount = -amount
        _add(p, m.group("noun"), "plus", amount, m.group(0))
    for m in t.each(rf"\b(?:add(?:ing)?|with|plus)\s+(?P<count>an?other)\s+{_NOUN}\b"):
        _add(p, m.group("noun"), "plus", 1.0, m.group(0))
    # 'add a second one', 'buy another one', 'with a second 3090': one more of the GPU.
    for m in t.each(
        r"\b(?:add(?:ing)?|get(?:ting)?|buy(?:ing)?|with|plus)\s+(?:a\s+second|an?other)\s+"
        rf"(?:one|card|gpu|{_NOUN})\b"
    ):
        _add(p, None, "plus", 1.0, m.group(0))
    # '+2 GPUs' — never '+ 64GB RAM' (a memory, whose digits the noun pattern would split).
    for m in t.each(r"(?<![\w.])\+\s*(\d+)(?![\d.,])(?!\s*(?:gb|gib|tb|mb)\b)\s*" + _NOUN + r"\b"):
        _add(p, m.group("noun"), "plus", float(m.group(1)), m.group(0))


def _changed(value: float, change: Change) -> int:
    """`value` changed by `change`, rounded to a whole count (at least 1)."""
    new = value * change.by if change.op == "times" else value + change.by
    return max(1, round(new))


def _how(change: Change, before: int, after: int, unit: str) -> str:
    return f"'{change.words.strip()}' read as {after:,} {unit} ({before:,} before)"


def apply_changes(p: ParsedWorkload, previous: ParsedWorkload | None) -> None:
    """Apply each relative change to the reading merged with `previous` (None: not a follow-up,
    nothing to change — asked back). A GPU count not said before is the count the previous
    answer led with (`answered_count`). Each changed slot's source is the change's words."""
    for change in p.changes:
        words = p.sources.get("changes")
        done = _apply(p, change, previous)
        if done is None:
            p.ask(
                "figure",
                "missing",
                f"'{change.words.strip()}' changes a figure of an earlier question, but there "
                f"is none to change here: how many {change.slot.replace('gpus', 'GPUs')} do you "
                "mean?",
                change.words.strip(),
            )
            continue
        p.notes.append(done)
        if change.slot == "gpus" and p.asked == "gpu_count":
            p.asked = None  # the count is said now: what it holds is the answer
        if words is not None:
            p.sources[change.slot] = words.model_copy(deep=True)


def _apply(p: ParsedWorkload, change: Change, previous: ParsedWorkload | None) -> str | None:
    if previous is None:
        return None
    if change.slot == "users":
        if p.users is None:
            return None
        before, p.users = p.users, _changed(p.users, change)
        return _how(change, before, p.users, "concurrent users")
    if change.slot == "context":
        if p.context is None:
            return None
        before, p.context = p.context, _changed(p.context, change)
        return _how(change, before, p.context, "tokens of context")
    counted = next((m for m in p.gpus if m.count is not None), None)
    if counted is not None and counted.count is not None:
        before = counted.count
        counted.count = _changed(before, change)
        return _how(change, before, counted.count, f"× {counted.text}")
    if p.gpu_count is not None:
        before, p.gpu_count = p.gpu_count, _changed(p.gpu_count, change)
        return _how(change, before, p.gpu_count, "GPUs")
    if previous.answered_gpu is None or previous.answered_count is None:
        return None
    # No count said before: the count the previous answer led with.
    named = next((m for m in p.gpus if m.gpu in (None, previous.answered_gpu)), None)
    after = _changed(previous.answered_count, change)
    if named is not None:
        named.gpu, named.count = named.gpu or previous.answered_gpu, after
    else:
        p.gpus.append(
            GpuMention(gpu=previous.answered_gpu, text=previous.answered_gpu, count=after)
        )
    return (
        f"'{change.words.strip()}' read as {after:,}× {previous.answered_gpu} (the previous "
        f"answer's {previous.answered_count:,})"
    )
