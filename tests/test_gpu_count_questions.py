"""'How many H100s to serve …?' asks for a GPU count; 'how many users can 2x H100 serve?' asks
how many sequences fit. The first used to be read as the second (the answer led with a count
of sequences). And 'how long will it take' asks for the job's duration, not a length: its
'long' used to be reported as a fragment the parser could not place."""

from __future__ import annotations

import math

import pytest

from assistant.offline.parser import parse_workload
from assistant.render.results import gib
from tests.offline_turns import after_reading, answer, sizing

GPU_COUNT_QUESTIONS = [
    "how many H100s to serve DeepSeek V3 to 200 users?",
    "How many H100 GPUs would it take to serve DeepSeek V3 to 200 users?",
    "how many h100s do we need to run DeepSeek V3 for 200 users",
]

CAPACITY_QUESTIONS = [
    "how many users can 2x H100 serve with Llama 3.1 70B?",
    "how many can one H100 serve with Llama 3.1 8B at 8k context?",
    "how many 8k chats fit on one H100 with Llama 3.1 8B?",
    "with Llama 3.1 8B on an L40S, how many concurrent requests will it handle?",
]


@pytest.mark.parametrize("text", GPU_COUNT_QUESTIONS)
def test_how_many_gpus_is_a_gpu_count_question(text: str) -> None:
    parsed = parse_workload(text)
    assert not parsed.capacity
    assert parsed.users == 200


@pytest.mark.parametrize("text", CAPACITY_QUESTIONS)
def test_how_many_users_is_still_a_capacity_question(text: str) -> None:
    assert parse_workload(text).capacity


@pytest.mark.parametrize("text", GPU_COUNT_QUESTIONS)
async def test_the_answer_leads_with_how_many_gpus(text: str) -> None:
    reply, conversation = await answer(text)
    headline = sizing(conversation).headline
    assert headline is not None
    option = headline.option
    assert option.gpu == "h100-sxm"
    lead = after_reading(reply).splitlines()[0]
    assert lead.startswith(f"**Needs {option.count}× H100 SXM5**"), lead
    assert "concurrent sequences" not in lead
    # Hand bound: DeepSeek-V3 holds 671,026,404,352 parameters (meta-device count, bench
    # accuracy table), 1 byte each in fp8 = 624.9 GiB of weights; an H100 SXM5's 80 GB
    # (74.5 GiB) at vLLM's 0.90 utilisation leaves at most 67.1 GiB per GPU for them.
    weights_gib = 671_026_404_352 / 2**30
    assert option.count >= math.ceil(weights_gib / (80e9 / 2**30 * 0.90))


TRAINING_DURATION_QUESTIONS = [
    "fine-tune Llama 3.1 8B with LoRA on a 4090, how long for 100M tokens?",
    "how long will it take to pretrain a 7B model on 1T tokens on 64 H100s?",
    "How long does a full fine-tune of Llama 3.1 8B on 2B tokens take on 8x H100?",
    "how long would LoRA on Llama 3.1 8B take for 100M tokens on one 4090",
]


@pytest.mark.parametrize("text", TRAINING_DURATION_QUESTIONS)
def test_how_long_is_read_as_the_duration_asked(text: str) -> None:
    parsed = parse_workload(text)
    assert parsed.unplaced == []
    assert parsed.task in ("full", "lora", "qlora")
    assert not parsed.max_context


@pytest.mark.parametrize(
    "text",
    [
        "how long a context can Llama 3.1 8B get on one 4090?",
        "how long can the context be for Llama 3.1 8B on a 4090?",
    ],
)
def test_how_long_a_context_is_still_a_length_question(text: str) -> None:
    assert parse_workload(text).max_context


WHAT_GPU_QUESTIONS = [
    "what GPU do I need for Gemma 3 27B at 32k context?",
    "which GPU should I get for Gemma 3 27B with 32k context",
    "recommend a GPU for Gemma 3 27B at a 32k context",
]


@pytest.mark.parametrize("text", WHAT_GPU_QUESTIONS)
async def test_a_one_gpu_headline_and_the_single_gpu_need_are_reconciled(text: str) -> None:
    """The headline's one GPU (an A100, on vLLM's smaller batch defaults) needs less than the
    GPU-agnostic single-GPU figure that follows it; the answer says why, with its figure."""
    reply, conversation = await answer(text)
    report = sizing(conversation)
    headline = report.headline
    assert headline is not None and headline.option.count == 1
    assert headline.option.gpu.startswith("a100")
    lines = after_reading(reply).split("\n\n")[0].splitlines()
    single = next(i for i, line in enumerate(lines) if "on a single GPU" in line)
    explained = lines[single + 1]
    assert explained.startswith("On 1× A100") and "default batch limits" in explained
    assert gib(headline.option.per_gpu_bytes) in explained


@pytest.mark.parametrize(
    "text",
    [
        "how much VRAM does Gemma 3 27B need at 32k context?",
        "how much GPU memory for Gemma 3 27B at 32k context",
        "what's the memory footprint of Gemma 3 27B at 32k context?",
    ],
)
async def test_a_memory_answer_says_why_the_one_gpu_option_needs_less(text: str) -> None:
    reply, conversation = await answer(text)
    report = sizing(conversation)
    headline = report.headline
    assert headline is not None and headline.option.count == 1
    generic = report.memory[0].estimate
    assert generic is not None and report.memory[0].gpu is None
    lines = after_reading(reply).splitlines()
    assert lines[0].startswith("**Needs ")
    # Hand figure: vLLM V1's OpenAI-server defaults are max_num_seqs 1024 on GPUs of at least
    # 70 GiB other than the A100, else 256; the sampler keeps 16 bytes per vocabulary entry per
    # sequence (fp32 logits, probabilities, sort indices), and Gemma 3's vocabulary is 262,144
    # (config.json). The generic figure, at 1024 sequences, is at least (1024 − 256) × 262,144
    # × 16 B = 3.0 GiB above a GPU on the smaller defaults.
    # The cheapest one-GPU option today is an A100 80GB (catalog prices): on the smaller defaults.
    assert headline.option.gpu.startswith("a100")
    difference = generic.per_gpu_bytes - headline.option.per_gpu_bytes
    assert difference >= (1024 - 256) * 262_144 * 16
    assert lines[1].startswith("On 1× A100") and "default batch limits" in lines[1]


@pytest.mark.parametrize(
    ("objective", "label"),
    [
        ("cheapest", "The recommender's cheapest by its ranking prices:"),
        ("fewest_gpus", "Fewest GPUs, then fastest:"),
    ],
)
async def test_the_recommenders_own_first_is_named_by_its_objective(
    objective: str, label: str
) -> None:
    """When the priced rows lead with another option than the recommender ranked first, the
    line naming the recommender's first says what it ranked by (it said 'Fewest GPUs, then
    fastest' for a recommender ranking by price)."""
    from assistant.render.verdict import recommended_lines

    _, conversation = await answer("fine-tune Qwen3 8B on 300M tokens within 12 hours")
    report = sizing(conversation)
    assert report.headline is not None and report.headline.rule == "cheapest"
    rec = report.recommendation
    assert rec is not None
    other = next(o for o in rec.options[1:] if o.fits and o.meets_targets)
    report = report.model_copy(
        update={
            "headline": report.headline.model_copy(update={"option": other}),
            "recommendation": rec.model_copy(update={"objective": objective}),
        }
    )
    lines = [str(x) for x in recommended_lines(report)]
    assert any(x.startswith(f"**{label} ") for x in lines), lines
