"""A bare GeForce model number the catalog lacks ('Llama 3.1 8B on a 2080') is asked about,
or sized from the memory the user gave — never left unplaced while another GPU is answered.

Hand arithmetic: 8 GB = 8 × 10^9 B = 7.45 GiB (÷ 2^30), the budget the '8 GB' reading shows.
(The 4070 was the example until the catalog gained it.)
"""

from __future__ import annotations

import pytest

from assistant.offline.parser import parse_workload
from tests import offline_turns

BARE = [
    "Llama 3.1 8B on a 2080",
    "can my 2080 run Llama 3.1 8B?",
    "serve Llama 3.1 8B on one 2080 for 2 users",
    "Qwen3 8B on a 3070 Ti",
]


@pytest.mark.parametrize("question", BARE)
def test_a_bare_unknown_card_is_asked_about(question: str) -> None:
    parsed = parse_workload(question)
    card = next(w for w in question.replace("?", "").split() if w.isdigit())
    assert any(
        f"'{card}" in q and "not in the GPU catalog" in q
        for q in (x.text for x in parsed.questions)
    )
    assert not parsed.gpus  # nothing else stands in for it


@pytest.mark.parametrize("question", BARE[:2])
async def test_the_answer_is_the_question_not_another_gpu(question: str) -> None:
    text, _ = await offline_turns.answer(question)
    assert "**One question before I size this exactly:** '2080' is not in the GPU catalog" in text
    # The default reading's figures are labelled as such, without the card.
    assert offline_turns.after_reading(text).startswith("For the default reading (without '2080')")


async def test_with_its_memory_it_is_sized_from_what_the_user_said() -> None:
    text, _ = await offline_turns.answer("Llama 3.1 8B on a 2080 with 8 GB")
    assert "2080 (not in the catalog: the memory you gave)" in text
    assert "of 7.5 GiB" in text  # 8 GB = 7.45 GiB


@pytest.mark.parametrize(
    ("question", "gpu"),
    [
        ("Llama 3.1 8B on a 4090", "rtx-4090"),
        ("Llama 3.1 8B with a 4096-token prompt on an L4", "l4"),
        ("Llama 3.1 8B on an L4 for a 1080 tokens answer", "l4"),
    ],
)
def test_catalog_cards_and_token_counts_are_not_mistaken(question: str, gpu: str) -> None:
    parsed = parse_workload(question)
    assert [m.gpu for m in parsed.gpus] == [gpu]
    assert not any("not in the GPU catalog" in q for q in (x.text for x in parsed.questions))
