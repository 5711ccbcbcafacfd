"""The load: throughput (aggregate or per user), time to first token, inter-token
latency, concurrent users and the batch size."""

from __future__ import annotations

import re

from assistant.offline.parser.lengths import set_context
from assistant.offline.parser.text import QW, Q, Text, positive_int, qty
from assistant.reading.parsed import ParsedWorkload
from assistant.reading.quantities import NUMBER, out_of_range_question
from assistant.regex_cache import compiled
from tools.cost.inputs import DEFAULT_INPUT_TOKENS_PER_OUTPUT_TOKEN, HOURS_PER_MONTH
from tools.limits import MAX_SEQUENCES

# Days in the cost tool's billing month (730 h / 24 h) and in a week.
_DAYS_PER = {"day": 1.0, "week": 7.0, "month": HOURS_PER_MONTH / 24.0}
_PERIOD_WORDS = {"day": "day", "daily": "day", "week": "week", "weekly": "week", "wk": "week"}
_PERIOD_WORDS |= {"month": "month", "monthly": "month", "mo": "month"}


def extract_token_volume(t: Text, p: ParsedWorkload) -> None:
    """A token volume over time ('50M tokens a day', '1.5B tokens/month', '10M output tokens
    daily') is the serving load, not training data: output tokens a day (input and output
    together unless 'output' is said, split at the cost tool's input:output ratio) and their
    average rate as the aggregate throughput target when none is said."""
    kind = r"((?:input\s+and\s+output|output|generated|total)\s+)?"
    per = r"(?:\s*(?:/|per|a|an|each|every)\s*(day|week|wk|month|mo)\b|\s+(daily|weekly|monthly)\b)"
    for m in t.each(
        rf"{Q}\s*{kind}tokens?{per}|\b(daily|weekly|monthly)\s+(?:volume\s+(?:of\s+)?)?{Q}"
        rf"\s*{kind}tokens?\b"
    ):
        if m.group(1) is not None:
            amount, which, period = m.group(1), m.group(2), m.group(3) or m.group(4)
        else:
            period, amount, which = m.group(5), m.group(6), m.group(7)
        value = qty(amount)
        if value is None or value <= 0:
            continue
        per_day = value / _DAYS_PER[_PERIOD_WORDS[period.lower()]]
        output_only = which is not None and compiled(r"output|generated", re.I).match(which)
        ratio = DEFAULT_INPUT_TOKENS_PER_OUTPUT_TOKEN
        p.output_tokens_per_day = per_day if output_only else per_day / (ratio + 1.0)
        said = m.group(0).strip()
        split = (
            ""
            if output_only
            else f", input and output together: {p.output_tokens_per_day:,.0f} output tokens a "
            f"day at {ratio:g} input tokens per output token (say 'output tokens' otherwise)"
        )
        rate = p.output_tokens_per_day / 86_400
        note = f"'{said}' read as the serving load{split}"
        if p.tokens_per_s is None:
            p.tokens_per_s = rate
            note += f"; {rate:,.0f} output tokens/s averaged over the day (peaks need more)"
        p.notes.append(note)
        p.task, p.use = p.task or "inference", p.use or "serve"


def _per_minute(
    t: Text,
    p: ParsedWorkload,
    per: str,
    per_user: str,
    after: str,
    said: dict[str, list[tuple[str, float | None]]],
) -> None:
    """A token rate per minute ('100 tokens per minute'): the same rate per second (÷ 60),
    aggregate when said so, else what one user sees; the conversion noted."""
    for m in t.each(rf"{Q}\s*(?:output\s+)?(?:tokens?|toks?){per}min(?:ute)?\b{per_user}{after}"):
        value = qty(m.group(1))
        if value is None:
            continue
        rate = value / 60
        aggregate = compiled(r"aggregate|total|overall|throughput|combined").search(m.group(3))
        slot = "tokens_per_s" if aggregate and not m.group(2) else "tokens_per_s_per_user"
        setattr(p, slot, rate)
        said.setdefault(slot, []).append((m.group(0).strip(), rate))
        p.notes.append(f"{m.group(0).strip()!r} read as {rate:,.3g} tokens/s (÷ 60)")


def extract_throughput_and_latency(t: Text, p: ParsedWorkload) -> None:
    """Time to first token (seconds), token rates (tokens/s, aggregate or per user) and
    per-token latency in ms (read as a per-user rate of 1000 / ms tokens/s)."""
    ttft = r"(?:ttft|time[\s-]to[\s-]first[\s-]token|first[\s-]token(?:\s+latency)?)"
    bound = r"(?:\s*(?:of|under|below|<=?|≤|within|in|less\s+than|at\s+most|max(?:imum)?|:|=|is|"
    bound += r"around|about|~))*"
    unit = r"(ms|msec|milliseconds?|s|secs?|seconds?)\b"
    for m in t.each(rf"{ttft}{bound}\s*({NUMBER})\s*{unit}"):
        p.ttft_s = _seconds(m.group(1), m.group(2))
    for m in t.each(rf"({NUMBER})\s*{unit}\s*(?:of\s+)?{ttft}"):
        p.ttft_s = _seconds(m.group(1), m.group(2))
    # A first token seen late: 'the first token takes 20 seconds', 'take 55 seconds before
    # producing the first token' (the figure is what the question asks about).
    takes = r"(?:always\s+|usually\s+|often\s+)?(?:takes?|took|taking)\s+(?:about\s+|around\s+|~"
    takes += r"|over\s+|more\s+than\s+|almost\s+|nearly\s+)?"
    before = r"\s+(?:before|until|to\s+(?:get|see|produce|generate))\s+(?:producing\s+|generating"
    before += rf"\s+|getting\s+|seeing\s+)?(?:the\s+|a\s+)?{ttft}"
    for m in t.each(rf"{ttft}\s+(?:\w+\s+){{0,2}}?{takes}({NUMBER})\s*{unit}"):
        p.ttft_s = _seconds(m.group(1), m.group(2))
    for m in t.each(rf"{takes}({NUMBER})\s*{unit}{before}"):
        p.ttft_s = _seconds(m.group(1), m.group(2))
    per_user = (
        r"(\s*(?:per|/|for\s+each|each|a)\s*(?:user|request|sequence|stream|session|person))?"
    )
    # A qualifier may also follow the rate ("500 tokens/s aggregate throughput").
    after = r"((?:\s+(?:in\s+)?(?:aggregate|total|overall|combined))?(?:\s+throughput)?)"
    # 'tokens/s', 'tokens per second', 'tok a sec' — never '32K tokens as input' ('a' + 's').
    per = r"(?:\s*/\s*|\s+(?:per|a)\s+)"
    # 't/s' and 'tps' too, as llama.cpp prints and users write them ('25t/s', '140 t/s').
    # Not a rate of something else ('5 tps per lane', '900 tokens/s per GPU'): left unread.
    of_else = r"(?!\s+per\s+(?!(?:user|request|sequence|stream|session|person)s?\b)[a-z])"
    rate = (
        rf"{Q}\s*(?:(?:output\s+)?(?:tokens?|toks?){per}(?:s|sec|second)\b|t/s\b|tps\b)"
        rf"{per_user}{of_else}"
    )
    said: dict[str, list[tuple[str, float | None]]] = {}
    _per_minute(t, p, per, per_user, after, said)
    for m in t.each(rate + after):
        value = qty(m.group(1))
        before = t.original[max(0, m.start() - 40) : m.start()].lower() + m.group(3).lower()
        if m.group(2) or "each" in before or "per user" in before:
            p.tokens_per_s_per_user = value
            said.setdefault("tokens_per_s_per_user", []).append((m.group(0).strip(), value))
        elif compiled(r"aggregate|total|overall|throughput|combined").search(before) or (
            value is not None and value >= 500
        ):
            p.tokens_per_s = value
            said.setdefault("tokens_per_s", []).append((m.group(0).strip(), value))
        else:
            p.tokens_per_s_per_user = value
            said.setdefault("tokens_per_s_per_user", []).append((m.group(0).strip(), value))
            p.notes.append(f"{m.group(0).strip()!r} read as the speed each user sees")
    _two_rates_said(p, said)
    if said:
        # 'benchmarked at 40 tok/s': the speed read is the benchmark's.
        t.each(r"\bbenchmark(?:ed|ing|s)?\b(?!\s+scores?\b)")
    for m in t.each(
        rf"({NUMBER})\s*ms\s*(?:per|/|a)\s*(?:output\s+)?token|(?:itl|tpot|inter[\s-]token"
        rf"(?:\s+latency)?){bound}\s*({NUMBER})\s*ms"
    ):
        ms = float(m.group(1) or m.group(2))
        if ms > 0:
            p.tokens_per_s_per_user = 1000.0 / ms
    # '4.8s/token', '2 seconds per token': a stream slower than a token a second.
    for m in t.each(rf"({NUMBER})\s*(?:s|secs?|seconds?)\s*(?:per|/|a)\s*(?:output\s+)?token\b"):
        seconds = float(m.group(1).replace(",", ""))
        if seconds > 0:
            p.tokens_per_s_per_user = 1.0 / seconds
            p.notes.append(f"{m.group(0).strip()!r} read as {1 / seconds:.3g} tokens/s per user")


def _two_rates_said(p: ParsedWorkload, said: dict[str, list[tuple[str, float | None]]]) -> None:
    """Two different rates of one kind ('60 tokens/sec on the API vs. 13 tokens/sec on
    sglang'): no one target, so the later one is not sized as if it were; asked back."""
    for rates in said.values():
        if len({value for _, value in rates}) > 1:
            listed = " and ".join(f"'{words}'" for words, _ in rates)
            p.ask(
                "figure",
                "ambiguous",
                f"{listed}: two speeds are said. Which one should the sizing meet (a target), "
                "and which is a speed seen?",
                rates[-1][0],
            )


def _seconds(number: str, unit: str) -> float:
    value = float(number.replace(",", ""))
    return value / 1000.0 if unit.lower().startswith("m") else value


BATCH = r"\b(?:micro[\s-]?|global[\s-]|per[\s-]gpu[\s-])?batch(?:[\s-]?size)?"


_AT_ONCE_AFTER = compiled(
    r"\s*(?:(?:will|would|could|can|may)\s+)?(?:(?:use|using|hit|query\w*)\s+)?(?:it\s+)?"
    r"(?:concurrently|simultaneously|at\s+(?:once|the\s+same\s+time))\b",
    re.I,
)


def _server_slots(t: Text, p: ParsedWorkload) -> None:
    """llama.cpp server's slots, the sequences it serves at once: '4 parallel slots', and with
    llama.cpp said, '--parallel 4', '-np 4' (never 'PCIe slots', nor MPI's 'mpirun -np 8')."""
    flags = (
        r"|(?<![\w-])(?:--parallel|-np)\s*[=\s]\s*(\d+)\b" if p.launcher == "llama-server" else ""
    )
    for m in t.each(rf"{QW}\s+(?:parallel|server)\s+slots?\b{flags}"):
        said = m.group(1) or (m.group(2) if flags else None)
        if said is not None:
            p.users = positive_int(said)


def extract_concurrency(t: Text, p: ParsedWorkload) -> None:
    """Concurrent users ('50 concurrent users', '20 at a time', 'concurrency 8') and the
    batch size in sequences."""
    adjectives = r"(?:(?:concurrent|simultaneous|parallel|active|daily|monthly|long[\s-]context|"
    adjectives += r"short|chat|rag|api|internal|external|different|total|peak|)\s+){0,3}"
    nouns = r"(?:users?|requests?|chats?|sessions?|conversations?|clients?|customers?|streams?|"
    # 'sequence' not followed by length: '2048 sequence length' is a length, not 2,048 users.
    nouns += r"sequences?(?![\s-]*(?:length|len)\b)|agents?|employees?|people|queries|"
    # The people of a team, as teams say it ('20 developers', '15 devs', '40 engineers').
    nouns += r"developers?|devs?|engineers?|analysts?|researchers?|students?|colleagues?|"
    nouns += r"teammates?|members?|staff)"
    # A count of users is not a rate of requests ('5 requests per second' is asked, not 5 users);
    # '5000 users a day' is a daily count (said), not a rate.
    rate_after = (
        r"\s*(?:/|per\b|an?\s+(?:s|sec|second|minute|min|hour|day)\b"
        r"|each\s+(?:second|minute))"
    )
    peak = (
        rf"(?:{QW}\s+(?:users?\s+|requests?\s+|concurrent\s+)?at\s+(?:the\s+)?peak\b"
        rf"|\bpeak\s+(?:concurrency\s+|load\s+)?(?:of\s+)?{QW}(?:\s+(?:concurrent\s+)?users?)?)"
    )
    for m in t.each(peak):
        # '1,000 daily users, about 40 at peak': the peak is the concurrency sized.
        value = positive_int(m.group(1) or m.group(2))
        if value is not None and value <= MAX_SEQUENCES:
            p.users = value
            p.notes.append(f"'{m.group(0).strip()}' read as {value:,} concurrent users (the peak)")
    peak_read = p.users is not None
    # '32 concurrent 8k chats': the count, and a length in thousands said of each sequence.
    for m in t.each(
        rf"{QW}\s+{adjectives}(?P<len>\d+(?:\.\d+)?\s?k)[\s-]+(?:tokens?[\s-]+)?(?:context[\s-]+)?"
        r"(?:chats?|conversations?|sequences?|sessions?|requests?)\b"
    ):
        value = positive_int(m.group(1))
        if value is not None and value <= MAX_SEQUENCES and not peak_read:
            p.users = value
        set_context(p, m.group("len"))
    for m in t.each(rf"{QW}\s+{adjectives}(?P<noun>{nouns})\b"):
        if compiled(r"requests?|quer|calls?", re.I).match(m.group("noun")) and compiled(
            rate_after, re.I
        ).match(t.work[m.end() :]):
            # A rate, not a count: put back for the coverage gate to ask about.
            t.work = t.work[: m.start()] + t.original[m.start() : m.end()] + t.work[m.end() :]
            continue
        if peak_read:
            # The daily or total count beside a peak: the peak is sized, this one said.
            p.notes.append(f"'{m.group(0).strip()}' said beside the peak: sized at the peak")
            continue
        value = positive_int(m.group(1))
        if value is None:
            continue
        if value > MAX_SEQUENCES:
            # Past the tools' bound: asked back, never sized at the bound or dropped.
            p.unplaced.append(m.group(0).strip())
            said = m.group(0).strip()
            p.ask("figure", "invalid", out_of_range_question(said, "users"), said)
            continue
        p.users = value
        # '30 people will use it concurrently': the adverb after says the same count.
        after = _AT_ONCE_AFTER.match(t.work, m.end())
        if after is not None:
            t.consume(after.start(), after.end())
        if compiled(r"long[\s-]context", re.I).search(m.group(0)):
            p.long_context = True
        if compiled(r"chat|conversation", re.I).search(m.group(0)):
            p.task, p.use = p.task or "inference", p.use or "chat"
        if compiled(r"daily|monthly", re.I).search(t.original[m.start() : m.end()]):
            # A count over a day or a month says nothing of how many are served at once: the
            # figures read it as all at once (an upper bound), and the peak is asked.
            said = t.original[m.start() : m.end()].strip()
            p.ask(
                "figure",
                "missing",
                f"'{said}' is a count over a day or a month, not how many are served at the same "
                f"time: how many at once at the peak (e.g. '{max(1, value // 20):,} concurrent "
                f"users')? The figures read it as {value:,} at the same time, an upper bound.",
                said,
            )
        elif compiled(r"total", re.I).search(m.group(0)):
            p.notes.append(
                f"'{m.group(0).strip()}' read as {value:,} at the same time; peak concurrency is "
                "usually far lower, tell me if you know it"
            )
    for m in t.each(rf"{QW}\s+(?:at\s+a\s+time|concurrently|in\s+parallel|at\s+once)"):
        p.users = positive_int(m.group(1))
    for m in t.each(rf"concurrency\s*(?:of|=|:)?\s*{Q}"):
        p.users = positive_int(m.group(1))
    _server_slots(t, p)
    for m in t.each(rf"{BATCH}\s*(?:of|=|:)?\s*{Q}"):
        p.batch = positive_int(m.group(1))
