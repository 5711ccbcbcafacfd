"""Questions that are not a sizing, read as such (issue 27): no GPU at all ('without a GPU',
'CPU only', 无GPU), a failure whose fix is asked ('OOM, how can I fix it?'), a quantization
asked of a model's makers, how to run across machines, a figure quoted from a README or heard
— each gets its out-of-scope sentence or a question, never a verdict on something else; a
sizing asked beside them is still sized. Phrasings written for these tests."""

from __future__ import annotations

import pytest

from assistant.offline.parser import parse_workload
from assistant.offline.planner import scope_only
from assistant.reading.of_parsed import reading_of

CPU_ONLY = [
    "Can I run Llama 3 8B without a GPU on 32 GB of RAM?",
    "Is it possible to run Mistral 7B CPU-only with 64GB RAM?",
    "Can Qwen2.5 14B run on CPU only?",
    "Running Llama 3.1 70B with no GPU, just 128 GB of system RAM?",
    "we have no GPUs at all, only a Xeon box: will Phi-3 mini run?",
]


@pytest.mark.parametrize("question", CPU_ONLY)
def test_a_question_with_no_gpu_gets_the_out_of_scope_answer_not_a_gpu_verdict(
    question: str,
) -> None:
    p = parse_workload(question)
    assert "running on a CPU without a GPU" in p.out_of_scope, question
    # 'without a GPU' is no count of one GPU, and no GPU verdict is sized in its place.
    assert p.gpus == [] and p.gpu_count is None, question
    assert scope_only(p), question


def test_a_gpu_with_cpu_offload_is_still_sized() -> None:
    p = parse_workload("Llama 3.1 8B on an RTX 3060 12GB, can it run CPU-only for the rest?")
    assert [m.gpu for m in p.gpus] == ["rtx-3060-12gb"]
    assert not scope_only(p)


FIX_ASKED = [
    "Fine-tuning Mistral 7B on my 3090 always OOMs at batch size 1, how can I fix it?",
    "vLLM with Llama 3.1 8B on an A10G gives CUDA out of memory, how to resolve this?",
    "Qwen2.5 14B 在 4090 上显存不足，怎么办？",
    "Loading Mixtral 8x7B on 2x 4090 crashes with OOM. What should I do?",
]


@pytest.mark.parametrize("question", FIX_ASKED)
def test_a_failure_whose_fix_is_asked_is_debugging_not_a_sizing(question: str) -> None:
    p = parse_workload(question)
    assert "installing or debugging software" in p.out_of_scope, question
    assert scope_only(p), question


def test_a_fit_asked_beside_the_failure_is_still_sized() -> None:
    p = parse_workload("Llama 2 13B OOMs on my 3090, what should I do — is 24GB enough for it?")
    assert "installing or debugging software" in p.out_of_scope
    assert not scope_only(p)


QUANT_REQUESTS = [
    "Can you make a Q4_K_M of this? 12GB card here.",
    "Could you please release an AWQ version for my 24GB 3090?",
    "please upload a GGUF q5 quant, the fp16 does not fit my 4080",
    "Only 16 GB on my 4080. Would it be possible to create an even smaller version?",
]


@pytest.mark.parametrize("question", QUANT_REQUESTS)
def test_a_quantization_asked_of_the_makers_is_out_of_scope(question: str) -> None:
    p = parse_workload(question)
    assert any("plan to release" in topic for topic in p.out_of_scope), question
    assert scope_only(p), question


def test_chinese_without_a_gpu_is_cpu_only() -> None:
    p = parse_workload("无GPU可以运行Qwen2.5 7B吗？")
    assert "running on a CPU without a GPU" in p.out_of_scope and scope_only(p)


def test_how_to_run_across_machines_is_the_question_not_a_fit() -> None:
    p = parse_workload(
        "I have two gpu servers with 8 T4 16GB GPU on each. how could i inference llama3 70b "
        "multi-node? it needs more than 8 gpu"
    )
    assert scope_only(p)


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("how to get to run Qwen2.5 14B on 16gb of vram", "fits"),
        (
            "Where can I find the hardware requirements for Llama 2 13B? Can it run on a 3060?",
            "fits",
        ),
    ],
)
def test_how_to_get_it_running_and_where_the_requirements_are(question: str, asked: str) -> None:
    p = parse_workload(question)
    assert p.asked == asked and not p.out_of_scope, (question, p.out_of_scope)


@pytest.mark.parametrize(
    "question",
    [
        'In the README on GitHub, it states: "fine-tuning a 7B model requires about 112 GB of '
        'VRAM." Could you explain how this is derived?',
        "I have heard that 360GB RAM is required for a full 128k context of this 13B model, "
        "how much for 64k?",
    ],
)
def test_a_figure_reported_from_elsewhere_asks_which_figures_are_the_workload(
    question: str,
) -> None:
    p = parse_workload(question)
    assert any(q.slot == "meaning" and q.why == "ambiguous" for q in p.questions), p.questions
    assert not reading_of(p).verdict_stands
