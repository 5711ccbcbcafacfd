"""Words engineers add to a sizing question that say something the reader must take: 'without a
GPU' (no GPU to size), 'using tensor parallel' (the split over the GPUs counted), 'with full
parameters' (a full fine-tune), '€1.500 monthly budget' (1,500 EUR a month), 'what should we
buy' (which hardware), 'which cloud GPU' (the recommender's cloud offers).
Each is read as what it says, or the verdict is held — never dropped. Phrasings written for this
file (issue 27); the values asserted are what each sentence says, read by hand."""

from __future__ import annotations

import pytest

from assistant.offline.parser import parse_workload
from assistant.offline.planner import scope_only
from assistant.reading.of_parsed import reading_of

CPU_ONLY = [
    "Can I run Llama 3 8B without a GPU on 32 GB of RAM?",
    "Is it possible to run Mistral 7B CPU-only with 64GB RAM?",
    "Can Qwen2.5 14B run on CPU only?",
    "Running Llama 3.1 70B with no GPU, just 128 GB of system RAM?",
    "we have no GPUs at all, only a Xeon box: will Phi-3 mini run?",
]


@pytest.mark.parametrize("question", CPU_ONLY)
def test_a_question_with_no_gpu_gets_the_out_of_scope_answer_not_a_gpu_verdict(
    question: str,
) -> None:
    p = parse_workload(question)
    assert "running on a CPU without a GPU" in p.out_of_scope, question
    # 'without a GPU' is no count of one GPU, and no GPU verdict is sized in its place.
    assert p.gpus == [] and p.gpu_count is None, question
    assert scope_only(p), question


def test_a_gpu_with_cpu_offload_is_still_sized() -> None:
    p = parse_workload("Llama 3.1 8B on an RTX 3060 12GB, can it run CPU-only for the rest?")
    assert [m.gpu for m in p.gpus] == ["rtx-3060-12gb"]
    assert not scope_only(p)


TENSOR_PARALLEL_WORDS = [
    ("Will Qwen2.5 72B fit on 8 A10G using tensor parallel?", "a10g", 8),
    ("Mixtral 8x7B on 2x RTX 4090 via tensor-parallel, does it fit?", "rtx-4090", 2),
    ("Llama 3.1 70B with tensor parallelism across 4 H100s at 32k context, fits?", "h100", 4),
    ("does llama 3.3 70b fit on 2 L40S with tensor parallel", "l40s", 2),
]


@pytest.mark.parametrize(("question", "gpu", "count"), TENSOR_PARALLEL_WORDS)
def test_tensor_parallel_said_over_the_gpus_counted_is_read_with_them(
    question: str, gpu: str, count: int
) -> None:
    p = parse_workload(question)
    assert len(p.gpus) == 1 and p.gpus[0].gpu.startswith(gpu), question
    assert p.gpus[0].count == count, question
    reading = reading_of(p)
    held = [u.span.text for u in reading.unread_that_matters]
    assert not any("parallel" in h.lower() for h in held), (question, held)


@pytest.mark.parametrize(
    "question",
    [
        # One GPU cannot be split: the words say something not read (TP over what?).
        "Llama 3.1 70B on one H100 with tensor parallel?",
        # A degree other than the count (TP 2 on 4 GPUs: replicas or pipeline stages).
        "Llama 3.1 70B on 4 H100 with tensor parallel 2?",
    ],
)
def test_tensor_parallel_that_is_not_the_count_holds_the_verdict(question: str) -> None:
    reading = reading_of(parse_workload(question))
    assert not reading.verdict_stands, question
    held = " ".join(u.span.text for u in reading.unread_that_matters).lower()
    assert "tensor parallel" in held, question


FULL_FINE_TUNES = [
    "Can I full-parameter fine-tune Llama 3.1 8B on 4x A100 80GB?",
    "Fine-tune Mistral 7B with full parameters on 2 H100, does it fit?",
    "How much memory to train a 1.3B model with all params in bf16?",
    "Full-weight fine-tune of Qwen2.5 7B on 8 A100 40GB, enough?",
    "Train Llama 3.2 1B fully on one RTX 4090?",
]


@pytest.mark.parametrize("question", FULL_FINE_TUNES)
def test_every_weight_trained_is_read_as_a_full_fine_tune(question: str) -> None:
    p = parse_workload(question)
    assert p.task == "full" and "task" not in p.assumed, question
    assert reading_of(p).unread_that_matters == [], question


BUDGETS = [
    # (question, amount, currency, period): as each sentence says it.
    (
        "Our monthly budget is €1.500, what GPU for Llama 3.1 8B serving 10 users?",
        1500,
        "EUR",
        "month",
    ),
    (
        "Budget €1.500 per month for serving Mistral 7B to 20 users, which cloud GPU?",
        1500,
        "EUR",
        "month",
    ),
    (
        "We have a $3000 monthly budget to serve Llama 3.3 70B in 4-bit, which GPUs?",
        3000,
        "USD",
        "month",
    ),
    (
        "an annual budget of $50k for serving Qwen2.5 72B to 50 users, which GPUs?",
        50_000,
        "USD",
        "year",
    ),
    ("budget 2.500 € for Llama 3.1 8B, which GPU?", 2500, "EUR", "total"),
]


@pytest.mark.parametrize(("question", "amount", "currency", "period"), BUDGETS)
def test_a_budget_is_read_with_its_period_and_european_thousands(
    question: str, amount: float, currency: str, period: str
) -> None:
    p = parse_workload(question)
    assert (p.budget_amount, p.budget_currency, p.budget_period) == (amount, currency, period)
    held = [u.span.text.lower() for u in reading_of(p).unread_that_matters]
    assert not any("budget" in h for h in held), (question, held)


def test_money_with_cents_is_not_read_as_thousands() -> None:
    p = parse_workload("a budget of $1.50 per hour for Llama 3.1 8B, which GPU?")
    assert (p.budget_amount, p.budget_period) == (1.5, "hour")


PURCHASES = [
    "What GPUs should we buy to serve Llama 3.3 70B in 4-bit to 40 users?",
    "Which cards to buy for fine-tuning Llama 3.1 8B with QLoRA?",
    "We need to serve Mistral 7B to 100 users, what hardware should I purchase?",
]


@pytest.mark.parametrize("question", PURCHASES)
def test_which_hardware_to_buy_is_the_recommenders_question(question: str) -> None:
    p = parse_workload(question)
    assert p.asked == "hardware", question
    # Not buying weighed against renting (tests/test_deployment_buy.py): which GPUs, stated.
    assert not p.buy_asked, question
    assert reading_of(p).verdict_stands, question


CLOUD = [
    "Cheapest cloud GPU for fine-tuning Llama 3.1 8B with QLoRA?",
    "Which cloud instance for Mixtral 8x7B at 10 users?",
    "what cloud GPUs would serve Llama 3.1 70B in fp8 to 30 users?",
]


@pytest.mark.parametrize("question", CLOUD)
def test_cloud_hardware_asked_is_the_recommenders_question(question: str) -> None:
    p = parse_workload(question)
    assert p.asked == "hardware", question
    assert reading_of(p).unread_that_matters == [], question


FIX_ASKED = [
    "Fine-tuning Mistral 7B on my 3090 always OOMs at batch size 1, how can I fix it?",
    "vLLM with Llama 3.1 8B on an A10G gives CUDA out of memory, how to resolve this?",
    "Qwen2.5 14B 在 4090 上显存不足，怎么办？",
    "Loading Mixtral 8x7B on 2x 4090 crashes with OOM. What should I do?",
]


@pytest.mark.parametrize("question", FIX_ASKED)
def test_a_failure_whose_fix_is_asked_is_debugging_not_a_sizing(question: str) -> None:
    p = parse_workload(question)
    assert "installing or debugging software" in p.out_of_scope, question
    assert scope_only(p), question


def test_a_fit_asked_beside_the_failure_is_still_sized() -> None:
    p = parse_workload("Llama 2 13B OOMs on my 3090, what should I do — is 24GB enough for it?")
    assert "installing or debugging software" in p.out_of_scope
    assert not scope_only(p)


OFFLOADS = [
    # (question, system RAM said in GB)
    ("Llama 3.1 8B on an RTX 3060 12GB with CPU offload to 32GB RAM, will it fit?", 32),
    ("Can I run Llama 3.1 70B on my RTX 4090 and 64GB of RAM with partial offload?", 64),
    ("Mixtral 8x7B on a 3090 offloading to system RAM (128 GB), how fast?", 128),
]


@pytest.mark.parametrize(("question", "ram_gb"), OFFLOADS)
def test_serving_offload_with_the_ram_said_is_the_local_plans_offload(
    question: str, ram_gb: int
) -> None:
    p = parse_workload(question)
    assert p.system_ram_bytes == ram_gb * 10**9, question
    reading = reading_of(p)
    assert reading.verdict_stands, (question, reading.unread_that_matters)


@pytest.mark.parametrize(
    "question",
    [
        # No RAM said: how much of the model the CPU side holds is not known.
        "Llama 3.1 70B on a 4090 with CPU offload, will it run?",
        # ZeRO's optimizer offload in training: not the local plan's layers.
        "Fine-tune Llama 3.1 8B on a 4090 with 64GB RAM using optimizer offload?",
    ],
)
def test_other_offloads_hold_the_verdict(question: str) -> None:
    held = " ".join(u.span.text for u in reading_of(parse_workload(question)).unread_that_matters)
    assert "offload" in held.lower(), question


KV_CACHE_ASKED = [
    # Llama 3.1 8B (config.json: 32 layers, 8 KV heads, head_dim 128): 2 × 32 × 8 × 128 × 2 B
    # = 131,072 B of bf16 cache per token.
    "how much vram does the kv cache take for llama 3.1 8b at 128k context?",
    "What is the memory for the KV cache of Llama 3.1 8B at 32k tokens?",
    "how much memory will the kv cache use for Llama 3.1 8B at 8k?",
]


@pytest.mark.parametrize("question", KV_CACHE_ASKED)
def test_the_kv_caches_memory_asked_is_the_kv_cache_figure(question: str) -> None:
    p = parse_workload(question)
    assert p.asked == "kv_cache", question
    assert reading_of(p).verdict_stands, question


ALTERNATIVES = [
    # Two formats of other widths, or two kinds of fine-tune, offered as a choice: sizing the
    # first would answer another question (the memory differs with each).
    ("Llama 3.1 70B on 2x 4090, fp8 or int4?", "weights"),
    ("Qwen2.5 32B q4_k_m or q8_0 on a 3090?", "weights"),
    ("Fine-tune Llama 3.1 8B on a 4090, LoRA or full fine-tune?", "task"),
    ("QLoRA vs LoRA for Mistral 7B on a 3090?", "task"),
    ("I have a 4090: QLoRA or LoRA on Mistral 7B, will it fit?", "task"),
]


@pytest.mark.parametrize(("question", "slot"), ALTERNATIVES)
def test_two_options_that_change_the_memory_are_asked_not_one_sized(
    question: str, slot: str
) -> None:
    p = parse_workload(question)
    assert [q.slot for q in p.questions] == [slot], (question, p.questions)
    assert not reading_of(p).verdict_stands, question


@pytest.mark.parametrize(
    "question",
    [
        # Two 4-bit formats: the same memory either way (one sized, the other noted).
        "Should I use AWQ or GPTQ for Llama 3.1 70B on 2x 4090?",
        # One fine-tune named twice, and a training verb beside LoRA.
        "Can I train a LoRA for Llama 2 13B in 8bit on my 3090?",
    ],
)
def test_options_that_do_not_change_the_memory_are_not_asked(question: str) -> None:
    assert parse_workload(question).questions == [], question


def test_a_16_bit_type_beside_qlora_is_its_compute_dtype() -> None:
    # QLoRA (Dettmers et al. 2023, §3): the base is NF4 with double quantization; BF16 is the
    # computation data type.
    p = parse_workload("QLoRA on Llama 3.1 8B with a 4090, bf16 compute, fits?")
    assert (p.task, p.weights) == ("qlora", "nf4-dq")
    assert reading_of(p).verdict_stands


PURCHASE_INTENT = [
    "Planning to buy a Mac Studio M2 Ultra 192GB to run DeepSeek V3 Q4, will it fit?",
    "Thinking of buying two 3090s for Llama 3.3 70B at Q4, enough?",
]


@pytest.mark.parametrize("question", PURCHASE_INTENT)
def test_a_machine_about_to_be_bought_is_the_one_the_fit_is_asked_of(question: str) -> None:
    p = parse_workload(question)
    assert p.asked == "fits" and not p.buy_asked, question
    assert reading_of(p).verdict_stands, question


def test_fine_tuning_on_ones_own_data_is_no_figure() -> None:
    p = parse_workload("Fine-tune Llama 3.1 8B with LoRA on our own dataset on one A10G, fits?")
    assert p.task == "lora"
    assert reading_of(p).verdict_stands


QUANT_REQUESTS = [
    "Can you make a Q4_K_M of this? 12GB card here.",
    "Could you please release an AWQ version for my 24GB 3090?",
    "please upload a GGUF q5 quant, the fp16 does not fit my 4080",
    "Only 16 GB on my 4080. Would it be possible to create an even smaller version?",
]


@pytest.mark.parametrize("question", QUANT_REQUESTS)
def test_a_quantization_asked_of_the_makers_is_out_of_scope(question: str) -> None:
    p = parse_workload(question)
    assert any("plan to release" in topic for topic in p.out_of_scope), question
    assert scope_only(p), question


CHINESE = [
    # (question, what is asked): 需要多大的GPU显存 'how much GPU memory is needed', 多久 'how
    # long', 无GPU 'without a GPU'.
    ("用13B模型进行训练，需要多大的GPU显存呢", "memory"),
    ("Qwen2.5 7B 推理需要多大GPU内存?", "memory"),
]


@pytest.mark.parametrize(("question", "asked"), CHINESE)
def test_chinese_memory_wordings_ask_the_memory(question: str, asked: str) -> None:
    assert parse_workload(question).asked == asked, question


def test_chinese_how_long_asks_the_training_time() -> None:
    assert parse_workload("请问在8张A100上训练Llama 3.1 8B大概需要多久").how_long


def test_chinese_without_a_gpu_is_cpu_only() -> None:
    p = parse_workload("无GPU可以运行Qwen2.5 7B吗？")
    assert "running on a CPU without a GPU" in p.out_of_scope and scope_only(p)


@pytest.mark.parametrize(
    "question",
    [
        "how many VRAMs are needed to fine-tune Llama 2 13B with LoRA?",
        "How many GB of VRAM for Mistral 7B at 32k?",
    ],
)
def test_how_many_vram_asks_the_memory(question: str) -> None:
    assert parse_workload(question).asked == "memory", question


def test_a_time_seen_that_may_not_make_sense_asks_the_expected_speed() -> None:
    p = parse_workload("Llama 3.1 8B on an A10G, 40 seconds per answer, does this make sense?")
    assert p.asked == "speed"


@pytest.mark.parametrize(
    ("question", "gpu", "memory_gb", "count"),
    [
        # Full-width brackets as CJK keyboards type them: the memory inside is the card's.
        ("I have one A100（40GB）, can it run Llama 2 70B in 4bit?", "a100-40gb", 40, 1),
        ("8张A100（80G）够不够推理Llama 3.1 405B", "a100-80gb", 80, 8),
        # '4090卡' is a 4090 card, not 90 cards.
        ("我只有4090卡，能跑Qwen2.5 14B吗", "rtx-4090", None, None),
    ],
)
def test_cjk_typing_keeps_the_card_its_memory_and_count(
    question: str, gpu: str, memory_gb: int | None, count: int | None
) -> None:
    p = parse_workload(question)
    assert len(p.gpus) == 1 and p.gpus[0].gpu.startswith(gpu), (question, p.gpus)
    if memory_gb is not None:
        # The variants kept are the ones with the memory said (A100 40GB PCIe / SXM4).
        kept = p.gpus[0].variants or [p.gpus[0].gpu]
        assert all(f"-{memory_gb}gb" in v for v in kept), (question, kept)
    assert p.gpus[0].count == count, question


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        # 跑吗 'does it run?', 跑不起来 'will not run', 显存占用是多少 'how much VRAM it uses'.
        ("Qwen2.5 7B在4090上跑吗?", "fits"),
        ("我的3060好像跑不起来Qwen2.5 14B", "fits"),
        ("全量微调Qwen2.5 7B时，显存占用是多少？", "memory"),
        # The memory asked in other words.
        ("Could you share requirements for inference in terms of VRAM for Llama 3.1 8B?", "memory"),
        ("Is there a requirement for the graphics memory to run Mistral 7B?", "memory"),
        # The GPUs and their memory asked together: the hardware.
        ("What are the GPU and memory requirements for Llama 3.1 70B?", "hardware"),
        # The memory asked, then whether a card said by its memory does.
        (
            "VRAM requirement of Llama 3.1 8B? I have 8 GB VRAM, could it be run on that?",
            "fits",
        ),
    ],
)
def test_more_wordings_of_what_is_asked(question: str, asked: str) -> None:
    assert parse_workload(question).asked == asked, question


def test_the_ram_before_a_cpu_count_is_the_machines() -> None:
    p = parse_workload("H100 80GB PCIe with 125 GB RAM 12 vCPU, can it load Mixtral 8x7B?")
    assert p.system_ram_bytes == 125 * 10**9


def test_text_generation_webuis_exllamav2_loader_names_exllamav2() -> None:
    p = parse_workload("RTX 4090 24GB, Exllamav2_HF loader, a 4.65bpw 70B: fits?")
    assert (p.engine_named, p.engine) == ("exllamav2", "exllamav2")


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        # 多少张 / 多少GPU 'how many (cards)', 多大内存 'how much RAM', 至少 / 最少 'at least'.
        ("微调Qwen2.5 7B大概用多少GPU", "gpu_count"),
        ("A100 40G的情况下，推理Llama 3.1 70B最少需要多少张？", "gpu_count"),
        ("Qwen2.5 7B至少需要多大内存?", "memory"),
    ],
)
def test_chinese_counts_and_memory_asked(question: str, asked: str) -> None:
    assert parse_workload(question).asked == asked, question


def test_seconds_per_token_is_a_per_user_speed() -> None:
    # 4.8 s per token is 1 / 4.8 = 0.208 tokens/s for the one stream.
    p = parse_workload("Llama 3.1 70B on one A800 is only 4.8s/token, is that normal?")
    assert p.tokens_per_s_per_user == pytest.approx(1 / 4.8)


def test_a_memory_joined_by_a_slash_is_the_cards() -> None:
    p = parse_workload("Llama 2 70B on my 4 A100/80G, how fast?")
    assert [m.count for m in p.gpus] == [4]
    assert all("80gb" in v for v in p.gpus[0].variants or [p.gpus[0].gpu or ""])


@pytest.mark.parametrize(
    ("question", "ram_gb"),
    [
        ("One A100 40G, and I have about 94G of cpu memory available, can I fine-tune a 7B?", 94),
        ("A machine with 8x48GB GPUs and ~150G CPU RAM, can it train a 13B in fp32?", 150),
        ("Llama 3.1 70B on a 4090 with 64 GB of host memory, will it run?", 64),
    ],
)
def test_cpu_and_host_memory_are_the_system_ram(question: str, ram_gb: int) -> None:
    assert parse_workload(question).system_ram_bytes == ram_gb * 10**9, question


@pytest.mark.parametrize(
    ("question", "gpu", "total"),
    [
        # Nodes × GPUs each, as the sentence says it: 2 × 4 = 8, 3 × 8 = 24, 2 × 8 = 16.
        (
            "We have 2 servers each with 4x A100 40GB, can we serve Llama 3.1 405B in fp8?",
            "a100",
            8,
        ),
        ("3 nodes each having 8 H100, Llama 3.1 405B bf16 fits?", "h100", 24),
        ("two gpu servers with 8 T4 16GB GPU on each, can they hold Llama 3.1 70B?", "t4", 16),
    ],
)
def test_machines_each_with_gpus_count_every_gpu(question: str, gpu: str, total: int) -> None:
    p = parse_workload(question)
    assert [m.count for m in p.gpus] == [total] and p.gpus[0].gpu.startswith(gpu), p.gpus


def test_how_to_run_across_machines_is_the_question_not_a_fit() -> None:
    p = parse_workload(
        "I have two gpu servers with 8 T4 16GB GPU on each. how could i inference llama3 70b "
        "multi-node? it needs more than 8 gpu"
    )
    assert scope_only(p)


def test_fine_tuning_without_lora_is_a_full_fine_tune() -> None:
    p = parse_workload("8x A100 80GB, I want to fine-tune Llama 2 13B without PEFT LoRA, fits?")
    assert p.task == "full" and "task" not in p.assumed


def test_a_gpu_with_its_memory_each_keeps_the_memory() -> None:
    p = parse_workload("finetune a 13b model using lora on 3 A100 gpu with 80GB memory each?")
    assert [m.count for m in p.gpus] == [3]
    assert all("80gb" in v for v in p.gpus[0].variants)


def test_gpus_offered_as_either_are_gpus_not_a_repo_id() -> None:
    # 'A100/A800' has the shape of an org/name id; both halves are catalog GPUs.
    p = parse_workload("请问最低推荐需多少张A100/A800来跑Qwen/Qwen1.5-110B-Chat-AWQ")
    assert [m.gpu[:4] for m in p.gpus if m.gpu] == ["a100", "a800"]
    assert not any(q.slot == "model" for q in p.questions)


def test_a_count_said_for_gpus_offered_as_either_is_each_ones() -> None:
    p = parse_workload("Would H100/H200 run meta-llama/Llama-3.1-405B in fp8 on 8 cards?")
    assert [m.count for m in p.gpus] == [8, 8]


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("how to get to run Qwen2.5 14B on 16gb of vram", "fits"),
        (
            "Where can I find the hardware requirements for Llama 2 13B? Can it run on a 3060?",
            "fits",
        ),
    ],
)
def test_how_to_get_it_running_and_where_the_requirements_are(question: str, asked: str) -> None:
    p = parse_workload(question)
    assert p.asked == asked and not p.out_of_scope, (question, p.out_of_scope)


def test_memory_run_into_its_kind_is_read() -> None:
    p = parse_workload("can I run Mistral 7B if I only have a 3090 with 24gVram and 32gRam ?")
    assert p.system_ram_bytes == 32 * 10**9
    assert [m.gpu for m in p.gpus] == ["rtx-3090"]


@pytest.mark.parametrize(
    ("question", "output"),
    [
        (
            "Mistral Nemo on my 4090: mistral-chat --instruct --max_tokens 256 --temperature 0.35?",
            256,
        ),
        ("Llama 3.1 8B on a T4 with max_new_tokens=512, how fast?", 512),
    ],
)
def test_a_generation_cap_flag_is_the_output_length(question: str, output: int) -> None:
    p = parse_workload(question)
    assert p.output_tokens == output
    held = " ".join(u.span.text for u in reading_of(p).unread_that_matters)
    assert "temperature" not in held and "max" not in held, held


def test_sampling_settings_change_no_figure() -> None:
    p = parse_workload("Llama 3.1 8B on one L4, temperature=0.7 top_p=0.9, 20 users, enough?")
    assert p.users == 20 and reading_of(p).verdict_stands


def test_the_memory_asked_again_last_is_the_question() -> None:
    p = parse_workload(
        "Any idea how much VRAM does this use? A 4090 can use WizardLM 33B but for a 34B it "
        "doesn't seem to be enough, does someone know how much VRAM a 34B uses?"
    )
    assert p.asked == "memory"


@pytest.mark.parametrize(
    "question",
    [
        "Please benchmark qwen3.6-27b-mtp. Have you tried running on a Strix Halo?",
        "Any benchmarks of Llama 3.1 8B on an M4 Max?",
        "could you benchmark Mistral 7B on a 3090?",
    ],
)
def test_a_benchmark_asked_is_the_speed(question: str) -> None:
    assert parse_workload(question).asked == "speed", question


def test_benchmark_scores_are_quality_not_speed() -> None:
    p = parse_workload("Any benchmark scores for Llama 3.1 8B in 4-bit?")
    assert p.asked != "speed"


def test_memory_occupation_asks_the_memory() -> None:
    assert parse_workload("What is the memory occupation of Llama 3.1 8B?").asked == "memory"


@pytest.mark.parametrize(
    "question",
    [
        'In the README on GitHub, it states: "fine-tuning a 7B model requires about 112 GB of '
        'VRAM." Could you explain how this is derived?',
        "I have heard that 360GB RAM is required for a full 128k context of this 13B model, "
        "how much for 64k?",
    ],
)
def test_a_figure_reported_from_elsewhere_asks_which_figures_are_the_workload(
    question: str,
) -> None:
    p = parse_workload(question)
    assert any(q.slot == "meaning" and q.why == "ambiguous" for q in p.questions), p.questions
    assert not reading_of(p).verdict_stands


def test_chinese_memory_to_support_a_context_is_the_memory() -> None:
    p = parse_workload("Qwen2.5 7B 32k上下文大概需要多少显存才可以支持?")
    assert p.asked == "memory" and not p.out_of_scope


@pytest.mark.parametrize(
    "question",
    [
        # A count per something the reader did not multiply out: how many GPUs in all?
        "Llama 3.1 405B fp8 on two racks with 8 H100 in each, fits?",
        # A benchmark word left unplaced: the speed may be what is asked.
        "Llama 3.1 8B on a 4090, benchmarks vs my 3090?",
    ],
)
def test_each_and_benchmark_left_unplaced_hold_the_verdict(question: str) -> None:
    reading = reading_of(parse_workload(question))
    assert not reading.verdict_stands, question


@pytest.mark.parametrize(
    "question",
    [
        "20 users each with 4k context on Llama 3.1 8B with an L4, fits?",
        "Llama 3.1 8B benchmarked at 40 tok/s on my 3060, is that normal?",
        "4 A100 GPUs with 80GB memory each for Llama 3.1 70B, enough?",
    ],
)
def test_each_and_benchmark_read_with_their_figure_do_not_hold(question: str) -> None:
    assert reading_of(parse_workload(question)).unread_that_matters == [], question


def test_a_fine_tune_with_and_without_lora_asks_which_to_size() -> None:
    p = parse_workload(
        "Whats the minimum GPU memory required for fine-tuning Llama 2 7B with and without "
        "lora? Would 4x V100 be sufficient?"
    )
    assert [q.slot for q in p.questions] == ["task"]
    assert not reading_of(p).verdict_stands
