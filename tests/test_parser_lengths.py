"""Offline parser: lengths, QLoRA's base and described GPUs, as ML engineers write them.

QA review findings 2, 4, 5 and 9 (and a colleague's "500 token answers"). Every expected value
is read off the sentence itself; 'Nk' lengths follow model-card usage (Llama 3.1's "128K" window
is max_position_embeddings = 131,072 in its config.json), so 4k = 4 × 1,024 = 4,096 tokens and
8k = 8,192, the same rule as 16k = 16,384. GPU capacities are the vendors' marketed figures
(NVIDIA datasheets: A10G, A10, L4 and GeForce RTX 4090 24 GB; L40S and RTX 6000 Ada 48 GB;
A100 80GB and H100 80 GB).
"""

from __future__ import annotations

from typing import Any

import pytest

from assistant.offline.parser import parse_workload
from assistant.offline.planner import PlannedCall, plan_tool_calls
from tools.catalog import get_catalog
from tools.memory import MemoryRequest, estimate_memory
from tools.sizing import SizingRequest
from tools.sizing.memory import configuration_fields
from tools.sizing.plan import resolved_configurations

GB = 10**9


def _calls(text: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """(memory request of each configuration sized, workload arguments) planned for `text`:
    the `size` call's workload, and the estimates tools.sizing makes of it."""
    planned: list[PlannedCall] = plan_tool_calls(parse_workload(text))
    sizing = next(c.arguments for c in planned if c.name == "size")
    request = SizingRequest.model_validate(sizing)
    memory = [
        configuration_fields(request, c.gpu, c.count or 1) for c in resolved_configurations(request)
    ]
    return memory, sizing["workload"]


# --- finding 2: training sequence length -----------------------------------------------------


@pytest.mark.parametrize(
    "phrase", ["4k sequences", "sequences of 4k", "4k-token sequences", "seq len 4k"]
)
def test_training_sequences_are_the_length_not_users(phrase: str) -> None:
    # QA: "full fine-tune of Llama 3.1 70B on H100s, 2B tokens, 4k sequences" was sized for
    # 4,000 users (a batch of 4,000 sequences, 45,816.9 GiB per GPU).
    text = f"full fine-tune of Llama 3.1 70B on H100s, 2B tokens, {phrase}"
    parsed = parse_workload(text)
    assert parsed.task == "full"
    assert parsed.context == 4 * 1024
    assert parsed.users is None and parsed.batch is None
    assert parsed.train_tokens == 2e9
    assert parsed.unplaced == []
    assert any("4,096" in note for note in parsed.notes)  # the assumptions say how it was read
    memory, recommend = _calls(text)
    assert memory == [
        {"model": "llama-3.1-70b", "task": "full", "context": 4096, "gpu": "h100-sxm"}
    ]
    assert recommend["sequence_length"] == 4096 and "users" not in recommend


def test_training_k_follows_the_same_rule_as_a_context() -> None:
    # 16k before 'sequences' is 16 × 1,024, as '16k context' is.
    parsed = parse_workload("LoRA of Llama 3.1 8B on 16k sequences")
    assert parsed.context == 16 * 1024 and parsed.users is None


@pytest.mark.parametrize(
    "text",
    [
        "full fine-tune of Llama 3.1 8B with a batch of 8 sequences of 4k",
        "full fine-tune of Llama 3.1 8B, batch of 8 sequences of 4k tokens",
        "full fine-tune of Llama 3.1 8B, micro-batch 8, 4k sequences",
    ],
)
def test_training_batch_of_sequences_is_batch_and_length(text: str) -> None:
    parsed = parse_workload(text)
    assert (parsed.batch, parsed.context) == (8, 4 * 1024)
    assert parsed.users is None and parsed.train_examples is None
    assert parsed.unplaced == []
    memory, _ = _calls(text)
    assert (memory[0]["batch"], memory[0]["context"]) == (8, 4096)


def test_sequences_with_a_length_are_a_dataset() -> None:
    # "100k sequences of 2k tokens": 100,000 examples × 2,048 tokens = 204,800,000 tokens.
    parsed = parse_workload("LoRA of Llama 3.1 8B on 100k sequences of 2k tokens")
    assert parsed.train_examples == 100_000 and parsed.tokens_per_example == 2048
    assert parsed.train_tokens == 100_000 * 2048
    assert parsed.users is None


def test_serving_users_stay_a_decimal_count() -> None:
    # Outside training, '4k users' is 4 × 1,000 people: counts are never binary.
    assert parse_workload("serve Llama 3.1 8B to 4k users").users == 4000


# --- finding 4: QLoRA's base is NF4 with double quantization ---------------------------------


def test_qlora_base_is_nf4_with_double_quantization() -> None:
    # QLoRA paper (Dettmers et al. 2023, arXiv 2305.14314) §3 quantizes the base to NF4 with
    # double quantization; the QA sentence was sized at plain NF4 (4.5 bits, 42.40 GB).
    text = "QLoRA a 70B on one 48 GB card"
    parsed = parse_workload(text)
    assert (parsed.task, parsed.weights, parsed.params) == ("qlora", "nf4-dq", 70e9)
    memory, recommend = _calls(text)
    assert memory and all(call["weights"] == "nf4-dq" for call in memory)
    assert recommend["weights"] == "nf4-dq"
    # The same base the memory tool picks when asked for task=qlora with no weights.
    default = estimate_memory(MemoryRequest(params=70e9, task="qlora"))
    assert default.weights_format == parsed.weights


@pytest.mark.parametrize(
    ("text", "weights"),
    [
        ("QLoRA of Llama 3.1 8B in 4-bit", "nf4-dq"),
        ("QLoRA of Llama 3.1 8B with NF4", "nf4-dq"),
        ("QLoRA of Llama 3.1 8B, NF4 without double quant", "nf4"),
        ("QLoRA of Llama 3.1 8B on a GPTQ base", "int4-gptq"),
        ("serve Llama 3.1 8B in NF4", "nf4"),  # inference: no QLoRA, NF4 as written
        ("serve Llama 3.1 8B in NF4 with double quantization", "nf4-dq"),
    ],
)
def test_explicit_base_formats_are_kept(text: str, weights: str) -> None:
    parsed = parse_workload(text)
    assert parsed.weights == weights
    assert parsed.unplaced == []


# --- finding 5: a bare length is the context -------------------------------------------------


@pytest.mark.parametrize(
    ("phrase", "tokens"),
    [
        ("at 8k", 8 * 1024),
        ("with 8k", 8 * 1024),
        ("8k tokens", 8 * 1024),
        ("8k ctx", 8 * 1024),
        ("8k-token context", 8 * 1024),
        ("context of 8k", 8 * 1024),
        ("32k window", 32 * 1024),
    ],
)
def test_context_phrasings(phrase: str, tokens: int) -> None:
    text = f"batch 64 of Qwen2.5 7B {phrase}"
    parsed = parse_workload(text)
    assert (parsed.context, parsed.batch) == (tokens, 64)
    assert parsed.unplaced == []
    memory, recommend = _calls(text)
    assert memory == [{"model": "qwen2.5-7b", "context": tokens, "batch": 64}]
    assert (recommend["context"], recommend["users"]) == (tokens, 64)


def test_bare_at_length_says_how_it_was_read() -> None:
    notes = parse_workload("Llama 3.1 8B at 8k, 10 users").notes
    assert any("'at 8k' read as the context: 8,192 tokens" in note for note in notes)


def test_a_bare_number_followed_by_another_unit_is_not_a_context() -> None:
    # "8k steps" says nothing about the sequence: left unplaced, not guessed.
    parsed = parse_workload("Llama 3.1 8B at 8k steps")
    assert parsed.context is None and parsed.unplaced == ["8k steps"]


# --- answers / responses / completions are the output length --------------------------------


@pytest.mark.parametrize(
    "answers",
    [
        "500 token answers",
        "500-token responses",
        "500 token completions",
        "500 token replies",
        "500 token generations",
        "answers of 500 tokens",
    ],
)
def test_answer_length_is_the_output_not_the_context(answers: str) -> None:
    text = f"serve Llama 3.1 8B, 2,000 token prompts and {answers}, 20 users"
    parsed = parse_workload(text)
    assert (parsed.prompt_tokens, parsed.output_tokens, parsed.users) == (2000, 500, 20)
    assert parsed.context is None  # the tools add prompt + output themselves
    assert parsed.unplaced == []
    memory, recommend = _calls(text)
    assert memory[0]["context"] == 2000 + 500
    assert (recommend["prompt_tokens"], recommend["output_tokens"]) == (2000, 500)
    assert "context" not in recommend


# Answer lengths said without 'tokens' after 'about' / 'around' / '~' are the output length too.
@pytest.mark.parametrize(
    "answers",
    [
        "answers about 500 tokens",
        "answers about 500",
        "responses of ~500 tokens",
        "responses of ~500",
        "replies around 500",
    ],
)
def test_an_approximate_answer_length_is_the_output(answers: str) -> None:
    text = f"serve Llama 3.1 8B, 2,000 token prompts and {answers}, 20 users"
    parsed = parse_workload(text)
    assert (parsed.prompt_tokens, parsed.output_tokens, parsed.users) == (2000, 500, 20)
    assert parsed.context is None and parsed.unplaced == []
    memory, _ = _calls(text)
    assert memory[0]["context"] == 2000 + 500  # not 2,000 + the 1,024 default output


@pytest.mark.parametrize("other", ["answers about 500 words", "answers about 500 users"])
def test_an_answer_figure_with_another_unit_is_not_the_output(other: str) -> None:
    assert parse_workload(f"serve Llama 3.1 8B, {other}").output_tokens is None


# 'Nk prompts' is a prompt length ('8k' = 8,192 tokens: the binary-k rule of a context); a
# count of prompts comes with a rate or a verb and is not read so.
@pytest.mark.parametrize(
    ("text", "prompt"),
    [
        ("Llama 3.1 8B on an L40S with 8k prompts", 8 * 1024),
        ("serve Llama 3.1 8B with 8k prompts and 512-token answers to 10 users", 8 * 1024),
        ("Llama 3.1 8B on an L40S, 2k prompts, answers about 500", 2 * 1024),
        ("Qwen3 8B, 4k-long prompts, 16 users", 4 * 1024),
        ("Llama 3.1 8B with 8k inputs", 8 * 1024),
    ],
)
def test_k_prompts_are_a_prompt_length(text: str, prompt: int) -> None:
    parsed = parse_workload(text)
    assert parsed.prompt_tokens == prompt
    assert parsed.unplaced == []
    assert any(f"read as prompts of {prompt:,} tokens" in n for n in parsed.notes)


@pytest.mark.parametrize(
    "text", ["Llama 3.1 8B, 8k prompts a day", "process 10k prompts with Llama 3.1 8B"]
)
def test_a_count_of_prompts_is_not_a_length(text: str) -> None:
    assert parse_workload(text).prompt_tokens is None


# --- finding 9: a GPU described by its memory -------------------------------------------------


def test_consumer_card_of_24_gb_is_the_rtx_4090() -> None:
    # The catalog's 24 GB consumer cards (research: RTX 4090, 3090, 3090 Ti, RX 7900 XTX) — a
    # card, so never the 24 GB GeForce RTX 5090 Laptop GPU.
    text = "a 7B in Q4_K_M on a 24 GB consumer card with 32k context"
    parsed = parse_workload(text)
    assert parsed.gpu_memory_bytes == 24 * GB and parsed.consumer_gpu
    assert parsed.unplaced == []
    assert any("GeForce RTX 4090" in note for note in parsed.notes)
    memory, recommend = _calls(text)
    cards = {"rtx-4090", "rtx-3090", "rtx-3090-ti", "rx-7900-xtx"}
    assert {call["gpu"] for call in memory} == cards
    assert set(recommend["constraints"]["only_gpus"]) == cards
    assert recommend["context"] == 32 * 1024


@pytest.mark.parametrize(
    ("text", "size_gb", "cards"),
    [
        ("Llama 3.1 8B on a 24GB GPU", 24, {"a10g", "a10", "l4", "rtx-4090", "rtx-3090"}),
        ("Llama 3.1 8B on a 48 GB card", 48, {"l40s", "rtx-6000-ada", "rtx-a6000", "a40"}),
        ("Llama 3.1 70B on 80GB GPUs", 80, {"a100-80gb-sxm4", "h100-sxm"}),
        ("Llama 3.1 8B, I have 24GB of VRAM", 24, {"rtx-4090", "l4"}),
    ],
)
def test_gpu_described_by_memory(text: str, size_gb: int, cards: set[str]) -> None:
    parsed = parse_workload(text)
    assert parsed.gpu_memory_bytes == size_gb * GB and not parsed.consumer_gpu
    assert parsed.unplaced == []
    memory, recommend = _calls(text)
    allowed = recommend["constraints"]["only_gpus"]
    assert cards <= set(allowed)
    gpus = get_catalog().gpus
    assert all(gpus[gpu_id].memory_bytes == size_gb * GB for gpu_id in allowed)
    # Each one sized by the recommender, none left out; the memory tool for the first few
    # (the planner caps those calls) and never a Mac for 'a 24 GB card'.
    assert {call["gpu"] for call in memory} <= set(allowed)
    assert not any(gpus[gpu_id].unified_memory for gpu_id in allowed)
    names = next(note for note in parsed.notes if f"{size_gb} GB" in note)
    assert all(gpus[gpu_id].name in names for gpu_id in allowed)


def test_consumer_size_missing_falls_back_to_the_size_and_says_so() -> None:
    # No GeForce card is sold with 48 GB (RTX 4090: 24 GB, RTX 5090: 32 GB): the 48 GB cards.
    parsed = parse_workload("Llama 3.1 8B on a 48 GB desktop card")
    _, recommend = _calls("Llama 3.1 8B on a 48 GB desktop card")
    assert set(recommend["constraints"]["only_gpus"]) == {
        "l40s", "rtx-6000-ada", "rtx-a6000", "a40", "l40", "radeon-pro-w7900"
    }  # fmt: skip
    assert any("no consumer GPU" in note for note in parsed.notes)


def test_size_no_catalog_gpu_has_is_said_and_sized_against_that_memory() -> None:
    # Issue 15: a card the catalog lacks is sized on the memory given, never dropped (no
    # recommender over other GPUs in its place).
    # (20 GB was the example until the catalog gained the RTX 4000 Ada 20GB.)
    parsed = parse_workload("Llama 3.1 8B on a 22 GB card")
    assert any("no catalog GPU is sold with 22 GB" in note for note in parsed.notes)
    planned = plan_tool_calls(parsed)
    assert [c.name for c in planned] == ["plan_local_serving"]
    assert planned[0].arguments["gpu_memory_gb"] == 22


@pytest.mark.parametrize(
    ("text", "context", "users"),
    [
        # QA round 5: a bare '8k' as a list item was left unplaced and sized at 4,096.
        ("7B GGUF Q4_K_M with llama.cpp on a 4090, 8 users, 8k", 8 * 1024, 8),
        ("serve Llama 3.1 8B, 32k, 20 users", 32 * 1024, 20),
        # Not a power of two: could be users or tokens, so it stays unplaced.
        ("Llama 3.1 8B on an H100, 10k", None, None),
        # '8k users' is a count of users, not a context.
        ("Llama 3.1 8B for 8k users", None, 8000),
    ],
)
def test_a_listed_power_of_two_k_is_the_context(
    text: str, context: int | None, users: int | None
) -> None:
    parsed = parse_workload(text)
    assert (parsed.context, parsed.users) == (context, users)
