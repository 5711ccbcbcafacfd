"""Two GPUs set against each other without 'vs' or 'than' ('my 7900 XTX and a 4090, which is
faster?') are compared, not answered as a fit; on the asker's own hardware the comparison
leads from the local plans (llama.cpp), the datacenter one staying under its heading. Card
numbers run into the next word ('4090gpu', '8g4060', '3090nvidia') are still the cards."""

from __future__ import annotations

import pytest

from assistant.offline.parser import parse_workload
from assistant.reading.of_parsed import reading_of
from tests.offline_turns import after_reading, answer, sizing

COMPARED = [
    "my 7900 XTX and a 4090, which is faster for Llama 3.1 8B?",
    "L40S and H100 for Qwen2.5 32B, which one is cheaper?",
    "I have a 3090 and a 4090 — which of the two would be faster for Mistral 7B?",
]


@pytest.mark.parametrize("question", COMPARED)
def test_which_of_the_gpus_named_is_a_comparison(question: str) -> None:
    p = parse_workload(question)
    assert p.compare and len(p.gpus) == 2, (question, p.gpus)


async def test_owned_gpus_compared_lead_with_the_faster_local_plan() -> None:
    text, conversation = await answer("my 7900 XTX and a 4090, which is faster for Llama 3.1 8B?")
    report = sizing(conversation)
    speeds = {p.gpu_label: p.decode_tokens_per_s for p in report.local}
    assert len(speeds) == 2 and all(v is not None for v in speeds.values())
    fastest = max(speeds, key=lambda k: speeds[k] or 0.0)
    first = after_reading(text).splitlines()[0]
    assert first.startswith(f"**Faster with llama.cpp: {fastest}**"), first
    assert f"{speeds[fastest]:,.1f} tokens/s" in first
    # Every speed says whether it is measured, calibrated or estimated.
    for plan in report.local:
        assert f"{plan.decode_tokens_per_s:,.1f} tokens/s" in first, (plan.gpu_label, first)
        assert plan.decode_label is not None and first.count(f"({plan.decode_label})") >= 1
    assert first.count("tokens/s") == len(report.local)


@pytest.mark.parametrize(
    ("question", "gpu"),
    [
        ("can I fine-tune my own dataset on a single 4090gpu?", "rtx-4090"),
        ("i cant believe it can work on 8g4060 with Qwen2.5 7B", "rtx-4060"),
        ("I have a 3090nvidia graphics card, can it run Llama 2 13B?", "rtx-3090"),
    ],
)
def test_a_card_number_run_into_a_word_is_the_card(question: str, gpu: str) -> None:
    assert [m.gpu for m in parse_workload(question).gpus] == [gpu], question


@pytest.mark.parametrize(
    ("question", "counts"),
    [
        ("Choosing between a 3090 and a 4090 for Llama 3.1 8B", [1, 1]),
        ("How does the L40S stack up against the H100 for Qwen2.5 32B serving 20 users?", None),
        # A choice asked, not made: both sides kept, at their counts.
        ("Should I get a 4090 rather than two 3090s for Llama 3.3 70B in Q4?", [1, 2]),
        ("Is it better to use 4 A100 instead of 2 H100 for Llama 3.1 70B?", [4, 2]),
    ],
)
def test_gpus_weighed_in_other_words_are_compared(question: str, counts: list[int] | None) -> None:
    p = parse_workload(question)
    assert p.compare and len(p.gpus) == 2, (question, p.gpus)
    if counts is not None:
        assert [m.count for m in p.gpus] == counts, p.gpus


def test_a_choice_made_still_sets_the_other_aside() -> None:
    # 'GPTQ instead of AWQ' said as what to do: the rejected format is not sized.
    p = parse_workload("Serve Llama 3.1 8B in GPTQ instead of AWQ on an L4")
    assert p.weights == "int4-gptq"


def test_buying_cheaper_than_renting_is_not_answered_as_a_fit() -> None:
    p = parse_workload("Is buying 2 H100s cheaper than renting them for a year for Llama 3.1 70B?")
    assert p.buy_asked and p.asked != "fits"


def test_which_mac_to_buy_is_not_answered_with_datacenter_gpus() -> None:
    # The recommender ranks datacenter GPUs: a Mac asked for holds the verdict instead.
    reading = reading_of(
        parse_workload("I want ~20 tok/s single-user on Llama 3.3 70B, which Mac should I buy?")
    )
    assert not reading.verdict_stands
