"""Sizing questions asked in Chinese (issue 27), as the threads of Chinese projects ask them:
the glossary's words read as their English ('显存' video memory, '内存' system memory, '全量微调'
a full fine-tune, '8卡' eight cards), everything else listed as not read. Expected values are
the figures written in each question."""

from __future__ import annotations

import pytest

from assistant.offline.parser import parse_workload
from assistant.reading.of_parsed import reading_of
from tools.units import GB


def test_vram_and_system_ram_are_told_apart() -> None:
    # 'RTX 4080 Super 16G, RAM 64G: how big a model can it run?'
    parsed = parse_workload("RTX 4080Super 16G 内存64G 能跑多少B的模型")
    assert [g.gpu for g in parsed.gpus] == ["rtx-4080-super"]
    assert parsed.system_ram_bytes == 64 * GB
    assert reading_of(parsed).asked == "which_models"


@pytest.mark.parametrize(
    ("question", "gpu", "count"),
    [
        # 'one machine, 8 cards, a100 80gb'
        ("qwen2.5 7b全量微调OOM … gpu 单机8卡a100 80gb", "a100-80gb-sxm4", 8),
        # 'RTX4090 24G × 2 cards'
        ("显卡：(NVIDIA) RTX4090 24Gx2张 能跑Qwen2.5 72B吗", "rtx-4090", 2),
    ],
)
def test_cards_counted_in_chinese(question: str, gpu: str, count: int) -> None:
    assert [(g.gpu, g.count) for g in parse_workload(question).gpus] == [(gpu, count)]


@pytest.mark.parametrize(
    ("question", "task"),
    [
        ("qwen2.5 7b全量微调需要多少显存", "full"),  # 'full fine-tune: how much VRAM?'
        ("Qwen2.5 7B全参数训练显存要求", "full"),
        ("使用lora微调7b的模型需要多少显存", "lora"),
    ],
)
def test_the_task_said_in_chinese_is_read(question: str, task: str) -> None:
    parsed = parse_workload(question)
    assert parsed.task == task and reading_of(parsed).asked == "memory"


def test_a_question_fully_in_the_glossary_gets_its_verdict() -> None:
    # 'May I ask: can an RTX 4090 with 24GB VRAM run Llama 3.1 70B?'
    reading = reading_of(parse_workload("请问用RTX4090 24GB显存能跑Llama 3.1 70B吗"))
    assert reading.asked == "fits" and reading.verdict_stands


def test_inference_and_a_fine_tune_asked_together_are_asked_which() -> None:
    # 'Can a 4090 24g load Qwen2.5 14B locally for inference? And how much memory to fine-tune?'
    parsed = parse_workload("4090 24g可以本地加载推理Qwen2.5 14B吗？微调又需要多少内存呢？")
    assert any(q.slot == "task" and q.why == "ambiguous" for q in parsed.questions)
    assert not reading_of(parsed).verdict_stands


def test_a_word_outside_the_glossary_still_holds_the_verdict() -> None:
    # '爆显存' (VRAM blew up) has '爆', which the glossary does not know.
    reading = reading_of(parse_workload("Qwen2.5 7B在4090上爆显存"))
    assert any(u.kind == "language" for u in reading.unread_that_matters)


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        # 需要多大显存 / 显存要多大: how much video memory is needed.
        ("跑Qwen2.5-14B需要多大显存", "memory"),
        ("Llama 3.1 8B 推理的显存要多大", "memory"),
        # 需要多少张 / 多少张: how many (cards).
        ("全量微调Llama 3.1 8B需要多少张A100", "gpu_count"),
        # 是否可以 / 能否支持: can (a yes/no).
        ("两张3090是否可以跑Llama 3.1 70B的4bit版本", "fits"),
        ("4090能否支持微调Qwen2.5 7B", "fits"),
    ],
)
def test_what_is_asked_in_chinese_is_read(question: str, asked: str) -> None:
    assert parse_workload(question).asked == asked, question


@pytest.mark.parametrize(
    "question",
    [
        "roughly how many (H100) GPU hours would pretraining a 1B model on 50B tokens take?",
        "how many A100 GPU-hours for a 7B full fine-tune on 1B tokens?",
    ],
)
def test_gpu_hours_asked_are_the_jobs_time(question: str) -> None:
    # The GPU's name in brackets or joined to 'GPU hours': the job's duration asked.
    assert parse_workload(question).how_long, question


@pytest.mark.parametrize(
    ("question", "gpu", "count"),
    [
        ("我有4张4090，能否支持全量微调Qwen2.5 7B", "rtx-4090", 4),
        ("两块3090可以跑Llama 3.1 70B的4bit吗", "rtx-3090", 2),
        ("我们有8张L40S，部署Qwen2.5 72B", "l40s", 8),
    ],
)
def test_a_count_of_the_card_named_next(question: str, gpu: str, count: int) -> None:
    # 张 / 块 count cards; 两 is two.
    assert [(m.gpu, m.count) for m in parse_workload(question).gpus] == [(gpu, count)]


# --- A card by its memory, one or two cards, 'is it enough' (glossary round 3) --------------------

CARD_WORDS = [
    # '单卡' a single card, '双卡' two cards, '的卡' a … card, '够不' / '够吗' is it enough.
    ("我单卡24G能跑qwen2.5 14b吗", 1, 24.0, None),
    ("72B的模型单卡80GB能推理吗", 1, 80.0, None),
    ("双卡3090可以推理70B模型吗", 2, None, "rtx-3090"),
    ("一个30B的模型，48G的卡够吗", None, 48.0, None),
]


@pytest.mark.parametrize(("question", "count", "memory_gb", "gpu"), CARD_WORDS)
def test_a_card_said_by_its_memory_or_counted_is_read(
    question: str, count: int | None, memory_gb: float | None, gpu: str | None
) -> None:
    p = parse_workload(question)
    mention = p.gpus[0] if p.gpus else None
    if gpu is not None:
        assert mention is not None and mention.gpu == gpu and mention.count == count
    else:
        assert p.gpu_memory_bytes == memory_gb * 1e9
        if count is not None:
            assert p.gpu_count == count
    assert p.asked == "fits"
    assert not p.asks("meaning"), [q.text for q in p.questions]
