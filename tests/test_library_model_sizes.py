"""A model said by its library name and a size that names another build (issue 27): 'DeepSeek
R1 14B' is DeepSeek's R1-Distill-Qwen-14B, not DeepSeek-R1 (671B total, its model card) beside a
second model of 14B. The distills and their bases are from the DeepSeek-R1 model card
(huggingface.co/deepseek-ai/DeepSeek-R1, 'DeepSeek-R1-Distill Models': Qwen2.5-Math-1.5B,
Qwen2.5-Math-7B, Llama-3.1-8B, Qwen2.5-14B, Qwen2.5-32B, Llama-3.3-70B-Instruct), as Ollama's
deepseek-r1:14b … tags name them."""

from __future__ import annotations

import pytest

from assistant.offline.parser import parse_workload
from assistant.reading.of_parsed import reading_of


@pytest.mark.parametrize(
    ("question", "model"),
    [
        ("can I run deepseek-r1 14b on my 3060 12gb?", "deepseek-r1-distill-qwen-14b"),
        ("DeepSeek R1 32B on a 4090 with ollama?", "deepseek-r1-distill-qwen-32b"),
        ("Deepseek-R1-70B in 4 bit on 2x 3090?", "deepseek-r1-distill-llama-70b"),
        ("deepseek r1 8b on an M2 with 16GB?", "deepseek-r1-distill-llama-8b"),
        ("deepseek-r1:7b on a 3060", "deepseek-r1-distill-qwen-7b"),
    ],
)
def test_a_distill_said_by_its_size_is_the_distill(question: str, model: str) -> None:
    parsed = parse_workload(question)
    assert parsed.model == model
    assert not any(q.slot == "model" for q in reading_of(parsed).questions)


@pytest.mark.parametrize(
    "question",
    ["DeepSeek R1 671B on 8x H200", "deepseek r1 on 8 H100", "DeepSeek-R1 in FP8 on 16 H100"],
)
def test_the_full_model_stays_the_full_model(question: str) -> None:
    assert parse_workload(question).model == "deepseek-r1"


@pytest.mark.parametrize(
    ("question", "model"),
    [
        # A name with an active-parameter suffix is one model, nothing of it a GPU.
        ("Trying to run Qwen3-235B-A22B on 4x H100 with vllm", "qwen3-235b-a22b"),
        ("qwen3 235b a22b on 8 H100", "qwen3-235b-a22b"),
        ("Qwen3-30B-A3B on a 4090", "qwen3-30b-a3b"),
    ],
)
def test_an_active_parameter_suffix_is_part_of_the_name(question: str, model: str) -> None:
    parsed = parse_workload(question)
    assert parsed.model == model
    assert reading_of(parsed).unread_that_matters == []
