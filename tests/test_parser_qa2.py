"""Parser phrases from QA round 2 (findings 1 and 10): ZeRO / FSDP, node counts, deadlines,
negative counts and misspelled catalog model names. Expected values come from the sentences
themselves (and the arithmetic written next to them)."""

from __future__ import annotations

import pytest

from assistant.offline.parser import parse_workload
from assistant.offline.planner import plan_tool_calls
from tools.sizing import SizingRequest
from tools.sizing.memory import configuration_fields

TRAIN = "full fine-tune of Llama 3.1 70B on 2B tokens"


@pytest.mark.parametrize(
    ("phrase", "stage"),
    [
        ("with ZeRO-3", 3),
        ("ZeRO stage 2", 2),
        ("DeepSpeed ZeRO-2", 2),
        ("zero 1", 1),
        # PyTorch FSDP docs: FULL_SHARD shards parameters, gradients and optimizer states (=
        # ZeRO-3); SHARD_GRAD_OP shards gradients and optimizer states (= ZeRO-2).
        ("with FSDP", 3),
        ("FSDP full shard", 3),
        ("FSDP SHARD_GRAD_OP", 2),
    ],
)
def test_zero_stage_is_read(phrase: str, stage: int) -> None:
    parsed = parse_workload(f"{TRAIN} {phrase} on 16 H100s")
    assert parsed.zero == stage
    assert parsed.unplaced == []


def test_fsdp_says_it_is_read_as_zero3() -> None:
    parsed = parse_workload(f"{TRAIN} with FSDP on 16 H100s")
    assert any("'FSDP' read as ZeRO-3" in note for note in parsed.notes)


@pytest.mark.parametrize(
    ("text", "gpu", "count"),
    [
        ("on 4 nodes of 8 H100s", "h100-sxm", 4 * 8),
        ("on 32 H100s across 4 servers", "h100-sxm", 32),  # already the total
        ("with 8 H100s per node, 2 nodes", "h100-sxm", 2 * 8),
        ("on one 8xH100 node", "h100-sxm", 8),
    ],
)
def test_node_counts_give_the_total_gpus(text: str, gpu: str, count: int) -> None:
    parsed = parse_workload(f"{TRAIN} {text}")
    assert [(m.gpu, m.count) for m in parsed.gpus] == [(gpu, count)]
    assert parsed.unplaced == []


def test_nodes_times_unnamed_gpus() -> None:
    parsed = parse_workload(f"{TRAIN} on 2 nodes × 8 GPUs")
    assert parsed.gpu_count == 2 * 8
    (planned,) = plan_tool_calls(parsed)
    assert planned.arguments["configurations"] == [{"count": 16}]
    request = SizingRequest.model_validate(planned.arguments)
    assert configuration_fields(request, None, 16)["gpus"] == 16


@pytest.mark.parametrize(
    ("phrase", "hours"),
    [
        ("deadline 24 hours", 24.0),
        ("deadline of 3 days", 3 * 24.0),
        ("deadline: 48h", 48.0),
        ("in under 2 days", 2 * 24.0),
        ("by 48h", 48.0),
    ],
)
def test_deadline_phrases(phrase: str, hours: float) -> None:
    parsed = parse_workload(f"{TRAIN} on 32 H100s, {phrase}")
    assert parsed.deadline_hours == hours
    assert parsed.unplaced == []


def test_qa2_training_sentence_is_read_whole() -> None:
    parsed = parse_workload(
        "full fine-tune of Llama 3.1 70B with ZeRO-3 on 32 H100s, 2B tokens, 4k sequences, "
        "deadline 24 hours"
    )
    assert (parsed.zero, parsed.deadline_hours, parsed.train_tokens) == (3, 24.0, 2e9)
    assert [(m.gpu, m.count) for m in parsed.gpus] == [("h100-sxm", 32)]
    assert parsed.context == 4 * 1024 and parsed.unplaced == []


@pytest.mark.parametrize("text", ["serve Llama 3.1 8B to -5 users", "memory of a -7B model"])
def test_negative_counts_are_asked_not_read_as_positive(text: str) -> None:
    parsed = parse_workload(text)
    assert parsed.users is None and parsed.params is None
    assert "negative" in parsed.questions[0].text
    assert plan_tool_calls(parsed) == []


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        # A misspelt name with its size unit ('lama 3.1 70b') is read as the model
        # (tests/test_answer_readings.py); without the unit it stays a question.
        ("llama3.1-70 on an H100", "Llama 3.1 70B"),
        ("serve gpt-oss 120 on one H100", "gpt-oss-120b"),
    ],
)
def test_near_miss_model_name_is_a_question_with_the_catalog_name(text: str, meant: str) -> None:
    parsed = parse_workload(text)
    assert parsed.model is None
    assert "not a catalog model name" in parsed.questions[0].text
    assert meant.lower() in parsed.questions[0].text.lower()
    assert plan_tool_calls(parsed) == []  # not a silent generic 70B


def test_a_family_not_in_the_catalog_stays_a_generic_size() -> None:
    # InternLM is not in the catalog and no catalog name is close: sized as a generic 20B.
    # (Falcon was the example until the catalog gained Falcon3 7B/10B, issue 15.)
    parsed = parse_workload("InternLM 20B on an A100")
    assert parsed.params == 20e9 and parsed.questions == []
