"""Plain language → `ParsedWorkload`.

Extractors run in a fixed order over a working copy of the text; each one blanks out what it
consumed so a later, looser one cannot misread it ("8-bit Adam" is an optimizer before "8-bit"
can be a precision; "2B tokens" is training data before "2B" can be a model size). Whatever is
left that is not filler is reported in `unplaced`. No figures are computed here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from difflib import SequenceMatcher
from typing import Literal, cast

from assistant.offline import vocab
from assistant.offline.names import gpu_index, gpus_with_capacity, model_families, model_index
from assistant.offline.parsed import BudgetPeriod, GpuMention, ParsedWorkload, Task, Use
from assistant.offline.quantities import (
    NUMBER,
    QUANTITY,
    WORD_NUMBER,
    context_tokens_from,
    parse_quantity,
)
from tools.catalog import get_catalog, normalize_name
from tools.errors import closest_names
from tools.memory import normalize_format
from tools.units import GB, GiB

_Q = rf"({QUANTITY})"
_QW = rf"({QUANTITY}|\b(?:{WORD_NUMBER})\b)"
_I = re.IGNORECASE


class _Text:
    """The text being parsed, with consumed spans blanked out (same length as the original)."""

    def __init__(self, text: str) -> None:
        self.original = text
        self.work = text
        # "4 nodes of 8 H100s": nodes said, and whether the GPU count that follows is per node.
        self.nodes: int | None = None
        self.per_node = False
        self.nodes_text = ""

    def consume(self, start: int, end: int) -> None:
        self.work = self.work[:start] + " " * (end - start) + self.work[end:]

    def each(self, pattern: str, flags: int = _I) -> list[re.Match[str]]:
        """Matches of `pattern` in the unconsumed text, consumed as they are returned."""
        matches = list(re.finditer(pattern, self.work, flags))
        for m in matches:
            self.consume(m.start(), m.end())
        return matches


def _qty(text: str) -> float | None:
    return parse_quantity(text.replace(" ", ""))


def _int(text: str) -> int | None:
    value = _qty(text)
    return None if value is None or value <= 0 or value > 1e15 else round(value)


def _extract_hf_and_catalog_models(t: _Text, p: ParsedWorkload) -> None:
    for match in model_index().find(t.work):
        if p.model is None:
            p.model, p.model_text = match.id, t.original[match.start : match.end]
        elif match.id != p.model:
            p.notes.append(
                f"several models named; sized {p.model_text!r}, not "
                f"{t.original[match.start : match.end]!r}"
            )
        t.consume(match.start, match.end)
    # An org/name id that is not in the catalog: say so rather than guess a size.
    for m in t.each(r"(?<![\w/])[a-z][\w.\-]*/[\w.\-]*\d[\w.\-]*"):
        if p.model is None:
            p.questions.append(
                f"{m.group(0)!r} is not in the catalog: how many parameters does it have "
                "(e.g. '13B'), or where is its config.json?"
            )
            p.unplaced.append(m.group(0))


def _negative_numbers(t: _Text, p: ParsedWorkload) -> None:
    """'-5 users', '-7B': a count or size cannot be negative. Reading the digits alone would
    size 5 users silently, so the fragment is not read and the user is asked instead."""
    for m in t.each(rf"(?<![\w.\-])[-−]\s?({QUANTITY})(?:[\s-]*([a-z]+))?"):
        said = m.group(0).strip()
        p.unplaced.append(said)
        p.questions.append(
            f"'{said}' is negative: counts, sizes and lengths must be positive. Did you mean "
            f"'{said.lstrip('-−').strip()}'?"
        )


# A catalog name this close (difflib ratio, 0–1) to a fragment is what the user meant to write:
# 'lama 3.1 70b' → 0.96 to llama-3.1-70b, 'llama3.1-70' → 0.96; unrelated names ('falcon 40b')
# score under 0.5 against every catalog entry.
_NEAR_MISS_RATIO = 0.8


def _near_miss_models(t: _Text, p: ParsedWorkload) -> None:
    """A misspelled catalog model ('lama 3.1 70b', 'llama3.1-70') becomes a question with the
    closest catalog names, not a silent generic model of the size it happens to contain."""
    if p.model is not None or any("catalog" in q for q in p.questions):
        return
    catalog = get_catalog()
    keys = {
        normalize_name(form): entry.id
        for entry in catalog.models.values()
        for form in (entry.id, entry.name, *entry.aliases)
    }
    tokens = [w.strip(".,;:!?()[]{}\"'`") for w in t.original.split()]
    best: tuple[float, str] | None = None
    for i, first in enumerate(tokens):
        if not re.match(r"[a-z]", first, _I) or first.lower() in vocab.FILLER:
            continue
        for size in (1, 2, 3):
            window = tokens[i : i + size]
            if len(window) < size or any(w.lower() in vocab.FILLER for w in window):
                break
            text = " ".join(window)
            key = normalize_name(text)
            if not re.search(r"\d", key) or not re.search(r"[a-z]{3}", key):
                continue
            ratio = max(SequenceMatcher(None, key, known).ratio() for known in keys)
            if ratio >= _NEAR_MISS_RATIO and (best is None or ratio > best[0]):
                best = (ratio, text)
    if best is None:
        return
    near = [catalog.models[i].name for i in closest_names(normalize_name(best[1]), catalog.models)]
    p.questions.insert(
        0,
        f"'{best[1]}' is not a catalog model name. Did you mean {' or '.join(near)}? Give the "
        "catalog name (gpu-sizer models lists them), or a bare size such as '70B' for a "
        "generic model.",
    )


def _extract_kv_dtype(t: _Text, p: ParsedWorkload) -> None:
    dtype = r"(fp8|int8|fp16|bf16|8[\s-]?bit|16[\s-]?bit)"
    for m in t.each(rf"{dtype}\s+kv(?:[\s-]?cache)?|kv[\s-]?cache\s+(?:in|at|as|of)?\s*{dtype}"):
        word = (m.group(1) or m.group(2)).lower().replace(" ", "").replace("-", "")
        p.kv_dtype = {"8bit": "fp8", "16bit": "bf16"}.get(word, word)


def _extract_optimizer(t: _Text, p: ParsedWorkload) -> None:
    for pattern, name in vocab.OPTIMIZERS:
        if t.each(pattern):
            p.optimizer = p.optimizer or name


def _extract_training_data(t: _Text, p: ParsedWorkload) -> None:
    examples = r"(?:examples|samples|rows|records|instructions|pairs|dialogues|conversations)"
    # "100k sequences of 2k tokens" is a dataset too (examples × tokens each), unless it is a
    # batch ("a batch of 8 sequences of 4k tokens", read with the sequence length).
    for m in re.finditer(
        rf"{_Q}\s+(?:{examples}|sequences)\s*(?:of|with|averaging|at|each of|,)?"
        rf"\s*(?:about|around|~|roughly)?\s*{_Q}[\s-]*tokens?(?:\s+each)?",
        t.work,
        _I,
    ):
        if "batch" in t.work[max(0, m.start() - 24) : m.start()].lower():
            continue
        t.consume(m.start(), m.end())
        p.train_examples = _int(m.group(1))
        p.tokens_per_example, note = context_tokens_from(m.group(2).replace(" ", ""))
        if note:
            p.notes.append(note)
    for m in t.each(rf"{_Q}\s+(?:training\s+)?{examples}"):
        p.train_examples = _int(m.group(1))
    for m in t.each(rf"{_QW}\s+epochs?"):
        p.epochs = _qty(m.group(1))
    # Large token counts are datasets, not prompts; 10M tokens is far beyond any context window.
    for m in re.finditer(rf"{_Q}\s*(?:training\s+)?tokens?\b", t.work, _I):
        value = _qty(m.group(1))
        if value is not None and value >= 1e7:
            p.train_tokens = value
            t.consume(m.start(), m.end())


def _extract_throughput_and_latency(t: _Text, p: ParsedWorkload) -> None:
    ttft = r"(?:ttft|time[\s-]to[\s-]first[\s-]token|first[\s-]token(?:\s+latency)?)"
    bound = r"(?:\s*(?:of|under|below|<=?|≤|within|in|less\s+than|at\s+most|max(?:imum)?|:|=|is|"
    bound += r"around|about|~))*"
    unit = r"(ms|msec|milliseconds?|s|secs?|seconds?)\b"
    for m in t.each(rf"{ttft}{bound}\s*({NUMBER})\s*{unit}"):
        p.ttft_s = _seconds(m.group(1), m.group(2))
    for m in t.each(rf"({NUMBER})\s*{unit}\s*(?:of\s+)?{ttft}"):
        p.ttft_s = _seconds(m.group(1), m.group(2))
    per_user = (
        r"(\s*(?:per|/|for\s+each|each|a)\s*(?:user|request|sequence|stream|session|person))?"
    )
    # A qualifier may also follow the rate ("500 tokens/s aggregate throughput").
    after = r"((?:\s+(?:in\s+)?(?:aggregate|total|overall|combined))?(?:\s+throughput)?)"
    rate = rf"{_Q}\s*(?:output\s+)?(?:tokens?|toks?)\s*(?:/|per|a)\s*(?:s|sec|second)\b{per_user}"
    for m in t.each(rate + after):
        value = _qty(m.group(1))
        before = t.original[max(0, m.start() - 40) : m.start()].lower() + m.group(3).lower()
        if m.group(2) or "each" in before or "per user" in before:
            p.tokens_per_s_per_user = value
        elif re.search(r"aggregate|total|overall|throughput|combined", before) or (
            value is not None and value >= 500
        ):
            p.tokens_per_s = value
        else:
            p.tokens_per_s_per_user = value
            p.notes.append(f"{m.group(0).strip()!r} read as the speed each user sees")
    for m in t.each(
        rf"({NUMBER})\s*ms\s*(?:per|/|a)\s*(?:output\s+)?token|(?:itl|tpot|inter[\s-]token"
        rf"(?:\s+latency)?){bound}\s*({NUMBER})\s*ms"
    ):
        ms = float(m.group(1) or m.group(2))
        if ms > 0:
            p.tokens_per_s_per_user = 1000.0 / ms


def _seconds(number: str, unit: str) -> float:
    value = float(number.replace(",", ""))
    return value / 1000.0 if unit.lower().startswith("m") else value


def _extract_budget(t: _Text, p: ParsedWorkload) -> None:
    period = r"(?:\s*(?:/|per|a|an|each|every)\s*(month|mo|hour|hr|h|day|year|yr))?"
    sym = {"$": "USD", "€": "EUR", "£": "GBP"}
    words = {"usd": "USD", "dollars": "USD", "eur": "EUR", "euros": "EUR", "gbp": "GBP"}
    matches = [(m, sym[m.group(1)]) for m in t.each(rf"([$€£])\s*{_Q}{period}")]
    matches += [
        (m, words[m.group(2).lower()])
        for m in t.each(rf"{_Q}\s*(usd|dollars|eur|euros|gbp){period}")
    ]
    for m, currency in matches:
        amount_text = m.group(2) if m.group(1) in sym else m.group(1)
        p.budget_amount = _qty(amount_text)
        p.budget_currency = currency
        word = (m.group(3) or "").lower()
        periods: dict[str, BudgetPeriod] = {
            "month": "month",
            "mo": "month",
            "hour": "hour",
            "hr": "hour",
            "h": "hour",
            "day": "day",
            "year": "year",
            "yr": "year",
        }
        p.budget_period = periods.get(word, "total")


def _extract_deadline(t: _Text, p: ParsedWorkload) -> None:
    lead = r"(?:in|within|under|by|over|in\s+under|less\s+than|no\s+more\s+than|at\s+most|"
    lead += r"deadline(?:\s+(?:of|is|in|within|under))?\s*[:=]?)"
    hours = {"h": 1.0, "hr": 1.0, "hrs": 1.0, "hour": 1.0, "hours": 1.0, "day": 24.0}
    hours |= {"days": 24.0, "week": 168.0, "weeks": 168.0, "month": 730.0, "months": 730.0}
    for m in t.each(rf"\b{lead}\s*{_QW}\s*(h|hrs?|hours?|days?|weeks?|months?)\b"):
        value = _qty(m.group(1))
        if value is not None:
            p.deadline_hours = value * hours[m.group(2).lower()]


def _extract_zero(t: _Text, p: ParsedWorkload) -> None:
    """'with ZeRO-3', 'ZeRO stage 2', 'DeepSpeed ZeRO-2', 'FSDP' (full shard = stage 3)."""
    for pattern, stage, note in vocab.ZERO_STAGES:
        for m in t.each(pattern):
            said = stage if stage is not None else int(m.group(1))
            p.zero = cast(Literal[0, 1, 2, 3], said)
            if note:
                p.notes.append(note.format(text=m.group(0).strip()))


_NODE = r"(?:nodes?|servers?|machines?|hosts?|boxes)"


def _extract_nodes(t: _Text, p: ParsedWorkload) -> None:
    """Node counts, read before the GPUs so the GPU count can be scaled: '4 nodes of 8 H100s'
    and '2 nodes × 8 GPUs' are per-node counts (32 and 16 GPUs); '32 H100s across 4 servers'
    is already the total; '8 H100s per node' with '4 nodes' elsewhere is 32."""
    for m in t.each(rf"(?<![\w.]){_QW}\s+{_NODE}\s*(?:of|with|x|×|\*|,\s*each\s+with)\s*"):
        t.nodes, t.per_node, t.nodes_text = _int(m.group(1)), True, m.group(0).strip()
    for m in t.each(rf"\b(?:across|over|on|in|spread\s+over)\s+{_QW}\s+{_NODE}\b"):
        t.nodes, t.nodes_text = _int(m.group(1)), m.group(0).strip()
    if t.each(r"\b(?:per|each|a|in\s+each|on\s+each)\s+(?:node|server|machine|host|box)\b"):
        t.per_node = True
    for m in t.each(rf"(?<![\w.]){_QW}\s+{_NODE}\b"):
        t.nodes, t.nodes_text = _int(m.group(1)), m.group(0).strip()


def _apply_nodes(t: _Text, p: ParsedWorkload) -> None:
    """Scale a per-node GPU count by the nodes said, and say how the count was read."""
    if t.nodes is None or (t.nodes == 1 and t.per_node):
        return  # one node of N GPUs is N GPUs: nothing to scale
    mention = next((m for m in p.gpus if m.count is not None), None)
    per_node = mention.count if mention is not None else p.gpu_count
    if per_node is None:
        p.notes.append(f"'{t.nodes_text}' said without GPUs per node: sized without a count")
        return
    if not t.per_node:
        p.notes.append(f"'{t.nodes_text}': {per_node:,} GPUs read as the total over all nodes")
        return
    total = per_node * t.nodes
    if mention is not None:
        mention.count = total
    else:
        p.gpu_count = total
    p.notes.append(f"{t.nodes:,} nodes × {per_node:,} GPUs per node read as {total:,} GPUs in all")


def _extract_gpus(t: _Text, p: ParsedWorkload) -> None:
    count_before = re.compile(
        rf"(?:\b({NUMBER})\s*(?:x|×|\*)?|\b({WORD_NUMBER}))\s*(?:nvidia\s+|amd\s+)?$", _I
    )
    count_after = re.compile(r"^(?:'?s)?\s*(?:x|×|\*)\s*(\d+)\b", _I)
    found = gpu_index().find(t.work)
    for match in found:
        count: int | None = None
        start, end = match.start, match.end
        before = count_before.search(t.work[max(0, start - 12) : start])
        if before:
            count = _int(before.group(1) or before.group(2))
            start -= len(before.group(0))
        after = count_after.match(t.work[end : end + 8])
        if after:
            count = _int(after.group(1))
            end += len(after.group(0))
        text = t.original[match.start : match.end].strip()
        variants = list(match.variants)
        p.gpus.append(GpuMention(gpu=match.id, text=text, count=count, variants=variants))
        if match.id is not None and variants:
            name = get_catalog().gpus[match.id].name
            others = ", ".join(v for v in variants if v != match.id)
            p.notes.append(f"'{text}' read as {name} (catalog default; also: {others})")
        t.consume(start, end)
    for m in t.each(r"\b(?:vs\.?|versus|compared?\s+(?:to|with)|or)\b"):
        p.compare = p.compare or len(p.gpus) > 1 or "v" in m.group(0).lower()


def _extract_gpu_generic(t: _Text, p: ParsedWorkload) -> None:
    consumer = r"(?:(?P<{}>consumer|gaming|desktop|geforce)[\s-]+)?"
    mem = (
        r"(?:(?P<mem>{NUMBER})\s*(?P<unit>gb|gib|g)[\s-]+(?:of\s+)?(?:vram\s+|memory\s+|hbm\s+)?)?"
    )
    mem = mem.replace("{NUMBER}", NUMBER)
    gpu_word = r"(?:gpus?|cards?|accelerators?|devices?)"
    if t.each(r"\bmulti[\s-]?(?:gpu|node|card)s?\b"):
        p.multi_gpu = True
    described: list[str] = []
    for m in t.each(
        rf"{_QW}?\s*(?:x\s*)?{consumer.format('pre')}{mem}{consumer.format('post')}{gpu_word}\b"
    ):
        if m.group(1):
            p.gpu_count = _int(m.group(1))
        if m.group("mem"):
            p.gpu_memory_bytes = _memory_bytes(m.group("mem"), m.group("unit"))
        if m.group("pre") or m.group("post"):
            p.consumer_gpu = True
        if m.group("mem") or m.group("pre") or m.group("post"):
            described.append(m.group(0).strip())
    for m in t.each(
        rf"{gpu_word}\s+with\s+({NUMBER})\s*(gb|gib)\b|\b({NUMBER})\s*(gb|gib)\s+(?:of\s+)?vram\b"
    ):
        p.gpu_memory_bytes = _memory_bytes(m.group(1) or m.group(3), m.group(2) or m.group(4))
        described.append(m.group(0).strip())
    if described and not p.gpus:
        _note_described_gpus(p, described[-1])
    if t.each(r"\b(?:nvlink|sxm|nvswitch)\b"):
        p.interconnects.append("nvlink")
    if t.each(r"\bpcie\b|\bpci[\s-]express\b"):
        p.interconnects.append("pcie")
    if "pcie" in p.interconnects and "nvlink" in p.interconnects:
        p.compare = True


def _memory_bytes(number: str, unit: str) -> int:
    return round(float(number.replace(",", "")) * (GiB if unit.lower() == "gib" else GB))


def _note_described_gpus(p: ParsedWorkload, text: str) -> None:
    """Say which catalog GPUs 'a 24 GB consumer card' stands for (the planner sizes those)."""
    size = "" if p.gpu_memory_bytes is None else f" with {p.gpu_memory_bytes / GB:g} GB (marketed)"
    matches = gpus_with_capacity(p.gpu_memory_bytes, consumer=p.consumer_gpu)
    if not matches and p.consumer_gpu and p.gpu_memory_bytes is not None:
        p.consumer_gpu = False
        matches = gpus_with_capacity(p.gpu_memory_bytes)
        if matches:
            p.notes.append(f"no consumer GPU in the catalog is sold{size}")
    if not matches:
        p.notes.append(
            f"'{text}': no catalog GPU is sold{size} (gpu-sizer gpus lists them); sized "
            "without a GPU constraint"
        )
        return
    kind = " consumer (GeForce-class)" if p.consumer_gpu else ""
    gpus = get_catalog().gpus
    names = ", ".join(gpus[gpu_id].name for gpu_id in matches)
    p.notes.append(f"'{text}' read as the catalog's{kind} GPUs{size}: {names}")


def _extract_precision(t: _Text, p: ParsedWorkload) -> None:
    for pattern, fmt, note in vocab.PRECISIONS:
        for m in t.each(pattern):
            if p.weights is None:
                p.weights = fmt
                if note:
                    p.notes.append(note.format(text=m.group(0).strip()))


def _extract_task(t: _Text, p: ParsedWorkload) -> None:
    for pattern, task, use in vocab.TASKS:
        for m in t.each(pattern):
            if task == "serving-finetuned":
                p.task = p.task or "inference"
                continue
            assumed = task == "full?"
            task = "full" if assumed else task
            if p.task is None or (p.task == "full" and task in ("lora", "qlora")):
                p.task = cast(Task, task)
            if use is not None and (p.use is None or p.use in ("serve", "fine-tune")):
                p.use = cast(Use, use)
            if assumed and p.task == "full":
                p.notes.append(
                    f"'{m.group(0).strip()}' without LoRA/QLoRA read as a full fine-tune "
                    "(LoRA and QLoRA need far less memory)"
                )
    if p.task == "qlora":
        _qlora_base(t, p)


# QLoRA (Dettmers et al. 2023, arXiv 2305.14314, §3) quantizes the base to NF4 *with double
# quantization*; the memory tool names that format for "qlora" (tools/memory/formats.py aliases),
# so the parser asks it rather than repeating the name.
QLORA_WEIGHTS = normalize_format("qlora")


def _qlora_base(t: _Text, p: ParsedWorkload) -> None:
    """A QLoRA base: a generic '4-bit' or 'NF4' is the paper's NF4 + double quantization;
    AWQ/GPTQ named, or 'without double quant', stay as written."""
    if "awq" in t.original.lower() or _NO_DOUBLE_QUANT.search(t.original):
        return
    if p.weights == "nf4":
        p.notes.append(
            "'NF4' in a QLoRA request read as NF4 with double quantization, as in the QLoRA "
            "paper (say 'without double quant' for plain NF4)"
        )
    elif p.weights == "int4-awq":
        p.notes = [n for n in p.notes if "AWQ" not in n]
    elif p.weights is not None:
        return
    p.weights = QLORA_WEIGHTS


_NO_DOUBLE_QUANT = re.compile(
    r"\b(?:without|no|w/o|disable[ds]?)\s+(?:the\s+)?double[\s-]?quant", _I
)


def _extract_context(t: _Text, p: ParsedWorkload) -> None:
    ctx = r"(?:context(?:[\s-]window|[\s-]length)?|ctx|window|sequence(?:[\s-]length)?s?|"
    ctx += r"seq(?:uence)?[\s-]?len(?:gth)?|max[\s-]len(?:gth)?)"
    doc = r"(?:documents?|docs?|prompts?|inputs?|contexts?|conversations?|files?|pages?|"
    doc += r"transcripts?|chats?|queries|sequences?)"
    for m in t.each(rf"{_Q}[\s-]*(?:tokens?[\s-]+)?(?:of\s+)?{ctx}\b"):
        _set_context(p, m.group(1))
    for m in t.each(
        rf"{ctx}\s*(?:length\s*)?(?:of|=|:|is|up\s+to|around|about)?\s*{_Q}\b(?:\s*tokens?)?"
    ):
        _set_context(p, m.group(1))
    prompt_context: int | None = None
    for m in t.each(rf"{_Q}[\s-]*tokens?[\s-]+(?:long\s+)?{doc}"):
        _set_context(p, m.group(1))
        if re.search(r"prompt|input|quer", m.group(0), _I):
            p.prompt_tokens = prompt_context = p.context
    for m in t.each(rf"(?:prompts?|inputs?)\s+(?:of|with|around|about|up\s+to)?\s*{_Q}\s*tokens?"):
        p.prompt_tokens = _length(p, m.group(1))
    for m in t.each(rf"{_Q}\s*(?:input|prompt)\s+tokens?"):
        p.prompt_tokens = _length(p, m.group(1))
    out = r"(?:output|generated|completion|new|response)"
    answers = r"(?:answers?|responses?|completions?|repl(?:y|ies)|generations?|outputs?)"
    for m in t.each(
        rf"{_Q}\s*{out}\s+tokens?"
        rf"|{_Q}[\s-]*tokens?[\s-]+(?:long\s+)?{answers}\b"
        rf"|(?:generat\w*|{answers})\s+(?:of\s+|up\s+to\s+)?(?:about\s+|around\s+|~\s*)?"
        rf"{_Q}\s*tokens?"
    ):
        p.output_tokens = _length(p, m.group(1) or m.group(2) or m.group(3))
    if prompt_context is not None and p.output_tokens is not None and p.context == prompt_context:
        # "2,000-token prompts and 500-token answers": the sequence is prompt + output, which
        # the tools add up themselves; a context equal to the prompt alone would undersize it.
        p.context = None
    _extract_bare_context(t, p)
    for m in t.each(rf"{_Q}[\s-]*tokens?\b"):
        _set_context(p, m.group(1))
    if t.each(r"\blong[\s-]*context\b|\blong\s+(?:documents?|prompts?)\b"):
        p.long_context = True


# What may follow a bare length ("at 8k, on an L40S"): punctuation, the end, or a joining word;
# "at 8k steps" is not a context.
_AFTER_BARE_LENGTH = (
    r"(?=\s*(?:[,.;:!?)\]]|$|(?:and|on|for|with|in|using|via|across|over|to|at|of|or|but|"
    r"please|what|which|how|is|would|could|can|will)\b))"
)


def _extract_bare_context(t: _Text, p: ParsedWorkload) -> None:
    """'batch 64 of Qwen2.5 7B at 8k', 'Llama 3.1 8B with 32k': a bare token length after 'at'
    / 'with' is the context. Only 'Nk' or a plain power of two ≥ 512 (how windows are written:
    4096, 8192) is read so; other bare numbers stay unplaced rather than guessed."""
    for m in re.finditer(
        rf"\b(?:at|with|@)\s+({NUMBER}\s?k|\d{{3,7}})\b{_AFTER_BARE_LENGTH}", t.work, _I
    ):
        text = m.group(1).replace(" ", "")
        tokens, note = context_tokens_from(text)
        plain = not text.lower().endswith("k")
        if plain and (tokens < 512 or tokens & (tokens - 1)):
            continue
        t.consume(m.start(), m.end())
        p.context = tokens
        how = " (binary k, as model cards)" if note else ""
        p.notes.append(
            f"'{m.group(0).strip()}' read as the context: {tokens:,} tokens per sequence{how}"
        )


def _length(p: ParsedWorkload, text: str) -> int:
    """Tokens of a prompt/answer length, the same 'Nk' rule as a context, the reading noted."""
    tokens, note = context_tokens_from(text.replace(" ", ""))
    if note:
        p.notes.append(note)
    return tokens


def _set_context(p: ParsedWorkload, text: str) -> None:
    try:
        tokens, note = context_tokens_from(text.replace(" ", ""))
    except ValueError:
        return
    if tokens <= 0:
        return
    p.context = tokens
    if note:
        p.notes.append(note)


_BATCH = r"\b(?:micro[\s-]?|global[\s-]|per[\s-]gpu[\s-])?batch(?:[\s-]?size)?"


def _task_said(text: str) -> Task | None:
    """The task the words say, read ahead of the task extractor (nothing consumed)."""
    preview = ParsedWorkload()
    _extract_task(_Text(text), preview)
    return preview.task


def _extract_training_sequence_length(t: _Text, p: ParsedWorkload) -> None:
    """'4k sequences' in a training request is the sequence length, not 4,000 users.

    Training data is counted in examples or tokens and the batch in sequences per GPU, never
    in thousands, so a binary 'Nk' (4k, 8k: model-card window sizes) before 'sequences' can
    only be their length. '10k sequences' (not a power-of-two kilo) is left to be a count.
    """
    if _task_said(t.work) in (None, "inference"):
        return
    seqs = r"seq(?:uence)?s?"
    for m in t.each(
        rf"{_BATCH}\s*(?:of|=|:)?\s*{_Q}\s+{seqs}\s+(?:of|at|with)\s+{_Q}\b(?:[\s-]*tokens?)?"
    ):
        # "a batch of 8 sequences of 4k": the count is the batch, the size their length.
        p.batch = _int(m.group(1))
        _set_context(p, m.group(2))
    for m in re.finditer(rf"{_Q}[\s-]+{seqs}\b", t.work, _I):
        try:
            tokens, binary = context_tokens_from(m.group(1).replace(" ", ""))
        except ValueError:
            continue
        if binary is None:
            continue
        t.consume(m.start(), m.end())
        p.context = tokens
        p.notes.append(
            f"'{m.group(0).strip()}' read as the training sequence length: {tokens:,} tokens "
            "(binary k, as model cards), not a count of sequences"
        )


def _extract_concurrency(t: _Text, p: ParsedWorkload) -> None:
    adjectives = r"(?:(?:concurrent|simultaneous|parallel|active|daily|monthly|long[\s-]context|"
    adjectives += r"short|chat|rag|api|internal|external|different|total|peak|)\s+){0,3}"
    nouns = r"(?:users?|requests?|chats?|sessions?|conversations?|clients?|customers?|streams?|"
    nouns += r"sequences?|agents?|employees?|people|queries)"
    for m in t.each(rf"{_QW}\s+{adjectives}{nouns}\b"):
        value = _int(m.group(1))
        if value is None:
            continue
        p.users = value
        if re.search(r"long[\s-]context", m.group(0), _I):
            p.long_context = True
        if re.search(r"chat|conversation", m.group(0), _I):
            p.task, p.use = p.task or "inference", p.use or "chat"
        if re.search(r"daily|monthly|total", m.group(0), _I):
            p.notes.append(
                f"'{m.group(0).strip()}' read as {value:,} at the same time; peak concurrency is "
                "usually far lower, tell me if you know it"
            )
    for m in t.each(rf"{_QW}\s+(?:at\s+a\s+time|concurrently|in\s+parallel|at\s+once)"):
        p.users = _int(m.group(1))
    for m in t.each(rf"concurrency\s*(?:of|=|:)?\s*{_Q}"):
        p.users = _int(m.group(1))
    for m in t.each(rf"{_BATCH}\s*(?:of|=|:)?\s*{_Q}"):
        p.batch = _int(m.group(1))


def _extract_rank_and_flags(t: _Text, p: ParsedWorkload) -> None:
    for m in t.each(r"\b(?:lora\s+)?(?:rank|r)\s*(?:=|of|:)?\s*(\d+)\b(?!\s*(?:gb|b\b))"):
        p.lora_rank = int(m.group(1))
    if t.each(r"\b(?:without|no)\s+(?:gradient\s+|activation\s+)?checkpointing\b"):
        p.checkpointing = False
    if t.each(r"\b(?:gradient|activation)\s+checkpointing\b|\brecompute\b|\bcheckpointing\b"):
        p.checkpointing = True
    for pattern, engine, note in vocab.ENGINES:
        for m in t.each(pattern):
            p.engine = engine
            if note:
                p.notes.append(note.format(text=m.group(0).strip()))
    for pattern, objective in vocab.OBJECTIVES:
        if t.each(pattern):
            p.objective = objective
    for pattern, region in vocab.REGIONS:
        if t.each(pattern):
            p.region = region


def _extract_bare_size(t: _Text, p: ParsedWorkload) -> None:
    family = "|".join(sorted(vocab.FAMILY_WORDS, key=len, reverse=True))
    fam = rf"(?:\b({family})[\s\-]*(?:v?\d(?:\.\d)?)?[\s\-]*)?"
    unit = r"(b|bn|billion|m|million)"
    for m in t.each(rf"{fam}\b({NUMBER})\s*-?\s*{unit}(?![a-z])(?:[\s-]*param(?:eter)?s?)?"):
        scale = 1e9 if m.group(3).lower().startswith("b") else 1e6
        value = float(m.group(2).replace(",", "")) * scale
        if p.model is not None or value <= 0:
            continue
        if p.params is None:
            p.params = value
            p.model_text = m.group(0).strip()
    for m in t.each(r"\b(\d+)x(\d+(?:\.\d+)?)b\b"):
        p.unplaced.append(m.group(0))
        if not p.has_model:
            p.questions.append(
                f"'{m.group(0)}' looks like a mixture-of-experts model that is not in the "
                "catalog: which model is it (name or Hugging Face id)?"
            )


def _family_questions(t: _Text, p: ParsedWorkload) -> None:
    """'Llama 3.1' or 'Mixtral' with no size: ask which one, listing the catalog's."""
    if p.has_model:
        return
    families = model_families()
    catalog = get_catalog()
    for word in re.findall(r"[a-z]+", t.work.lower()):
        if word in families:
            names = ", ".join(catalog.models[i].name for i in families[word])
            p.questions.append(f"Which {word.capitalize()} model? The catalog has: {names}.")
            t.work = re.sub(rf"\b{word}\b[\s\-]*(?:\d(?:\.\d)?)?", " ", t.work, flags=_I)
            return


# GPU-looking names left after the catalog look-up: "RTX 3090", "V100", "T4", "MI250X".
_GPU_LIKE = (
    r"\b(?:(?:nvidia|amd|geforce|rtx|gtx|titan|quadro|tesla|radeon|instinct)[\s-]*)+"
    r"[a-z]{0,3}[\s-]?\d{2,5}[a-z]{0,4}\b(?:[\s-]?(?:ti|super|ada|pcie|sxm\d?))?"
    r"|\b(?:a|h|l|v|p|k|b|gh|gb|mi)\d{2,4}[a-z]{0,3}\b|\bt4\b"
)


def _unknown_gpus(t: _Text, p: ParsedWorkload) -> None:
    """A GPU name the catalog lacks changes the verdict: ask which catalog GPU to size on."""
    gpus = get_catalog().gpus
    for m in t.each(_GPU_LIKE):
        text = m.group(0).strip()
        p.unplaced.append(text)
        key = re.sub(r"[\s_]+", "-", text.lower()).removeprefix("nvidia-")
        near = closest_names(key, list(gpus))
        hint = f" Closest in the catalog: {', '.join(near)}." if near else ""
        p.questions.append(
            f"'{text}' is not in the GPU catalog (gpu-sizer gpus lists it): which catalog GPU "
            f"should I size on?{hint}"
        )


def _unplaced(t: _Text, p: ParsedWorkload) -> None:
    fragment: list[str] = []
    for token in re.findall(r"[^\s]+", t.work):
        word = token.strip(".,;:!?()[]{}\"'`").lower()
        if not word or word in vocab.FILLER or not re.search(r"[a-z0-9]", word):
            if fragment:
                p.unplaced.append(" ".join(fragment))
                fragment = []
            continue
        fragment.append(token.strip(".,;:!?()[]{}\"'`"))
    if fragment:
        p.unplaced.append(" ".join(fragment))


def _extract_cost_per_token(t: _Text, p: ParsedWorkload) -> None:
    if t.each(vocab.COST_PER_TOKEN):
        p.objective = "cheapest"


_EXTRACTORS: tuple[Callable[[_Text, ParsedWorkload], None], ...] = (
    _extract_hf_and_catalog_models,
    _negative_numbers,
    _extract_cost_per_token,
    _extract_budget,
    _extract_kv_dtype,
    _extract_optimizer,
    _extract_training_data,
    _extract_throughput_and_latency,
    _extract_deadline,
    _extract_zero,
    _extract_nodes,
    _extract_gpus,
    _extract_gpu_generic,
    _apply_nodes,
    _extract_precision,
    _extract_training_sequence_length,
    _extract_concurrency,
    _extract_task,
    _extract_context,
    _extract_rank_and_flags,
    _extract_bare_size,
    _near_miss_models,
    _family_questions,
    _unknown_gpus,
    _unplaced,
)

# Fields a follow-up turn inherits from the previous workload when it does not restate them.
_INHERITED = tuple(
    name
    for name in ParsedWorkload.model_fields
    if name not in ("text", "notes", "questions", "unplaced", "model", "model_text", "params")
)


def _power_of_ten(m: re.Match[str]) -> str:
    mantissa, exponent = m.group(1) or "1", int(m.group(2))
    if exponent > 15:
        return m.group(0)  # beyond any count the tools accept: left for `unplaced`
    value = float(mantissa.replace(",", "")) * 10**exponent
    return f"{value:.0f}" if value.is_integer() else m.group(0)


def _normalise(text: str) -> str:
    """Spellings the extractors would misread, rewritten before parsing: "8xH100" → "8x H100"
    (the GPU name must start a word), "10^9" / "1e9" / "2×10^6" → plain digits (else "10^9
    users" reads as 9 users)."""
    text = re.sub(r"(?<![\w.])(\d+)\s*([x×])(?=[a-z])", r"\1\2 ", text, flags=_I)
    text = re.sub(
        r"(?<![\w.])(?:(\d[\d,]*(?:\.\d+)?)\s*(?:[x×*]\s*10\s*\^|e)|10\s*\^)\s*(\d{1,3})\b",
        _power_of_ten,
        text,
        flags=_I,
    )
    return text


def parse_workload(text: str, previous: ParsedWorkload | None = None) -> ParsedWorkload:
    """Parse a sizing request. With `previous`, the text refines it ("what about 8-bit?").

    Never raises on any input text; what cannot be placed is listed in `unplaced`, missing
    verdict-changing facts in `questions`.
    """
    t = _Text(_normalise(text[:4000]))
    parsed = ParsedWorkload(text=text)
    for extract in _EXTRACTORS:
        extract(t, parsed)
    if parsed.train_tokens is None and parsed.train_examples and parsed.tokens_per_example:
        epochs = parsed.epochs or 1.0
        parsed.train_tokens = parsed.train_examples * parsed.tokens_per_example * epochs
    if previous is not None:
        parsed = _merge(previous, parsed)
    if not parsed.has_model and not any("model" in q for q in parsed.questions):
        parsed.questions.append(
            "Which model? Give a name (e.g. 'Llama 3.1 70B'), a Hugging Face id or a size "
            "such as '13B'."
        )
    if parsed.long_context and parsed.context is None and parsed.prompt_tokens is None:
        # "Long-context" with no size would be sized at the tools' short default context,
        # the opposite of what was said: the KV cache (and the verdict) scale with it.
        parsed.questions.append(
            "How long is the context per sequence, in tokens (e.g. '32k context' or '128k "
            "context')? 'Long-context' sets the KV cache, and so the verdict."
        )
    parsed.notes = list(dict.fromkeys(parsed.notes))
    return parsed


def _merge(previous: ParsedWorkload, new: ParsedWorkload) -> ParsedWorkload:
    data = new.model_dump()
    if not new.has_model and not any("catalog" in q for q in new.questions):
        data["model"], data["model_text"], data["params"] = (
            previous.model,
            previous.model_text,
            previous.params,
        )
        data["questions"] = [q for q in new.questions if not q.startswith("Which ")]
    blank = ParsedWorkload()
    for name in _INHERITED:
        if getattr(new, name) == getattr(blank, name):
            data[name] = getattr(previous, name)
    data["notes"] = [*previous.notes, *new.notes]
    return ParsedWorkload.model_validate(data)
