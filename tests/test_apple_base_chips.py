"""The base Apple chips (M1-M4) are catalog machines (issue 29): 'MacBook Air M3 with 24 GB',
'Mac mini M4 32GB' are that chip with that much unified memory, not a discrete GPU with all of
it as VRAM: the GPU gets macOS's default working set (tools/hardware.py, the rule every Apple
entry uses: 2/3 of the RAM up to 36 GB, 3/4 above), and the answer's budget is that limit."""

from __future__ import annotations

import pytest

from assistant.offline.parser import parse_workload
from tests.offline_turns import answer
from tools.catalog import get_catalog

GiB = 2**30
MiB = 2**20

# (question, catalog configuration, what the GPU may wire). Apple's 'N GB' of unified memory is
# N GiB of DRAM; macOS's default working set is 2/3 of it up to 36 GB, 3/4 above, in whole MiB.
# The base M3's largest confirmed size is 24 GB (the chip entry), the M4's 32 GB; 48 GB is no
# M4 configuration the sources list (generated, flagged unconfirmed).
CASES = [
    ("Can I run Llama 3.1 8B on a MacBook Air M3 with 24 GB?", "apple-m3", 16 * GiB),  # 24 × 2/3
    ("Llama 3.1 8B on a Mac mini M4 32GB", "apple-m4", 21_845 * MiB),  # 32 × 1024 × 2/3
    ("can my M2 with 16 GB of RAM run Qwen3 8B?", "apple-m2-16gb", 10_922 * MiB),  # 16,384 × 2/3
    ("Qwen3 8B on an M4 Mac mini with 48 GB of unified memory", "apple-m4-48gb", 36 * GiB),
    # A memory said before the chip name is its RAM too.
    ("Llama 3.1 8B on a 16GB M1 MacBook Air", "apple-m1-16gb", 10_922 * MiB),
    ("Qwen3 8B on an 18GB M3 Pro", "apple-m3-pro-18gb", 12_288 * MiB),  # 18,432 × 2/3
]


@pytest.mark.parametrize(("question", "gpu_id", "limit"), CASES)
def test_the_parser_reads_the_catalog_chip_configuration(
    question: str, gpu_id: str, limit: int
) -> None:
    parsed = parse_workload(question)
    assert [g.gpu for g in parsed.gpus] == [gpu_id]
    assert get_catalog().gpu(gpu_id).usable_memory_bytes == limit
    assert parsed.system_ram_bytes is None  # the RAM said is the machine's one memory
    assert not parsed.unplaced


@pytest.mark.parametrize(("question", "gpu_id", "limit"), CASES[:4])
async def test_the_answer_sizes_against_the_working_set(
    question: str, gpu_id: str, limit: int
) -> None:
    text, _ = await answer(question)
    assert f"{limit / GiB:.1f} GiB" in text.split("\n\n")[0] + text.split("\n\n")[1], text


def test_a_discrete_card_given_by_memory_keeps_all_of_it() -> None:
    parsed = parse_workload("Llama 3.1 8B on an RTX 2080 Ti with 11 GB")
    assert [(g.memory_bytes, g.unified_memory) for g in parsed.gpus] == [(11 * 10**9, None)]


def test_a_catalog_chip_with_its_ram_said_as_ram_is_that_configuration() -> None:
    # '18 GB of RAM' beside an M3 Pro is its unified memory (the 18 GB M3 Pro), not system RAM
    # beside the catalog's default 36 GB configuration.
    parsed = parse_workload("Llama 3.1 8B on my M3 Pro with 18 GB of RAM")
    assert [g.gpu for g in parsed.gpus] == ["apple-m3-pro-18gb"]
    assert parsed.system_ram_bytes is None
