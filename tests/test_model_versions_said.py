"""Model names the catalog holds only in part (issue 27: nothing the user named is silently
replaced): a version it lacks is sized in place by its sibling of that size and the reading
says so; a longer name of another size ('…-nemotron-super-49b') is that size, not the catalog
name it starts with; a catalog name that goes on with more words and a size ('DeepSeek R1
distill 32B') is the one catalog model those words name. Expected ids are written from the
model names (Hugging Face model cards), not from the parser's output."""

from __future__ import annotations

import pytest

from assistant.offline.parser import parse_workload
from assistant.reading.of_parsed import reading_of
from assistant.render.reading import read_as_line

STAND_INS = [
    # (question, words said, catalog model sized in place: same family and size)
    ("Can I run Llama 3 8B on my 3060 12GB?", "Llama 3 8B", "llama-3.1-8b"),
    ("qwen2-7b on an A10G for 10 users", "qwen2-7b", "qwen2.5-7b"),
    ("Does Qwen2 72B fit on 2x A100 80GB?", "Qwen2 72B", "qwen2.5-72b"),
    ("llama 3 70b in 4-bit on two 3090s?", "llama 3 70b", "llama-3.1-70b"),
]


@pytest.mark.parametrize(("question", "words", "model"), STAND_INS)
def test_a_version_the_catalog_lacks_is_sized_in_place_and_said(
    question: str, words: str, model: str
) -> None:
    parsed = parse_workload(question)
    assert parsed.model == model
    assert parsed.stand_in_for == words
    # Shown before any verdict, in the reading's one line.
    assert f"in place of '{words}' (not in the catalog)" in read_as_line(reading_of(parsed))


@pytest.mark.parametrize(
    "question",
    [
        "Llama 3.1 8B on my 3060 12GB?",  # the catalog's own version
        "lamma 3.1 70b on 2 H100",  # a misspelling of it: not another version
        "Llama 3.3 70B on 2 H100",
    ],
)
def test_a_catalog_version_is_no_stand_in(question: str) -> None:
    assert parse_workload(question).stand_in_for is None


def test_a_follow_up_keeps_the_stand_in_and_a_new_model_drops_it() -> None:
    first = parse_workload("Can I run Llama 3 8B on an L4?")
    same = parse_workload("what about with 8 users?", first)
    assert (same.model, same.stand_in_for) == ("llama-3.1-8b", "Llama 3 8B")
    other = parse_workload("what about Qwen2.5 7B?", first)
    assert (other.model, other.stand_in_for) == ("qwen2.5-7b", None)


@pytest.mark.parametrize(
    ("question", "params"),
    [
        # Llama-3.3-Nemotron-Super-49B-v1: 49B by its name, not Llama 3.3 70B.
        ("the default LLM llama-3.3-nemotron-super-49b-v1 requests 1 GPU, enough?", 49e9),
        ("Can I serve Llama-3.1-Nemotron-Nano-4B-v1.1 on a T4?", 4e9),
    ],
)
def test_a_longer_name_of_another_size_is_that_size(question: str, params: float) -> None:
    parsed = parse_workload(question)
    assert parsed.model is None and parsed.params == params


@pytest.mark.parametrize(
    ("question", "model"),
    [
        ("Qwen3-30B-A3B on a 4090", "qwen3-30b-a3b"),  # A3B: active parameters, not a size
        ("Llama-3.1-70B-Instruct-AWQ on 2 L40S", "llama-3.1-70b"),
        ("Will DeepSeek R1 distill 32B fit on a 24GB card?", "deepseek-r1-distill-qwen-32b"),
        ("deepseek r1 distill llama 70b on 2 H100", "deepseek-r1-distill-llama-70b"),
        ("Qwen2.5 coder 32B on a 4090", "qwen2.5-coder-32b"),
    ],
)
def test_a_catalog_name_with_more_words_is_the_model_they_name(question: str, model: str) -> None:
    assert parse_workload(question).model == model


def test_two_models_said_side_by_side_are_still_asked_about() -> None:
    # 'or 8B' is another model, not more of the first one's name.
    parsed = parse_workload("Llama 3.1 70B or 8B on a 4090?")
    assert any(q.slot == "model" for q in parsed.questions)


@pytest.mark.parametrize(
    "question", ["Will Phi-3 medium run on my 12GB 3060?", "llama3.1-70 on an H100"]
)
def test_a_name_the_catalog_lacks_gets_one_question_about_the_model(question: str) -> None:
    parsed = parse_workload(question)
    assert parsed.model is None
    assert len([q for q in parsed.questions if q.slot == "model"]) == 1
