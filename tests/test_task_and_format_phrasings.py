"""The task and the weight format said after the verb or inside a repo name (issue 27): 'fine-tune
Llama 3.1 8B fully' / 'all parameters' is a full fine-tune said (not the default reading of a
plain 'fine-tune'), and bitsandbytes 4-bit ('…-bnb-4bit', '4bit with bitsandbytes') is NF4 —
the 4-bit type of those checkpoints — not AWQ."""

from __future__ import annotations

import pytest

from assistant.offline.parser import parse_workload


@pytest.mark.parametrize(
    "question",
    [
        "Can I fine-tune Llama 3.1 8B fully on 4x A100 40GB?",
        "fine-tune all parameters of Llama 2 7B on a 4090",
        "train Mistral 7B, every parameter, on 8 H100",
    ],
)
def test_a_full_fine_tune_said_after_the_verb_is_said(question: str) -> None:
    parsed = parse_workload(question)
    assert parsed.task == "full" and "task" not in parsed.assumed
    assert parsed.unread == []


def test_a_plain_fine_tune_is_still_the_default_reading() -> None:
    parsed = parse_workload("fine-tune Llama 2 7B on a 4090")
    assert parsed.task == "full" and "task" in parsed.assumed


@pytest.mark.parametrize(
    "question",
    [
        "Meta-Llama-3.1-8B-Instruct-bnb-4bit on a T4",
        "load Llama 2 13B in 4bit with bitsandbytes on a 3060",
        "Llama 2 13B with bitsandbytes 4-bit on a 3060",
    ],
)
def test_bitsandbytes_four_bit_is_nf4(question: str) -> None:
    assert parse_workload(question).weights == "nf4"


def test_a_plain_four_bit_is_still_read_as_awq_with_a_note() -> None:
    parsed = parse_workload("Llama 2 13B in 4-bit on a 3060")
    assert parsed.weights == "int4-awq"
    assert any("4-bit AWQ" in n for n in parsed.notes)
