"""A base Apple chip the catalog lacks ('MacBook Air M3 with 24 GB', 'Mac mini M4 32GB') is
Apple silicon with that much unified memory, not a discrete GPU with all of it as VRAM: the GPU
gets macOS's default working set (tools/hardware.py, the rule the catalog's Apple entries use:
2/3 of the RAM up to 36 GB, 3/4 above), and the answer says which limit it used."""

from __future__ import annotations

import pytest

from assistant.offline.parser import parse_workload
from assistant.results import stored_calls
from tests.offline_turns import answer
from tools.local_serving import LocalServingPlan

GiB = 2**30
MiB = 2**20

# (question, RAM said in GB, what the GPU may wire). Apple's 'N GB' of unified memory is N GiB
# of DRAM; macOS's default working set is 2/3 of it up to 36 GB, 3/4 above, in whole MiB.
CASES = [
    ("Can I run Llama 3.1 8B on a MacBook Air M3 with 24 GB?", 24, 24 * 1024 * 2 // 3 * MiB),
    ("Llama 3.1 8B on a Mac mini M4 32GB", 32, 21_845 * MiB),  # 32 × 1024 × 2/3 = 21,845.3
    ("can my M2 with 16 GB of RAM run Qwen3 8B?", 16, 10_922 * MiB),  # 16,384 × 2/3 = 10,922.7
    ("Qwen3 8B on an M4 Mac mini with 48 GB of unified memory", 48, 48 * 1024 * 3 // 4 * MiB),
    ("Llama 3.1 8B on a 16GB M1 MacBook Air", 16, 10_922 * MiB),
]


@pytest.mark.parametrize(("question", "ram_gb", "limit"), CASES)
def test_the_parser_reads_the_chip_as_unified_memory(
    question: str, ram_gb: int, limit: int
) -> None:
    parsed = parse_workload(question)
    assert [(g.gpu, g.memory_bytes, g.unified_memory) for g in parsed.gpus] == [
        (None, ram_gb * 10**9, "macos-working-set")
    ]
    assert parsed.system_ram_bytes is None  # the RAM said is the machine's one memory
    assert not parsed.unplaced and not parsed.questions


@pytest.mark.parametrize(("question", "ram_gb", "limit"), CASES)
async def test_the_plan_sizes_against_the_working_set_and_says_so(
    question: str, ram_gb: int, limit: int
) -> None:
    text, conversation = await answer(question)
    plans = [c.value for c in stored_calls(conversation.messages)]
    assert len(plans) == 1 and isinstance(plans[0], LocalServingPlan), plans
    plan = plans[0]
    assert plan.unified_memory and plan.budget_bytes == limit
    assert plan.system_ram_bytes == ram_gb * GiB
    fraction = "2/3" if ram_gb <= 36 else "3/4"
    assert f"of {limit / GiB:.1f} GiB" in text  # the verdict's budget is the limit
    assert f"GPU memory limit {limit / GiB:.1f} GiB: macOS default GPU working set" in text
    assert f"{fraction} of {ram_gb} GB unified memory" in text


def test_a_discrete_card_given_by_memory_keeps_all_of_it() -> None:
    parsed = parse_workload("Llama 3.1 8B on an RTX 2080 Ti with 11 GB")
    assert [(g.memory_bytes, g.unified_memory) for g in parsed.gpus] == [(11 * 10**9, None)]


def test_a_catalog_chip_with_its_ram_said_as_ram_is_that_configuration() -> None:
    # '18 GB of RAM' beside an M3 Pro is its unified memory (the 18 GB M3 Pro), not system RAM
    # beside the catalog's default 36 GB configuration.
    parsed = parse_workload("Llama 3.1 8B on my M3 Pro with 18 GB of RAM")
    assert [g.gpu for g in parsed.gpus] == ["apple-m3-pro-18gb"]
    assert parsed.system_ram_bytes is None


@pytest.mark.parametrize(
    ("question", "reply", "ram_gb", "limit"),
    [
        ("Can I run Llama 3.1 8B on my MacBook Air M3?", "24 GB", 24, 16 * 1024 * MiB),
        ("Llama 3.1 8B on a Mac mini M4", "it has 32GB", 32, 21_845 * MiB),
        ("Qwen3 8B on my M2", "16 GB of unified memory", 16, 10_922 * MiB),
    ],
)
async def test_a_chip_without_its_memory_is_asked_for_it_and_the_reply_sizes_it(
    question: str, reply: str, ram_gb: int, limit: int
) -> None:
    from assistant.conversation import Conversation
    from assistant.offline import OfflineEngine

    parsed = parse_workload(question)
    assert any(
        q.startswith("How much unified memory does the") for q in (x.text for x in parsed.questions)
    )
    engine, conversation = OfflineEngine(), Conversation()
    for text in (question, reply):
        _ = [e async for e in engine.run_turn(conversation, text)]
    plans = [c.value for c in stored_calls(conversation.messages) if c.turn == 2]
    assert len(plans) == 1 and isinstance(plans[0], LocalServingPlan), plans
    assert plans[0].unified_memory and plans[0].budget_bytes == limit
    assert plans[0].system_ram_bytes == ram_gb * GiB
