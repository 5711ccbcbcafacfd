"""A GPU's memory said in words apart from its name ('A10, which only has 24GB GPU memory',
'each with 8GB of memory', 'the GPU memory is 40G'): read, checked against the cards named —
the same memory narrows a family to the parts sold with it, another memory is asked about and
never swapped for the catalog's (issue 27: 'a card's memory variant swapped for another').
Catalog memories from the datasheets: A10 24 GB, RTX 3070 8 GB, RTX 3090 24 GB, A100 40 or
80 GB, L40S 48 GB."""

from __future__ import annotations

import pytest

from assistant.offline.parser import parse_workload
from assistant.reading.of_parsed import reading_of

SAME = [
    ("Can Llama 2 13B LoRA fit into an A10, which only has 24GB GPU memory?", "a10", None),
    ("I have two RTX3070 GPUs, each with 8GB of memory, can they run Llama 2 7B?", "rtx-3070", 2),
    ("I have an A100, the GPU memory is 40G, can it run Llama 2 70B in 4bit?", "a100-40gb", 1),
    ("Mistral 7B on my 3090 with 24 GB of GPU memory, fits?", "rtx-3090", None),
    # Two cards' memory said together: 2 × 48 GB.
    (
        "I have 2 NVIDIA L40S which provide 96GB VRAM, can they run Llama 3.1 70B in 8bit?",
        "l40s",
        2,
    ),
]


@pytest.mark.parametrize(("question", "gpu", "count"), SAME)
def test_the_cards_own_memory_in_words_is_read_with_it(
    question: str, gpu: str, count: int | None
) -> None:
    p = parse_workload(question)
    assert p.questions == [], (question, p.questions)
    assert len(p.gpus) == 1 and p.gpus[0].gpu.startswith(gpu), (question, p.gpus)
    assert all(v.startswith(gpu) for v in p.gpus[0].variants), p.gpus[0].variants
    if count is not None:
        assert p.gpus[0].count == count
    assert reading_of(p).unread_that_matters == [], question


OTHER = [
    # A card's catalog memory against another said in words: which card is it?
    "Can Llama 2 13B LoRA fit into an A10, which only has 16GB GPU memory?",
    "I have two RTX3070 GPUs, each with 16GB of memory, can they run Llama 2 13B?",
    "my 3090, which only has 12GB GPU memory, can it run Mistral 7B?",
    "Llama 3.1 8B on an L4 with 48GB GPU memory, enough?",
]


@pytest.mark.parametrize("question", OTHER)
def test_another_memory_for_a_named_card_is_asked_not_replaced(question: str) -> None:
    p = parse_workload(question)
    assert [q.slot for q in p.questions] == ["gpu"], (question, p.questions)
    assert not reading_of(p).verdict_stands, question


def test_a_card_described_apart_is_not_the_named_cards_memory() -> None:
    # The 4 GB card is another card (what someone ran on), not the 4090 asked about.
    p = parse_workload(
        "If 70B models run with just a 4GB vram graphic card, can we fine-tune a 70B model "
        "on a single 4090 with 24GB of vram?"
    )
    assert not any(q.slot == "gpu" for q in p.questions)
