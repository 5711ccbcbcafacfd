"""The coverage gate: which words of a question no extractor placed could change the verdict.

A number (with or without a unit), an amount of money, a rate or percentile, a hardware name or
a sizing term left unread means the question may be another one than the one read: the answer
then says what it could not read first, gives the figures for what it did read and asks
(`gate_question`). Plain words ('squeezes', 'yes') change nothing and are only listed.
"""

from __future__ import annotations

import re
from functools import cache

from assistant.reading.model import Span, Unread, UnreadKind
from assistant.regex_cache import compiled
from tools.catalog import get_catalog

_MONEY = compiled(
    r"[$€£¥]|\b(?:usd|eur|gbp|dollars?|euros?|pounds?|bucks|quid|cents?|k\$|\$k)\b", re.I
)
_RATE = compiled(
    r"/\s*(?:s|sec|second|min|minute|h|hr|hour|day)\b|\bper\s+(?:second|sec|minute|min|hour|day)\b"
    r"|\b(?:rps|qps|rpm|tps|req/s|reqs?|p50|p90|p95|p99|percentile|ms|msec)\b"
    # 'per lane', 'per replica' left over from a figure read: what the figure is of.
    r"|\bper\s+[a-z]+\b",
    re.I,
)
_NUMBER_WORDS = compiled(
    r"\b(?:half|quarter|third|dozen|hundreds?|thousands?|millions?|billions?|trillions?|"
    r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|"
    r"forty|fifty|hundred|double|twice|triple|gigs?|gigabytes?|megabytes?|terabytes?|"
    # A count said without its figure ('multiple 4090s', 'across several A100s'): how many
    # GPUs (or users) the verdict is for was not read.
    r"several|multiple|mutil|various|couple|few|bunch|handful|"
    # 'each' / 'every' left over: a count per something ('8 T4 on each') the reader did not
    # multiply out.
    r"each|every)\b",
    re.I,
)
_HARDWARE = compiled(
    r"\b(?:laptops?|notebooks?|mobile|macbooks?|imac|macs?|igpu|apu|jetson|orin|cpu[\s-]?only|"
    r"cluster|tpus?|npus?|gaudi|inferentia|trainium|workstation|cpus?|(?:smart)?phones?|iphone|"
    r"android|tablets?|ipad|raspberry)\b",
    re.I,
)
_TERMS = compiled(
    r"\b(?:lora|adapters?|embed\w*|rerank\w*|encoders?|spot|preemptible|reserved|"
    r"speculative|draft|prefix|caching|disaggregat\w*|prefill|decode|offload\w*|moe|experts?|"
    r"multimodal|vision|images?|audio|video|parallel\w*|distill\w*|kv|flash|batch\w*|"
    r"concurren\w*|peak|replicas?|autoscal\w*|sla|slo|quantiz\w*|quantis\w*|ttft|itl|tpot|"
    r"nvlink|pcie|sharding|fsdp|deepspeed|zero|"
    # Another workload on the same GPU ('Stable Diffusion and Llama 3 8B at the same time'):
    # its memory is not in the sizing.
    r"stable\s+diffusion|sdxl|flux|comfyui|whisper|simultaneous\w*|alongside|same\s+time)\b",
    re.I,
)
_FIGURE_WORDS = compiled(
    r"\b(?:memory|vram|ram|speed|fast|slow|latency|throughput|time|cost|costs|price|prices|"
    r"pricing|budget|precision|quantized|formats?|total|data|datasets?|benchmark\w*)\b",
    re.I,
)
"""Words naming a figure or an input of the verdict ('memory', 'speed', 'cost',
'quantized') that no extractor placed: the reading did not place that part of the question
('how fast would it be', 'the memory it takes', 'quantized models'), so it could change the
verdict. Placed, they are read with their figure ('16 GB of memory', '40 users'). Not plain
filler: as filler, a question about a figure the reader missed was answered as another."""

_QUESTION_KIND_WORDS = compiled(
    r"\b(?:compare|comparison|comparing|versus|vs|cheaper|worth|supports?|buy|rent|renting|"
    r"cloud|on-prem|prem|true|correct|realistic|accurate)\b",
    re.I,
)
"""Words saying what kind of question it is (a comparison, a purchase, whether an engine
supports something, whether a claim is true) that no extractor placed: the question may ask
something other than the verdict read."""

CJK_LETTERS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
"""Kana, CJK ideographs and Hangul (a character-class body): words of a language the reader
has no patterns for."""
_CJK_WORDS = compiled(rf"[{CJK_LETTERS}]")
_YEAR = compiled(r"(?:19[9]\d|20[0-3]\d)")
_VERSION = compiled(r"v?\d+\.\d+\.\d+(?:[.\-+]\w+)*|v\d+\.\d+|b\d{4,5}")
"""A software version ('vllm 0.6.3', 'v0.4', llama.cpp build 'b3600'): it dates the setup and
sizes nothing (a model's version, 'Llama 3.1', is read with the model)."""

_GPU_BRANDS = (
    "geforce", "quadro", "tesla", "titan", "radeon", "instinct", "firepro", "vega", "rtx",
    "gtx", "arc", "xtx", "dgx", "hgx", "colab", "kaggle", "ec2", "runpod", "sagemaker",
    "raspberry", "vii",
)  # fmt: skip
"""Names of GPU lines, machines and hosted notebooks that the catalog may not hold ('Radeon
VII', 'Tesla P40', 'the free tier of Colab'): unread, the GPU a verdict is for was not read."""

_GENERIC_NAME_WORDS = frozenset(
    (
        "gb", "gib", "gpu", "gpus", "cpu", "core", "cores", "max", "pro", "ti", "ultra",
        "super", "per", "in", "one", "two", "edition", "generation", "board", "ai", "laptop",
        "server", "mini", "plus", "air",
    )
)  # fmt: skip
"""Words of catalog GPU names that are plain words too ('Max', 'Pro', 'Laptop'): not names."""


@cache
def _hardware_names() -> re.Pattern[str]:
    """The words that name hardware: the catalog's GPU names' distinctive words (NVIDIA,
    Radeon, Instinct, Gaudi, Blackwell …) and the GPU lines it may lack (`_GPU_BRANDS`)."""
    words = {
        w.lower()
        for gpu in get_catalog().gpus.values()
        for w in compiled(r"[A-Za-z]{2,}").findall(gpu.name)
    }
    names = sorted((words - _GENERIC_NAME_WORDS) | set(_GPU_BRANDS), key=len, reverse=True)
    return re.compile(r"\b(?:" + "|".join(map(re.escape, names)) + r")\b", re.I)


_ASKED_WORDS = compiled(
    r"\b(?:normal|expected|usual|reasonable|acceptable|first[\s-]+token|faster|slower|quicker|"
    r"usable|improve\w*|optimi[sz]\w*|tweak\w*|settings?|parameters?|split|bottleneck\w*|"
    # Not 'error' or 'crash' alone: an out-of-memory error asks whether it fits.
    r"advice|advise|tips?|tricks?|fix\w*|gibberish|garbage|install\w*|drivers?|"
    r"cuda\s+(?:version|error))\b",
    re.I,
)
"""Words that say what is asked, left unread ('is that normal?', 'faster', 'which settings'):
the question may ask something other than the verdict read (a speed observed, a setting)."""


def unread_kind(text: str) -> tuple[UnreadKind, bool]:
    """What unread words look like, and whether they could change the verdict."""
    if _MONEY.search(text):
        return "money", True
    if _RATE.search(text):
        return "rate", True
    if compiled(r"\d").search(text):
        # A year ('in 2025') or a software version dates the question, it sizes nothing.
        dated = _YEAR.fullmatch(text.strip()) or _VERSION.fullmatch(text.strip())
        return "number", not dated
    if _NUMBER_WORDS.search(text):
        return "number", True
    if _HARDWARE.search(text) or _hardware_names().search(text):
        return "hardware", True
    if _ASKED_WORDS.search(text) or _QUESTION_KIND_WORDS.search(text):
        return "asked", True
    if _TERMS.search(text) or _FIGURE_WORDS.search(text):
        return "term", True
    if _CJK_WORDS.search(text):
        # '内存' (system RAM) or '显存' (VRAM) beside a figure, '全量微调' (a full fine-tune):
        # the reader reads English, so it cannot tell these change nothing.
        return "language", True
    return "word", False


def classify(spans: list[Span]) -> list[Unread]:
    """Each unread span with its kind and whether it matters."""
    out: list[Unread] = []
    for span in spans:
        kind, matters = unread_kind(span.text)
        out.append(Unread(span=span, kind=kind, matters=matters))
    return out


_KIND_WORDS: dict[UnreadKind, str] = {
    "money": "an amount of money",
    "rate": "a rate",
    "number": "a figure",
    "hardware": "hardware",
    "term": "a sizing term",
    "asked": "what is asked",
    "language": "words in a language I do not read",
    "word": "words",
}


def gate_question(unread: list[Unread]) -> str:
    """The question asked when unread words could change the verdict: what they are, that the
    figures leave them out, and what to say instead."""
    said = "; ".join(f"'{u.span.text}' ({_KIND_WORDS[u.kind]})" for u in unread)
    return (
        f"I could not read {said}, and it could change the verdict: the figures above leave it "
        "out. What does it say? Restate it with its unit (e.g. '3,000 tokens/s in total', "
        "'16 GB V100', '40 concurrent users', 'budget 2,000 EUR a month')."
    )


MOST_WORDS_UNREAD = 2
"""More words than this left unread (none of them a figure or a sizing term) and the question
may be another one than the one read: the reading is confirmed before a verdict is stated. Set
as a prior — a sentence or two of the question not understood — not fitted on the corpus."""


def confirm_question(left: list[str]) -> str:
    """The question asked when many words were left unread: is the reading above the
    question?"""
    said = "; ".join(f"'{w}'" for w in left[:8]) + ("; …" if len(left) > 8 else "")
    return (
        f"I could not place {said}. Is the reading above your question? If those words change "
        "it, say how (a figure with its unit, the GPU, the model, what you want to know)."
    )


ASKED_QUESTION = (
    "What would you like to know: whether it fits (on which GPU), the memory it needs, how "
    "many GPUs, the speed, or the cost? The figures above are for what I read."
)
"""The question asked when a question asks something whose kind was not read."""
