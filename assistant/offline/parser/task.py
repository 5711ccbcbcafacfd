"""The task (inference, LoRA, QLoRA, full fine-tune, serving a fine-tune) and the number
formats it runs in: weights precision, KV-cache dtype, and QLoRA's NF4 base."""

from __future__ import annotations

import re
from typing import cast

from assistant.offline import vocab
from assistant.offline.parser.exl2 import EXLLAMAV2_SAID, read_exl2_rate
from assistant.offline.parser.text import Text
from assistant.reading.parsed import ParsedWorkload, Task, Use
from assistant.regex_cache import compiled
from tools.errors import ToolInputError
from tools.memory import normalize_format
from tools.memory.formats import WEIGHT_FORMATS
from tools.memory.kv_cache import kv_cache_bytes_per_element

LLAMA_CPP_SAID = (
    r"\bllama[\s.-]?cpp\b|\bllama[\s-](?:server|cli|bench)\b|\bollama\b|\bgguf\b"
    r"|\blm\s?studio\b|\bkobold\.?cpp\b"
)
"""llama.cpp, a program that runs it, or its file format named: its cache words are its own."""
_GGML_CACHE = r"(q8_0|q4_0|q4_1|q5_0|q5_1|iq4_nl)"
_KV = r"(?:kv|k/v|k\s?&\s?v|context)[\s-]?cache"
_GGML_CACHE_SAID = (
    # flags and settings: '-ctk q8_0', '--cache-type-v=q4_0', 'OLLAMA_KV_CACHE_TYPE=q8_0',
    # the load log's "type_k = 'q8_0'"
    rf"(?:(?<![\w-])-ct[kv]|--cache-type-[kv]|\bcache[_-]type[_-]?[kv]?|\btype_[kv]"
    rf"|\bollama_kv_cache_type)\s*[=:]?\s*['\"]?{_GGML_CACHE}\b"
    # words: 'q8_0 KV cache', 'KV cache q4_0', 'kv cache quantized to q8_0'
    rf"|\b{_GGML_CACHE}\s+(?:quanti[sz]ed\s+)?(?:{_KV}|kv\b|cache\b)"
    rf"|\b{_KV}(?:\s+type)?\s*(?:(?:is|was)\s+)?(?:quanti[sz]ed\s+)?(?:in|at|as|of|to|=|:)?"
    rf"\s*\(?{_GGML_CACHE}\b"
)
_BITS_CACHE_SAID = (
    # with llama.cpp / Ollama named: 'q8 KV cache', '4-bit kv cache', 'KV cache at 8 bit'
    rf"\b(?:q([48])|([48])[\s-]?bits?)\s+(?:quanti[sz]ed\s+)?(?:{_KV}|kv\b|cache\b)"
    rf"|\b{_KV}\s*(?:(?:is|was)\s+)?(?:quanti[sz]ed\s+)?(?:in|at|as|to)?\s*"
    rf"(?:q([48])|([48])[\s-]?bits?)\b(?![._]\d)"
)


def extract_llama_cpp_cache(t: Text, p: ParsedWorkload) -> None:
    """llama.cpp's KV-cache type → kv_dtype q8_0 / q4_0 / …: its flags and settings anywhere
    ('-ctk q8_0', 'OLLAMA_KV_CACHE_TYPE=q4_0', 'q8_0 KV cache'), and the plain bits ('q8 KV
    cache', '4-bit cache') when llama.cpp, Ollama or a GGUF is named and ExLlamaV2 is not.
    Before the precision reader, so a cache type is never read as the weights' format. K and
    V of different types are sized at the larger, said."""
    said = [next(g for g in m.groups() if g).lower() for m in t.each(_GGML_CACHE_SAID)]
    local = compiled(LLAMA_CPP_SAID, re.I).search(t.original)
    if local and not compiled(EXLLAMAV2_SAID, re.I).search(t.original):
        said += [f"q{next(g for g in m.groups() if g)}_0" for m in t.each(_BITS_CACHE_SAID)]
    if not said or p.kv_dtype is not None:
        return
    kinds = sorted(set(said), key=lambda k: -kv_cache_bytes_per_element(k))
    p.kv_dtype = kinds[0]
    if len(kinds) > 1:
        p.notes.append(
            f"KV cache: K and V said as {' and '.join(kinds)}; sized at {kinds[0]}, the larger "
            "(gpu-sizer sizes one cache type for both)."
        )


def extract_kv_dtype(t: Text, p: ParsedWorkload) -> None:
    """The KV-cache dtype ('fp8 KV cache', 'KV cache in int8'; '8-bit' → fp8, '16-bit' → bf16)."""
    dtype = r"(fp8|int8|fp16|bf16|8[\s-]?bit|16[\s-]?bit)"
    for m in t.each(rf"{dtype}\s+kv(?:[\s-]?cache)?|kv[\s-]?cache\s+(?:in|at|as|of)?\s*{dtype}"):
        word = (m.group(1) or m.group(2)).lower().replace(" ", "").replace("-", "")
        p.kv_dtype = {"8bit": "fp8", "16bit": "bf16"}.get(word, word)


def extract_precision(t: Text, p: ParsedWorkload) -> None:
    """The weights' number format (`vocab.PRECISIONS`; the first read is kept, with its note)."""
    # A format read before this extractor (an Ollama tag's, an EXL2 repo name's) is one named.
    named: dict[str, str] = {} if p.weights is None else {p.weights: p.weights}
    read_exl2_rate(t, p, named)
    for m in t.each(_NO_SUCH_BITS):
        # '3bit GPTQ', '2-bit quant': a bit width no format the tools size has — read as
        # neither 4- nor 8-bit, asked.
        said = m.group(0).strip()
        p.unplaced.append(said)
        p.ask(
            "weights",
            "unknown",
            f"'{said}': gpu-sizer sizes 4-bit (AWQ, GPTQ, NF4, GGUF Q4_K_M …), 8-bit and the "
            "GGUF types (Q2_K, Q3_K_M, Q5_K_M, Q6_K …): which format is it?",
            said,
        )
    for m in list(compiled(vocab.GGUF_TYPE, re.I).finditer(t.work)):
        said = m.group(0).strip()
        fmt = gguf_type(said)
        t.consume(m.start(), m.end())
        if fmt is None:  # a llama.cpp type name the tools do not size: asked, never guessed
            p.unplaced.append(said)
            p.ask("weights", "unknown", f"'{said}': {_GGUF_ASK}", said)
            continue
        named.setdefault(fmt, said)
        if p.weights is None:
            p.weights = fmt
            if fmt.replace("_", "") != compiled(r"[\s_:-]").sub("", said.lower()).removeprefix(
                "gguf"
            ):
                # llama-quantize's aliases ('Q4_K' is Q4_K_M): the type sized is said.
                p.notes.append(f"'{said}' read as {fmt.upper()} (llama-quantize's alias)")
    for pattern, fmt, note in vocab.PRECISIONS:
        for m in t.each(pattern):
            if not compiled(r"\d+[\s-]?bits?", re.I).fullmatch(m.group(0).strip()):
                named.setdefault(fmt, m.group(0).strip())  # '4-bit nf4' names one format
            if p.weights is None:
                p.weights = fmt
                if note:
                    p.notes.append(note.format(text=m.group(0).strip()))
                if compiled(r"quanti[sz]ed", re.I).fullmatch(m.group(0).strip()):
                    # 'Quantized' says no bit width: 4-bit is a stated default reading of it,
                    # shown as assumed, never as what the question said.
                    p.assumed.append("weights")
                if compiled(r"full", re.I).match(m.group(0)):
                    # 'Full precision' is FP32 to some: that reading is sized beside.
                    p.alternative_weights = "fp32"
    if len(named) > 1 and p.weights is not None:
        _several_formats(p, named)
    p.notes += format_notes(p)


def _several_formats(p: ParsedWorkload, named: dict[str, str]) -> None:
    """Several weight formats named. Of one width ('compare AWQ and GPTQ'), one is sized and
    the note says which (QA round 4, 3); of other widths ('fp8 or int4?', 'tried fp16, will
    int4 fit?'), the verdict would differ with the one not sized, so which is asked."""
    others = {fmt: text for fmt, text in named.items() if fmt != p.weights}
    widths = {_nominal_bits(fmt) for fmt in named}
    if len(widths) > 1 and None not in widths:
        sized, rest = named[p.weights or ""], ", ".join(f"'{text}'" for text in others.values())
        p.ask(
            "weights",
            "ambiguous",
            f"'{sized}' and {rest} are both named, and the memory differs with each: which "
            "should I size? (Ask the other after.)",
            sized,
        )
        return
    listed = ", ".join(f"'{text}'" for text in others.values())
    p.notes.append(
        f"Several weight formats named: sized in '{named[p.weights or '']}' only (one format per "
        f"answer); ask again with {listed} alone to size it"
    )


def _nominal_bits(fmt: str) -> float | None:
    """A format's bits per weight as its name says them ('fp8' 8, 'int4-awq' 4, 'q4_k_m' 4,
    'exl2-6.5bpw' 6.5): what one more format named could change."""
    exl2 = compiled(r"^exl2-(\d+(?:\.\d+)?)bpw").match(fmt)
    if exl2 is not None:
        return float(exl2.group(1))
    digits = compiled(r"^(?:int|i?q|tq|nf|mxfp|fp|bf)(\d+)").match(fmt)
    return float(digits.group(1)) if digits else None


_GGUF_BY_LETTERS = {
    name.replace("_", ""): name
    for name in WEIGHT_FORMATS
    if name[:1] in "qit" and any(c.isdigit() for c in name)
}
"""'q4ks' → 'q4_k_s': the GGUF types the tools size, by their letters and digits alone."""


_GGUF_ASK = (
    "not a GGUF type gpu-sizer sizes (it sizes Q2_K … Q8_0, Q4_0/Q4_1/Q5_0/Q5_1, the K-quant "
    "S/M/L mixes, IQ1_S … IQ4_XS and TQ1_0/TQ2_0): which one is it?"
)


def gguf_type(said: str) -> str | None:
    """The GGUF type `said` names ('Q4_0', 'q5-k-s', 'IQ4_XS', 'gguf q6k'), or None for a
    name the tools do not size (left to the other precision words and the coverage gate)."""
    letters = compiled(r"[\s_:-]").sub("", said.lower()).removeprefix("gguf")
    if letters in _GGUF_BY_LETTERS:
        return _GGUF_BY_LETTERS[letters]
    try:  # llama-quantize's aliases ('Q4_K' is Q4_K_M), as `tools.memory.formats` reads them
        fmt = normalize_format(said)
    except ToolInputError:
        return None
    return fmt if fmt in _GGUF_BY_LETTERS.values() else None


_NO_SUCH_BITS = (
    r"(?<![\d.])[235-7](?:\.\d+)?[\s-]?bits?(?:\s+(?:gptq|awq|exl2|quant\w*))?\b"
    r"|\b(?:gptq|awq|exl2)[\s_-]?[235-7][\s-]?bits?\b"
)
"""A weight bit width the tools have no format for ('3bit gptq', '2.65bit', '5-bit quant'); the
GGUF types that carry their own name ('Q3_K_M') are read by `vocab.PRECISIONS`."""

FP8_WEIGHTS_ONLY = (
    "'fp8' read as fp8 weights; the KV cache stays bf16 (say 'fp8 KV cache' to size it in fp8)"
)


def format_notes(p: ParsedWorkload) -> list[str]:
    """Notes that follow from the formats as finally parsed, so a follow-up that changes them
    re-derives the note instead of inheriting a stale one (QA round 4, 7: 'and with fp8 KV
    cache?' kept "the KV cache stays bf16")."""
    if p.weights == "fp8" and p.kv_dtype is None:
        # vLLM's --quantization fp8 quantizes weights only; the KV cache needs its own
        # --kv-cache-dtype fp8, so an fp8 model said alone keeps a 16-bit cache.
        return [FP8_WEIGHTS_ONLY]
    return []


_INFERENCE_SAID = r"\binfer(?:ence|encing)?\b"
# The verbs of a training job: not 'LoRA' or 'fine-tunes' alone, which name adapters served.
_TRAINING_WORDS = r"\b(?:fine[\s-]?tun(?:e|ing)|finetun(?:e|ing)|train(?:ing)?|sft)\b"


def _two_tasks(t: Text, p: ParsedWorkload) -> None:
    """Inference and a fine-tune both asked ('can the 4090 load it for inference? and how much
    memory to fine-tune it?'): two sizings, and one would be answered as the other. Asked back
    which leads (a fine-tuned model to serve is one task: `serving-finetuned`)."""
    inference = compiled(_INFERENCE_SAID, re.I).search(t.original)
    training = compiled(_TRAINING_WORDS, re.I).search(t.original)
    finetuned = compiled(r"\bfine[\s-]?tuned\b", re.I).search(t.original)
    if inference and training and not finetuned:
        p.ask(
            "task",
            "ambiguous",
            f"'{inference.group(0)}' and '{training.group(0)}' are both said: which should I "
            "size — serving the model, or the fine-tune (LoRA, QLoRA or full)? Ask the other "
            "after.",
            training.group(0),
        )


_NOT_ADAPTERS = (
    r"\b(?:without|w/o|no|not\s+(?:using|with))\s+(?:peft[\s/-]*)?(?:q?lora|peft|adapters?)\b"
)


def _without_adapters(t: Text, p: ParsedWorkload) -> None:
    """'I want to try without PEFT LoRA': a fine-tune of every weight, said. 'With and without
    LoRA': both asked — which to size is asked (`_several_fine_tunes`)."""
    both = t.each(r"\bwith\s+and\s+without\s+(?:peft[\s/-]*)?(q?lora|peft|adapters?)\b")
    if both:
        said = both[0].group(0).strip()
        p.ask(
            "task",
            "ambiguous",
            f"'{said}': both are asked — which fine-tune should I size first, LoRA or full? "
            "(Ask the other after.)",
            said,
        )
        return
    if t.each(_NOT_ADAPTERS) and compiled(_TRAINING_WORDS, re.I).search(t.original):
        p.task, p.use = "full", p.use or "fine-tune"


def _several_fine_tunes(p: ParsedWorkload, fine_tunes: dict[str, str]) -> None:
    """'LoRA or full fine-tune?', 'QLoRA vs LoRA': the memory differs several-fold with each,
    so one sized would answer another question than the one asked — which is asked."""
    if len(fine_tunes) < 2:
        return
    said = " and ".join(f"'{words}'" for words in fine_tunes.values())
    p.ask(
        "task",
        "ambiguous",
        f"{said} are both said: which fine-tune should I size — LoRA, QLoRA or full? "
        "(Ask the other after.)",
        next(iter(fine_tunes.values())),
    )


def extract_task(t: Text, p: ParsedWorkload) -> None:
    """Task and use (`vocab.TASKS`): LoRA / QLoRA outrank a plain fine-tune; a QLoRA base
    said generically ('4-bit', 'NF4', or none) is then the paper's NF4 + double quantization."""
    _two_tasks(t, p)
    _without_adapters(t, p)
    fine_tunes: dict[str, str] = {}  # each kind of fine-tune said → its words
    for pattern, task, use in vocab.TASKS:
        kind = task  # as the pattern says it ('full?' a plain verb, reassigned below)
        for m in t.each(pattern):
            if kind in ("full", "lora", "qlora") and use == "fine-tune":
                fine_tunes.setdefault(kind, m.group(0).strip())
            if task == "serving-finetuned":
                p.task = p.task or "inference"
                continue
            assumed = task == "full?"
            task = "full" if assumed else task
            if p.task is not None:
                assumed = False  # read already, from more specific words
            if p.task is None or (p.task == "full" and task in ("lora", "qlora")):
                p.task = cast(Task, task)
            if use is not None and (p.use is None or p.use in ("serve", "fine-tune")):
                p.use = cast(Use, use)
            if assumed and p.task == "full":
                p.assumed.append("task")
                p.notes.append(
                    f"'{m.group(0).strip()}' without LoRA/QLoRA read as a full fine-tune "
                    "(LoRA and QLoRA need far less memory)"
                )
    _several_fine_tunes(p, fine_tunes)
    if p.task == "full" and "task" not in p.assumed:
        # The words that said it was full after the verb ('fine-tune … fully').
        t.each(vocab.ALL_PARAMETERS)
    if p.use == "pre-train":
        t.each(r"\bfrom\s+scratch\b")  # 'train a 1B model from scratch': read with the verb
    if p.task in ("lora", "qlora"):
        p.assumed = [f for f in p.assumed if f != "task"]
    if p.task == "qlora":
        _qlora_base(t, p)


# QLoRA (Dettmers et al. 2023, arXiv 2305.14314, §3) quantizes the base to NF4 *with double
# quantization*; the memory tool names that format for "qlora" (tools/memory/formats.py aliases),
# so the parser asks it rather than repeating the name.
QLORA_WEIGHTS = normalize_format("qlora")


def _qlora_base(t: Text, p: ParsedWorkload) -> None:
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
    elif p.weights in ("bf16", "fp16", "fp32"):
        # QLoRA's base is 4-bit by definition: a 16-bit type said beside it is the compute
        # dtype ('bf16 compute', bnb_4bit_compute_dtype), which the activations use.
        t.each(r"\bcompute(?:[\s_-]?(?:dtype|type|precision))?\b")
        p.notes.append(
            f"'{p.weights}' in a QLoRA request read as the compute dtype: the base is quantized "
            "to NF4 with double quantization, as in the QLoRA paper"
        )
    elif p.weights is not None:
        return
    else:
        # No format said: QLoRA's own base is a default of the task, shown as assumed.
        p.assumed.append("weights")
    p.weights = QLORA_WEIGHTS


_NO_DOUBLE_QUANT = compiled(
    r"\b(?:without|no|w/o|disable[ds]?)\s+(?:the\s+)?double[\s-]?quant", re.I
)
