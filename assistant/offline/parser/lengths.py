"""Sequence lengths: the context window, prompt and output lengths, a bare length after
'at' / 'with' ('at 8k'), and 'long-context' said without a size."""

from __future__ import annotations

import re

from assistant.offline.parser.text import Q, Text, qty
from assistant.reading.parsed import ParsedWorkload
from assistant.reading.quantities import NUMBER, context_tokens_from, out_of_range_question
from assistant.regex_cache import compiled
from tools.limits import MAX_CONTEXT_TOKENS


def extract_context(t: Text, p: ParsedWorkload) -> None:
    """Context, prompt and output lengths in tokens ('32k context', '2,000-token prompts',
    '500-token answers'), a bare length ('at 8k') and 'long-context' said without a size."""
    ctx = r"(?:context(?:[\s-]window|[\s-]length)?|ctx|window|sequence(?:[\s-]length)?s?|"
    ctx += r"seq(?:uence)?[\s-]?len(?:gth)?|max[\s-]len(?:gth)?)"
    doc = r"(?:documents?|docs?|prompts?|inputs?|contexts?|conversations?|files?|pages?|"
    doc += r"transcripts?|chats?|queries|sequences?)"
    extract_in_out(t, p)
    flags = {
        (m.group(1) or m.group(2)).replace(",", "")
        for m in compiled(_CONTEXT_FLAG, re.I).finditer(t.work)
    }
    if len(flags) == 1:
        # An engine's context flag as typed ('--max-model-len 2048', 'num_ctx=8192'); several
        # values tried ('--max_seq_len 4096 … 3584') are no one context: left to the gate.
        for m in t.each(_CONTEXT_FLAG):
            set_context(p, m.group(1) or m.group(2))
    for m in t.each(
        rf"(?:\beach\s+(?:with|having|at|of)\s+(?:a\s+)?)?{Q}[\s-]*(?:tokens?[\s-]+)?(?:of\s+)?{ctx}\b"
    ):
        # '20 users each with 4k context': the context per sequence, as every context is.
        set_context(p, m.group(1))
    for m in t.each(
        rf"{ctx}\s*(?:length\s*)?(?:of|=|:|is|up\s+to|around|about)?\s*{Q}\b(?:\s*tokens?)?"
    ):
        set_context(p, m.group(1))
    prompt_context: int | None = None
    for m in t.each(rf"{Q}[\s-]*tokens?[\s-]+(?:long\s+)?{doc}"):
        set_context(p, m.group(1))
        if compiled(r"prompt|input|quer", re.I).search(m.group(0)):
            p.prompt_tokens = prompt_context = p.context
    for m in t.each(rf"(?:prompts?|inputs?)\s+(?:of|with|around|about|up\s+to)?\s*{Q}\s*tokens?"):
        p.prompt_tokens = _length(p, m.group(1))
    extract_prompts_by_length(t, p)
    for m in t.each(rf"{Q}\s*(?:input|prompt)\s+tokens?"):
        p.prompt_tokens = _length(p, m.group(1))
    out = r"(?:output|generated|completion|new|response)"
    answers = r"(?:answers?|responses?|completions?|repl(?:y|ies)|generations?|outputs?)"
    for m in t.each(
        rf"{Q}\s*{out}\s+tokens?"
        rf"|{Q}[\s-]*tokens?[\s-]+(?:long\s+)?{answers}\b"
        rf"|(?:generat\w*|{answers})\s+(?:of\s+|up\s+to\s+)?(?:about\s+|around\s+|~\s*)?"
        rf"{Q}\s*tokens?"
        # 'answers about 500', 'responses of ~500': a length said of the answers, no unit.
        rf"|{answers}\s+(?:of\s+|up\s+to\s+)?(?:about|around|roughly|approximately|~)\s*"
        rf"{Q}{_NO_UNIT}"
    ):
        p.output_tokens = _length(p, m.group(1) or m.group(2) or m.group(3) or m.group(4))
    if prompt_context is not None and p.output_tokens is not None and p.context == prompt_context:
        # "2,000-token prompts and 500-token answers": the sequence is prompt + output, which
        # the tools add up themselves; a context equal to the prompt alone would undersize it.
        p.context = None
    extract_lone_output(t, p)
    extract_bare_context(t, p)
    # Never a rate left unread ('900 tokens/s per GPU'): its tokens are no length.
    for m in t.each(rf"{Q}[\s-]*tokens?\b(?!\s*(?:/\s*|per\s+|a\s+)s(?:ec|econd)?\b)"):
        set_context(p, m.group(1))
    extract_listed_context(t, p)
    if t.each(r"\blong[\s-]*context\b|\blong\s+(?:documents?|prompts?)\b"):
        p.long_context = True


_CONTEXT_FLAG = (
    r"(?<![\w-])(?:--?)?(?:max[_-]model[_-]len|max[_-]seq(?:uence)?[_-]len(?:gth)?|ctx[_-]size|"
    r"num[_-]ctx|n[_-]ctx|max[_-]total[_-]tokens|context[_-]length)\b\s*[=:]?\s*(\d[\d,]*)\b"
    # llama.cpp's short form, as typed on a command line: '-c 16384'.
    r"|(?<![\w-])-c\s*[=\s]\s*(\d{3,7})\b"
)
"""The context length an engine's flag sets: vLLM's --max-model-len, llama.cpp's --ctx-size /
n_ctx, Ollama's num_ctx, TGI's --max-total-tokens, exllama's --max_seq_len."""

_NO_UNIT = (
    r"(?=\s*(?:[,.;:!?)\]]|$|(?:and|on|for|with|in|using|via|across|at|or|but|each|please|"
    r"what|which|how|is|would|could|can|will)\b))"
)
"""After a length said without 'tokens': punctuation, the end or a joining word, nothing that
would make it another quantity ('500 words', '500 users', '500/day')."""

_PROMPTS_COUNTED = compiled(
    r"(?:process\w*|run\w*|send\w*|handl\w*|classif\w*|scor\w*|evaluat\w*|label\w*|"
    r"receiv\w*|get|gets|through|over)\s+(?:about\s+|around\s+|~\s*)?$",
    re.I,
)
"""Words before 'N prompts' that make N a number of prompts ('process 10k prompts')."""


def extract_prompts_by_length(t: Text, p: ParsedWorkload) -> None:
    """'with 8k prompts', '2k prompts': prompts named by a length in k ('8k' is how a prompt
    length is written; a count of prompts comes with a rate or a verb: '8k prompts a day',
    'process 10k prompts', which stay for the volume and task readers). The reading is noted."""
    for m in compiled(
        r"\b(\d+(?:\.\d+)?\s?k)[\s-]+(?:long\s+)?(?:prompts?|inputs?)\b"
        r"(?!\s*(?:/|per\b|a\s+(?:day|week|month|hour|minute|second)\b|an\s+hour\b|each\b|"
        r"every\b|daily\b|hourly\b|at\s+once\b|in\s+parallel\b|concurrent))",
        re.I,
    ).finditer(t.work):
        if _PROMPTS_COUNTED.search(t.work[max(0, m.start() - 24) : m.start()]):
            continue
        t.consume(m.start(), m.end())
        p.prompt_tokens = _length(p, m.group(1))
        p.notes.append(
            f"'{m.group(0).strip()}' read as prompts of {p.prompt_tokens:,} tokens (a length; "
            "say 'N prompts a day' for a count)"
        )


_IN = r"(?:in|input|prompt)"
_OUT = r"(?:out|output|completion|generated)"
_JOIN = r"\s*(?:,|;|/|\+|&|and|with|plus)?\s*"
# A length: a quantity not running into a word ('500 tokens' is 500, never '500 t' + 'okens').
_L = rf"{Q}(?![a-z])"
_TOKENS = r"(?:[\s-]*tokens?)?"


def extract_in_out(t: Text, p: ParsedWorkload) -> None:
    """Prompt and output lengths said as a pair: '2k tokens in and 500 out', '2k in / 500 out',
    '2k-in/500-out', 'in: 2k, out: 500', 'input 2k output 500'; one side alone only with
    'tokens' ('500 tokens out'). The sequence is their sum, which the tools add up."""
    sep = r"[\s-]*"
    for m in t.each(
        rf"{_L}{_TOKENS}{sep}{_IN}\b{_TOKENS}{_JOIN}{_L}{_TOKENS}{sep}{_OUT}\b{_TOKENS}"
    ):
        p.prompt_tokens, p.output_tokens = _length(p, m.group(1)), _length(p, m.group(2))
    for m in t.each(
        rf"\b{_IN}{_TOKENS}\s*[:=]?\s*{_L}{_TOKENS}{_JOIN}{_OUT}{_TOKENS}\s*[:=]?\s*{_L}{_TOKENS}"
    ):
        p.prompt_tokens, p.output_tokens = _length(p, m.group(1)), _length(p, m.group(2))
    for m in t.each(rf"{_L}[\s-]*tokens?\s+{_OUT}\b"):
        p.output_tokens = _length(p, m.group(1))
    # 'input length of 1k, and output length of 1k', 'the input maxlength to 128', 'a 4096
    # input': one side named with its length word, or the length before the side's name.
    length = r"[\s_-]*(?:sequence[\s_-]*)?(?:max[\s_-]*)?(?:length|len)\b"
    said = r"\s*(?:of|to|=|:|is|at|about|around)?\s*"
    for m in t.each(rf"\b(?:max(?:imum)?[\s_-]*)?(?:input|prompt){length}{said}{_L}{_TOKENS}"):
        p.prompt_tokens = _length(p, m.group(1))
    for m in t.each(rf"\b(?:max(?:imum)?[\s_-]*)?(?:output|generation){length}{said}{_L}{_TOKENS}"):
        p.output_tokens = _length(p, m.group(1))
    # A generation flag as typed: '--max_tokens 256', 'max_new_tokens=512' (the output cap).
    for m in t.each(rf"(?<![\w-])(?:--?)?max[_-](?:new[_-])?tokens\s*[=:]?\s*{_L}(?![\w.])"):
        p.output_tokens = _length(p, m.group(1))
    lone = rf"(?<![\d.,]){_L}[\s-]*(?:tokens?[\s-]*)?(?:input|prompt)\b"
    lone += r"(?![\s_-]*(?:tokens?|length|len|gpus?|cards?|devices?|images?|files?)\b)"
    for m in compiled(lone, re.I).finditer(t.work):
        if (qty(m.group(1)) or 0) >= 16:  # a prompt of tokens, not '4 input GPUs'
            t.consume(m.start(), m.end())
            p.prompt_tokens = _length(p, m.group(1))
    for m in t.each(rf"(?<![\d.,]){_L}[\s-]*tokens?[\s-]*output\b"):
        p.output_tokens = _length(p, m.group(1))
    for m in t.each(rf"{_L}[\s-]*tokens?\s+in\b(?!\s+(?:total|all|a\s+row|parallel))"):
        p.prompt_tokens = _length(p, m.group(1))


def extract_lone_output(t: Text, p: ParsedWorkload) -> None:
    """'…prompts of 2k tokens and 500 out': with the prompt length said, a bare 'N out' is the
    output length ('3 out of 4' is not)."""
    if p.prompt_tokens is None or p.output_tokens is not None:
        return
    for m in t.each(rf"{_L}\s*(?:out|output)\b(?!\s+of\b)"):
        p.output_tokens = _length(p, m.group(1))


# What may follow a bare length ("at 8k, on an L40S"): punctuation, the end, or a joining word;
# "at 8k steps" is not a context.
_AFTER_BARE_LENGTH = (
    r"(?=\s*(?:[,.;:!?)\]]|$|(?:and|on|for|with|in|using|via|across|over|to|at|of|or|but|"
    r"please|what|which|how|is|would|could|can|will)\b))"
)


def extract_bare_context(t: Text, p: ParsedWorkload) -> None:
    """'batch 64 of Qwen2.5 7B at 8k', 'Llama 3.1 8B with 32k', 'the full 128k': a bare token
    length after 'at' / 'with' / 'full' is the context. Only 'Nk' or a plain power of two
    ≥ 512 (how windows are written: 4096, 8192) is read so; other bare numbers stay unplaced
    rather than guessed."""
    for m in t.each(
        # 'can the context length consistently support up to 128k?': the length said after the
        # context's name in the same clause.
        r"\bcontext(?:[\s-](?:length|window|size))?\b[^.?!,;]{0,40}?\bup\s+to\s+"
        rf"({NUMBER}\s?k|\d{{3,7}})\b(?!\s*(?:users?|requests?|gpus?))"
    ):
        set_context(p, m.group(1))
    for m in compiled(
        # 'the full 128k': the whole window, a context too.
        rf"\b(?:at|with|@|full)\s+({NUMBER}\s?k|\d{{3,7}})\b{_AFTER_BARE_LENGTH}",
        re.I,
    ).finditer(t.work):
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


def extract_listed_context(t: Text, p: ParsedWorkload) -> None:
    """'…on a 4090, 8 users, 8k': a bare 'Nk' standing alone as a list item (between commas or
    at the end) is the context when N is a power of two — how context windows are written
    (4k, 8k, 32k, 128k); '10k' alone stays unplaced (it could be users or tokens)."""
    if p.context is not None:
        return
    for m in compiled(r"(?:^|,|;)\s*(\d{1,3})\s?k\s*(?=,|;|\.|\?|!|$)", re.I).finditer(t.work):
        n = int(m.group(1))
        if n & (n - 1):
            continue
        text = f"{n}k"
        tokens, note = context_tokens_from(text)
        t.consume(m.start(1), m.end())
        p.context = tokens
        how = " (binary k, as model cards)" if note else ""
        p.notes.append(f"'{text}' read as the context: {tokens:,} tokens per sequence{how}")
        return


def _length(p: ParsedWorkload, text: str) -> int:
    """Tokens of a prompt/answer length, the same 'Nk' rule as a context, the reading noted."""
    tokens, note = context_tokens_from(text.replace(" ", ""))
    if note:
        p.notes.append(note)
    return tokens


def set_context(p: ParsedWorkload, text: str) -> None:
    """The context in tokens from a length such as '8k' (binary-k rule, noted); a text that
    is not a positive token count leaves it unset."""
    try:
        tokens, note = context_tokens_from(text.replace(" ", ""))
    except ValueError:
        return
    if tokens <= 0:
        return
    if tokens > MAX_CONTEXT_TOKENS:
        p.unplaced.append(text.strip())
        said = f"{text.strip()} tokens"
        p.ask("figure", "invalid", out_of_range_question(said, "tokens"), text.strip())
        return
    p.context = tokens
    if note:
        p.notes.append(note)
