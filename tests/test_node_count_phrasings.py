"""GPU counts said per machine, as engineers write them (issue 27): the node count before the
GPU words ('2 H100*8 machines', 'three A100 nodes, each with 8 80GB GPUs'), a count with the
word GPU ('8-GPU A800'), a bare 'N GPUs' beside the one GPU named ('A100, 8 GPUs'), and machines
whose GPUs are not counted ('two 4090 machines'), which are asked about instead of being
sized as one GPU. Every expected total is nodes × GPUs per node, as said in the question."""

from __future__ import annotations

import pytest

from assistant.offline.parser import parse_workload
from assistant.offline.planner import plan_tool_calls
from assistant.reading.of_parsed import reading_of


def _named(question: str) -> list[tuple[str | None, int | None]]:
    return [(m.gpu, m.count) for m in parse_workload(question).gpus]


@pytest.mark.parametrize(
    ("question", "gpu", "total"),
    [
        ("serve DeepSeek R1 on 2 H100*8 machines", "h100-sxm", 2 * 8),
        ("two 8xH100 nodes for Llama 3.1 405B fp8?", "h100-sxm", 2 * 8),
        ("deploy R1 on three A100 nodes, each with 8 80GB GPUs", "a100-80gb-sxm4", 3 * 8),
        ("deploy R1 on 3 nodes, each with 8 A100 80GB", "a100-80gb-sxm4", 3 * 8),
        ("4 A100 80GB nodes with 8 GPUs each for Llama 3.1 405B", "a100-80gb-sxm4", 4 * 8),
        ("we have 3 servers with 4 L40S each, enough for Llama 3.1 405B fp8?", "l40s", 3 * 4),
        ("our 2 8-GPU A800 (80G) servers: can they serve DeepSeek V3?", "a800-sxm4-80gb", 2 * 8),
        ("one 8-GPU A800 (80G) server: can it serve Qwen2 7B?", "a800-sxm4-80gb", 8),
    ],
)
def test_gpus_per_machine_times_machines(question: str, gpu: str, total: int) -> None:
    assert _named(question) == [(gpu, total)]


@pytest.mark.parametrize(
    ("question", "gpu", "count"),
    [
        ("A100, 8 GPUs, does Llama 3.1 70B fp16 fit?", "a100-80gb-sxm4", 8),
        ("a 4-gpu 4090 rig for Llama 3.1 70B Q4_K_M", "rtx-4090", 4),
        ("8 GPU H100 node for Llama 3.1 405B fp8", "h100-sxm", 8),
    ],
)
def test_the_count_said_with_the_word_gpu_is_the_named_gpus(
    question: str, gpu: str, count: int
) -> None:
    assert _named(question) == [(gpu, count)]
    # The configuration sized is the count said, not one GPU beside a count shown.
    (call,) = [c for c in plan_tool_calls(parse_workload(question)) if c.name == "size"]
    assert call.arguments["configurations"][0]["count"] == count


@pytest.mark.parametrize(
    "question",
    [
        "I have two 4090 machines, can they run Llama 3.1 70B Q4_K_M?",
        "Can 3 A100 servers serve Llama 3.1 405B?",
    ],
)
def test_machines_without_their_gpu_count_are_asked_about(question: str) -> None:
    parsed = parse_workload(question)
    assert parsed.asks("figure", "missing")
    assert any("how many GPUs does each" in q.text for q in parsed.questions)


@pytest.mark.parametrize(
    ("question", "gpu", "count"),
    [
        # vLLM's --tensor-parallel-size / -tp, said as typed: the GPUs one copy is split over.
        ("Qwen2.5-72B on L40S with -tp 4, fits?", "l40s", 4),
        ("Llama 3.1 70B on H100 with --tensor-parallel-size 8", "h100-sxm", 8),
        ("Can vLLM serve Qwen2.5-72B on 4x L40S with tensor parallel 4?", "l40s", 4),
        (
            "vllm 0.6.3, 2x A100 80GB, Llama 3.1 70B with tensor-parallel-size 2",
            "a100-80gb-sxm4",
            2,
        ),
    ],
)
def test_a_tensor_parallel_flag_is_the_gpu_count(question: str, gpu: str, count: int) -> None:
    parsed = parse_workload(question)
    assert _named(question) == [(gpu, count)]
    assert reading_of(parsed).unread_that_matters == []


def test_a_tensor_parallel_degree_other_than_the_count_holds_the_verdict() -> None:
    # TP 2 on 4 GPUs is two replicas or two pipeline stages: not read as either.
    reading = reading_of(parse_workload("Llama 3.1 70B on 4 H100 with --tensor-parallel-size 2?"))
    assert [u.span.text for u in reading.unread_that_matters] == ["--tensor-parallel-size 2"]
