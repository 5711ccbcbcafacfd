"""Deployment words (issue 30 items 5-7): the serving engine whose own KV-pool rule and launch
line the answer gives, and whether the command line itself was asked for.

`extract_launch_words` runs before the task and engine extractors and consumes only the words
that ask for a command ('the vllm serve command', 'launch line', 'how do I start it'), never
the engine's name, which the engine extractor still reads. `extract_serve_engine` runs after
it: SGLang and TensorRT-LLM are sized by their own KV-pool rule (`tools.deployment`), so the
note that they were sized like vLLM is replaced by one that says which part is vLLM's.
"""

from __future__ import annotations

import re

from assistant.offline.parser.text import Text
from assistant.reading.parsed import ParsedWorkload
from assistant.regex_cache import compiled

_COMMAND = (
    r"\b(?:(?:serve|launch|start(?:up)?|run|server|docker)\s+)?(?:command[\s-]*lines?|commands?"
    r"|cmd|cli\s+(?:flags|args)|flags|engine\s+arg(?:ument)?s|launch\s+(?:line|script))\b"
)
_HOW_START = r"\bhow\s+(?:do|should|would|can|to)\s+(?:i\s+|we\s+|you\s+)?(?:launch|start)\b"
# 'vllm serve', 'trtllm-serve', 'sglang.launch_server': the engine's own entry point; only the
# part after the engine's name is consumed.
_ENTRY = r"\bvllm(\s+serve)\b|\bsglang(\.launch_server)\b|\b(trtllm[\s-]serve)\b"
_LAUNCH = r"\blaunch(?:ing|ed)?\b"

_ENGINE_WORDS: tuple[tuple[str, str], ...] = (
    (r"\btrtllm\b|\btensorrt[\s-]?llm\b|\btrt[\s-]llm\b", "tensorrt-llm"),
    (r"\bsglang\b", "sglang"),
    (r"\bvllm\b", "vllm"),
)
_LOCAL_WORDS = r"\bllama\.cpp\b|\bllama[\s-]server\b|\bollama\b|\bmlx\b|\blm\s+studio\b"
_LIKE_VLLM = "sized like vLLM (paged KV cache, same memory reservation style)"


_NARRATED = compiled(
    r"\b(?:i|we|i'm|we're|i've|we've)\s+(?:(?:am|are|have|had)\s+)?(?:ran|run|running|used|use|"
    r"using|launched|launching|started|starting|tried|trying|executed|deployed|served)\b"
    r"|\b(?:my|our)\s+(?:command|cmd|launch|server|setup|flags)\b|\bwith\s+(?:this|these|the\s+following)\b"
    r"|\b(?:were|was|got|been)\s+(?:input|entered|typed|run|executed|pasted)\b",
    re.I,
)
_REQUESTED = compiled(
    r"\b(?:give|show|write|tell|send|share)\s+(?:me|us)\b|\b(?:what|which)\b|\bhow\s+(?:do|should|"
    r"would|can|to)\b|\brecommend",
    re.I,
)


def _narrated(t: Text, start: int) -> bool:
    """Whether a command at `start` is one the user ran ('I launched vllm serve …', 'my
    command', 'once the commands were input'), in a sentence that asks for none: pasted or
    told, not asked for."""
    sentence_start = max(t.original.rfind(c, 0, start) for c in ".?!\n") + 1
    ends = [i for i in (t.original.find(c, start) for c in ".?!\n") if i >= 0]
    sentence = t.original[sentence_start : min(ends, default=len(t.original))]
    return bool(_NARRATED.search(sentence)) and not _REQUESTED.search(sentence)


def extract_launch_words(t: Text, p: ParsedWorkload) -> None:
    """The words that ask for the command line (consumed; the engine's name is kept). A
    command the user ran and pasted ('I launched vllm serve …') asks for none."""
    for m in compiled(_ENTRY, re.I).finditer(t.work):
        group = next(g for g in range(1, 4) if m.group(g))
        t.consume(m.start(group), m.end(group))
        if not _narrated(t, m.start()):
            p.launch_asked = True
    for m in [*t.each(_COMMAND), *t.each(_HOW_START)]:
        if not _narrated(t, m.start()):
            p.launch_asked = True
    if p.launch_asked:
        t.each(_LAUNCH)
        t.each(
            r"\b(?:give|show|write|print|tell)\b(?:\s+(?:me|us)\b)?|\b(?:that|which)?\s*starts?\b"
        )


_LLAMA_CPP_FLAGS = (
    # The program's name (the launcher it sets is read from the whole text).
    r"(?<![\w-])(?:\.{0,2}/)?(?:[\w.-]+/)*llama-(?:server|cli)(?:\.exe)?\b"
    # Flags that change nothing the sizing reads: flash attention on (the plans assume it),
    # every layer on the GPU (-ngl 99 / 999 / all: what a fit asks), the model flag before the
    # file read on its own, memory locking and mapping, the chat template, threads, the port.
    r"|(?<![\w-])(?:-fa|--flash-attn)(?:\s+(?:on|1|true|auto))?(?![\w-])"
    r"|(?<![\w-])(?:-ngl|--n-gpu-layers|--gpu-layers)(?:\s+|=)(?:99\d*|all)\b"
    r"|(?<![\w-])(?:-m|--model)(?=\s+\S+\.gguf\b)"
    r"|(?<![\w-])(?:--mlock|--no-mmap|--jinja|--cont-batching|-cb)(?![\w-])"
    r"|(?<![\w-])(?:-t|--threads|--port)(?:\s+|=)\d+\b|(?<![\w-])--host(?:\s+|=)[\w.:]+"
)


def extract_llama_cpp_flags(t: Text, p: ParsedWorkload) -> None:
    """A llama.cpp command line's words that change no figure, consumed as read: the
    program's name, -fa, -ngl 99, -m before its file, --mlock, -t, --port … (-ngl with fewer
    layers, -b / -ub and -ts stay: they change the placement or the buffers)."""
    if p.launcher == "llama-server":
        t.each(_LLAMA_CPP_FLAGS)


_SAMPLING_FLAGS = (
    r"(?<![\w-])(?:--?)?(?:temperature|temp|top[_-]?p|top[_-]?k|min[_-]?p|typical[_-]?p|seed|"
    r"repetition[_-]penalty|repeat[_-]penalty|presence[_-]penalty|frequency[_-]penalty)"
    r"\s*[=:]?\s*-?\d+(?:\.\d+)?(?![\w.])"
    r"|(?<![\w-])--(?:instruct|interactive|chat|stream|verbose|no[_-]?stream)\b"
)
"""Sampling settings and mode switches as typed on a command line ('--temperature 0.35',
'top_p=0.9', '--instruct'): they change what is generated, never memory, speed or cost."""


def extract_sampling_flags(t: Text, p: ParsedWorkload) -> None:
    """`_SAMPLING_FLAGS`, consumed as read before any number reader sees their values."""
    t.each(_SAMPLING_FLAGS)


def extract_serve_engine(t: Text, p: ParsedWorkload) -> None:
    """The engine the answer's launch line and KV-pool rule are for: SGLang or TensorRT-LLM
    when named, vLLM when a command line was asked for a GPU server (llama.cpp, Ollama and
    MLX have the local-serving plan's own lines)."""
    text = t.original
    named = [engine for pattern, engine in _ENGINE_WORDS if compiled(pattern, re.I).search(text)]
    if compiled(_LOCAL_WORDS, re.I).search(text) and not named:
        return
    engine = named[0] if named else ("vllm" if p.launch_asked else None)
    if engine is None or (engine == "vllm" and not p.launch_asked):
        return
    if p.task not in (None, "inference"):
        return
    p.serve_engine = engine  # type: ignore[assignment]
    if engine != "vllm":
        label = "SGLang" if engine == "sglang" else "TensorRT-LLM"
        p.notes = [n for n in p.notes if not n.endswith(_LIKE_VLLM)]
        p.notes.append(
            f"{label}: weights and activations sized as for vLLM; its KV pool by {label}'s "
            "own rule, with its launch line"
        )


_BUY = r"\b(?:buy(?:ing)?|purchas\w*|own(?:ing)?|on[\s-]?prem\w*)\b"
_RENT = r"\b(?:rent\w*|cloud|leas\w*|break[\s-]?even|pays?\s+(?:for\s+)?itself|pay\s+off)\b"
_ENERGY = (
    r"\b(?:kwh|pue|electricity|power\s+(?:bill|costs?|draw|use)"
    r"|energy(?:\s+(?:per\s+(?:million|1m|m)\s+tokens?|costs?|use))?)\b"
)
_NUMBER = r"(\d+(?:\.\d+)?)"
_KWH = rf"(?:\$\s*{_NUMBER}|{_NUMBER}\s*(?:\$|usd|dollars?))\s*(?:/|per|an?)\s*kwh\b"
_CENTS_KWH = rf"{_NUMBER}\s*(?:¢|cents?|c)\s*(?:/|per|an?)\s*kwh\b"
_EUR_KWH = rf"(?:€\s*{_NUMBER}|{_NUMBER}\s*(?:€|eur|euros?))\s*(?:/|per|an?)\s*kwh\b"
_PUE = rf"\bpue\s*(?:of|=|:|is)?\s*{_NUMBER}|{_NUMBER}\s+pue\b"
_CARD_PRICE = r"\$\s*(\d[\d,]*(?:\.\d+)?)\s*(k)?\s*(?:(?:a|per|each|/)\s*(?:card|gpu)\b|each\b)"


_BUY_ASKED = (
    r"\b(?:what|which)\b[^.?!]{0,60}?\b(should\s+(?:i|we|our\s+team|the\s+team)\s+(?:buy|purchase))\b"
    r"|\b(?:gpus?|cards?|hardware|servers?)\s+(to\s+(?:buy|purchase))\b"
    # 'Planning to buy a Mac Studio … will it fit?': the machine the asker will run (the fit
    # asked is of it).
    r"|\b((?:planning|plan|going|want(?:ing)?|thinking|about|considering|looking|tempted)\s+"
    r"(?:to\s+|of\s+|on\s+|at\s+)?(?:buy(?:ing)?|purchas(?:e|ing)))\b"
)
"""Which hardware to buy asked ('what GPUs should we buy', 'which cards to buy'): the buying
words as a group."""


def extract_buy_words(t: Text, p: ParsedWorkload) -> None:
    """Buy vs rent, power and energy: the tariff (USD, cents, or EUR at the catalog's
    reference rate, said), the PUE and a card price, consumed before the money extractors
    read them as a budget."""
    for m in t.each(_KWH):
        p.usd_per_kwh = float(m.group(1) or m.group(2))
    for m in t.each(_CENTS_KWH):
        p.usd_per_kwh = float(m.group(1)) / 100
    for m in t.each(_EUR_KWH):
        from tools.cost.exchange import rate_used

        rate = rate_used(None)
        eur = float(m.group(1) or m.group(2))
        p.usd_per_kwh = eur * rate.usd_per_eur
        p.notes.append(
            f"'{m.group(0).strip()}' read as {p.usd_per_kwh:.3f} USD per kWh at the ECB "
            f"reference rate of {rate.as_of} ({rate.usd_per_eur:g} USD per EUR)"
        )
    for m in t.each(_PUE):
        value = float(m.group(1) or m.group(2))
        if 1 <= value <= 5:
            p.pue = value
    for m in t.each(_CARD_PRICE):
        amount = float(m.group(1).replace(",", ""))
        p.purchase_usd_per_gpu = amount * (1000 if m.group(2) else 1)
    text = t.original
    buy_and_rent = compiled(
        rf"{_BUY}[^.?!]{{0,80}}{_RENT}|{_RENT}[^.?!]{{0,80}}{_BUY}", re.I
    ).search(text)
    energy = t.each(_ENERGY)
    said = p.usd_per_kwh is not None or p.pue is not None or p.purchase_usd_per_gpu is not None
    # 'What GPUs should we buy for …', 'which cards to buy': which hardware is asked (the
    # recommender's question), not buying weighed against renting — the buying words are
    # read with it (only them: the rest says what is asked).
    for m in compiled(_BUY_ASKED, re.I).finditer(t.work):
        t.consume(*m.span(next(g for g in (1, 2, 3) if m.group(g))))
    if buy_and_rent or energy or said:
        p.buy_asked = True
        t.each(rf"{_BUY}|{_RENT}|\b(?:the\s+)?cards?\b(?=\s+or\b)|\bor\s+rent\b")
        t.each(r"\b(?:power|energy)\b|\bper\s+million\s+tokens\b")


_SPECULATIVE = (
    r"\bspeculative(?:\s+(?:decod\w*|sampling|inference))?\b|\bspec[\s-]decod\w*"
    r"|\bdraft(?:\s+model)?\b|\bdrafter\b"
)
_ALPHA = r"\b(?:acceptance(?:\s+rate)?|α|alpha)\s*(?:of|=|:|is|at)?\s*(0?\.\d+|\d+(?:\.\d+)?\s*%)"
_GAMMA = (
    r"\b(\d+)\s+(?:draft|speculative|lookahead|proposed)\s+tokens?\b"
    r"|\b(?:γ|gamma|num[_\s-]speculative[_\s-]tokens|draft\s+length)\s*(?:of|=|:|is)?\s*(\d+)\b"
)
_DRAFT_SIZE = (
    r"\b(?:an?\s+)?(\d+(?:\.\d+)?)\s*([bm])(?:[\s-]+param\w*)?[\s-]+"
    r"(?:draft(?:\s+model)?|drafter|speculator)\b"
)
"""A draft named by its size alone ('an 8B draft', 'a 0.5B drafter', '135M draft model')."""
_SPEEDUP = r"\bspeed[\s-]?ups?\b"
"""'speedup' said of the speculative decoding asked about: what the speed-ups part answers."""
_DRAFT_BEFORE = r"\b(?:using|with|use)\s+(.{3,40}?)\s+as\s+(?:a\s+|the\s+)?draft(?:\s+model)?\b"
_DRAFT_AFTER = r"\bdraft(?:\s+model)?\s*(?::|=|of|is)?\s+(?!model\b)((?:[\w.\-/]+\s*){1,5})"
_PREFIX = (
    r"\b(?:automatic\s+)?prefix[\s-]cach\w*|\bprompt[\s-]cach\w*|\bradix\s*attention\b"
    r"|\bkv[\s-]cache\s+reuse\b"
)
_PREFIX_SHARE = (
    r"(\d+(?:\.\d+)?)\s*%\s+(?:of\s+(?:the\s+|each\s+|every\s+)?prompts?\s+)?(?:is\s+|are\s+)?"
    r"(?:cached|shared|a\s+(?:shared|common)\s+prefix|cache\s+hits?)"
    r"|\bcache\s+hit(?:\s+rate)?\s*(?:of|=|:|is)?\s*(\d+(?:\.\d+)?)\s*%"
)
_PREFIX_TOKENS = (
    r"\b(?:of\s+which\s+)?(\d[\d,]*)\s*(?:tokens\s+)?(?:are|is)\s+(?:a\s+)?(?:shared|common|cached)"
    r"\s+(?:system\s+)?(?:prompt|prefix)"
    r"|\b(\d[\d,]*)[\s-]tokens?\s+(?:shared|common|cached)\s+(?:system\s+)?(?:prompt|prefix)"
    r"|\b(?:shared|common|cached)\s+(?:system\s+)?(?:prompt|prefix)\s+of\s+(\d[\d,]*)\s+tokens\b"
)
_DISAGG = (
    r"\bdisaggregat\w*(?:\s+(?:prefill\s*(?:/|and|-)\s*decode|p\s*/\s*d|serving|inference))?"
    r"|\bp\s*/\s*d\s+(?:split|disaggregation|separation)\b"
    r"|\bprefill\s*(?:/|and|-)\s*decode\s+(?:split|separation|disaggregation|pools?)\b"
    r"|\bseparate\s+prefill\s+and\s+decode(?:\s+(?:pools?|gpus|instances))?\b"
    r"|\bsplitwise\b|\bdistserve\b"
)


def _catalog_model(words: str, at_end: bool) -> tuple[str, int] | None:
    """The catalog id the longest run of `words` names — at their end ('using Llama 3.2 1B'
    before 'as draft') or at their start ('draft model Llama 3.2 1B, …') — with the run's
    length in characters, or None."""
    from tools.catalog import get_catalog
    from tools.errors import ToolInputError

    tokens = words.split()
    for n in range(min(len(tokens), 5), 0, -1):
        run = " ".join(tokens[-n:] if at_end else tokens[:n])
        try:
            return get_catalog().model(run).id, len(run)
        except (KeyError, ToolInputError):
            continue
    return None


def extract_speedup_words(t: Text, p: ParsedWorkload) -> None:
    """Speculative decoding (the draft model, consumed before the model extractors read it as
    the model to size; α; γ), prefix caching (the cached share or the shared prefix's length)
    and a prefill/decode split."""
    for pattern, at_end in ((_DRAFT_BEFORE, True), (_DRAFT_AFTER, False)):
        for m in compiled(pattern, re.I).finditer(t.work):
            found = _catalog_model(m.group(1), at_end)
            if found is not None:
                p.draft_model, length = found
                p.speculative = True
                # Only the words that name the draft: 'draft model Llama 3.2 1B on 4 H100s'
                # leaves 'on 4 H100s' to the GPU extractor.
                words = m.group(1).strip()
                start = m.start(1) + m.group(1).index(words)
                if at_end:
                    t.consume(start + len(words) - length, m.end())
                else:
                    t.consume(m.start(), start + length)
                break
        if p.draft_model is not None:
            break
    if p.draft_model is None:
        for m in t.each(_DRAFT_SIZE):
            p.draft_params = float(m.group(1)) * (1e9 if m.group(2).lower() == "b" else 1e6)
            p.speculative = True
            break
    for m in t.each(_ALPHA):
        text = m.group(1).replace(" ", "")
        value = float(text.rstrip("%")) / (100 if text.endswith("%") else 1)
        if 0 < value < 1:
            p.acceptance_rate = value
            p.speculative = True
    for m in t.each(_GAMMA):
        p.draft_tokens = int(m.group(1) or m.group(2))
        p.speculative = True
    if t.each(_SPECULATIVE):
        p.speculative = True
    if p.speculative:
        t.each(_SPEEDUP)
    for m in t.each(_PREFIX_SHARE):
        value = float(m.group(1) or m.group(2)) / 100
        if 0 <= value < 1:
            p.cached_prefix_fraction = value
            p.prefix_caching = True
    if t.each(_PREFIX):
        p.prefix_caching = True
    if t.each(_DISAGG):
        p.disaggregated = True


def extract_prefix_tokens(t: Text, p: ParsedWorkload) -> None:
    """A shared prefix given as a length ('of which 1,500 are a shared system prompt'): its
    share of the prompt, once the prompt's length is read."""
    for m in t.each(_PREFIX_TOKENS):
        tokens = int((m.group(1) or m.group(2) or m.group(3)).replace(",", ""))
        prompt = p.prompt_tokens or p.context
        p.prefix_caching = True
        if prompt and 0 < tokens < prompt:
            p.cached_prefix_fraction = tokens / prompt
            p.notes.append(
                f"Cached prefix: {tokens:,} of {prompt:,} prompt tokens "
                f"({tokens / prompt:.0%}) read from '{m.group(0).strip()}'"
            )


_OFFLOAD = (
    r"\b(?:partial(?:ly)?\s+|cpu\s+|ram\s+|layer\s+)?offload(?:ing|ed|s)?\b"
    r"(?:\s+(?:some\s+|the\s+(?:rest|other)\s+)?(?:layers?\s+)?(?:to|into|onto)\s+(?:the\s+)?"
    r"(?:cpu|system\s+ram|ram|system\s+memory|memory))?"
)
"""Layers offloaded to the CPU's RAM ('partial offload', 'CPU offload', 'offloading the rest
to RAM'): what the local plan does with the system RAM said when the GPU cannot hold them."""


def extract_offload_words(t: Text, p: ParsedWorkload) -> None:
    """'With CPU offload' said of serving on a GPU with the system RAM given: llama.cpp's
    partial offload, which the local plan sizes (the layers that do not fit, in RAM) — read
    with the RAM. A training offload (ZeRO's optimizer) or one with no RAM said stays unread."""
    serving = p.task in (None, "inference")
    if serving and p.system_ram_bytes is not None and (p.gpus or p.gpu_memory_bytes):
        t.each(_OFFLOAD)
