"""Readings that change the verdict, budgets, sizes and misspelt names (issue 18, classes 5-6).

Each class is tested over several phrasings; the expected values are written out by hand.
"""

from __future__ import annotations

import pytest

from assistant.offline.parser import parse_workload
from tests.offline_turns import after_reading, answer, sizing, visible
from tools.catalog import get_catalog

# Llama 3.1 8B: 8,030,261,248 parameters (meta-llama/Llama-3.1-8B config.json, counted on the
# meta device); 2 bytes each in BF16 = 16,060,522,496 B = 14.96 GiB, 4 bytes in FP32 = 29.92 GiB.
LLAMA_31_8B_PARAMS = 8_030_261_248


# --- class 5: "full precision" is a reading, stated -------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "serve Llama 3.1 8B in full precision on a 4090",
        "can a 4090 run llama 3.1 8b at full-precision?",
        "Llama 3.1 8B, full precision weights, one RTX 4090, 4 users",
    ],
)
def test_full_precision_is_read_as_bf16_and_the_fp32_reading_is_named(text: str) -> None:
    parsed = parse_workload(text)
    assert parsed.weights == "bf16" and parsed.alternative_weights == "fp32"
    note = next(n for n in parsed.notes if "full" in n.lower() and "precision" in n.lower())
    assert "BF16" in note and "FP32" in note and "given beside" in note


async def test_full_precision_on_a_4090_fits_in_bf16_and_says_the_reading() -> None:
    _text, conversation = await answer("serve Llama 3.1 8B in full precision on a 4090")
    shown = after_reading(visible(conversation))
    report = sizing(conversation)
    memory = report.memory[0].estimate
    assert report.request.workload.weights == "bf16"
    assert memory is not None and memory.breakdown["weights"] == 2 * LLAMA_31_8B_PARAMS
    # 14.96 GiB of weights + a 4,096-token KV cache (0.5 GiB) + runtime fits the 4090's
    # 21.3 GiB vLLM budget; FP32's 29.92 GiB of weights alone would not.
    assert after_reading(shown).startswith("**Fits on 1× GeForce RTX 4090**")
    assert "read as BF16" in shown and "FP32" in shown


def test_fp32_said_is_still_fp32() -> None:
    for text in ("llama 3.1 8b in fp32", "llama 3.1 8b float32 on an A100", "32-bit llama 3.1 8b"):
        assert parse_workload(text).weights == "fp32", text


# --- class 5: prompt and output lengths said as a pair ----------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "llama 3.1 70b, 2k tokens in and 500 out, 20 users on H100",
        "2k in / 500 out for llama 3.1 70b",
        "llama 3.1 70b with input: 2k, output: 500",
        "llama 3.1 70b 2k-in/500-out",
        "llama 3.1 70b, prompts of 2k tokens and 500 out",
        "llama 3.1 70b, 2k input tokens and 500 output tokens",
    ],
)
def test_in_and_out_are_the_prompt_and_output_lengths(text: str) -> None:
    parsed = parse_workload(text)
    # '2k' as a token length is 2,048 (binary k, as model cards write windows).
    assert (parsed.prompt_tokens, parsed.output_tokens) == (2048, 500)
    assert parsed.context is None  # the sequence is their sum, added up by the tools
    assert parsed.unplaced == []


@pytest.mark.parametrize(
    ("text", "prompt", "output"),
    [
        ("mistral 7b, input 2000 tokens, output 500 tokens", 2000, 500),
        ("mistral 7b, 2,000 tokens in, 500 tokens out, 10 users", 2000, 500),
        ("mistral 7b, 1k in and 256 out", 1024, 256),
    ],
)
def test_in_and_out_with_plain_numbers(text: str, prompt: int, output: int) -> None:
    parsed = parse_workload(text)
    assert (parsed.prompt_tokens, parsed.output_tokens) == (prompt, output)


async def test_in_and_out_size_the_sequence_at_their_sum() -> None:
    _, conversation = await answer("llama 3.1 8b, 2k tokens in and 500 out, 8 users on an L40S")
    report = sizing(conversation)
    memory = report.memory[0].estimate
    assert memory is not None and memory.context == 2048 + 500
    assert report.search is not None
    assert (report.search.prompt_tokens, report.search.output_tokens) == (2048, 500)


# --- class 5: 'how much context can I fit' is a length question --------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "how much context can I fit for llama 3.1 8b on an H100",
        "what context fits for llama 3.1 8b on an H100?",
        "how many tokens of context can llama 3.1 8b get on an H100",
        "what context length can I run llama 3.1 8b at on an H100",
    ],
)
def test_how_much_context_is_a_max_context_question(text: str) -> None:
    parsed = parse_workload(text)
    assert parsed.max_context and not parsed.capacity
    assert parsed.model == "llama-3.1-8b" and parsed.unplaced == []


async def test_longest_context_at_the_model_maximum_says_it_is_the_maximum() -> None:
    # Llama 3.1 8B's max_position_embeddings is 131,072; at bf16 its KV cache is
    # 32 layers × 8 KV heads × 128 × 2 (K, V) × 2 B = 131,072 B/token, so 131,072 tokens take
    # 16 GiB, which with 14.96 GiB of weights fits an H100's 71.7 GiB budget: the model's
    # maximum, not the memory, is the limit, and the answer must say so.
    text, conversation = await answer("how much context can I fit for llama 3.1 8b on an H100")
    (fit,) = sizing(conversation).longest_context
    assert (fit.gpu, fit.count, fit.context_tokens) == ("h100-sxm", 1, 131_072)
    first = after_reading(text).splitlines()[0]
    assert first.startswith(f"**Longest context that fits 1× H100 SXM5: {131_072:,} tokens**")
    assert "the model's maximum context" in first and "not the limit" in first


async def test_capacity_past_the_model_maximum_says_so_in_the_lead() -> None:
    # Mistral 7B v0.3's max_position_embeddings is 32,768; 64k chats are 65,536 tokens each.
    text, conversation = await answer("how many 64k chats fit on one H100 with mistral 7b")
    report = sizing(conversation)
    assert report.request.workload.context == 64 * 1024
    model = get_catalog().model(report.request.workload.model or "")
    assert model.architecture.max_context == 32_768
    lead = "\n".join(after_reading(text).splitlines()[:2])
    past = f"{64 * 1024:,} tokens is past the model's maximum context of {32_768:,} tokens"
    assert past in lead


# --- class 6: budgets ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "amount", "currency", "period", "noted"),
    [
        ("budget 5 grand a month for serving llama 3.1 70b", 5000, "USD", "month", True),
        ("5k/month llama 3.1 70b", 5000, "USD", "month", True),
        ("$20k/mo for llama 3.1 70b", 20000, "USD", "month", False),
        ("serve llama 3.1 8b, budget of 5000 a month", 5000, "USD", "month", True),
        ("llama 3.1 70b for under €3k per month", 3000, "EUR", "month", False),
        ("llama 3.1 8b for 500 dollars a month", 500, "USD", "month", False),
        ("llama 3.1 8b at $2.50/hour", 2.5, "USD", "hour", False),
        ("llama 3.1 70b, 2 grand total", 2000, "USD", "total", True),
    ],
)
def test_budgets_as_people_write_them(
    text: str, amount: float, currency: str, period: str, noted: bool
) -> None:
    parsed = parse_workload(text)
    assert (parsed.budget_amount, parsed.budget_currency, parsed.budget_period) == (
        amount,
        currency,
        period,
    )
    assert any("no currency said" in n for n in parsed.notes) is noted
    assert parsed.unplaced == []


def test_a_token_volume_is_not_a_budget() -> None:
    # Millions without a currency are tokens, not dollars.
    parsed = parse_workload("llama 3.1 8b, 50M tokens a day")
    assert parsed.budget_amount is None


# --- class 6: misspelt names with an explicit size ---------------------------------------------


@pytest.mark.parametrize(
    ("text", "model"),
    [
        ("lamma 3.1 70b on 2 h100", "llama-3.1-70b"),
        ("serve lama 3.1 70b", "llama-3.1-70b"),
        ("llama3 70b on an H100", "llama-3.1-70b"),
        ("serve mixtrall 8x7b on 2 H100", "mixtral-8x7b"),
        ("qween2.5 72b in fp8", "qwen2.5-72b"),
        ("lamma 2 13b with 4k context", "llama-2-13b"),
    ],
)
def test_a_misspelt_name_with_its_size_is_read_as_the_model(text: str, model: str) -> None:
    parsed = parse_workload(text)
    assert parsed.model == model and parsed.questions == []
    note = next(n for n in parsed.notes if n.startswith(f"'{parsed.model_text}' read as"))
    assert "say so if you meant another" in note


def test_a_major_version_alone_names_the_catalog_model_of_that_line() -> None:
    # The catalog has Llama 3.1 70B but no Llama 3 70B: the reading says so.
    parsed = parse_workload("llama3 70b on an H100")
    assert any("no Llama 3 70B" in n and "Llama 3.1 70B" in n for n in parsed.notes)


def test_a_misspelt_family_without_a_size_asks_which_model() -> None:
    parsed = parse_workload("mixtrall on 2 h100")
    assert parsed.model is None
    assert (
        "Mixtral 8x7B" in parsed.questions[0].text and "Mixtral 8x22B" in parsed.questions[0].text
    )
    assert "'mixtrall' read as Mixtral" in parsed.questions[0].text


def test_unrelated_words_are_not_corrected_into_models() -> None:
    # 'lambda' is not a misspelt 'llama' (difflib ratio 0.73); Falcon is not in the catalog.
    assert parse_workload("lambda 70b on an H100").model is None
    assert parse_workload("Falcon 40B on an A100").params == 40e9


async def test_a_misspelt_name_is_sized_as_the_catalog_model() -> None:
    # Llama 3.1 70B: 70,553,706,496 parameters (Meta's config.json) × 2 B in BF16.
    _text, conversation = await answer("lamma 3.1 70b on 2 h100")
    report = sizing(conversation)
    memory = report.memory[0].estimate
    assert report.request.workload.model == "llama-3.1-70b"
    assert memory is not None and memory.total_params == 70_553_706_496
    assert "'lamma 3.1 70b' read as Llama 3.1 70B" in visible(conversation)
