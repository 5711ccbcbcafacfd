"""Issue 27: hardware as people paste it — spec lists, memory joined to the card's name, version
numbers beside a chip, 'minimum VRAM' typed in a hurry, the context flag asked about, and a
count asked for beside a count tried. Each class over several phrasings; the memory figures
are the cards' datasheet amounts."""

from __future__ import annotations

import pytest

from assistant.offline.parser import parse_workload
from assistant.reading.of_parsed import reading_of
from tools.units import GB

# --- a number that is not a count: a version, a memory type, a line above a label -----------

NOT_A_COUNT = [
    # (question, catalog GPU read) — no count anywhere in the question.
    ("Performance with M1 Pro 16GB: is it normal? macOS 13.4.1 M1 Pro 16GB", "apple-m1-pro-16gb"),
    ("Specs: RAM: 16GB DDR 4\nGPU: GTX 3060 (12 GB VRAM)", "rtx-3060-12gb"),
    ("Ubuntu 22.04.3 with an RTX 4090, can it run Mistral 7B?", "rtx-4090"),
    ("CUDA 12.4.1 RTX 3090 will llama 3.1 8b fit?", "rtx-3090"),
]


@pytest.mark.parametrize(("question", "gpu"), NOT_A_COUNT)
def test_a_version_or_a_memory_type_is_no_gpu_count(question: str, gpu: str) -> None:
    p = parse_workload(question)
    (mention,) = p.gpus
    # One card ('an RTX 4090': one), never the 4 of '13.4.1' or of 'DDR 4'.
    assert mention.gpu == gpu and mention.count in (None, 1)
    assert p.gpu_count is None


def test_a_count_on_its_own_line_above_a_label_is_not_the_gpu_count() -> None:
    # '4' ends the RAM line ('DDR 4'); 'GPU:' labels the next one.
    p = parse_workload("RAM: 32GB DDR 4\nGPU: RTX 4070")
    assert [(m.gpu, m.count) for m in p.gpus] == [("rtx-4070", None)]
    # The RAM line is read whole: 32 GB of system RAM, DDR4 its type (nothing left unread).
    assert p.system_ram_bytes == 32 * GB
    assert not [u for u in reading_of(p).unread_that_matters if "DDR" in u.span.text]


@pytest.mark.parametrize(
    "question", ["I have 2 GPUs: 3090 and 4090", "4 GPUs with 48GB memory", "2x 4090 for Qwen 32B"]
)
def test_counts_said_with_the_gpus_stay_read(question: str) -> None:
    p = parse_workload(question)
    counted = [m.count for m in p.gpus if m.count is not None]
    assert counted or p.gpu_count is not None


# --- memory joined to the name: the variant said is the one sized ----------------------------

JOINED_MEMORY = [
    # V100: 16 GB and 32 GB (NVIDIA V100 datasheet); H100: 80 GB SXM / PCIe, 94 GB NVL;
    # A100: 40 GB and 80 GB.
    ("could starcoder 15b run inference on V100-32G?", {"v100-pcie-32gb", "v100-sxm2-32gb"}, 32),
    ("How many h100-80g are needed to fully train GPT-OSS 120b?", {"h100-sxm", "h100-pcie"}, 80),
    ("llama 3.1 70b on 4x A100-40GB?", {"a100-40gb-pcie", "a100-40gb-sxm4"}, 40),
    ("Mistral 7B on a V100-16GB, will it fit?", {"v100-pcie-16gb", "v100-sxm2-16gb"}, 16),
]


@pytest.mark.parametrize(("question", "variants", "memory_gb"), JOINED_MEMORY)
def test_memory_joined_by_a_hyphen_picks_the_variant(
    question: str, variants: set[str], memory_gb: int
) -> None:
    p = parse_workload(question)
    (mention,) = p.gpus
    picked = set(mention.variants) or {mention.gpu}
    assert picked == variants
    assert not reading_of(p).unread_that_matters  # the '-32G' is read, not held


# --- 'GTX' before an RTX number: the RTX card, said so ---------------------------------------


@pytest.mark.parametrize(
    "question", ["Will mistral 7b run on a GTX 3060?", "GPU: GeForce GTX 4090 — llama 3.1 8b?"]
)
def test_gtx_before_an_rtx_number_reads_the_rtx_card(question: str) -> None:
    p = parse_workload(question)
    (mention,) = p.gpus
    assert mention.gpu is not None and mention.gpu.startswith("rtx-")
    assert any("read as the RTX card" in n for n in p.notes)
    assert not [u for u in reading_of(p).unread_that_matters if u.kind == "hardware"]


# --- 'minimum VRAM' as typed: the memory is what is asked -----------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "Mininum VRAM for llama 3.1 8b?",
        "minimun vram for llama 3.1 8b",
        "min vram for mistral 7b?",
        "hi, How many mem does llama 3.1 8b need?",
        "what is the minimum vram for mistral 7b",
    ],
)
def test_minimum_vram_asks_the_memory(question: str) -> None:
    assert reading_of(parse_workload(question)).asked == "memory"


# --- the context to set: the longest context is what is asked --------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "what is good choice for max-model-len for llama 3.1 70b on 4*H100?",
        "What context size when using a 24GB VRAM card (4090) is best for mistral 7b?",
        "what's the best context length for qwen2.5 7b on my 3060 12gb",
        "what context do I set for mistral 7b on a 4090?",
    ],
)
def test_the_context_to_set_asks_the_longest_context(question: str) -> None:
    assert parse_workload(question).max_context


@pytest.mark.parametrize(
    ("question", "tokens"),
    [
        # 128k and 32k as model cards write them: binary k (128 × 1,024 = 131,072).
        ("can I use the full 32k of mistral 7b on a 4090", 32 * 1024),
        ("does llama 3.1 8b at the full 128k fit in 24 GB?", 128 * 1024),
    ],
)
def test_the_full_window_is_the_context(question: str, tokens: int) -> None:
    assert parse_workload(question).context == tokens


# --- a count asked for beside a count tried: the count is open ------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "How many h100-80g are needed to fully train GPT-OSS 120b? I used 72 H100-80g, but it OOM",
        "I have 4 A100s. How many A100s do I need for llama 3.1 405b fp8?",
        "We tried 2 L40S and it OOMed: how many L40S does Llama 3.1 70B bf16 need?",
    ],
)
def test_how_many_of_a_card_leaves_its_count_open(question: str) -> None:
    p = parse_workload(question)
    assert p.asked == "gpu_count"
    (mention,) = p.gpus
    assert mention.count is None
    assert any("read as the count you have or tried" in n for n in p.notes)


def test_how_many_nodes_keeps_the_gpus_per_node() -> None:
    # 'how many 8xH100 nodes': nodes are asked, the 8 per node is said.
    p = parse_workload("how many 8xH100 nodes do I need for llama 3.1 405b bf16")
    assert [(m.gpu, m.count) for m in p.gpus] == [("h100-sxm", 8)]


# --- 'my memory is only 256GB' beside cards: the machine's RAM, not a need claimed ----------


@pytest.mark.parametrize(
    ("question", "ram_gb"),
    [
        (
            "I have 2 NVIDIA L40s which provide 96GB VRAM, but my memory is only 256GB. Is it "
            "possible to run the Deepseek R1 with ktransformers?",
            256,
        ),
        ("I have a 4090 and my RAM is 64GB, can I run llama 3.1 70b q4_k_m?", 64),
        ("our system memory is just 128 GB next to 2x 3090, will Qwen2.5 72B Q4_K_M run?", 128),
    ],
)
def test_my_memory_beside_cards_is_the_system_ram(question: str, ram_gb: int) -> None:
    p = parse_workload(question)
    assert p.system_ram_bytes == ram_gb * GB
    assert not [c for c in p.claims if c.kind == "memory"]


def test_my_memory_with_no_card_named_stays_asked() -> None:
    # Without a card or VRAM said, 'my memory' may be the GPU's: held for the coverage gate.
    p = parse_workload("my memory is only 16GB, can I run llama 2 13b?")
    assert p.system_ram_bytes is None
    # The word 'memory' too: whose memory is what was not read.
    assert [u.span.text for u in reading_of(p).unread_that_matters] == ["memory", "16GB"]


# --- an 's' after a name: the S model, or the plural ------------------------------------------


@pytest.mark.parametrize(
    ("question", "variants"),
    [
        # L40 and L40S: both 48 GB, different chips; RTX 4080 and 4080 SUPER: both 16 GB.
        ("I have 2 NVIDIA L40s, will Llama 3.1 70B AWQ fit?", {"l40", "l40s"}),
        ("two 4080s for qwen 14b?", {"rtx-4080", "rtx-4080-super"}),
        ("RTX 4070s for Mistral 7B", {"rtx-4070", "rtx-4070-super"}),
    ],
)
def test_a_small_s_keeps_the_card_and_its_s_model(question: str, variants: set[str]) -> None:
    (mention,) = parse_workload(question).gpus
    assert set(mention.variants) == variants


@pytest.mark.parametrize(
    ("question", "gpu"),
    [
        ("Qwen2.5 14B on my 4080S 16GB", "rtx-4080-super"),
        ("a 4070S with Mistral 7B", "rtx-4070-super"),
        ("Llama 3.1 70B on an L40S", "l40s"),
        ("8 H100s for Llama 3.1 405B", "h100-sxm"),  # no H100 S model: the plural only
    ],
)
def test_a_capital_s_is_the_s_model(question: str, gpu: str) -> None:
    (mention,) = parse_workload(question).gpus
    assert mention.gpu == gpu
    assert not {"rtx-4080", "rtx-4070", "l40"} & set(mention.variants)


# --- a runtime's features: said out of scope, not sized as if asked -------------------------


@pytest.mark.parametrize(
    "question",
    [
        "I have a A10G GPU with 23GB VRAM and a 13B model. Does VLLM support quantized models?",
        "is GGUF supported by SGLang for qwen 7b?",
        "Is there support for AWQ in TGI with Mistral 7B on an L4?",
    ],
)
def test_what_a_runtime_supports_is_said_out_of_scope(question: str) -> None:
    from assistant.offline.planner import scope_only

    p = parse_workload(question)
    assert "what a runtime supports (formats, models, features)" in p.out_of_scope
    assert scope_only(p)


def test_a_figure_asked_beside_a_support_question_is_still_sized() -> None:
    from assistant.offline.planner import scope_only

    p = parse_workload("Does vLLM support llama 3.1 8b on a T4, and how much VRAM does it need?")
    assert p.asked == "memory" and not scope_only(p)


# --- what is asked, in the words people use around a figure ----------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "finetune 65B model on A100-80G with lora … Do you have a guess for the amount of VRAM "
        "you'd need for 65B?",
        "Have you tested it on 4xA100 40Gb? What about the usage of your gpu memory?",
        "Why does loading the vicuna-13b-v1.1 model in FastChat require 26GB of GPU memory, while "
        "VLLM requires 37GB of GPU memory?",
        "why is llama 3.1 8b using 30GB of VRAM on my 4090?",
    ],
)
def test_the_memory_is_asked(question: str) -> None:
    assert parse_workload(question).asked == "memory"


@pytest.mark.parametrize(
    "question",
    [
        "Generation takes forever with llama 2 70b on my RTX 4060 Laptop GPU",
        "Qwen3-235B-A22B on 8x A100 80GB. Why am I getting significantly lower performance?",
        "gpt-neo 2.7B taking about 2 minutes to respond, shouldn't response time be faster on a "
        "GPU?",
        # 'the speed is only 19 tokens/s, is this normal?'
        "deepseek r1 推理速度只有19tokens/s，这正常吗？",
    ],
)
def test_the_speed_is_asked(question: str) -> None:
    assert parse_workload(question).asked == "speed"


@pytest.mark.parametrize(
    "question",
    [
        "Can we use AWS EC2 free tier instance for testing llama 2 7B chat model?",
        "has anybody managed to get Mistral 7B going on two 3060 12GB cards?",
        "Has anyone else been successful with fine-tuning a 13B model on a 24GB card?",
    ],
)
def test_whether_it_runs_is_asked(question: str) -> None:
    assert parse_workload(question).asked == "fits"


def test_a_use_of_ram_seen_is_not_the_machines_ram() -> None:
    # 'takes about 18GB of RAM' is what training took, not what the machine has: held.
    p = parse_workload("Training the 7B model takes about 18GB of RAM. Will 13B fit a 24GB card?")
    assert p.system_ram_bytes is None
    assert "18GB" in [u.span.text for u in reading_of(p).unread_that_matters]


# --- what gpu-sizer cannot answer, read where an earlier extractor took a word ---------------


@pytest.mark.parametrize(
    ("question", "topic"),
    [
        # 'GPU' of 'GPU split' is read as hardware first; the topic is still said.
        ("I have 3 x 3090s. What is the GPU split to run Llama 2 70B?", "tuning"),
        ("where can i rent ECS with 8 A100S, best counting by hours", "availability"),
        ("sgLang v0.3 breaks TP8 Llama 3.1 405B FP8 on 8xH100", "debugging"),
        ("Error 18446744072635812000 loading Qwen3 4B on an RTX 3060", "debugging"),
        ("Any plans to release a 2b version that can fit into a 4090?", "release"),
        ("请问支持9070xt吗？", "supports"),  # 'is the 9070 XT supported?'
    ],
)
def test_an_out_of_scope_topic_is_read(question: str, topic: str) -> None:
    assert any(topic in said for said in parse_workload(question).out_of_scope), question


def test_memory_left_free_is_not_availability() -> None:
    p = parse_workload("Qwen2-VL-7B takes 18GB of my 24GB GPU, leaving 6GB available. Why slow?")
    assert "live availability of GPUs" not in p.out_of_scope


# --- a card as tools print it: the longest name, its maker's words, its device list ----------


@pytest.mark.parametrize(
    ("question", "gpu", "count"),
    [
        # V100 SXM2 comes with 16 GB or 32 GB (NVIDIA V100 datasheet): the 32 GB one is named.
        ("Tesla V100-SXM2-32GB, can it run llama 2 13b?", "v100-sxm2-32gb", None),
        ("2x Tesla V100-SXM2-32GB for llama 2 13b", "v100-sxm2-32gb", 2),
        ("8x NVIDIA GeForce RTX 3090 for Llama 3.1 70B", "rtx-3090", 8),
        ("GPUs: 2x (dual) RTX 3090, Llama 3.1 70B Q4_K_M?", "rtx-3090", 2),
        # nvidia-smi's 'GPU 0:' … 'GPU 3:' lines: four cards.
        (
            "GPU 0: NVIDIA A100 80GB PCIe\nGPU 1: NVIDIA A100 80GB PCIe\n"
            "GPU 2: NVIDIA A100 80GB PCIe\nGPU 3: NVIDIA A100 80GB PCIe\nmixtral 8x22b slow",
            "a100-80gb-pcie",
            4,
        ),
        # gpustat's '[0]' … '[7]': eight.
        ("[0] Tesla V100-SXM2-32GB | 68°C … [7] Tesla V100-SXM2-32GB | 76°C", "v100-sxm2-32gb", 8),
    ],
)
def test_a_card_as_tools_print_it(question: str, gpu: str, count: int | None) -> None:
    (mention,) = parse_workload(question).gpus
    assert (mention.gpu, mention.count, mention.variants) == (gpu, count, [])
    assert not [u for u in reading_of(parse_workload(question)).unread if u.kind == "hardware"]


@pytest.mark.parametrize(
    ("question", "gpu"),
    [
        # M2 Ultra with 192 GB; M1 Max with 64 GB (Apple's configurations).
        (
            "On my machine: M2 Ultra (60 GPU cores, 192GB memory), llama-2-70b-chat",
            "apple-m2-ultra",
        ),
        ("M1 Max 32-core GPU 64GB: how fast is llama 3.1 8b?", "apple-m1-max"),
    ],
)
def test_gpu_cores_are_no_gpu_count_and_the_memory_after_them_is_read(
    question: str, gpu: str
) -> None:
    p = parse_workload(question)
    (mention,) = p.gpus
    assert (mention.gpu, mention.count, mention.variants) == (gpu, None, [])
    assert p.gpu_count is None


def test_code_pasted_with_nothing_asked_asks_what_to_answer() -> None:
    p = parse_workload(
        "- **GPU**: NVIDIA GeForce RTX 5060 Ti (16 GB) … "
        'model = AutoModel.from_pretrained("D:/ai-models/Qwen2.5-3B-Instruct")'
    )
    assert [q.slot for q in p.questions] == ["asked"]


# --- cloud instances as the GPUs they hold ---------------------------------------------------

INSTANCES = [
    # AWS EC2 accelerated-instance specifications: g5.48xlarge 8× A10G, g4dn.xlarge 1× T4,
    # p4d.24xlarge 8× A100 40GB, p5.48xlarge 8× H100; Google Cloud a2-highgpu-8g 8× A100 40GB;
    # Azure ND96isr_H100_v5 8× H100.
    ("LLAMA 70B AWQ on an AWS G5.48xl machine, will it fit?", "a10g", 8),
    ("can llama 3.1 8b run on a g4dn.xlarge?", "t4", 1),
    ("mixtral 8x7b on a p4d.24xlarge, how many users?", "a100-40gb-sxm4", 8),
    ("Qwen2.5 72B on a2-highgpu-8g", "a100-40gb-sxm4", 8),
    ("ND96isr_H100_v5 for llama 3.1 405b fp8?", "h100-sxm", 8),
    ("serve llama 3.1 405b bf16 on 2 p5.48xlarge", "h100-sxm", 16),  # two instances of 8
    # A size the catalog does not list: the g5 family's A10G, its count said beside it.
    ("Qwen2.5 32B AWQ on a g5.8xlarge (1 A10G 24GB), how fast?", "a10g", 1),
]


@pytest.mark.parametrize(("question", "gpu", "count"), INSTANCES)
def test_a_cloud_instance_is_its_gpus(question: str, gpu: str, count: int) -> None:
    p = parse_workload(question)
    assert [(m.gpu, m.count) for m in p.gpus] == [(gpu, count)]
    assert not [u for u in reading_of(p).unread if u.kind == "hardware"]


# --- NVIDIA's boxes and machines counted: their GPUs in all ----------------------------------


@pytest.mark.parametrize(
    ("question", "variants", "count"),
    [
        # DGX H100 / DGX A100 / HGX H200: 8 SXM GPUs each (NVIDIA DGX and HGX datasheets).
        ("can 4 DGX H100 train llama 3.1 70b full fine-tune?", {"h100-sxm"}, 32),
        ("a DGX A100 for mixtral 8x22b", {"a100-40gb-sxm4", "a100-80gb-sxm4"}, 8),
        ("two HGX H200 for deepseek v3 fp8", {"h200-sxm"}, 16),
        ("multinode with infiniband across 2x h100 dgx's, deepseek r1 fp8", {"h100-sxm"}, 16),
        ("we have 2x 8xA100 servers, can we serve llama 3.1 405b fp8?", None, 16),
    ],
)
def test_boxes_and_machines_are_their_gpus(
    question: str, variants: set[str] | None, count: int
) -> None:
    p = parse_workload(question)
    (mention,) = p.gpus
    assert mention.count == count
    if variants is not None:
        assert (set(mention.variants) or {mention.gpu}) == variants
    assert not reading_of(p).unread_that_matters


def test_the_dgx_spark_is_its_own_machine() -> None:
    (mention,) = parse_workload("DGX Spark for llama 3.1 70b q4").gpus
    assert (mention.gpu, mention.count) == ("dgx-spark-gb10", None)


# --- ExLlamaV2 named: read, sized with the generic overheads, said so ----------------------


@pytest.mark.parametrize(
    ("question", "engine"),
    [
        ("Does Exllama V2 run Llama 2 70B on 2 RTX 3090s?", "exllamav2"),
        ("Qwen2.5 14B EXL2 on my 4080 16GB, will it fit?", "exllamav2"),
    ],
)
def test_exllamav2_is_read_as_named(question: str, engine: str) -> None:
    p = parse_workload(question)
    assert p.engine_named == engine
    assert p.engine == "exllamav2"  # the memory tool's ExLlamaV2 rule, not llama.cpp's
    assert any("sized for ExLlamaV2" in n for n in p.notes)


@pytest.mark.parametrize(
    ("question", "weights"),
    [
        ("Will Llama2-70B EXL2 at 4.65 bits per weight fit on 2 RTX 3090s?", "exl2-4.65bpw"),
        ("could a 4090 hold Mistral 7B as exl2 8.0bpw", "exl2-8.0bpw"),
        ("Qwen2.5 32B 4.25bpw EXL2 on one 3090, with 16k context", "exl2-4.25bpw"),
        ("Gemma 2 27B exl2_5bpw on a single 24GB card", "exl2-5.0bpw"),
        ("is 6bit exl2 of llama 3.1 8b ok on a 3060 12GB", "exl2-6.0bpw"),
    ],
)
def test_an_exl2_bit_rate_is_the_exl2_format(question: str, weights: str) -> None:
    p = parse_workload(question)
    assert (p.weights, p.engine) == (weights, "exllamav2")  # 'EXL2' names the engine too
    assert not reading_of(p).unread_that_matters


def test_a_bare_bpw_is_read_as_exl2_and_said() -> None:
    # bpw is the unit EXL2 quants are named by: no format named is EXL2, with the reading noted.
    p = parse_workload("llama 2 13b at 3.5bpw on an RTX 4070 12GB")
    assert p.weights == "exl2-3.5bpw"
    assert p.engine is None  # not said: the memory tool sizes EXL2 for ExLlamaV2, said so
    assert any("read as EXL2" in n for n in p.notes)


def test_a_fractional_bit_width_is_exl2() -> None:
    p = parse_workload("a 2.65bit 13b model uses 19gb of vram, why?")
    assert p.weights == "exl2-2.65bpw"
    assert any("fractional bit width" in n for n in p.notes)


def test_a_rate_exllamav2_does_not_make_is_asked_not_rounded() -> None:
    p = parse_workload("Llama2-70B EXL2 at 9.5bpw on 2 RTX 3090s?")
    assert p.weights is None
    assert any("2.0 to 8.0 bits per weight" in q.text for q in p.questions)


def test_a_gguf_types_own_bit_rate_stays_gguf() -> None:
    assert parse_workload("Llama 3.1 8B Q4_K_M (4.85 bpw) on a 3060").weights == "q4_k_m"


# --- a Jetson module: sized against the memory said, the sharing said ------------------------


@pytest.mark.parametrize(
    ("question", "memory_gb"),
    [
        # Jetson AGX Orin 64GB / Orin Nano 8GB / AGX Orin 32GB: NVIDIA's module configurations.
        ("can I run llama 2 7b on a Jetson AGX Orin 64GB?", 64),
        ("Jetson Orin Nano Developer Kit 8GB to run the LLaMA2_7B model", 8),
        ("i have one jetson orin(32g), llama 3.1 8b runs slowly", 32),
    ],
)
def test_a_jetson_is_sized_against_its_memory(question: str, memory_gb: int) -> None:
    p = parse_workload(question)
    (mention,) = p.gpus
    assert (mention.gpu, mention.memory_bytes) == (None, memory_gb * GB)
    assert any("shared by its CPU and GPU" in n for n in p.notes)


def test_running_slowly_asks_the_speed() -> None:
    assert parse_workload("llama 3.1 8b runs slowly on my 3060 12GB").asked == "speed"


def test_how_many_of_the_card_owned_leads_with_the_count(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Llama 3.1 70B in fp16 is 141 GB of weights (70.55e9 parameters × 2 bytes): no two 24 GB
    # cards hold it, so the count asked is more than the two owned and is the first figure.
    from assistant.cli import main

    question = "I have 2 RTX 3090s. How many 3090s do I need for llama 3.1 70b fp16?"
    assert main(["ask", "--offline", "--no-save", question]) == 0
    out = capsys.readouterr().out
    lead = next(line for line in out.splitlines() if line.startswith("**"))
    count = int(lead.removeprefix("**Needs ").split("×")[0])
    assert count * 24 > 141


# --- on owned hardware the memory or speed asked leads, from the local plan ------------------

LOCAL_ASKED = [
    ("How much VRAM does Llama 3.1 8B need on my RTX 3090?", "memory"),
    ("how much memory does llama 3.1 70b fp16 need on my 4090?", "memory"),
    ("How fast is Llama 3.1 8B Q4_K_M on my 3060 12GB?", "speed"),
    ("what speed will qwen2.5 7b q4_k_m get on my rtx 4070?", "speed"),
]


@pytest.mark.parametrize(("question", "asked"), LOCAL_ASKED)
def test_the_local_figure_asked_leads_and_matches_the_plan(
    question: str, asked: str, capsys: pytest.CaptureFixture[str]
) -> None:
    import json
    import re

    from assistant.cli import main

    assert main(["ask", "--offline", "--no-save", "--json", question]) == 0
    record = json.loads(capsys.readouterr().out)
    answer, plan = record["sizing"]["asked"], record["sizing"]["local"][0]
    lines = [ln for ln in record["answer"].splitlines() if ln.startswith("**")]
    lead = lines[1] if lines[0].startswith("*Read as") else lines[0]
    if asked == "memory":
        # The need is the plan's GPU part and RAM part together, the GPU part its own figure.
        assert answer["value"] == plan["gpu_bytes"] + plan["host_bytes"]
        assert answer["on_gpu_bytes"] == plan["gpu_bytes"]
        need, on_gpu = re.findall(r"(\d[\d,.]*) GiB", lead)[:2]
        assert f"{on_gpu} GiB of " in record["answer"].split(lead, 1)[1]  # the plan's line
        assert float(need) >= float(on_gpu)
    else:
        assert answer["value"] == plan["decode_tokens_per_s"]
        speed = re.match(r"\*\*(\d[\d,.]*) tokens/s\*\*", lead)
        assert speed is not None
        assert f"Decode speed ≈ {speed.group(1)} tokens/s" in record["answer"]


@pytest.mark.parametrize(
    "question",
    [
        "GPU: RTX 4090\nRAM: 64 GB\nLlama 3.1 70B Q4_K_M",
        "- **GPU**: NVIDIA GeForce RTX 4070\n- **RAM**: 32GB RAM\nQwen2.5 7B",
    ],
)
def test_a_spec_sheet_with_nothing_asked_asks_what_to_answer(question: str) -> None:
    # A pasted spec sheet is mostly a report of a run gone wrong: nothing is guessed for it.
    p = parse_workload(question)
    assert "asked" in [q.slot for q in p.questions]
    assert not reading_of(p).verdict_stands


def test_a_spec_sheet_with_its_question_is_still_read() -> None:
    p = parse_workload("GPU: RTX 4090\nRAM: 64 GB\nWill Llama 3.1 70B Q4_K_M fit?")
    assert p.asked == "fits" and "asked" not in [q.slot for q in p.questions]


# --- prompt and output lengths said each with its side's name --------------------------------


@pytest.mark.parametrize(
    ("question", "prompt", "output"),
    [
        # 1k = 1,024 tokens, as model cards and benchmarks write it.
        ("Qwen3 235B on 8xA800, batch 32, input length of 1k, and output length of 1k", 1024, 1024),
        ("I set the input maxlength to 128 and the output maxlength to 128, qwen 2.5 7b", 128, 128),
        ("how many requests on a 4096 input fit llama 2 13b on a 24GB 3090?", 4096, None),
        ("deepseek r1 1000token输出只能达到6-7 token/s", None, 1000),  # 输出: output
    ],
)
def test_each_side_of_the_request_is_read(
    question: str, prompt: int | None, output: int | None
) -> None:
    p = parse_workload(question)
    assert (p.prompt_tokens, p.output_tokens) == (prompt, output)


def test_a_count_of_input_devices_is_no_prompt() -> None:
    assert parse_workload("llama 3.1 8b with 4 input GPUs").prompt_tokens is None


# --- the machine's memory in a spec list, a card's memory after 'with' -----------------------


@pytest.mark.parametrize(
    ("question", "ram_gb"),
    [
        ("Deepseek R1 with 8 * 4090? CPU: 80 GPU: 8 * 4090 Memory: 256G", 256),
        ("I have consider 40 core cpu/ 40GB mem/ssd disk for llama 3.1 8b", 40),
        ("Could I run falcon 7b 16bit on this? 8 GB Memory / 4 Intel vCPUs / 160 GB Disk", 8),
        # The 3070 has 8 GB (NVIDIA spec): 'with 8gb of ram' is the card's; the 32 GB the PC's.
        ("a ryzen 5 6600 and 32gb of ram, and a 3070 with 8gb of ram: can it run llama 2 7b?", 32),
        # The 4090 has 24 GB: 'with 64 GB of RAM' is the machine's.
        ("Llama 3.1 70B in Q4_K_M on my RTX 4090 with 64 GB of RAM using llama.cpp", 64),
    ],
)
def test_the_machines_memory_in_a_spec_list(question: str, ram_gb: int) -> None:
    assert parse_workload(question).system_ram_bytes == ram_gb * GB


@pytest.mark.parametrize(
    ("question", "model"),
    [
        ("8x22b tokens-per-second slower than expected on 4 A100", "mixtral-8x22b"),
        ("how fast is 8x7b on 2x 3090?", "mixtral-8x7b"),
    ],
)
def test_a_mixture_shape_said_alone_is_mixtral(question: str, model: str) -> None:
    p = parse_workload(question)
    assert p.model == model and p.train_tokens is None


def test_the_context_said_up_to_a_length() -> None:
    q = "2 H100*8 machines for deepseek-R1: can the context length consistently support up to 128k?"
    assert parse_workload(q).context == 128 * 1024


@pytest.mark.parametrize(
    ("question", "weights"),
    [
        ("python generate.py --load_8bit --base_model llama-7b with a GPU with 6GB", "int8"),
        ("load_8bit = True on a T4 16GB with llama 2 7b", "int8"),
        ("load_in_8bit=True llama 2 13b on a 3090", "int8"),
        ('compute_type="int8_float16" for llama 2 13b on 2x 3090', "int8"),
        ("load_in_4bit llama 2 13b on a 3060", "nf4"),
    ],
)
def test_loader_flags_say_the_weights(question: str, weights: str) -> None:
    assert parse_workload(question).weights == weights


@pytest.mark.parametrize(
    ("question", "aggregate", "per_user"),
    [
        # 100 tokens a minute is 100 / 60 = 1.667 tokens/s; 6,000 a minute in all is 100/s.
        (
            "with one chat session the speed is 100 tokens per minute on a 4060 Ti 16GB",
            None,
            100 / 60,
        ),
        ("we need 6000 tokens/min in total from llama 3.1 8b on L4s", 100.0, None),
    ],
)
def test_a_rate_per_minute_is_read_per_second(
    question: str, aggregate: float | None, per_user: float | None
) -> None:
    p = parse_workload(question)
    assert (p.tokens_per_s, p.tokens_per_s_per_user) == (aggregate, per_user)
    assert p.context is None


@pytest.mark.parametrize(
    "question",
    [
        "I only have two RTX3070 GPUs. Is there a way to combine their memory to run vicuna 13b?",
        "Macbook Air M1 16GB: the Hermes 13B model won't run",
        "Running Llama 3 70B on an A100 80GB - Tried to allocate 160MiB.",
        # 'can I get Llama 3.1 70B running on an L40?'
        "我有一张L40，能否把 llama 3.1 70b 跑起来？",
    ],
)
def test_it_not_running_asks_whether_it_fits(question: str) -> None:
    assert parse_workload(question).asked == "fits"


@pytest.mark.parametrize(
    ("question", "gpu"),
    [
        # A Threadripper 3960X is a CPU; GB202 is the RTX PRO 6000 Blackwell's die (lspci's name).
        (
            "CPU: AMD 3960x (24 core)\nGPUs: 2x (dual) RTX 3090, can llama 3.1 70b q4_k_m run?",
            "rtx-3090",
        ),
        (
            "GB202GL [RTX PRO 6000 Blackwell Server Edition] with qwen2.5 32b",
            "rtx-pro-6000-blackwell",
        ),
        ("AMD 7900 XTX for llama 3.1 8b", "rx-7900-xtx"),
    ],
)
def test_a_cpu_or_a_die_is_no_gpu_to_ask_about(question: str, gpu: str) -> None:
    p = parse_workload(question)
    assert [m.gpu for m in p.gpus] == [gpu]
    assert not [q for q in p.questions if q.slot == "gpu"]
    # (The word 'CPU' may stay held: what the CPU is can matter for offloaded layers.)
    unread = [u.span.text for u in reading_of(p).unread_that_matters if u.kind == "hardware"]
    assert not [w for w in unread if w != "CPU"]


@pytest.mark.parametrize(
    ("question", "memory_gb"),
    [
        ("Nvidia Tesla p40 24GB … Has anyone used GPU p40? How fast is a 7B on it?", 24),
        (
            "I use a Jetson Nano Orin Developer Kit 8GB; the Jetson Nano Orin 8GB should run a 7B?",
            8,
        ),
    ],
)
def test_an_unknown_card_said_twice_is_one_card(question: str, memory_gb: int) -> None:
    p = parse_workload(question)
    assert [(m.gpu, m.memory_bytes) for m in p.gpus] == [(None, memory_gb * GB)]
    assert not [q for q in p.questions if q.slot == "gpu"]


@pytest.mark.parametrize(
    ("question", "variants", "count"),
    [
        # A100 40 GB: PCIe and SXM4; the bare 'a100' later is the same card, not an 80 GB one.
        ("How to run it on a 40 GB A100 and 80 GB Ram of Colab PRO? i have 40 bg a100",
         {"a100-40gb-pcie", "a100-40gb-sxm4"}, 1),
        ("2xa100 pcie for llama 3.1 70b; how can I get 30 tokens per second on the a100?",
         {"a100-40gb-pcie", "a100-80gb-pcie"}, 2),
    ],
)  # fmt: skip
def test_a_family_named_again_bare_is_the_card_said(
    question: str, variants: set[str], count: int
) -> None:
    (mention,) = parse_workload(question).gpus
    assert (set(mention.variants), mention.count) == (variants, count)


@pytest.mark.parametrize(
    "question",
    ["It is using 19gb of vram for a 13b model … Something is wrong there",
     "llama 3.1 8b takes 30 GB of VRAM on my 4090, why?"],
)  # fmt: skip
def test_a_use_of_vram_seen_is_a_claim_not_a_card(question: str) -> None:
    p = parse_workload(question)
    assert p.asked == "memory"
    assert [c.kind for c in p.claims] == ["memory"]
    assert all(m.memory_bytes is None for m in p.gpus) and p.gpu_memory_bytes is None
