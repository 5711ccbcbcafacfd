"""Words engineers add to a sizing question that say what is asked or a figure of it (issue
27): '€1.500 monthly budget' (1,500 EUR a month), 'what should we buy' and 'which cloud GPU'
(the recommender's question), the KV cache's memory, 'how many VRAMs', Chinese 多大的GPU显存 /
多少张 / 多久, '4.8s/token', '--max_tokens 256', 'please benchmark'. Each is read as what it
says, or the verdict is held — never dropped. Phrasings written for these tests; the values
asserted are what each sentence says, read by hand."""

from __future__ import annotations

import pytest

from assistant.offline.parser import parse_workload
from assistant.reading.of_parsed import reading_of

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


PURCHASE_INTENT = [
    "Planning to buy a Mac Studio M2 Ultra 192GB to run DeepSeek V3 Q4, will it fit?",
    "Thinking of buying two 3090s for Llama 3.3 70B at Q4, enough?",
]


@pytest.mark.parametrize("question", PURCHASE_INTENT)
def test_a_machine_about_to_be_bought_is_the_one_the_fit_is_asked_of(question: str) -> None:
    p = parse_workload(question)
    assert p.asked == "fits" and not p.buy_asked, question
    assert reading_of(p).verdict_stands, question


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


def test_chinese_memory_to_support_a_context_is_the_memory() -> None:
    p = parse_workload("Qwen2.5 7B 32k上下文大概需要多少显存才可以支持?")
    assert p.asked == "memory" and not p.out_of_scope
