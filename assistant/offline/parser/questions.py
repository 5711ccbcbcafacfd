"""What kind of answer the question asks for: a count ('how many 8k chats fit on one H100?'),
a length ('max context for 70B on 2x 4090?'), or alternatives to the GPUs named. Read before
the load and the lengths, so '8k chats' in a capacity question is a context, not 8,000 users."""

from __future__ import annotations

import re

from assistant.offline.parser.lengths import set_context
from assistant.offline.parser.scope import FIX_ASKED
from assistant.offline.parser.text import Q, Text
from assistant.reading.parsed import ParsedWorkload
from assistant.regex_cache import compiled

_SEQUENCE_NOUNS = (
    r"(?:chats?|users?|sequences?|conversations?|requests?|sessions?|streams?|contexts?|"
    r"clients?|agents?)"
)


# 'how many H100s / 4090s / GPUs / nodes to serve …' asks for a GPU count, not how many fit.
_HARDWARE_NEXT = (
    r"\s+(?:more\s+)?(?:gpus?|cards?|nodes?|servers?|machines?|boxes|devices?|accelerators?|"
    r"[a-z]*\d[\w-]*)\b"
)


_MEM = r"(?:memory|mem|(?:ram\s*/\s*)?vram|gpu\s+ram|video\s+ram)"
_MEMORY_ASKED_ELSEWHERE = r"需要多少(?:显存|内存)|多少显存|显存需求"
_MINIMUM = r"(?:mini[mn]u[mn]|minumum|minium|min\.?)"
"""'minimum' as typed in a hurry ('Mininum VRAM?', 'min VRAM')."""
_MEMORY_ASKED = (
    # 'how much VRAM', and 'how many mem' as non-native speakers write it.
    rf"\bhow\s+(?:much|many)\s+(?:more\s+)?(?:gpu\s+|video\s+)?(?:{_MEM}|ram)s?\b"
    rf"|\b{_MINIMUM}\s+(?:capacity|{_MEM})\b"
    rf"|\b(?:required|needed|necessary|{_MINIMUM})\s+(?:gpu\s+)?{_MEM}\b"
    rf"|\b(?:gpu\s+)?{_MEM}\)?\s+(?:is\s+|would\s+be\s+|will\s+be\s+)?(?:required|needed|necessary)\b"
    rf"|\b{_MEM}\s+(?:usage|consumption|occupation|occupancy|footprint)\b"
    rf"|{_MEMORY_ASKED_ELSEWHERE}"
    r"|\bhow\s+many\s+(?:gb|gib|gigs?|gigabytes?)\b"
    r"|\b(?:memory|vram)\s+(?:do|does|would|will|should)\s+(?:i|we|it|you|that|this)\s+need"
    r"|\bwhat(?:'s|\s+is|\s+are)\s+the\s+(?:gpu\s+)?(?:memory|vram)"
    r"(?:\s+(?:requirements?|footprint|usage|needed))?\b"
    # Not 'the GPU and memory requirements': the hardware asked, the memory with it.
    r"|(?<!\band\s)\b(?:memory|vram)\s+(?:requirements?|footprint|usage|needed|need)\b"
    # 'a guess for the amount of VRAM you'd need', 'what about the usage of your gpu memory?'
    rf"|\bamount\s+of\s+(?:gpu\s+)?{_MEM}\b"
    rf"|\busage\s+of\s+(?:your\s+|the\s+|my\s+)?(?:gpu\s+)?{_MEM}\b"
    # 'requirements for inference in terms of VRAM', 'a requirement for the graphics memory'.
    rf"|\brequirements?\b[^.?!]{{0,40}}?\bin\s+terms\s+of\s+(?:gpu\s+)?{_MEM}\b"
    rf"|\brequirements?\s+(?:for|of|on)\s+(?:the\s+)?(?:gpu\s+|graphics\s+|video\s+)?{_MEM}\b"
    r"(?!\s+and\s+(?:the\s+)?(?:numbers?|counts?|types?|kinds?)\b)"  # '… and numbers of GPU
    # 'compare vLLM and llama.cpp memory for 8B': the memory of a model given by its size.
    rf"|\b{_MEM}\s+(?:for|of)\s+(?:a\s+|an\s+|the\s+)?(?=[\w.-]*\d)"
)
_WHY_SO_MUCH_MEMORY = (
    # 'Why does vLLM require 37GB of GPU memory?', 'why is it using 19GB of VRAM': the memory it
    # needs, asked (the figure itself is read as a claim first, so this reads the text as said).
    r"\bwhy\s+(?:does|do|is|are|would|did)\b(?:[^.?!]|\.(?=\w)){0,80}?\b(?:requires?|needs?|uses?|using|takes?|"
    r"taking|consumes?|consuming|occup(?:y|ies|ying)|allocates?)\b[^.?!]{0,40}?"
    r"\b(?:vram|gpu\s+memory|video\s+memory|memory)\b"
)
# The KV cache's own size: 'how much KV cache does … need', 'the kv cache size for …'.
_KV_CACHE_ASKED = (
    r"\bhow\s+(?:much|big|large)\s+(?:(?:is|of)\s+)?(?:a\s+|the\s+)?kv[\s-]?cache\b"
    r"|\bkv[\s-]?cache\s+(?:size|usage|footprint|memory|requirements?)\b"
    r"|\bsize\s+of\s+(?:the\s+)?kv[\s-]?cache\b"
    r"|\bkv[\s-]?cache\s+(?:do|does|would|will)\s+(?:i|we|it)\s+need\b"
    # 'how much VRAM does the KV cache take', 'the memory for the KV cache at 128k'.
    r"|\bhow\s+much\s+(?:(?:v?ram|memory|gpu\s+memory|space)\s+)?(?:does|would|will|do)\s+"
    r"(?:the\s+|a\s+)?kv[\s-]?cache\b(?:\s+(?:take|use|need|occupy|consume|require)\w*(?:\s+up)?)?"
    r"|\b(?:v?ram|memory)\s+(?:for|of|used\s+by|taken\s+by)\s+(?:the\s+|a\s+)?kv[\s-]?cache\b"
)
_COST_ASKED = (
    r"\bwhat\s+(?:does|would|will|do)\b[^?.]{0,60}?\bcost\b"
    r"|\b(?:monthly|hourly|yearly|total)\s+(?:cost|price|bill)\b"
    r"|\bcost\s+(?:per|a|an|each)\s+(?:month|hour|year|day)\b|"
    r"\bhow\s+much\s+(?:does|would|will|do|did)\s+(?:it|this|that|they|we|i)\s+(?:\w+\s+)?cost"
    r"|\bwhat\s+(?:does|would|will)\s+(?:it|this|that)\s+cost\b"
    r"|\bwhat(?:'s|\s+is)\s+the\s+(?:monthly\s+|hourly\s+)?(?:cost|price|bill)\b"
    # A bare 'cost?' closing the question ('… on H100, cost?', 'in the EU, monthly cost?').
    r"|\b(?:costs?|price)\b(?=\s*\?)"
)

_PER_SECOND = r"(?:tokens?|tok)\s*(?:/\s*s(?:ec)?\b|per\s+sec(?:ond)?\b|a\s+second\b)"
_T_PER_S = rf"(?:{_PER_SECOND}|(?<![a-z])t/s\b|\btps\b)"
"""A rate in tokens per second, 't/s' and 'tps' too."""
_TTFT_ASKED = (
    r"\bwhat(?:'s|\s+is|\s+will\s+be|\s+would\s+be)\s+(?:the\s+)?(?:expected\s+)?"
    r"(?:time\s+to\s+first\s+token|ttft|first[-\s]token\s+latency)\b"
    r"|\bhow\s+(?:long|quickly|soon)\s+(?:until|before|to|for)\s+(?:the\s+)?first\s+token\b"
    r"|\bwhat\s+(?:ttft|time\s+to\s+first\s+token)\s+(?:do|does|would|will|can)\b"
)
_SPEED_ASKED = (
    rf"\bhow\s+many\s+{_T_PER_S}"
    r"|\b(?:poor|low|slow|bad|terrible)\s+(?:throughput|performance|speed|inference\s+speed)\b"
    rf"|\b(?:benchmark|number\s+of|only|just)\s+(?:\d[\d.,]*\s*)?{_PER_SECOND}"
    # 'Please benchmark qwen3.6-27b', 'any benchmarks on a Strix Halo?': the speed asked (not
    # 'benchmark scores', a model's quality).
    r"|\b(?:please\s+|could\s+you\s+|can\s+you\s+|any\s+)benchmarks?\b(?!\s+scores?\b)"
    r"|\b(?:should|is)\s+(?:it|this|that)\s+(?:should\s+)?(?:be\s+)?(?:that|this|so)\s+slow\b"
    r"|\bexpected\s+(?:speed|throughput|performance|tokens?\s*(?:/|per)\s*s\w*)\b"
    r"|\bhow\s+(?:fast|quick(?:ly)?)\s+(?:is|does|would|will|can|could|do|it|they|this|that)\b"
    # '…, how fast?' at the end of a clause.
    r"|\bhow\s+fast\b(?=\s*(?:[?!.,;]|$))"
    # 'What kind of speed can I expect …', 'what performance should I expect with …'
    r"|\bwhat\s+(?:kind\s+of\s+|sort\s+of\s+|type\s+of\s+)?(?:(?:generation|inference|decode|"
    rf"output)\s+)?(?:speeds?|performance|throughput|{_T_PER_S})\s+(?:can|could|should|would|"
    r"do|will|might)\s+(?:i|we|one|you)\s+(?:expect|get|see|achieve|hope\s+for)\b"
    # 'roughly what generation speed for …'
    r"|\bwhat\s+(?:generation|inference|decode|output)\s+(?:speed|throughput)\b"
    r"|\bwhat(?:'s|\s+is|\s+will\s+be|\s+would\s+be)\s+the\s+(?:decode\s+|generation\s+|"
    rf"output\s+)?(?:speed|throughput|{_PER_SECOND})"
    rf"|\bwhat\s+(?:speed|throughput|{_PER_SECOND})\s+(?:do|does|would|will|can|could)\b"
    r"|\bhow\s+many\s+tokens?\b[^.?!]{0,40}?\b(?:per\s+sec(?:ond)?|a\s+second)\b"
    # The speed as the question's last word: '…deepseek-R1 Q4_K_M speed?'
    r"|\b(?:speed|throughput|performance)\s*\?+\s*$"
    # Chinese: 'what speed can it reach', 'how fast', 'roughly how many tokens per second'.
    r"|(?:能到|能达到|可以达到|有)什么(?:样的)?速度|速度(?:能|可以)?(?:到|达到)?多少|多快"
    r"|每秒[^。？?]{0,8}多少\s*(?:个\s*)?(?:tokens?|token|词|字)"
)
_SLOW_SAID = (
    r"\b(?:is|are|was|were|runs?|running|seems?|feels?|got|gets)\s+(?:very\s+|so\s+|too\s+|"
    r"really\s+|extremely\s+|quite\s+|super\s+|incredibly\s+)?slow(?:ly)?\b"
    # 'Generation takes forever', 'why am I getting significantly lower performance?'
    r"|\b(?:takes?|taking|took)\s+(?:forever|ages)\b"
    r"|\bwhy\s+(?:am|are|is|do|does)\s+(?:i|we|it|my\s+\w+)\s+(?:getting|seeing|get|see)\s+"
    r"(?:\w+\s+)?(?:lower|slower|poor|worse|bad|low)\s+(?:performance|speed|throughput)\b"
    # Chinese: 'the speed is slow'.
    r"|速度(?:很|太|非常)?慢"
)
"""'Llama 2 70B on 2 A100 is very slow': the speed is what a question asks when it asks
nothing else (a yes/no or a hardware question said beside it wins)."""

_ONLY_RATE = (
    rf"\b(?:only|just|barely|merely)\s+(?:about\s+|around\s+|~\s*)?\d[\d.,]*\s*{_T_PER_S}"
    rf"|(?:只有|仅有|才)\s*(?:约|大约)?\s*\d[\d.,]*\s*{_T_PER_S}"  # Chinese: 'only 19 tokens/s'
)
"""A rate said as too little ('only 25t/s', 'just 3 tokens per second'): the speed asked."""

_SPEED_SAID = (
    rf"\bhow\s+(?:can|could|do|would|should)\s+(?:i|we)\s+(?P<verb>achieve|get|reach|hit)\b"
    rf"[^.?!]{{0,20}}?{_PER_SECOND}"
    r"|\btokens?[\s-]+per[\s-]+second[\s-]+(?:is\s+|are\s+)?(?:much\s+)?"
    r"(?P<than>(?:slower|lower|faster|higher)\s+than\s+expected)\b"
)
"""The speed asked around a figure the load extractor reads first ('how can I achieve 30
tokens per second', 'tokens-per-second slower than expected'): matched on the text as written,
only the asking words consumed."""


_NORMAL_ASKED = (
    r"\b(?:is|are)\s+(?:this|that|it|these|those)\s+(?:speed\s+|time\s+|figure\s+)?(?:really\s+)?"
    r"(?:normal|expected|ok|okay|reasonable|typical|usual|realistic|right|the\s+real\s+speed)\b"
    r"|\b(?:this|that)\s+(?:is\s+)?normal\b|\bnormal\s*\?"
    r"|\b(?:does|do)\s+(?:this|that|it|these)\s+(?:make\s+sense|sound\s+(?:right|normal|reasonable))\b"
    r"|\bis\s+[^.?!]{0,60}?\b(?:normal|expected|typical)\s+for\b"
    r"|\bshould(?:n'?t|\s+not)?\s+(?:it|this|(?:the\s+)?\w+(?:\s+time)?)\s+be\s+(?:much\s+)?faster\b"
    r"|\bwhy\s+(?:is|does|do|are)\b[^.?!]{0,80}?\b(?:so\s+(?:slow|long)|takes?\s+(?:so\s+long|\d)|only\s+(?:\w+\s+)?\d)"
    r"|\bwhy\s+so\s+slow\b|\b(?:can|could)\s+it\s+(?:run|go|be)\s+(?:much\s+)?faster\b"
    # A figure seen set against what was expected: 'much lower than expected', 'seems quite
    # slow compared with the benchmark', "isn't that slow?", 'cannot achieve … as in your tests'.
    r"|\b(?:lower|slower|worse)\s+than\s+(?:expected|advertised|claimed|the\s+benchmarks?|"
    r"(?:in\s+)?(?:the|your)\s+(?:tests?|benchmarks?|readme|docs?))"
    r"|\bseems?\s+(?:quite\s+|very\s+|really\s+|so\s+|too\s+|pretty\s+)?(?:slow|low)\b"
    r"|\bisn'?t\s+(?:that|this|it)\s+(?:too\s+|very\s+|quite\s+)?slow\b"
    r"|\b(?:cannot|can'?t|could\s*n'?t|unable\s+to)\s+(?:achieve|reach|get)\b[^.?!]{0,40}?"
    r"\b(?:speed|tokens?|t/s|throughput)\b[^.?!]{0,30}?\b(?:as\s+in|like\s+in|as\s+fast)"
    # Chinese: 'performance not as expected', 'performance problem', 'how to optimize'.
    r"|性能没有预期|性能问题|没有预期的好|如何优化|怎么优化|能否[^。？?]{0,20}提升|正常(?:吗|么|嘛)"
)
"""A figure the asker saw, asked about ('5 tok/s on my 3090, is that expected?', 'training
took 30 hours, is this normal?', 'why does it take 55 seconds before the first token?'): the
answer leads with the figure gpu-sizer expects for that setup (`_normal_asked`)."""

_FIRST_TOKEN_SAID = r"\bfirst\s+token\b|\bttft\b|\bprompt\s+(?:processing|eval\w*)\b"
_TRAINING_SAID = r"\btrain\w*|\bfine[\s-]?tun\w*|\bepochs?\b|\bq?lora\b"


_WHICH_MODELS = (
    r"\b(?:which|what)\s+(?:kind\s+of\s+|size\s+(?:of\s+)?|(?:bigger|larger|smaller|other|"
    r"good|best)\s+)?(?:llms?|models?)\s+"
    r"(?:can|could|would|will|should|to|do|does|is|are|fits?|runs?|works?)\b"
    r"|\b(?:biggest|largest|best)\s+(?:llm|model)\s+(?:i|we|that|to|it|for)\b"
    # 'recommend a model for my M2 Max', 'any good model that runs on my 4060?'
    r"|\brecommend\s+(?:an?\s+|some\s+)?(?:good\s+)?(?:llms?|models?)\b"
    r"|\bany\s+(?:good\s+)?(?:llms?|models?)\s+(?:that|which|i\s+can|we\s+can)\b"
    r"|\bwhat\s+(?:can|could)\s+(?:i|we)\s+run\b|\bhow\s+(?:big|large)\s+(?:of\s+)?an?\s+"
    r"(?:llm|model)\b"
)

_THROUGHPUT_ASKED = (
    r"\b(?:max(?:imum)?|peak|total|aggregate|overall|full[\s-]load)\s+(?:output\s+)?"
    r"(?:throughput|tokens?\s*(?:/\s*s(?:ec)?\b|per\s+sec(?:ond)?\b))"
    r"|\bwhat(?:'s|\s+is|\s+will\s+be|\s+would\s+be)?\s+(?:the\s+)?throughput\b"
    r"|\bhow\s+much\s+throughput\b"
)

# A yes/no question: opens with an auxiliary ('Can my 3090 run…', 'Will it fit…', 'Is a 4090
# enough…') — not a request ('Can you recommend…') —, or ends with a tag ('…, right?').
_YES_NO_OPENING = (
    # A clause after a comma or dash opens one too: 'I got a 4090 and a 3060, will it fit?'
    # (The full-width marks of Chinese text too: '…L40，can … run？'.)
    r"(?:^|[.?!:]\s+|[。？！：]\s*|[,;，；]\s*|\s[-–—]\s*)\W*(?:so|ok(?:ay)?|and|but|hi|hello|hey)?"
    r"[\s,]*"
    r"(?:can|could|will|would|does|do|is|are|should|am)\b(?!\s+(?:you|u|someone|anyone|"
    r"somebody|anybody|we\s+(?:get|have)\s+(?:a|an|some)\s+(?:recommendation|suggestion))\b)"
)
_RUN_VERB = (
    r"\b(?:fit|fits|fitting|run|runs|running|work|works|load|handle|serve|host|squeeze\w*|"
    r"train|finetune|fine[\s-]?tun\w*|q?lora|infer|inference|"
    r"enough|possible|doable|feasible|viable|able|manage|support|do\s+it|cope)\b"
)
_YES_NO_TAG = (
    r",?\s*\b(?:yes|right|correct|true|yeah|no|isn'?t\s+it|won'?t\s+it)\s*\?+"
    # A question said as one last word: '… on a single 48GB GPU possible?', '… in fp8 fits?'
    r"|\b(?:possible|doable|feasible|viable|fits?|works?)\s*\?+"
)
_YES_NO_PHRASE = (
    r"\b(?:is|it'?s)\s+(?:it\s+)?(?:also\s+|even\s+|still\s+)?possible\s+to\b"
    r"|\b(?:am|are)\s+(?:i|we)\s+able\s+to\b|\b(?:any|a)\s+way\s+(?:of|to)\s+(?:run|fit|load)"
    # '…ask if the rtx 3050 8g can run this model?', 'wondering whether it would fit'
    r"|\b(?:if|whether)\b[^.?!]{0,80}?\b(?:can|could|will|would|should)\s+(?:\w+\s+)?"
    r"(?:run|fit|work|load|handle)\b"
    # '…could the model run inference on V100-32G?', 'will I be able to run it'
    r"|\b(?:can|could|will|would)\s+(?:i|we|it|this|they|the\s+\w+)\s+(?:be\s+able\s+to\s+)?"
    r"(?:run|fit|work|load)\b"
    # 'Can we use an EC2 free tier instance for testing Llama 2 7B?'
    r"|\b(?:can|could)\s+(?:i|we)\s+use\b[^.?!]{1,60}?\bfor\b"
    # 'Has anyone been successful with fine-tuning a 13B model?', 'has anyone managed to run'
    r"|\b(?:has|have)\s+(?:any\s*one|any\s*body|someone|somebody|you)\s+(?:else\s+)?"
    r"(?:been\s+(?:successful|able)|succeeded|managed|got(?:ten)?)\b"
    r"|\b(?:feasible|succeed\w*|(?:is\s+there\s+(?:a|any)|any)\s+chance)\b"
    # The last words: '… will 2x L40S do?', '…, ok?' (the card's name may be read already).
    r"|\b(?:will|would|does|can)\s+(?:(?:it|they|that|this|[\w.-]+(?:\s+[\w.-]+)?)\s+)?do\s*\?+\s*$"
    r"|,\s*ok(?:ay)?\s*\?+\s*$"
    r"|\ballow\s+(?:this|it|the\s+\w+)\s+(?:model\s+)?to\s+(?:work|run|fit)\b"
    # Other languages asked in the same threads: 能跑 / 可以…吗 (zh), consigo … rodar (pt).
    r"|能跑|跑得动|能运行|可以运行|能否运行|可以.{0,12}?(?:跑|推理|加载|运行).{0,12}?吗|能.{0,12}?跑.{0,8}?吗"
    r"|\bconsigo\b|\brodar\b"
    r"|\b(?:enough|sufficient|suffice)\b"
    # It not running, said: 'the 13B model won't run', 'can not run on a dual-A100 server'.
    r"|\b(?:won'?t|doesn'?t|does\s+not|can'?t|cannot|can\s+not|will\s+not|fails?\s+to|unable\s+to)"
    r"\s+(?:run|load|fit|start)\b"
    # 'is there a way to combine the memory of both GPUs to run it?', 'it can work on 8g4060'
    r"|\bis\s+there\s+(?:a|any)\s+way\b[^.?!]{0,60}?\b(?:run|fit|load)\b"
    r"|\b(?:it|this|that)\s+(?:can|could|will|would)\s+(?:run|fit|work|load)\s+(?:on|in|with)\b"
    r"|跑起来"
)


_LEAST_HARDWARE = (
    r"\b(?:minimum|minimal|min|smallest|cheapest|lowest[\s-]end|entry[\s-]level)\s+"
    r"(?:(?:nvidia|amd|consumer|cloud)\s+)?(?:gpus?|hardware|cards?|graphics\s+cards?|setup|"
    r"configuration|config|specs?|system|vram|instances?)\b"
)
"""'the minimum GPU to run …', 'cheapest card for …': the hardware asked, the least of it
(the recommender's ranking is by cost)."""

_HARDWARE_ASKED = (
    r"\b(?:what|which)\s+(?:kind\s+of\s+|type\s+of\s+|sort\s+of\s+)?(?:cloud\s+)?(?:gpus?|hardware|cards?|"
    r"graphics\s+cards?|configurations?|config|setup|instances?|systems?|machines?|servers?|specs?)\b"
    r"|\b(?:gpus?|hardware|configuration|setup|instance|system|specs?)\s+(?:is\s+|are\s+)?"
    r"(?:required|needed|necessary|recommended)\b|\brequirements?\b|\brecommend\w*\b"
    r"|\bwhat\s+(?:do|would|will|should)\s+(?:i|we)\s+need\b"
    rf"|{_LEAST_HARDWARE}"
)
"""A question that asks what to run it on ('what GPU do I need', 'hardware requirements')."""

_INTERROGATIVE = compiled(
    r"(?:^|[.?!:]\s+)\W*(?:how|what|which|can|could|will|would|does|do|is|are|should|why|"
    r"where)\b(?!\s+about\b)",
    re.I,
)


def extract_hardware_asked(t: Text, p: ParsedWorkload) -> None:
    """'What GPU do I need…', 'hardware requirements': what to run it on is asked outright
    (read after every figure-asking question, which wins)."""
    if p.asked is None and compiled(_HARDWARE_ASKED, re.I).search(t.original):
        p.asked = "hardware"
        t.each(r"\b(?:minimum|minimal|smallest|cheapest)\b(?=\s+\w)")
    if p.asked == "hardware":
        # 'which cloud GPU', 'cheapest cloud instance': the recommender's options are the
        # catalog's cloud offers, so 'cloud' says what it answers (read on the text as written:
        # the GPU word is consumed by then).
        # 'the GPU and memory requirements': the memory per GPU is part of the hardware answer.
        for m in compiled(r"\band\s+(memory|vram)\s+(?=requirements?\b)", re.I).finditer(
            t.original
        ):
            t.consume(*m.span(1))
        for m in compiled(_CLOUD_HARDWARE, re.I).finditer(t.original):
            t.consume(*m.span(1))
            if m.group(2):
                t.consume(*m.span(2))


_CLOUD_HARDWARE = (
    r"\b(cloud)\s+(?:(instances?|vms?|servers?|providers?)|gpus?|hardware|machines?|setup)\b"
)


_CODE = compiled(
    r"\b\w+\s*=\s*[\w.]+\(|\.from_pretrained\(|^\s*(?:python3?|pip|docker)\s", re.I | re.M
)
"""Program code pasted ('model = AutoModel.from_pretrained(…)', 'python -m …'): a snippet of
a run, which says what was run, not what is asked."""
_SPEC_LINE = compiled(
    r"^\W*(?:cpu|gpus?|ram|memory|os|driver|cuda|vram|system|platform|hardware)\b[^:：\n]{0,12}[:：]",
    re.I | re.M,
)
"""A labelled line of a pasted spec sheet ('GPU: RTX 4090', '- **RAM**: 64 GB', 'OS: Ubuntu')."""


_REPORTED = compiled(
    r"\b(?:the\s+)?(?:readme|docs?|documentation|blog(?:\s+post)?|paper|model\s+card|guide)\s+"
    r"(?:says?|said|mentions?|mentioned|lists?|listed|states?|stated|claims?|claimed|shows?)\b"
    r"|\b(?:you|they)\s+(?:say|said|mention(?:ed)?|claim(?:ed)?|wrote|stated?)\b"
    r"|\b(?:some\s*one|somebody|people|others)\s+(?:was\s+|were\s+)?(?:able|managed|got|"
    r"achieved|reported|ran|claims?|says?)\b"
    r"|\baccording\s+to\b|\bseeing\s+that\b|\bsince\s+it\s+was\s+able\b"
    # 'In the README on GitHub, it states: …', "I've heard that 360GB RAM is required".
    r"|\b(?:in|on)\s+the\s+(?:readme|docs?|documentation|paper|model\s+card|blog(?:\s+post)?)\b"
    r"[^.?!\n]{0,30}?\b(?:it\s+|they\s+)?(?:says?|states?|mentions?|claims?|writes?|lists?)\b"
    r"|\b(?:i'?ve|i\s+have)\s+(?:heard|read)\s+(?:that|somewhere)\b",
    re.I,
)
"""A setup reported from elsewhere ('the readme says 80GB*8 GPUs are required', 'someone was
able to get 900 tokens/s on 8×A800', 'seeing that 2-bit quants of a 70B fit in 24GB'): its
figures are another run's, not the workload asked about."""


def extract_reported_setup(t: Text, p: ParsedWorkload) -> None:
    """A sentence that reports another setup's figures: which of the figures are the workload
    to size is asked, not guessed (read, not consumed: the figures are still read, and shown)."""
    # Sentences and clauses: '.', '?', '!', ';' before a space (not '3.1'), full-width marks.
    for sentence in compiled(r"[.?!;](?=\s|$)|[。？！；\n]").split(t.original):
        said = _REPORTED.search(sentence)
        if said is not None and compiled(r"\d").search(sentence):
            quoted = sentence.strip()
            quoted = quoted if len(quoted) <= 120 else quoted[:117].rstrip() + "…"
            p.ask(
                "meaning",
                "ambiguous",
                f"'{quoted}' reports a setup from elsewhere: which of the figures "
                "are your workload (the model, the GPUs, the lengths) and which are theirs?",
                said.group(0),
            )
            return


def extract_pasted(t: Text, p: ParsedWorkload) -> None:
    """Code or a spec sheet (two labelled lines or more) pasted: with nothing asked in words,
    what to answer is asked, not guessed (such a paste is mostly the report of a run gone
    wrong, its question cut off or left to the thread's title). Read, not consumed."""
    p.pasted = bool(_CODE.search(t.original)) or len(_SPEC_LINE.findall(t.original)) >= 2


def asks_something(text: str) -> bool:
    """Whether the text asks a question in words (a sentence opening with how / what / can …)
    rather than stating the workload ('serve Llama 3.1 70B to 40 users on H100s', '405B on
    H100 SXM?')."""
    return bool(_INTERROGATIVE.search(text))


_HOW_TO_RUN = (
    r"\bhow\s+(?:can|could|do|should)\s+(?:i|we)\s+(?:get\s+(?:it\s+|this\s+)?to\s+)?"
    r"(?:deploy|run|serve|load|inference)\b"
    r"|\bhow\s+to\s+(?:get\s+(?:it\s+|this\s+)?(?:to\s+)?)?(?:deploy|run|serve|load|inference)\b"
)
"""'How do I run it on my 3090?': whether (and how) it fits the hardware named; with none
named, what to run it on."""


def _count_asked_not_said(after: str, p: ParsedWorkload) -> None:
    """'How many H100-80G are needed …? I used 72 H100-80G': the count of the card named after
    'how many' is what is asked, so a count said elsewhere is the one tried, not the one to
    size on. ('how many 8xH100 nodes' asks nodes: the per-node count stays.)"""
    named = compiled(
        # A card's name, or a GeForce model number ('how many 3090s'); not '8xH100' (nodes).
        r"\s+(?:more\s+)?(?P<name>[a-z][\w-]*\d[\w-]*|\d{3,5}s?\b(?![x×*]))",
        re.I,
    ).match(after)
    if named is None or len(p.gpus) != 1 or p.gpus[0].count is None:
        return
    mention = p.gpus[0]
    key = named.group("name").lower().rstrip("s")
    if key.split("-")[0] not in mention.text.lower().replace(" ", ""):
        return
    p.notes.append(
        f"'{mention.count:,} {mention.text}' read as the count you have or tried: how many are "
        "needed is what is asked"
    )
    mention.count = None


_OOM_REPORTED = r"\boom\b|\bout\s+of\s+(?:gpu\s+)?memory\b|\btried\s+to\s+allocate\b"


_WEIGHED_COST = r"\b(?:cheaper|more\s+expensive|costlier|pricier|worth\s+it)\b"
"""A yes/no about cost ('is buying cheaper than renting?', 'is a second 4090 worth it?'):
whether it fits is not what it asks."""


def _yes_no_phrase(t: Text) -> re.Match[str] | None:
    """The words that ask whether it runs ('can I run', 'enough', 'won't load') — and an
    out-of-memory report, which asks whether (and how) it fits, unless what is asked is how to
    fix the failure ('… OOM. What should I do?'): debugging (scope.py)."""
    phrase = compiled(_YES_NO_PHRASE, re.I).search(t.work)
    if phrase is None and not compiled(FIX_ASKED, re.I).search(t.original):
        phrase = compiled(_OOM_REPORTED, re.I).search(t.work)
    return phrase


def extract_yes_no(t: Text, p: ParsedWorkload) -> None:
    """A yes/no question ('Can my 3090 run Qwen3 32B?', 'so it squeezes onto a 16 GB V100,
    yes?', 'is it possible to run…'): the answer opens with yes or no. Read after every
    figure-asking question (which wins: 'Can I run it, and how much VRAM?' asks the memory)."""
    tag = t.each(_YES_NO_TAG)
    # Searched, not consumed: the phrase may hold a GPU or a model read later ('if the rtx
    # 3050 8g can run').
    phrase = _yes_no_phrase(t)
    opening = compiled(_YES_NO_OPENING, re.I).search(t.work) or phrase
    # A yes/no about running it ('is it cheaper…?' compares costs; a claim is checked first).
    runs = phrase or compiled(_RUN_VERB, re.I).search(t.original)
    asked_else = p.asked is not None or p.capacity or p.max_context or p.claims or p.how_long
    # 'How many GPUs does it take? Would two 5090s do?': the count asked, then a yes/no about
    # a count of a card said — the narrower question, which the answer opens with (yes or no
    # for the two; the fit says how many it takes when they are not enough).
    counted = p.asked == "gpu_count" and any(m.count is not None for m in p.gpus)
    if (tag or opening) and runs and (not asked_else or counted):
        p.asked = "fits"
    elif compiled(_HOW_TO_RUN, re.I).search(t.original) and not asked_else:
        named = p.gpus or p.gpu_count is not None or p.gpu_memory_bytes is not None
        p.asked = "fits" if named else "hardware"
    elif not asked_else and _bare_workload_asked(t, p):
        p.asked = "fits"


def _bare_workload_asked(t: Text, p: ParsedWorkload) -> bool:
    """A workload said with a question mark and no question word ('Run Llama 3.3 70B on 4x
    3090 for 5 users?', '405B at fp8 on one 8xH100 node for 20 users?'): does it fit — not a
    cost weighed ('Is buying 2 H100s cheaper than renting them?')."""
    if p.buy_asked or compiled(_WEIGHED_COST, re.I).search(t.original):
        return False
    return bool(
        (p.gpus or p.gpu_memory_bytes is not None)
        and compiled(r"\?\s*$").search(t.original)
        and not compiled(r"\b(?:how|what|which|why|where|when|who|whose)\b", re.I).search(
            t.original
        )
    )


_ENOUGH_ASKED = compiled(
    r"\b(?:enough|sufficient|suffice|do\s+it|handle\s+it|work)\b|\b(?:possible|doable|fits?)\s*\?"
    r"|\b(?:could|can|would|will)\s+(?:it\s+|this\s+(?:model\s+)?)?(?:be\s+)?run\s+(?:on|in|with)\b",
    re.I,
)
_CARD_BY_MEMORY = compiled(
    r"\b\d{1,3}(?:\.\d)?\s?(?:gb|gib|g)\b(?:\s*(?:of\s+)?(?:vram|gpu|card))?"
    r"|\b(?:rtx|gtx|a|h|l|v|t|p|rx|mi)\s?\d{2,4}\b",
    re.I,
)


def _last_asks_if_a_card_said_is_enough(text: str) -> bool:
    """'How much VRAM does the 13B need? Is a 40G card enough?': the memory asked first, then —
    the question's last — whether one card said by its memory or name is enough, which the
    answer opens with (yes or no, with the memory it needs). Not a vaguer yes/no after the
    figure ('… how much VRAM? Can it run on consumer GPUs?'): the figure leads then."""
    asks = [a for a in compiled(r"[^?？]+[?？]").findall(text) if a.strip(" ?？")]
    if len(asks) < 2:
        return False
    last, before = asks[-1], "".join(asks[:-1])
    if compiled(_MEMORY_ASKED, re.I).search(last):
        # '… it doesn't seem to be enough, does someone know how much VRAM it uses?': the
        # memory is asked again last, the card a report.
        return False
    figure = compiled(_MEMORY_ASKED, re.I).search(before)
    return bool(figure and _ENOUGH_ASKED.search(last.strip()) and _CARD_BY_MEMORY.search(last))


def extract_asked_number(t: Text, p: ParsedWorkload) -> None:
    """The number the question asks for, which the answer opens with: memory ('how much VRAM
    does Llama 3.1 70B need?'), a cost ('how much would it cost per month?'), the time to first
    token ('what's the TTFT on 2x H100?') or the speed ('how many tokens/s on one H100?')."""
    if t.each(_WHICH_MODELS):
        p.asked = "which_models"
    elif t.each(_KV_CACHE_ASKED):
        p.asked = "kv_cache"
    elif t.each(_MEMORY_ASKED) or compiled(_WHY_SO_MUCH_MEMORY, re.I).search(t.original):
        p.asked = "memory"
        # 'why does it use 37GB of memory?': the memory word is what is asked, read.
        t.each(r"\b(?:vram|gpu\s+memory|video\s+memory|memory)\b")
    elif t.each(_COST_ASKED):
        p.asked = "cost"
    elif t.each(_TTFT_ASKED):
        p.asked = "ttft"
    elif t.each(_SPEED_ASKED):
        p.asked = "speed"
    elif t.each(_THROUGHPUT_ASKED):
        p.asked = "throughput"
    elif compiled(_ONLY_RATE, re.I).search(t.original):
        # 'why is the generation speed only 15t/s?': the speed is what is asked — the first
        # token's time where one was said seen as well ('takes 55 seconds before the first
        # token, and only 15t/s'), which the question raises first.
        p.asked = "ttft" if p.ttft_s is not None else "speed"
        t.each(r"\b(?:only|just|barely|merely)\b")
    elif said := compiled(_SPEED_SAID, re.I).search(t.original):
        p.asked = "speed"
        words = said.group("verb") or said.group("than")
        t.each(rf"\b{re.escape(words)}\b|-per-second\b")
    elif _figure_seen(t, p) and (
        t.each(_NORMAL_ASKED) or compiled(_NORMAL_ASKED, re.I).search(t.original)
    ):
        # On the text as written too: the figure seen may have been read with its verb ('take
        # 55 seconds before the first token').
        _normal_asked(t, p)
    # 'how long will it take / for 100M tokens': the job's duration, which a training answer
    # leads with; not a length ('how long a context' is read by the max-context question).
    if t.each(
        r"\bhow\s+long\b(?=\s+(?:will|would|does|do|did|is|to|for|might|should)\b|\s*\?)"
        r"|\b(?:completion|training|expected|estimated)\s+time\b|\bhow\s+many\s+(?:hours|days)\b"
        # 'how many A100-days / GPU hours': the job's GPU time (the GPU name already read).
        r"|\bhow\s+many\s+(?:\(?[\w-]*\s*\)?\s+)?(?:gpu)?[\s-]*(?:hours|days|hrs)\b"
        r"|\bgpu[\s-]?(?:hours|days)\b"
        r"|\btime\s+to\s+(?:train|finish|complete)\b|\btakes?\s+(?:too\s+|very\s+|that\s+)?long\b"
        # Chinese: '(needs) how long', 'how much time'.
        r"|多久|多长时间|多少时间"
    ):
        p.how_long = True


_SEEN = (
    r"\b\d[\d.,]*\s*(?:ms|s|secs?|seconds?|mins?|minutes?|hours?|hrs?|h|days?|t/s|tok\w*)\b"
    r"|\b(?:slow|slower|fast|faster|long|speed|latency|first\s+token|ttft)\b"
)
"""A figure or a pace said: what 'is that normal / ok?' is about. Without one ('Gemma 2 9B on a
T4 for 4 users, is that ok?') the question is whether it fits."""


def _figure_seen(t: Text, p: ParsedWorkload) -> bool:
    speeds = (p.tokens_per_s, p.tokens_per_s_per_user, p.ttft_s)
    return any(s is not None for s in speeds) or bool(compiled(_SEEN, re.I).search(t.original))


def _normal_asked(t: Text, p: ParsedWorkload) -> None:
    """Whether a figure seen is normal asks for the figure expected: the time to first token
    when the first token is what was seen, a training run's duration when a training job was
    (read as `how_long`, which a training task turns into the training time), else the speed."""
    if p.ttft_s is not None or compiled(_FIRST_TOKEN_SAID, re.I).search(t.original):
        p.asked = "ttft"
    elif compiled(_TRAINING_SAID, re.I).search(t.original):
        p.how_long = True
    else:
        p.asked = "speed"


def extract_question_kind(t: Text, p: ParsedWorkload) -> None:
    """Capacity, longest-context and alternatives questions (flags on `p`); a length inside a
    capacity question ('8k chats', '8k-token sequences') is the context per sequence; the
    number asked for (`extract_asked_number`)."""
    extract_asked_number(t, p)
    extract_max_context_question(t, p)
    adjectives = r"(?:(?:more|concurrent|simultaneous|parallel|active)\s+)*"
    length = rf"(?:{Q}[\s-]*(?:tokens?[\s-]+)?(?:(?:context|ctx)[\s-]+)?)?"
    for m in t.each(rf"\bhow\s+many\s+{adjectives}{length}(?P<noun>{_SEQUENCE_NOUNS})\b"):
        p.capacity = True
        said = m.group(1)
        if said is not None:
            before = p.context
            set_context(p, said)
            if p.context is not None and p.context != before:
                noun = m.group("noun")
                p.notes.append(
                    f"'{said.strip()} {noun}' read as {noun} of {p.context:,} tokens each (the "
                    "context per sequence), not a count of users: the answer is how many fit"
                )
    for m in t.each(r"\bhow\s+many\b(?=.*\b(?:fit|fits|serve|handle|hold|run|support)\b)"):
        # Read on the original text: the GPU extractor has already consumed 'H100s'.
        if not compiled(_HARDWARE_NEXT, re.I).match(t.original[m.end() :]):
            p.capacity = True
        elif p.asked is None:
            p.asked = "gpu_count"
    needed = p.asked is None and t.each(
        r"\bhow\s+many\s+(?:more\s+)?(?:(?:of\s+)?(?:them|those)\s+)?(?:do|would|will|should|shall)\s+"
        r"(?:i|we|you)\s+need\b"
    )
    if needed:
        p.asked = "gpu_count"  # 'how many do I need?': of the hardware, none other counted
        # 'How many A100s do I need?' (the name already read): the count asked is of it.
        _count_asked_not_said(t.original[needed[0].start() + len("how many") :], p)
    for m in t.each(r"\bhow\s+many\b|\bnumber\s+of\b|\bhow\s+much\s+hardware\b"):
        # 'how many A10G?', 'how many GPUs do I need': a count of GPUs asked.
        if compiled(_HARDWARE_NEXT, re.I).match(t.original[m.end() :]):
            p.asked = p.asked or "gpu_count"
            if p.asked == "gpu_count":
                _count_asked_not_said(t.original[m.end() :], p)
    if t.each(r"\b(?:alternatives?|other\s+options|other\s+gpus|what\s+else|more\s+gpus)\b"):
        p.alternatives = True
    extract_yes_no(t, p)
    if p.asked == "memory" and _last_asks_if_a_card_said_is_enough(t.original):
        p.asked = "fits"
    extract_hardware_asked(t, p)
    if (
        p.asked is None
        and not p.capacity
        and not p.max_context
        and compiled(_SLOW_SAID, re.I).search(t.original)
    ):
        p.asked = "speed"


_CTX = r"(?:context(?:[\s-](?:window|length|size))?|sequence(?:[\s-]length)?|ctx|prompt)"
_FIT = r"(?:fit|fits|get|run|use|support|handle|hold|serve)"


def extract_max_context_question(t: Text, p: ParsedWorkload) -> None:
    """A question whose answer is a length: 'max context', 'longest context', 'how long a
    context', 'how much context can I fit', 'what context fits', 'how many tokens of context'.
    Read before the capacity patterns, whose 'how many … fit' would take the last one."""
    if t.each(
        rf"\b(?:max(?:imum)?|longest|largest|biggest)\s+(?:possible\s+|usable\s+)?{_CTX}\b"
        rf"|\bhow\s+(?:long|large|big)\s+(?:of\s+)?(?:an?\s+)?{_CTX}\b"
        rf"|\bhow\s+(?:long|large|big)\s+(?:can|could|will|would|may)\s+(?:the\s+|my\s+|a\s+)?"
        rf"{_CTX}\s+(?:be|get|go)\b"
        rf"|\bhow\s+much\s+{_CTX}\b"
        rf"|\bhow\s+many\s+tokens\s+(?:of\s+)?{_CTX}\b"
        rf"|\bwhat(?:'s|\s+is)?\s+(?:the\s+)?{_CTX}\s+(?:(?:can|could|will|would|do|does)\s+)?"
        rf"(?:(?:i|we|you|it)\s+)?{_FIT}\b"
        # 'What context size … is best?', 'what context do I set?', 'the best context length'.
        rf"|\bwhat\s+{_CTX}\b(?=[^?.]{{0,80}}?\b(?:is\s+best|(?:should|do|can)\s+(?:i|we)\s+"
        r"(?:set|use|choose|pick)|to\s+(?:set|use))\b)"
        rf"|\b(?:best|optimal|ideal|recommended|right)\s+{_CTX}\b"
        # 'a good choice for max-model-len': the engine's context flag as what is asked.
        r"|\b(?:good|best|right|optimal|reasonable|sensible)\s+(?:choice|value|setting)\s+for\s+"
        r"(?:the\s+)?(?:--?)?(?:max[-_\s]model[-_\s]len|ctx[-_]size|num[-_]ctx|n[-_]ctx|"
        r"max[-_]seq[-_]len|context(?:\s+(?:length|size|window))?)\b"
    ):
        p.max_context = True
