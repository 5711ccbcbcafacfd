"""Hardware as people write it (issue 27): machines 'each with' N GPUs, a GPU's memory said
in words or run into the card's name, GPUs offered as either ('A100/A800'), CPU or host
memory and RAM in brackets, serving offload with the RAM said, CJK typing ('A100（40GB）',
'4090卡'), and the words ('each', 'benchmark') that hold a verdict when no extractor placed
them. Values from the sentences and the datasheets (A100 40 / 80 GB, T4 16 GB)."""

from __future__ import annotations

import pytest

from assistant.offline.parser import parse_workload
from assistant.reading.of_parsed import reading_of

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


def test_the_ram_before_a_cpu_count_is_the_machines() -> None:
    p = parse_workload("H100 80GB PCIe with 125 GB RAM 12 vCPU, can it load Mixtral 8x7B?")
    assert p.system_ram_bytes == 125 * 10**9


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


def test_memory_run_into_its_kind_is_read() -> None:
    p = parse_workload("can I run Mistral 7B if I only have a 3090 with 24gVram and 32gRam ?")
    assert p.system_ram_bytes == 32 * 10**9
    assert [m.gpu for m in p.gpus] == ["rtx-3090"]


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
