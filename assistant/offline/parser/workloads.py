"""Workloads beyond plain serving (issue 30 items 1-4), read before the words they share are
read as something else: LoRA adapters *served* ('Llama 3.1 8B with 20 LoRA adapters for 50
users' is multi-LoRA serving, not LoRA training); an embedding corpus ('embed 10 million
documents with bge-m3 on an L4': bge-m3 is a model, not an Apple M3; 10 million documents are
the corpus, not a model size)."""

from __future__ import annotations

import re
from typing import Literal, cast

from assistant.offline.parser.text import QW, Text, positive_int, qty
from assistant.reading.parsed import ParsedWorkload

# A fine-tune asked for: the verb or the noun, never the participle of a model already tuned
# ('a fine-tuned model', 'trained adapters' are served).
_TRAINING = re.compile(
    r"\b(?:train|training|fine[\s-]?tun(?:e|ing)|finetun(?:e|ing)|pre-?train(?:ing)?)\b", re.I
)
_SERVING = re.compile(
    r"\b(?:serv(?:e|es|ed|ing)|inference|deploy\w*|host\w*|users?|requests?|req/s|qps|"
    r"multi[\s-]?lora|hot[\s-]?swap\w*)\b",
    re.I,
)
# '20 LoRA adapters', '20 LoRAs', 'twenty PEFT adapters', '20 adapters', '20 LoRA fine-tunes'.
_ADAPTERS = (
    rf"{QW}\s*(?:different\s+|distinct\s+)?(?:(?:lora|peft)\s*"
    r"(?:adapters?|fine[\s-]?tunes|models|variants)|loras|adapters)\b"
)


# '30 rank-16 LoRAs', '30 rank 64 adapters': the count, then the rank (not 16 adapters).
_RANKED_ADAPTERS = (
    rf"{QW}\s*(?:different\s+|distinct\s+)?rank[\s-]?(\d+)\s+(?:(?:lora|peft)\s*"
    r"(?:adapters?|fine[\s-]?tunes|models|variants)|loras|adapters)\b"
)


def extract_lora_serving(t: Text, p: ParsedWorkload) -> None:
    """A count of LoRA adapters in a serving question (no fine-tune asked for): multi-LoRA
    serving, the task inference. A fine-tune with adapters is left to the training reading."""
    if _TRAINING.search(t.work) or not _SERVING.search(t.work):
        return
    for m in t.each(_RANKED_ADAPTERS):
        count = positive_int(m.group(1))
        if count is not None:
            p.lora_adapters = count
            p.lora_rank = int(m.group(2))
            p.task = p.task or "inference"
    for m in t.each(_ADAPTERS):
        count = positive_int(m.group(1))
        if count is not None:
            p.lora_adapters = count
            p.task = p.task or "inference"


# A count of texts: '10 million documents', '10M docs', '2.5k passages', '1,000,000 pairs'.
_COUNT = r"(\d[\d,]*(?:\.\d+)?\s*(?:k|thousand|m|mn|million|b|bn|billion|t|trillion)?)"
_TEXTS = (
    r"(?:documents?|docs?|texts?|passages?|chunks?|pages?|records?|sentences?|articles?|"
    r"(?:query[\s-]*document\s+|query[\s-]*doc\s+)?pairs?|files?|emails?|tickets?|products?|"
    r"prompts?|requests?|queries|questions?|conversations?|samples?|examples?|rows?|items?|"
    r"messages?|reviews?|transcripts?)"
)
_NOT_A_RATE = r"(?!\s*(?:/|per|a|an|each|every)\s*(?:s|sec|second|min|minute|h|hr|hour|day)s?\b)"
"""'2M requests a day' is an arrival rate (`extract_request_rate`), never a job's count."""
_PER_TEXT = (
    r"(?:each|apiece|per\s+(?:document|doc|text|passage|chunk|page|record|pair|item|article))"
)
_LENGTH_PATTERNS = (
    rf"(?:of|with|at|averaging|avg\.?|average\s+(?:of\s+)?|about|~)?\s*{_COUNT}\s*"
    rf"(?:-\s*)?tokens?\s*{_PER_TEXT}",
    rf"{_COUNT}\s*-?\s*tokens?\s+(?:long\s+)?{_TEXTS}",
    rf"(?:averaging|average\s+(?:of\s+)?|avg\.?\s+(?:of\s+)?)\s*{_COUNT}\s*tokens?\b",
    rf"\bof\s+{_COUNT}\s*tokens?\b",
)


def _model_pattern() -> re.Pattern[str]:
    """Every spelling of the catalog's embedding and reranker models, longest first, with
    space, hyphen or underscore between their parts."""
    from tools.workloads.embedding_models import embedding_models

    names = {n for m in embedding_models().values() for n in (m.id, m.name, *m.aliases) if n}
    parts = []
    for name in sorted(names, key=len, reverse=True):
        pieces = re.split(r"[\s_-]+", name.strip())
        parts.append(r"[\s_-]?".join(re.escape(p) for p in pieces))
    return re.compile(r"(?<![\w./-])(?:" + "|".join(parts) + r")(?![\w-])", re.I)


_MODEL: re.Pattern[str] | None = None


def extract_embedding(t: Text, p: ParsedWorkload) -> None:
    """An embedding or reranker model of the catalog ('bge-m3' — never Apple's M3 —, 'e5
    large v2', 'Qwen3-Embedding-8B'), the corpus (documents and their length, or its tokens:
    '10 million documents' is a corpus, not a model size), read before models and GPUs."""
    global _MODEL
    from tools.workloads.embedding_models import find_embedding_model

    _MODEL = _MODEL or _model_pattern()
    found = [m for m in _MODEL.finditer(t.work)]
    if not found:
        return
    first = find_embedding_model(re.sub(r"[\s_]+", "-", found[0].group(0)))
    if first is None:
        first = find_embedding_model(found[0].group(0))
    if first is None:
        return
    for m in found:
        t.consume(m.start(), m.end())
    p.embedding_model = first.id
    t.each(r"\b(?:embed\w*|re-?rank\w*|vectori[sz]\w*|encod(?:e|ing))\b")  # the task, read
    # What is asked of a corpus: the tool answers time, speed and cost together.
    for m in t.each(
        r"\bhow\s+(long|much|fast|quickly|many\s+hours)\b(?:\s+(?:would|will)\s+it\s+take)?"
    ):
        word = m.group(1).lower()
        if word == "much":
            p.asked = p.asked or "cost"
        elif word in ("fast", "quickly"):
            p.asked = p.asked or "speed"
        else:
            p.how_long = True
    _read_corpus(t, p)


def _read_corpus(t: Text, p: ParsedWorkload) -> None:
    """The corpus of an embedding question: each text's length, the texts, or its tokens."""
    for pattern in _LENGTH_PATTERNS:
        for m in t.each(pattern):
            length = positive_int_or_none(m.group(1))
            if length is not None and p.tokens_per_document is None:
                p.tokens_per_document = length
    for m in t.each(rf"{_COUNT}\s+(?:\w+\s+)?{_TEXTS}\b"):
        count = positive_int_or_none(m.group(1))
        if count is not None and p.documents is None:
            p.documents = count
    for m in t.each(rf"{_COUNT}\s*tokens?\b"):
        total = qty(m.group(1))
        if total is None or total < 1:
            continue
        if p.documents is not None and total < p.documents and p.tokens_per_document is None:
            # Fewer tokens than texts is no corpus total: '200M chunks (~256 tokens)' is
            # each chunk's length.
            p.tokens_per_document = round(total)
        elif p.corpus_tokens is None:
            p.corpus_tokens = total


def positive_int_or_none(text: str) -> int | None:
    """A whole count from '10M', '2.5k', '1,000' (None when it is not one)."""
    value = qty(text)
    return None if value is None or value < 1 else round(value)


# Totals of a batch job: '2 billion input tokens', '200M output', '500M tokens in', '50M out'.
_IN_WORDS = r"(?:input|prompt|in)"
_OUT_WORDS = r"(?:output|generated|completion|out)"
_BATCH_CUE = re.compile(
    r"\b(?:batch\w*|offline|in\s+total|total|overall|corpus|dataset|job|backfill|"
    r"summari[sz]\w*|classif\w*|translat\w*|process\w*|extract\w*|label\w*|tag\w*|rewrit\w*|"
    r"annotat\w*)\b",
    re.I,
)
_JOB_WORDS = (
    r"\bbatch[\s-]process\w*|\b(?:backfill|summari[sz]\w*|classif\w*|"
    r"translat\w*|process\w*|annotat\w*|label(?:l?ing)?|tag(?:ging)?|rewrit\w*)\b"
)
"""The job's verbs, read once a job is (they say what it does, not what to size); 'batch' and
'offline' are left to the task reading (`use` batch) and 'batch size'."""
_PERIOD = (
    r"\s*(?:tokens?\s*)?(?:daily|weekly|monthly|a\s+(?:day|week|month)|per\s+(?:day|week|month)|"
    r"/\s*(?:day|week|month)|each\s+(?:day|week|month)|every\s+(?:day|week|month))"
)
"""A volume over time ('10M output tokens daily') is a serving load, never a job's total."""
_TOTAL_MIN = 1e6
"""A token count this large with a batch cue is a total, never one request's length (no
catalog model but Llama 4 Scout reads a million-token prompt)."""
_PER_DOC_OUT = (
    rf"{_COUNT}\s*-?\s*tokens?\s+(?:summar(?:y|ies)|answers?|outputs?|responses?|labels?|"
    r"completions?|translations?)",
    # 'one-token labels', 'a single-token answer': one output token.
    r"\b(?:one|an?\s+single|single)[\s-]+token\s+(?:labels?|answers?|outputs?|class(?:es)?)\b()",
    rf"{_COUNT}\s*tokens?\s+(?:of\s+)?{_OUT_WORDS}(?:put)?\s*{_PER_TEXT}",
    rf"(?:outputs?|summar(?:y|ies)|answers?|responses?)\s+(?:of\s+)?{_COUNT}\s*tokens?",
)


_IN_OUT_EACH = (
    rf"{_COUNT}\s*(?:tokens?\s+)?{_IN_WORDS}(?:\s*tokens?)?\s*(?:/|,|and|\+|&)\s*"
    rf"{_COUNT}\s*(?:tokens?\s+)?{_OUT_WORDS}(?:\s*tokens?)?(?:\s*{_PER_TEXT})?"
)
"""One request's two lengths said together ('1500 input / 300 output tokens each')."""


def extract_batch_job(t: Text, p: ParsedWorkload) -> None:
    """An offline job's totals ('summarize 2 billion input tokens, 200 million output': the
    job, not one prompt's length) or its documents × lengths ('1M documents of 2,000 tokens,
    200-token summaries'), read before model sizes and prompt lengths."""
    if not _BATCH_CUE.search(t.work) or p.embedding_model is not None:
        return
    if not _job_totals(t, p):
        _job_documents(t, p)


def _job_totals(t: Text, p: ParsedWorkload) -> bool:
    """The job's token totals ('2 billion input tokens, 200 million output'); False when none
    was said."""
    totals: dict[str, float] = {}
    for which, words in (("in", _IN_WORDS), ("out", _OUT_WORDS)):
        pattern = (
            rf"{_COUNT}\s*(?:{words}\s*tokens?|tokens?\s+(?:of\s+)?{words}\b|{words}\b)"
            rf"(?!{_PERIOD})"
        )
        for m in re.finditer(pattern, t.work, re.I):
            value = qty(m.group(1).rstrip(","))
            if value is not None and value >= _TOTAL_MIN and which not in totals:
                totals[which] = value  # a total; smaller counts are left to the lengths
                t.consume(m.start(), m.end())
    if totals:
        p.batch_input_tokens = totals.get("in")
        p.batch_output_tokens = totals.get("out")
        t.each(_JOB_WORDS)
        if len(totals) == 1:
            missing = "output" if "in" in totals else "input"
            p.ask(
                "figure",
                "missing",
                f"How many {missing} tokens does the job have in total (or per request)? "
                "Its hours and cost follow from both.",
            )
        return True
    return False


def _job_documents(t: Text, p: ParsedWorkload) -> None:
    """The job as documents × lengths ('1M documents of 2,000 tokens, 200-token summaries')."""
    docs = re.search(rf"{_COUNT}\s+(?:\w+\s+)?{_TEXTS}\b{_NOT_A_RATE}", t.work, re.I)
    count = None if docs is None else positive_int_or_none(docs.group(1))
    if count is None or count < 1000:
        return  # a handful of documents is a serving question, not a batch job
    t.consume(docs.start(), docs.end())  # type: ignore[union-attr]
    p.batch_requests = count
    # 'batch 2M prompts …': the verb right before the documents is the job's.
    verb = re.search(r"\bbatch\s*$", t.work[: docs.start()], re.I)  # type: ignore[union-attr]
    if verb is not None:
        t.consume(verb.start(), verb.end())
    t.each(_JOB_WORDS)
    for m in t.each(_IN_OUT_EACH):  # '1500 input / 300 output tokens each'
        prompt, output = positive_int_or_none(m.group(1)), positive_int_or_none(m.group(2))
        p.prompt_tokens = p.prompt_tokens or prompt
        p.output_tokens = p.output_tokens or output
    for pattern in _PER_DOC_OUT:
        for m in t.each(pattern):
            length = positive_int_or_none(m.group(1)) if m.group(1) else 1  # one-token labels
            if length is not None and p.output_tokens is None:
                p.output_tokens = length
    for pattern in _LENGTH_PATTERNS:
        for m in t.each(pattern):
            length = positive_int_or_none(m.group(1))
            if length is not None and p.prompt_tokens is None:
                p.prompt_tokens = length
    if p.prompt_tokens is None and p.output_tokens is None:
        p.ask(
            "figure",
            "missing",
            f"How many tokens is each of the {count:,} documents, and each output (e.g. "
            "'2,000 tokens each, 200-token summaries')? The job's hours follow from both.",
        )
    elif p.output_tokens is None:
        # Only what is missing is asked: the documents' length was read.
        p.ask(
            "figure",
            "missing",
            f"How many tokens does each output have (e.g. '200-token summaries', 'a one-word "
            f"label')? Each of the {count:,} documents is {p.prompt_tokens:,} tokens; the job's "
            "hours follow from both.",
        )
    elif p.prompt_tokens is None:
        p.ask(
            "figure",
            "missing",
            f"How many tokens is each of the {count:,} documents (e.g. '2,000 tokens each')? "
            f"Each output is {p.output_tokens:,} tokens; the job's hours follow from both.",
        )


# Arrival rates: '10 requests per second', '10 req/s', '50 QPS', '2M requests a day'.
_PER_UNIT = {"s": 1.0, "sec": 1.0, "second": 1.0, "min": 60.0, "minute": 60.0, "h": 3600.0}
_PER_UNIT |= {"hr": 3600.0, "hour": 3600.0, "day": 86400.0}
_RATE_PATTERNS = (
    rf"{_COUNT}\s*(?:requests?|reqs?|queries|calls|prompts)\s*(?:/|per|a|an|each|every)\s*"
    r"(s|sec|second|min|minute|h|hr|hour|day)s?\b",
    rf"{_COUNT}\s*(?:req/s|reqs/s|requests/s|req/sec|rps|qps)\b",
)


def extract_request_rate(t: Text, p: ParsedWorkload) -> None:
    """An arrival rate ('10 requests per second' is a rate, not 10 users), a peak factor
    ('3× peak', 'peak factor 2'), and latency percentiles ('p99 TTFT' — never a GPU), read
    before GPUs and concurrency."""
    for index, pattern in enumerate(_RATE_PATTERNS):
        for m in t.each(pattern):
            value = qty(m.group(1).rstrip(","))
            if value is None or value <= 0 or p.requests_per_s is not None:
                continue
            unit = 1.0 if index else _PER_UNIT[m.group(2).lower()]
            p.requests_per_s = value / unit
    if p.requests_per_s is None:
        return
    for m in t.each(
        r"\bpeak(?:s|ing)?(?:\s+(?:factor|load|traffic))?\s*(?:of|at|is|=|:)?\s*(\d+(?:\.\d+)?)"
        r"\s*[x×]?(?:\s+(?:the\s+)?(?:average|mean))?|\b(\d+(?:\.\d+)?)\s*[x×]\s*(?:at\s+)?peak\b"
    ):
        factor = float(m.group(1) or m.group(2))
        if factor >= 1:
            p.peak_factor = factor
    for m in t.each(r"\bp(50|90|95|99)\b"):
        p.latency_percentile = cast(Literal[50, 90, 95, 99], int(m.group(1)))
    if p.latency_percentile is not None:
        # 'p99 TTFT at 10 req/s' asks for the TTFT; 'TTFT under 500 ms' is left to the target.
        target = r"\s*(?:under|below|<|<=|≤|of|within|at\s+most|less\s+than|must|should)"
        for _ in t.each(rf"\b(?:ttft|time\s+to\s+first\s+token)\b(?!{target})"):
            p.asked = p.asked or "ttft"
    for m in t.each(
        r"\b(?:inter[\s-]?token|itl|tpot)(?:\s+(?:latency|time))?\s*(?:under|below|<=?|of|at\s+"
        r"most|within)\s*(\d+(?:\.\d+)?)\s*(ms|s)\b"
    ):
        value = float(m.group(1))
        p.inter_token_target_s = value / 1000 if m.group(2).lower() == "ms" else value
