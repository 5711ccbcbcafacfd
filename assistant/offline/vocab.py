"""Word tables the parser matches: precisions, tasks, optimizers, engines, regions, filler.

Order matters inside each table: the first pattern that matches wins, so specific spellings
("8-bit Adam", "Q4_K_M", "QLoRA") come before general ones ("8-bit", "4-bit", "LoRA").
Weight-format names are those of `tools.workload.Workload.weights` / `gpu-sizer memory`.
"""

from __future__ import annotations

# (pattern, optimizer name)
OPTIMIZERS: tuple[tuple[str, str], ...] = (
    (
        r"\b(?:8[\s-]?bit|paged(?:[\s-]8[\s-]?bit)?)\s+adam(?:w)?(?:[\s-]?8[\s-]?bit)?\b",
        "adamw-8bit",
    ),
    (r"\badam(?:w)?[\s-]?8[\s-]?bit\b|\bbnb\s+adam\w*", "adamw-8bit"),
    (r"\badam(?:w)?\b", "adamw"),
    (r"\bsgd(?:\s+with\s+momentum)?\b", "sgd"),
    (r"\badafactor\b", "adafactor"),
)

GGUF_TYPE = (
    r"(?<![\w.])(?:gguf[\s_:-]?)?(?:"
    r"q[1-8](?:[_-]?k(?:[_-]?[sml])?|[_-]?[01])"
    r"|iq[1-4][_-]?(?:xxs|xs|nl|[sm])"
    r"|tq[12][_-]?0"
    r")(?![\w.])"
)
"""A llama.cpp quantization type by its own name, any case and separators ('Q4_0', 'q5_k_s',
'IQ4_XS', 'q6k', 'gguf q3_k_l'); `task.gguf_type` keeps the names the tools size, and one they
do not ('Q4_K') is asked about. Checked before the table: a type is more precise than any
word for a bit width near it. A bare 'q4' is read by the table (Q4_K_M, with a note)."""

# (pattern, weight format, note or None). The note records a reading a user may not expect.
_GROUP_128 = r"(?:[\s_-]?128g|[\s_-]+(?:gs|group[\s_-]?size)[\s_=-]?128)?"
"""A GPTQ / AWQ group size of 128 said with the format, the size the tools assume."""

PRECISIONS: tuple[tuple[str, str, str | None], ...] = (
    (r"\bq4[_\-]?k[_\-]?m\b", "q4_k_m", None),
    (
        r"\bq4\b(?![_\-]?[0-9k])",
        "q4_k_m",
        "'{text}' read as GGUF Q4_K_M (llama.cpp's usual 4-bit mix; say q4_0 for another)",
    ),
    (r"\bq5[_\-]?k[_\-]?m\b", "q5_k_m", None),
    # The other bare GGUF bit widths, as llama.cpp users say them: the usual type of each.
    (
        r"\bq8\b(?![_\-]?[0-9k])",
        "q8_0",
        "'{text}' read as GGUF Q8_0 (llama.cpp's 8-bit type)",
    ),
    (
        r"\bq6\b(?![_\-]?[0-9k])",
        "q6_k",
        "'{text}' read as GGUF Q6_K (llama.cpp's 6-bit type)",
    ),
    (
        r"\bq5\b(?![_\-]?[0-9k])",
        "q5_k_m",
        "'{text}' read as GGUF Q5_K_M (llama.cpp's usual 5-bit mix; say q5_0 for another)",
    ),
    (
        r"\bq3\b(?![_\-]?[0-9k])",
        "q3_k_m",
        "'{text}' read as GGUF Q3_K_M (llama.cpp's usual 3-bit mix; say q3_k_s for another)",
    ),
    (r"\bq8[_\-]?0\b", "q8_0", None),
    (r"\bmxfp4\b", "mxfp4", None),
    # Double quantization (QLoRA paper §3) is said or denied next to NF4, or alone.
    (r"(?:\bnf4\s+)?\b(?:without|no|w/o)\s+(?:the\s+)?double[\s-]?quant\w*", "nf4", None),
    (
        r"\bnf4[\s-]?dq\b|(?:\bnf4\s*(?:\+|with|and)\s*)?\bdouble[\s-]?quant\w*",
        "nf4-dq",
        None,
    ),
    (r"\bnf4\b|\bnormal[\s-]?float[\s-]?4\b|\bbitsandbytes\s+4[\s-]?bit\b", "nf4", None),
    # bitsandbytes 4-bit said otherwise: '…-bnb-4bit' (Unsloth's repo names), '4bit with
    # bitsandbytes': NF4, the 4-bit type those checkpoints and guides use.
    (
        r"\bbnb[\s_-]?4[\s-]?bits?\b|\b(?:in\s+)?4[\s-]?bits?\s+(?:with|using|via)\s+bitsandbytes\b",
        "nf4",
        "'{text}' read as NF4 (bitsandbytes' 4-bit type in these checkpoints; FP4 is the same "
        "size)",
    ),
    # 'GPTQ-Int4' / 'AWQ 4-bit' (Qwen's repo names) are one format, not two.
    # With the group size the tools assume (128, the AutoGPTQ / AutoAWQ default): 'GPTQ
    # 4bit-128g', 'AWQ gs128'. Another group size stays unread (it changes the scales' bytes).
    (rf"\bawq(?:[\s_-]?(?:int4|4[\s-]?bits?))?{_GROUP_128}\b", "int4-awq", None),
    (rf"\bgptq(?:[\s_-]?(?:int4|4[\s-]?bits?))?{_GROUP_128}\b", "int4-gptq", None),
    # llm-compressor's scheme names: W4A16 is its GPTQ int4 (group 128) preset.
    (r"\bw4a16\b", "int4-gptq", "'{text}' read as GPTQ int4 weights, group size 128"),
    (r"\bfp8\b|\bfloat8\b|\b8[\s-]?bit\s+float(?:ing[\s-]point)?\b|\be4m3\b", "fp8", None),
    # Loader flags as typed: Transformers' load_in_8bit / load_in_4bit (bitsandbytes), FastChat
    # and alpaca-lora's --load_8bit / load_8bit = True, CTranslate2's compute_type int8_float16.
    (
        r"\bload[_-]?(?:in[_-]?)?8[_-]?bits?\b|\bint8[_-]float16\b",
        "int8",
        "'{text}' read as 8-bit weights (bitsandbytes LLM.int8 / CTranslate2 int8: 1 byte per "
        "weight and a scale per row)",
    ),
    (
        r"\bload[_-]?(?:in[_-]?)?4[_-]?bits?\b",
        "nf4",
        "'{text}' read as bitsandbytes 4-bit (NF4; its FP4 is the same size)",
    ),
    (
        r"\bint8\b|\b8[\s-]?bits?\b|\bw8a8\b|\bllm\.int8\b",
        "int8",
        "'{text}' read as INT8 weights (FP8 is the same size per weight)",
    ),
    (
        r"\bint4\b|\b4[\s-]?bits?\b|\bquanti[sz]ed\b",
        "int4-awq",
        "'{text}' read as 4-bit AWQ weights (GPTQ is about the same size; say which)",
    ),
    (r"\bbf16\b|\bbfloat[\s-]?16\b", "bf16", None),
    (r"\bfp16\b|\bfloat[\s-]?16\b|\bhalf[\s-]precision\b", "fp16", None),
    (r"\b16[\s-]?bits?\b", "bf16", "'{text}' read as BF16 (FP16 is the same size)"),
    # "Full precision" means unquantized to most people who serve LLMs (checkpoints ship in
    # BF16) and FP32 to some: the reading halves or doubles the weights, so it is stated.
    (
        r"\bfull[\s-]precision\b",
        "bf16",
        "'{text}' read as BF16, the unquantized 16-bit weights models ship in (2 bytes per "
        "weight); FP32 (4 bytes per weight) doubles the weights: its figures are given beside",
    ),
    (r"\bfp32\b|\bfloat[\s-]?32\b|\b32[\s-]?bits?\b", "fp32", None),
)

# (pattern, task, use). "serving-finetuned" marks "a fine-tuned model", which is served, not
# trained. "full?" is a plain "fine-tune": read as full, with a note saying so.
ALL_PARAMETERS = (
    r"\bfully\b|\ball\s+(?:the\s+|of\s+(?:the|its)\s+)?(?:model'?s?\s+)?(?:parameters|params|weights)\b"
    r"|\bevery\s+(?:parameter|weight)\b|\b(?:with\s+)?full\s+(?:parameters|params|weights)\b"
)
"""The words that say a fine-tune trains every weight, said after the verb ('fine-tune …
fully', 'with full parameters'): read with it as a full fine-tune."""

TASKS: tuple[tuple[str, str, str | None], ...] = (
    (
        r"\bfine[\s-]?tuned\s+(?:\w+[\s-]+){0,2}?(?:model|llm|checkpoint|version)\b",
        "serving-finetuned",
        None,
    ),
    (r"\bq[\s-]?lora\b", "qlora", "fine-tune"),
    (r"\blora\b|\bpeft\b|\badapters?\b", "lora", "fine-tune"),
    (
        r"\b(?:full(?:[\s-]param(?:eter)?s?|[\s-]weights?)?|fully)[\s-]+(?:fine[\s-]?tun\w*|ft|train\w*)\b"
        r"|\bfull[\s-]ft\b"
        # 'fine-tune Llama 3.1 8B fully', 'fine-tune all parameters of …', 'train a 1.3B
        # model with full parameters': said after the verb (a decimal point is no sentence end).
        rf"|\b(?:fine[\s-]?tun\w*|finetun\w*|train\w*)\b(?=(?:[^.?!]|\.\d){{0,40}}?(?:{ALL_PARAMETERS}))",
        "full",
        "fine-tune",
    ),
    (
        # 'train a 1B model from scratch': the words between say what is trained.
        r"\bpre[\s-]?train\w*|\btrain\w*(?=\s+(?:[\w.-]+\s+){0,5}?from\s+scratch\b)",
        "full",
        "pre-train",
    ),
    (r"\bfine[\s-]?tun(?:e|es|ing)\b|\bfinetun\w*|\bsft\b", "full?", "fine-tune"),
    (r"\btrain(?:ing|ed|s)?\b", "full?", "fine-tune"),
    (r"\b(?:rag|retrieval[\s-]augmented\w*|retrieval)\b", "inference", "rag"),
    (
        r"\bbatch(?:ed)?\s+(?:inference|jobs?|processing|generation)\b|\boffline\s+batch\b",
        "inference",
        "batch",
    ),
    (r"\bchat(?:bot|bots|s|ting)?\b|\bassistant\b|\bconversational\b", "inference", "chat"),
    (
        r"\bserv(?:e|es|ing)\b|\bdeploy\w*|\bhost(?:ing)?\b|\binference\b|\bproduction\b",
        "inference",
        "serve",
    ),
)

# (pattern, engine, note)
ENGINES: tuple[tuple[str, str, str | None], ...] = (
    (r"\bvllm\b", "vllm", None),
    (
        # 'text-generation-inference' whose 'inference' the task extractor has read already.
        r"\bsglang\b|\btgi\b|\btext[\s-]generation(?:[\s-]inference\b|-(?=\s))|\btensorrt[\s-]?llm\b",
        "vllm",
        "'{text}' sized like vLLM (paged KV cache, same memory reservation style)",
    ),
    (
        r"\b(?:hugging\s?face\s+)?transformers\b|\baccelerate\b|\bfrom_pretrained\b"
        r"|\btorch_dtype\b|\bautomodelfor\w*",
        "transformers",
        None,
    ),
    (
        r"\bllama\.cpp\b|\bollama\b|\blm\s+studio\b",
        "generic",
        "'{text}' sized with the generic engine overheads",
    ),
    (
        # ExLlamaV2 (and its EXL2 quants): the memory tool's exllamav2 engine — no
        # reserve, contiguous KV cache, layers split over the GPUs. (MLX is read as the Mac's
        # local app, `extract_owned`.)
        r"\bex[\s-]?llama[\s-]?v?2(?:_hf)?\b|\bexl2\b|\bexllama(?:_hf)?\b|\btabby[\s-]?api\b",
        "exllamav2",
        "'{text}' sized for ExLlamaV2 (no memory reserve, contiguous KV cache, layers split "
        "over the GPUs)",
    ),
)

# (pattern, ZeRO stage, note or None). FSDP's sharding strategies map onto ZeRO stages (PyTorch
# FSDP docs, ShardingStrategy: FULL_SHARD shards parameters, gradients and optimizer states like
# ZeRO-3; SHARD_GRAD_OP shards gradients and optimizer states like ZeRO-2).
ZERO_STAGES: tuple[tuple[str, int | None, str | None], ...] = (
    (r"\b(?:deepspeed\s+)?zero[\s-]*(?:stage[\s-]*)?([0-3])\b", None, None),
    (r"\b(?:deepspeed\s+)?stage[\s-]*([0-3])\s+zero\b", None, None),
    (
        r"\bfsdp[\s-]*(?:with\s+)?shard[\s_-]*grad[\s_-]*op\b",
        2,
        "'{text}' read as ZeRO-2 (FSDP SHARD_GRAD_OP shards gradients and optimizer state)",
    ),
    (
        r"\bfsdp(?:[\s-]*(?:with\s+)?full[\s_-]*shard)?\b|\bfully[\s-]sharded[\s-]data[\s-]parallel\w*",
        3,
        "'{text}' read as ZeRO-3: FSDP full shard splits weights, gradients and optimizer state "
        "over the data-parallel GPUs, as ZeRO stage 3 does",
    ),
)

OBJECTIVES: tuple[tuple[str, str], ...] = (
    (r"\bcheap(?:est|er)?\b|\blowest[\s-]cost\b|\bleast\s+expensive\b", "cheapest"),
    (r"\bfast(?:est|er)\b|\blowest[\s-]latency\b", "fastest"),
    (r"\bfewest\s+gpus\b|\bas\s+few\s+gpus\b", "fewest_gpus"),
)

# A cost-per-token question ("per million tokens", "per 1M output tokens", "$/Mtok"): ranked by
# price. Read before any length or size rule, which would take "1M tokens" for a length.
COST_PER_TOKEN = (
    r"\bper\s+(?:million|1\s?m|m)\s+(?:output\s+|generated\s+|input\s+)?tokens?\b"
    r"|\bper[\s-](?:output\s+|generated\s+)?token\b"
    r"|\$\s?/\s?(?:1\s?)?m\s?(?:tok(?:en)?s?)?\b"
)

REGIONS: tuple[tuple[str, str], ...] = (
    (r"\beu(?:[\s-]only)?\b|\beurope(?:an)?\b|\bgdpr\b|\bin\s+the\s+eu\b", "eu"),
    (r"\bus[\s-]only\b|\bin\s+the\s+us\b|\bunited\s+states\b|\bus\s+regions?\b", "us"),
)

# Model family words that may precede a bare size ("LLaMA 65B", "Falcon 40B"): consumed with it.
FAMILY_WORDS: tuple[str, ...] = (
    "llama",
    "mistral",
    "mixtral",
    "qwen",
    "gemma",
    "phi",
    "falcon",
    "mpt",
    "opt",
    "bloom",
    "deepseek",
    "yi",
    "command-r",
    "gpt-j",
    "gpt-neox",
    "vicuna",
    "codellama",
    "starcoder",
)

# Words that carry no sizing information; anything else left over is reported as unplaced.
_FILLER_WORDS = """
    a an the and or but if of to in on at for with without by from into onto over under as is are
    be been being was were am do does did done doing can could would should will shall may might
    must need needs needed want wants wanted like i we you they he she it its our my your their me
    us them this that these those there here what which who whom whose how when where why whether
    much many more most less least some any all both either neither no not only just
    also too very so than then about around roughly approx approximately ~ per via using use used
    run running runs fit fits fitting enough big small large larger smaller medium tiny huge model
    models llm llms gpu gpus hardware machine machines server servers node nodes box setup config
    configuration sizing size sized estimate estimates estimated recommend recommendation suggest
    options option best good better right ideal suitable own please thanks hi hello hey help get
    got go going make makes want wanting plan planning able possible ok okay what's whats it's
    let's lets i'm im we're setup? fine single would've should've also, at least around same
    different new newer old older current available typical typically instead rather something
    anything kind sort type types version versions one ones other another else between against
    which better? requirement requirements need? will it handle handling serve? workload workloads
    task tasks job jobs team company our us use-case case cases scenario weights weight have has
    had base change changes changed changing users generate generates generating really rule rules
    thumb means mean takes take
"""
FILLER: frozenset[str] = frozenset(_FILLER_WORDS.split())
