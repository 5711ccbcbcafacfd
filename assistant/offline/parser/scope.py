"""What gpu-sizer cannot answer, said: live availability, a quantization's quality loss, which
model is smartest, installing or debugging software, licences, building a PC. Each topic read is
kept (`ParsedWorkload.out_of_scope`) with what gpu-sizer can answer instead, so the answer says
so in one sentence — and never sizes something else in its place."""

from __future__ import annotations

import re

from assistant.offline.parser.text import Text
from assistant.reading.parsed import ParsedWorkload
from assistant.regex_cache import compiled

_RUNTIMES = (
    r"it|vllm|sglang|tgi|text[\s-]generation[\s-]inference|llama\.?cpp|ollama|lm\s+studio|"
    r"exllama(?:v2)?|tensorrt(?:[\s-]llm)?|trt[\s-]llm|ktransformers|mlx|transformers|lmdeploy|"
    r"koboldcpp|the\s+(?:engine|server|runtime|library|framework)"
)
"""The runtimes a support question names ('does vLLM support …')."""

FIX_ASKED = (
    r"\bhow\s+(?:can\s+(?:i|we)\s+|do\s+(?:i|we)\s+|to\s+)?(?:resolve|fix|solve)\s+"
    r"(?:it|this|that|the\s+(?:error|issue|problem|oom))\b"
    r"|\bwhat\s+should\s+(?:i|we)\s+do\b(?!\s+to\s+(?:run|fit|serve))"
    r"|怎么办|如何解决|怎么解决|解决方法"
)
"""A failure reported and its fix asked ('how resolve it?', 'what should I do', 怎么办):
debugging, which an out-of-memory report beside it does not turn into a fit asked."""

_CPU_PATTERN = (
    r"\b(?:without|no)\s+(?:a\s+|any\s+)?(?:gpus?|graphics\s+cards?|vram)\b"
    r"|\b(?:cpu|ram)[\s-]only\b|\bonly\s+(?:on\s+)?(?:the\s+)?cpu\b"
    r"|(?:无|没有|不用|沒有)\s*(?:gpu|显卡|顯卡)|纯\s*cpu"  # Chinese: 'without a GPU', 'pure CPU'
)
_CPU_ONLY = "running on a CPU without a GPU"
"""A question about running with no GPU at all: gpu-sizer has no CPU speed model, so with no
GPU named beside it (offload from a GPU is sized) only the out-of-scope sentence is said."""

_NOT_THE_REQUIREMENTS = (
    r"(?!\s+(?:the\s+)?(?:hardware|system|gpu|vram|memory|minimum)\s+(?:requirements?|specs?))"
)
"""Not 'where can I find the hardware requirements': the sizing, asked, not availability."""

# (pattern, topic, what gpu-sizer answers instead)
OUT_OF_SCOPE: tuple[tuple[str, str, str], ...] = (
    (
        r"\b(?:in[\s-]stock|availability|sold\s+out|lead\s+times?|waitlists?|"
        r"can(?:'t|not)?\s+(?:i\s+)?(?:find|get\s+hold\s+of))\b"
        rf"{_NOT_THE_REQUIREMENTS}"
        # Not the memory a card has free ('fills up the available 11GB', 'all available
        # memory', 'the full available GPU memory') nor 'not available in fact'.
        # 'where can I rent 8 A100s': where to get them, a live question too.
        r"|\bwhere\s+(?:can|could|do|should)\s+(?:i|we)\s+(?:rent|buy|get|find)\b"
        rf"{_NOT_THE_REQUIREMENTS}"
        # Not memory left free ('leaving 6GB available', '11 GB available').
        r"|(?<!\bthe\s)(?<!\ball\s)(?<!\bfull\s)(?<!gb\s)(?<!gb)(?<!gib\s)(?<!\bmemory\s)"
        r"(?<!\bvram\s)\bavailable\b"
        r"(?!\s+(?:\d|gpu\s+memory|memory|vram|ram|space|in\s+fact)\b)",
        "live availability of GPUs",
        "it sizes the hardware and compares the catalog's dated cloud prices; it has no live "
        "stock or capacity data",
    ),
    (
        r"\b(?:quality|accuracy|perplexity|ppl|degradation|dumber|smarter|worse|improvements?|"
        r"intelligence|benchmark\s+scores?|mmlu|humaneval)\b(?:\s+(?:loss|drop|hit|difference|"
        r"impact))?",
        "model quality (a quantization's accuracy loss, which model is smarter)",
        "it sizes memory, speed and cost for any format (bf16, fp8, int4, GGUF types); quality "
        "needs the model's published evaluations",
    ),
    (
        r"\b(?:install(?:ing|ation)?|compile|compiling|build\s+from\s+source|driver\s+version|"
        r"segfault|seg(?:mentation)?\s+fault|traceback|stack\s+trace|error\s+(?:code|message)|"
        r"crash(?:es|ing)?|bug)\b"
        # An error code, a regression, a cause asked for.
        # (Output that makes no sense, 'outputs gibberish', stays for the coverage gate: the
        # verdict is held, not stated beside it.)
        r"|\berror\s+-?\d{3,}\b"
        r"|\b(?:breaks|broke|broken|regression)\b|\bwhat(?:'s|\s+is)\s+going\s+on\b"
        r"|\bany\s+ideas?\s+why\b|\bwhat\s+(?:could|might|would)\s+be\s+(?:the\s+)?(?:cause|reason)\b"
        r"|\bhow\s+(?:can|do|could|should)\s+i\s+download\b"
        rf"|{FIX_ASKED}"
        # Chinese: 'what is going on', 'abnormal'.
        r"|怎么回事|异常",
        "installing or debugging software",
        "it sizes what a setup needs (memory per GPU, speed, cost) and prints launch lines for "
        "llama.cpp and Ollama",
    ),
    (
        r"\bgpu[\s-]split\b|\b(?:best|right|optimal|correct)\s+(?:parameters|settings|flags|"
        r"config(?:uration)?|args|arguments)\b|\bwhat\s+(?:parameters|settings|flags)\b"
        r"|\b(?:tips?|how)\s+(?:to\s+)?(?:improve|speed\s+(?:it\s+)?up|boost|increase)\b"
        r"|\bbest\s+possible\s+(?:parameters|settings|flags|config(?:uration)?|args|arguments)\b"
        # Chinese: 'how to raise (the speed)'.
        r"|(?:如何|怎么|怎样)[^。？?]{0,12}(?:提高|提升|加快)",
        "tuning a runtime's settings (GPU split, flags, speed-ups)",
        "it sizes memory per GPU and the speed to expect, and prints llama.cpp / Ollama launch "
        "lines for the configuration it sizes",
    ),
    (
        r"\bauto[\s-]?(?:matically\s+)?detect\w*\b|\bdetect\s+(?:my|both|all|the)\s+(?:\d+\s+)?gpus?\b"
        r"|\b(?:does|do|will|would|can)\s+(?:it|vllm|llama\.?cpp|ollama|lm\s+studio|the\s+[\w.]+|[\w-]+\.py)"
        r"\s+(?:automatically\s+|also\s+)?(?:use|utili[sz]e|pick\s+up|recogni[sz]e|see|spread\s+\w+\s+over)"
        r"\s+(?:both|all|multiple|several|my\s+(?:second|other|two|\d))\b"
        r"|\bwhy\s+(?:are\s+|is\s+)?only\b[^.?!]{0,60}?\bsupported\b"
        r"|\bshould\s+i\s+(?:code|write\s+code)\b|\bwhere\s+(?:do|should|can)\s+i\s+(?:set|put|configure)\b"
        # 'how could I inference llama3 70b multi-node?': how to run across machines, asked.
        r"|\bhow\s+(?:could|can|do|should|would|to)\s+(?:i\s+|we\s+)?(?:[\w.-]+\s+){0,5}?"
        r"(?:multi[\s-]?node|across\s+(?:both|two|multiple|several|the|my|our)\s+(?:nodes|servers|machines))\b",
        "how a runtime uses the hardware (detecting GPUs, which GPUs it supports)",
        "it sizes what a setup needs — memory per GPU, the layout across several GPUs, speed and "
        "cost — for the engines it models (vLLM, llama.cpp, Ollama …)",
    ),
    (
        # 'Does vLLM support quantized models?', 'is GGUF supported by SGLang?', 'is there
        # support for AWQ in TGI?': a runtime's features, not a sizing.
        rf"\b(?:does|do|will|would|can)\s+(?:{_RUNTIMES})\s+(?:now\s+|also\s+|still\s+|even\s+)?"
        r"support\b"
        rf"|\b(?:is|are)\s+[\w.\s-]{{1,40}}?\s+supported\s+(?:by|in|on|with)\s+(?:{_RUNTIMES})\b"
        rf"|\bis\s+there\s+(?:any\s+)?support\s+for\b|支持[^。？]{{0,20}}(?:吗|\?)"
        # A feature asked of the app or runtime ('I would like to have an option to run …',
        # 'feature request'; not 'please add the minimum hardware requirements', a sizing).
        r"|\b(?:would\s+like|want|wish)\s+(?:to\s+have\s+|there\s+(?:to\s+be|was)\s+)?an\s+option\b"
        r"|\bfeature\s+request\b",
        "what a runtime supports (formats, models, features)",
        "it sizes what a setup needs — memory per GPU, speed and cost — for the formats the "
        "engines it models load (bf16, fp8, AWQ, GPTQ, GGUF types)",
    ),
    (
        _CPU_PATTERN,
        _CPU_ONLY,
        "it sizes GPUs, and the system RAM llama.cpp needs for the layers one does not hold",
    ),
    (
        # 'What GPU did you use?', 'the exact hardware used when training Zephyr', 'is the
        # 405B you are serving fp8 or bf16?', 'the GPU memory of your A100': what someone else
        # ran, which only they know.
        r"\b(?:did|do|were|are)\s+(?:you|they)\s+(?:guys\s+)?(?:use|using|used|train\w*|"
        r"run\w*|serv\w*|fine[\s-]?tun\w*)\b"
        r"|\b(?:you|they)\s+(?:are\s+)?(?:used|serving|trained|ran)\b"
        # Not 'the exact hardware requirement to run …' (what it needs, asked).
        r"|\bexact\s+(?:hardware|gpus?|setup)\b(?!\s+(?:requirements?|needed|to\s+run))"
        r"|\bhardware\s+used\s+(?:when|for|to|in)\b"
        # Not 'the usage of your GPU memory' (a memory use asked about, sized as such).
        r"|\byour\s+(?:own\s+)?(?:[a-z]{0,2}\d{3,4}\w*|gpus?|hardware|setup|machines?|servers?|"
        r"cluster|training\s+(?:setup|hardware|machine))\b(?!\s+(?:memory|vram|usage))",
        "the hardware someone else used (the authors' or a provider's setup)",
        "it sizes what a setup needs for your workload — memory per GPU, the GPUs, speed and cost "
        "— from the model's published figures",
    ),
    (
        r"\bplans?\s+to\s+(?:release|publish|train)\b|\b(?:will|would)\s+(?:you|they)\s+release\b"
        # A build asked of the makers ('Can you make a Q4_K_M?', 'please release a Q4 quant',
        # 'possible to create an even smaller version').
        r"|\b(?:can|could|would|will)\s+(?:you|someone|anyone|they)\s+(?:please\s+)?(?:make|release|"
        r"upload|create|provide|publish|build|do)\s+(?:an?\s+|the\s+)?(?:[\w.-]+\s+){0,3}?"
        r"(?:quants?|quantiz\w*|versions?|ggufs?|q\d[\w]*|awq|gptq|exl2)\b"
        r"|\bplease\s+(?:release|upload|make|provide|add)\s+(?:an?\s+|the\s+)?(?:[\w.-]+\s+){0,2}?"
        r"(?:quants?|versions?|ggufs?|q\d[\w]*|awq|gptq|exl2)\b"
        r"|\bpossible\s+to\s+(?:create|make|release)\s+(?:an?\s+)?(?:even\s+)?(?:smaller|quantized|lighter)\b",
        "what a model's makers plan to release (or a quantization asked of them)",
        "it sizes the models that exist (the catalog, or any size you give)",
    ),
    (
        r"\b(?:licen[cs]e[sd]?|commercial\s+use|terms\s+of\s+use)\b",
        "licences",
        "it sizes hardware for any model; licences are in each model's card",
    ),
    (
        r"\b(?:psu|power\s+supply|motherboards?|pcie\s+lanes|riser\s+cables?|cooling|case\s+fans?)\b",
        "building a PC (power supply, motherboard, cooling)",
        "it sizes GPU memory, speed and cost; it does not size the rest of a PC",
    ),
)


def extract_out_of_scope(t: Text, p: ParsedWorkload) -> None:
    """Topics gpu-sizer cannot answer, in the order said, each once (their words consumed)."""
    for pattern, topic, _instead in OUT_OF_SCOPE:
        # Read on the text as written: a word an earlier extractor took ('the GPU split', its
        # 'GPU' read as hardware) still says the topic.
        found = list(compiled(pattern, re.I).finditer(t.original))
        for m in found:
            t.consume(m.start(), m.end())
        if found and topic not in p.out_of_scope:
            p.out_of_scope.append(topic)


def instead_of(topic: str) -> str:
    """What gpu-sizer answers instead of `topic`."""
    return next(instead for _p, name, instead in OUT_OF_SCOPE if name == topic)


_THE_QUESTION_ITSELF = (
    "how a runtime uses the hardware (detecting GPUs, which GPUs it supports)",
    "the hardware someone else used (the authors' or a provider's setup)",
    "what a runtime supports (formats, models, features)",
)
"""Topics that are what a yes/no asks when they are said ('does vLLM automatically use both my
GPUs when I serve Llama 2 13B?' asks about vLLM, not whether 13B fits two GPUs): only a figure
asked outright (memory, speed, a count …) is sized beside them."""


_ASKED_NOT_SAID = (
    "installing or debugging software",
    "tuning a runtime's settings (GPU split, flags, speed-ups)",
)
"""Topics beside which a setup said is not a sizing asked: only a question read (whether it
fits, a figure) is sized beside them."""


def sizes_something(p: ParsedWorkload) -> bool:
    """Whether the question also asks for a sizing — a model with hardware, a load or a figure
    asked: then that part is answered and the out-of-scope one said; else only the out-of-scope
    sentence is (no 'Which model?' for 'are H100s available?')."""
    said = p.gpus or p.users or p.context or p.gpu_count or p.tokens_per_s or p.train_tokens
    asked = p.asked is not None or p.capacity or p.max_context
    if any(topic in _ASKED_NOT_SAID for topic in p.out_of_scope) and not asked:
        # A bug report with its setup ('sgLang v0.3 breaks TP8 Llama 3.1 405B on 8xH100'):
        # the setup said is the one that broke, not a sizing asked.
        return False
    if _CPU_ONLY in p.out_of_scope and not p.gpus and not p.gpu_memory_bytes:
        # 'Can I run Llama 3 8B without a GPU on 32 GB of RAM?': no GPU to size a verdict on.
        return False
    if any(topic in _THE_QUESTION_ITSELF for topic in p.out_of_scope):
        figure = p.asked not in (None, "fits", "hardware") or p.capacity or p.max_context
        return p.has_model and figure
    return p.has_model and (bool(said) or asked)
