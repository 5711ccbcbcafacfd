"""EXL2 and ExLlamaV2 in a question: the rate and head bits a Hugging Face repo name or branch
carries ('LoneStriker/Llama-2-70b-4.65bpw-h6-exl2', '…-exl2:3.5bpw', '…-exl2-6_5'), a rate
said in words ('EXL2 4.65bpw', '5.0bit exl2', a bare '3.5bpw'), a bit width said with
ExLlamaV2 named ('4-bit on ExLlamaV2' is EXL2 at 4.0 bpw), and ExLlamaV2's Q4 / Q6 / Q8 cache
('cache_q4', '-cq4', 'Q4 cache')."""

from __future__ import annotations

import re

from assistant.offline import vocab
from assistant.offline.parser.text import Text
from assistant.reading.parsed import ParsedWorkload
from assistant.regex_cache import compiled
from tools.errors import ToolInputError
from tools.memory import normalize_format
from tools.memory.formats import exl2_bpw, exl2_head_rate

EXLLAMAV2_SAID = r"\bex[\s-]?llama[\s-]?v2(?:_hf)?\b|\bexl2\b|\btabby[\s-]?api\b"
"""ExLlamaV2, its format or its server named (not bare 'ExLlama': v1 loads GPTQ only), and
text-generation-webui's 'ExLlamav2_HF' loader."""

_EXL2_ASK = "EXL2 is made at 2.0 to 8.0 bits per weight, to two decimals: which rate is it?"


def _exl2_format(t: Text, p: ParsedWorkload, rate: str, head: str | None, said: str) -> str | None:
    """The canonical EXL2 name of `rate` (and `head` bits), or None with the question asked
    when ExLlamaV2 makes no such quant (never rounded)."""
    suffix = "" if head is None else f"-h{head}"
    try:
        return normalize_format(f"exl2-{rate}bpw{suffix}")
    except ToolInputError as err:
        p.unplaced.append(said)
        ask = _EXL2_ASK if head is None or "-hb" not in err.problem else err.problem
        p.ask("weights", "unknown", f"'{said}': {ask}", said)
        return None


# --- Repo names and branches -------------------------------------------------------------------

# A name with 'exl2' in it, no spaces: 'org/Model-4.65bpw-h6-exl2', 'Model-exl2:3.5bpw'.
_NAME = r"(?<![\w.:/@+-])[\w.:/@+-]*exl2[\w.:/@+-]*"
_NAME_RATE = r"(?<![\d.])(?<!exl)(?P<rate>\d(?:[._]\d{1,2})?)[-_]?bpw(?![a-z])"
# A branch after 'exl2' as bartowski names them: '6_5', '8_0', '4_25' (or '6.5').
_BRANCH_RATE = r"exl2[-_:@/](?P<rate>\d[._]\d{1,2})(?![\w.])"
_NAME_HEAD = r"(?<![a-z0-9])hb?[-_]?(?P<head>\d{1,2})(?![a-z0-9.])"
_JOINERS = "_:@-/"


def _consume_with_joiner(t: Text, start: int, end: int) -> None:
    """Consume `start:end` of a name with the joiner before it ('-4.65bpw'), so no '-' is left
    to read as a minus sign."""
    if start > 0 and t.work[start - 1] in _JOINERS:
        start -= 1
    t.consume(start, end)


# The branch said apart from the name, with EXL2 named: 'branch 4_25', 'revision 6.5bpw'.
_BRANCH_SAID = r"\b(?:branch|revision|rev)\s*[:=]?\s*(?P<rate>\d[._]\d{1,2})(?:[-_]?bpw)?(?![\w.])"


def extract_exl2_names(t: Text, p: ParsedWorkload) -> None:
    """An EXL2 repo name or branch: its rate ('4.65bpw', a branch '6_5' = 6.5) and head bits
    ('h8') → weights 'exl2-<bpw>bpw[-h<hb>]', consumed before the model readers take the name
    (the model part and the word 'exl2', for the engine reader, stay)."""
    for name in list(compiled(_NAME, re.I).finditer(t.work)):
        token = name.group(0)
        rate = compiled(_NAME_RATE, re.I).search(token)
        branch = rate is None
        if rate is None:
            rate = compiled(_BRANCH_RATE, re.I).search(token)
        if rate is None:
            continue
        for joiner in compiled(r"_(?=exl2)|(?<=exl2)_", re.I).finditer(token):
            # '…-v0.3_exl2_8.0bpw': 'exl2' made a word of its own for the engine reader.
            t.consume(name.start() + joiner.start(), name.start() + joiner.end())
        head = compiled(_NAME_HEAD, re.I).search(token)
        head_bits = None if head is None else head.group("head")
        fmt = _exl2_format(t, p, rate.group("rate").replace("_", "."), head_bits, token)
        _consume_with_joiner(t, name.start() + rate.start("rate"), name.start() + rate.end())
        if head is not None:
            _consume_with_joiner(t, name.start() + head.start(), name.start() + head.end())
        if fmt is None or p.weights is not None:
            continue
        p.weights = fmt
        if head is not None or branch or "_" in rate.group("rate"):
            # Read from a name, not said: the rate and head as the name gives them.
            p.notes.append(f"'{token}' read as {_in_words(fmt)}")
    if not compiled(r"\bexl2\b", re.I).search(t.original):
        return
    for m in t.each(_BRANCH_SAID):
        said = m.group(0).strip()
        fmt = _exl2_format(t, p, m.group("rate").replace("_", "."), None, said)
        if fmt is not None and p.weights is None:
            p.weights = fmt
            p.notes.append(f"'{said}' read as {_in_words(fmt)}")


def extract_exl2_name_rest(t: Text, p: ParsedWorkload) -> None:
    """The rest of an EXL2 repo name the model was read from ('turboderp/', '-instruct-'): part
    of the name, consumed, so it is never an unread word; 'exl2' stays for the engine reader."""
    if p.model is None or not p.model_text:
        return
    said = p.model_text.lower()
    for name in compiled(_NAME, re.I).finditer(t.original):
        if said not in name.group(0).lower():
            continue
        start = name.start()
        for word in compiled(r"exl2", re.I).finditer(name.group(0)):
            t.consume(start, name.start() + word.start())
            start = name.start() + word.end()
        t.consume(start, name.end())


def _in_words(fmt: str) -> str:
    """'exl2-4.65bpw-h8' → 'EXL2 at 4.65 bits per weight, output layer at -hb 8'."""
    return f"EXL2 at {exl2_bpw(fmt):g} bits per weight, output layer at -hb {exl2_head_rate(fmt)}"


# --- Rates said in words -----------------------------------------------------------------------

_RATE = r"(?<![\d.])(?P<rate>\d(?:\.\d+)?)"
_UNIT = r"(?P<unit>[\s-]?(?:bpw|bits?(?:[\s-]+per[\s-]+weight)?))"
_HEAD = r"(?:[\s_-]*hb?[\s_-]?(?P<head>\d{1,2})(?![\w.]))?"
_EXL2_RATES = (
    # 'EXL2 4.65bpw', 'exl2_4.65', 'EXL2 quant at 6.5 bits per weight', 'exl2 5bpw h8'.
    rf"\bexl2(?:[\s_-]+(?:quants?|quanti[sz]ed|model|weights|format))?(?:\s+at|\s*@|\s*,)?"
    rf"[\s_:-]*{_RATE}{_UNIT}?(?![\d.x]|\s*(?:gi?b|b\b|k\b|x\b)){_HEAD}",
    # '5.0bit exl2', '4.65bpw EXL2', '4.65bpw h8 exl2' (the head bits in a repo name).
    rf"{_RATE}{_UNIT}?[\s_-]*(?:hb?(?P<head>\d)[\s_-]*)?\(?exl2\b",
    # A rate in bits per weight alone: bpw is EXL2's unit in practice.
    rf"{_RATE}(?P<unit>[\s-]?(?:bpw|bits?[\s-]+per[\s-]+weight))\b{_HEAD}",
    # A fractional bit width ('2.65bit'): only EXL2 is made at one.
    r"(?<![\d.])(?P<rate>\d\.\d+)(?P<unit>[\s-]?bits?)\b",
)
_BARE_BPW_NOTES = (
    "'{text}' read as EXL2 (ExLlamaV2's quantization) at {rate} bits per weight: bits per "
    "weight is the unit EXL2 quants are named by; say the format if it is another",
    "'{text}' read as EXL2 (ExLlamaV2's quantization) at {rate} bits per weight: EXL2 is the "
    "format made at a fractional bit width; say the format if it is another",
)


def read_exl2_rate(t: Text, p: ParsedWorkload, named: dict[str, str]) -> None:
    """An EXL2 bit rate ('EXL2 4.65bpw', '5.0bit exl2', '4.0bpw' alone, with 'h8' after it)
    → weights 'exl2-<bpw>bpw[-h<hb>]'; then the head bits said apart ('-hb 8', 'an 8-bit
    head') and a bit width said with ExLlamaV2 named. The word 'EXL2' is left for the engine
    reader (engine exllamav2); a rate alone names no engine, and the memory tool sizes it for
    ExLlamaV2, said so; a rate ExLlamaV2 does not make (outside 2-8, over two decimals) is
    asked, never rounded."""
    gguf_said = compiled(vocab.GGUF_TYPE, re.I).search(t.work) is not None
    for index, pattern in enumerate(_EXL2_RATES):
        for m in list(compiled(pattern, re.I).finditer(t.work)):
            rate, unit, bare = m.group("rate"), m.group("unit"), index >= 2
            if bare and gguf_said:
                continue  # 'Q4_K_M is 4.85 bits per weight': the GGUF type's own rate
            if not unit and "." not in rate:
                continue  # 'EXL2 5': no unit, no decimal point — not surely a rate
            head = _group(m, "head")
            start = m.start("rate")
            while start > 0 and t.work[start - 1] in "_:@-":
                start -= 1  # 'exl2_4.0bpw': the joiner goes with the rate, 'exl2' stays a word
            end = m.end("head") if head else m.end("unit") if unit else m.end("rate")
            t.consume(start, max(end, m.end("rate")))
            said = m.group(0).strip()
            fmt = _exl2_format(t, p, rate, head, said)
            if fmt is None:
                continue
            named.setdefault(fmt, said)
            if p.weights is None:
                p.weights = fmt  # the engine follows in the memory tool: EXL2 is ExLlamaV2's
                if bare:
                    p.notes.append(_BARE_BPW_NOTES[index - 2].format(text=said, rate=rate))
    _head_bits_said(t, p)
    _width_with_exllamav2(t, p, named)


# '-hb 8', '--head_bits 8', 'head bits of 8', 'an 8-bit head', '8 bit lm_head', 'h8 head'.
_HEAD_SAID = (
    r"(?<![\w-])-{1,2}(?:hb|head[_-]bits)[\s=]*(?P<head>\d{1,2})\b"
    r"|\bhead[\s_-]bits?\s*(?:of|at|=|:)?\s*(?P<head2>\d{1,2})\b"
    r"|(?<![\d.])(?P<head3>\d{1,2})[\s-]?bits?\s+(?:output[\s-]layer|lm[\s_-]?head|head)\b"
)


def _head_bits_said(t: Text, p: ParsedWorkload) -> None:
    """Head bits said apart from the rate, read when the weights are EXL2 (and consumed then,
    so '8-bit head' is never 8-bit weights)."""
    if p.weights is None or exl2_bpw(p.weights) is None:
        return
    for m in t.each(_HEAD_SAID):
        head = m.group("head") or m.group("head2") or m.group("head3")
        fmt = _exl2_format(t, p, f"{exl2_bpw(p.weights):.2f}", head, m.group(0).strip())
        if fmt is not None:
            p.weights = fmt


_OTHER_FORMAT = (
    r"\b(?:gptq|awq|gguf|nf4|bnb|bitsandbytes|hqq|aqlm|marlin|fp8|int[48]|mxfp4|w4a16)\b"
)
_WIDTH = (
    r"(?<![\d.])(?P<rate>[2-8](?:\.\d{1,2})?)[\s-]?(?:bits?|bpw)\b"
    r"(?:[\s-]+(?:quant(?:s|ized|isation|ization)?|weights))?"
)
_WIDTH_NOTE = (
    "'{text}' with ExLlamaV2 named read as EXL2 at {rate} bits per weight (ExLlamaV2's own "
    "format; say GPTQ if it is a GPTQ model)"
)


def _width_with_exllamav2(t: Text, p: ParsedWorkload, named: dict[str, str]) -> None:
    """A bit width ('4-bit', '6bpw') with ExLlamaV2 / EXL2 / TabbyAPI named and no other
    format: an EXL2 rate, not 4-bit AWQ."""
    if p.weights is not None or not compiled(EXLLAMAV2_SAID, re.I).search(t.original):
        return
    if compiled(_OTHER_FORMAT, re.I).search(t.work) or compiled(vocab.GGUF_TYPE, re.I).search(
        t.work
    ):
        return
    for m in t.each(_WIDTH):
        said = m.group(0).strip()
        fmt = _exl2_format(t, p, m.group("rate"), None, said)
        if fmt is None or p.weights is not None:
            continue
        named.setdefault(fmt, said)
        p.weights = fmt
        p.notes.append(_WIDTH_NOTE.format(text=said, rate=f"{exl2_bpw(fmt):g}"))


# --- ExLlamaV2's quantized caches --------------------------------------------------------------

# Its own spellings, read wherever they appear: chat.py's '-cq4' / '--cache_q4' and '-c8' /
# '--cache_8bit' (FP8), 'cache_4bit', the classes 'ExLlamaV2Cache_Q4', TabbyAPI's 'cache_mode'.
_CACHE_FLAGS = (
    r"(?<![\w-])-{1,2}cq(?P<q>[468])\b"
    r"|(?<![\w-])-{0,2}cache[_-]q(?P<q2>[468])\b"
    r"|\bexllamav2cache_q(?P<q3>[468])\b"
    r"|\bcache[_\s-]?mode\s*[:=]?\s*[\"']?(?P<mode>q[468]|fp16)\b"
    r"|(?<![\w-])-{0,2}cache[_-](?P<bits>[48])[_-]?bit\b"
    r"|\bexllamav2cache_8bit\b"
)
# The words anyone writes, read as ExLlamaV2's cache when ExLlamaV2 / EXL2 is named: 'Q4 cache',
# 'Q6 KV cache', '4-bit cache', 'KV cache in Q8', 'cache at 4 bits'.
_CACHE_WORDS = (
    r"\b(?P<q>q[468])\s+(?:kv[\s-]?)?cache\b"
    r"|(?<![\d.])(?P<bits>[468])[\s-]?bits?\s+(?:kv[\s-]?)?cache\b"
    r"|\b(?:kv[\s-]?)?cache\s+(?:in|at|as|of|set\s+to)\s+(?:(?P<q2>q[468])\b|(?P<bits2>[468])"
    r"[\s-]?bits?\b)"
    r"|(?<![\w-])-c8\b"  # chat.py's '-c8': the FP8 cache, read only with ExLlamaV2 named
)


def _group(m: re.Match[str], name: str) -> str | None:
    """Group `name` of `m`, None when unmatched or when `m`'s pattern has no such group (the
    readers' patterns differ in their groups)."""
    return m.group(name) if name in m.re.groupindex else None


def _cache_dtype(m: re.Match[str]) -> str:
    """The kv_dtype a cache match names: q4 / q6 / q8, or fp8 for ExLlamaV2's 8-bit FP8 cache
    ('cache_8bit', '-c8', '8-bit cache'), fp16 for TabbyAPI's FP16 mode."""
    for key in ("q", "q2", "q3", "mode"):
        said = _group(m, key)
        if said:
            value = said.lower()
            return value if value.startswith("q") or value == "fp16" else f"q{value}"
    bits = _group(m, "bits") or _group(m, "bits2")
    if bits is None or bits == "8":
        return "fp8"  # ExLlamaV2Cache_8bit: "8-bit (FP8) cache" (examples/chat.py -c8)
    return f"q{bits}"


def extract_exllamav2_cache(t: Text, p: ParsedWorkload) -> None:
    """ExLlamaV2's Q4 / Q6 / Q8 (or FP8) KV cache → kv_dtype q4 / q6 / q8 (fp8): its flags and
    class names anywhere, the plain words ('Q4 cache', '4-bit cache') when ExLlamaV2, EXL2 or
    TabbyAPI is named. Before the precision reader, so 'Q4 cache' is never Q4_K_M weights."""
    patterns = [_CACHE_FLAGS]
    if compiled(EXLLAMAV2_SAID, re.I).search(t.original):
        patterns.append(_CACHE_WORDS)
    for pattern in patterns:
        for m in t.each(pattern):
            p.kv_dtype = p.kv_dtype or _cache_dtype(m)
