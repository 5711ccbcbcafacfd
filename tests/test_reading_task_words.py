"""What is trained or served, and in what format, as the words say it (issue 27): tensor
parallelism over the GPUs counted, full-parameter fine-tunes, 'without LoRA', a 16-bit type
beside QLoRA (its compute dtype) — and two options that change the memory ('fp8 or int4?',
'LoRA or full?', 'with and without lora') asked back instead of the first sized. Phrasings
written for these tests; what each must read is what the sentence says."""

from __future__ import annotations

import pytest

from assistant.offline.parser import parse_workload
from assistant.reading.of_parsed import reading_of

TENSOR_PARALLEL_WORDS = [
    ("Will Qwen2.5 72B fit on 8 A10G using tensor parallel?", "a10g", 8),
    ("Mixtral 8x7B on 2x RTX 4090 via tensor-parallel, does it fit?", "rtx-4090", 2),
    ("Llama 3.1 70B with tensor parallelism across 4 H100s at 32k context, fits?", "h100", 4),
    ("does llama 3.3 70b fit on 2 L40S with tensor parallel", "l40s", 2),
]


@pytest.mark.parametrize(("question", "gpu", "count"), TENSOR_PARALLEL_WORDS)
def test_tensor_parallel_said_over_the_gpus_counted_is_read_with_them(
    question: str, gpu: str, count: int
) -> None:
    p = parse_workload(question)
    assert len(p.gpus) == 1 and p.gpus[0].gpu.startswith(gpu), question
    assert p.gpus[0].count == count, question
    reading = reading_of(p)
    held = [u.span.text for u in reading.unread_that_matters]
    assert not any("parallel" in h.lower() for h in held), (question, held)


@pytest.mark.parametrize(
    "question",
    [
        # One GPU cannot be split: the words say something not read (TP over what?).
        "Llama 3.1 70B on one H100 with tensor parallel?",
        # A degree other than the count (TP 2 on 4 GPUs: replicas or pipeline stages).
        "Llama 3.1 70B on 4 H100 with tensor parallel 2?",
    ],
)
def test_tensor_parallel_that_is_not_the_count_holds_the_verdict(question: str) -> None:
    reading = reading_of(parse_workload(question))
    assert not reading.verdict_stands, question
    held = " ".join(u.span.text for u in reading.unread_that_matters).lower()
    assert "tensor parallel" in held, question


FULL_FINE_TUNES = [
    "Can I full-parameter fine-tune Llama 3.1 8B on 4x A100 80GB?",
    "Fine-tune Mistral 7B with full parameters on 2 H100, does it fit?",
    "How much memory to train a 1.3B model with all params in bf16?",
    "Full-weight fine-tune of Qwen2.5 7B on 8 A100 40GB, enough?",
    "Train Llama 3.2 1B fully on one RTX 4090?",
]


@pytest.mark.parametrize("question", FULL_FINE_TUNES)
def test_every_weight_trained_is_read_as_a_full_fine_tune(question: str) -> None:
    p = parse_workload(question)
    assert p.task == "full" and "task" not in p.assumed, question
    assert reading_of(p).unread_that_matters == [], question


ALTERNATIVES = [
    # Two formats of other widths, or two kinds of fine-tune, offered as a choice: sizing the
    # first would answer another question (the memory differs with each).
    ("Llama 3.1 70B on 2x 4090, fp8 or int4?", "weights"),
    ("Qwen2.5 32B q4_k_m or q8_0 on a 3090?", "weights"),
    ("Fine-tune Llama 3.1 8B on a 4090, LoRA or full fine-tune?", "task"),
    ("QLoRA vs LoRA for Mistral 7B on a 3090?", "task"),
    ("I have a 4090: QLoRA or LoRA on Mistral 7B, will it fit?", "task"),
]


@pytest.mark.parametrize(("question", "slot"), ALTERNATIVES)
def test_two_options_that_change_the_memory_are_asked_not_one_sized(
    question: str, slot: str
) -> None:
    p = parse_workload(question)
    assert [q.slot for q in p.questions] == [slot], (question, p.questions)
    assert not reading_of(p).verdict_stands, question


@pytest.mark.parametrize(
    "question",
    [
        # Two 4-bit formats: the same memory either way (one sized, the other noted).
        "Should I use AWQ or GPTQ for Llama 3.1 70B on 2x 4090?",
        # One fine-tune named twice, and a training verb beside LoRA.
        "Can I train a LoRA for Llama 2 13B in 8bit on my 3090?",
    ],
)
def test_options_that_do_not_change_the_memory_are_not_asked(question: str) -> None:
    assert parse_workload(question).questions == [], question


def test_a_16_bit_type_beside_qlora_is_its_compute_dtype() -> None:
    # QLoRA (Dettmers et al. 2023, §3): the base is NF4 with double quantization; BF16 is the
    # computation data type.
    p = parse_workload("QLoRA on Llama 3.1 8B with a 4090, bf16 compute, fits?")
    assert (p.task, p.weights) == ("qlora", "nf4-dq")
    assert reading_of(p).verdict_stands


def test_fine_tuning_on_ones_own_data_is_no_figure() -> None:
    p = parse_workload("Fine-tune Llama 3.1 8B with LoRA on our own dataset on one A10G, fits?")
    assert p.task == "lora"
    assert reading_of(p).verdict_stands


def test_fine_tuning_without_lora_is_a_full_fine_tune() -> None:
    p = parse_workload("8x A100 80GB, I want to fine-tune Llama 2 13B without PEFT LoRA, fits?")
    assert p.task == "full" and "task" not in p.assumed


def test_a_fine_tune_with_and_without_lora_asks_which_to_size() -> None:
    p = parse_workload(
        "Whats the minimum GPU memory required for fine-tuning Llama 2 7B with and without "
        "lora? Would 4x V100 be sufficient?"
    )
    assert [q.slot for q in p.questions] == ["task"]
    assert not reading_of(p).verdict_stands
