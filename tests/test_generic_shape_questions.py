"""A model known only by its size ('Foo-32B') is answered for the generic reading with the
assumption stated, and asks for its config.json / repo id only when the verdict flips across
the catalog's architectures of that size (issue 15, item 1). Hand arithmetic below: KV bytes per
token = layers × KV heads × head_dim × 2 (K, V) × 2 B (bf16); budgets are vLLM's 0.9 of the
driver-reported memory."""

from __future__ import annotations

import pytest

from tests.offline_turns import answer, sizing

MiB = 2**20
H100_BUDGET = int(81_559 * MiB * 0.9)  # 76.97 GB
# Command R 35B (config.json: 40 layers, 64 heads = 64 KV heads, head_dim 128): full MHA.
COMMAND_R_KV = 40 * 64 * 128 * 2 * 2  # 1,310,720 B per token
# The generic reading: GQA, 8 KV heads of 128 (a Llama 3.x shape; 36 layers for 32B).
GENERIC_32B_KV = 36 * 8 * 128 * 2 * 2  # 147,456 B per token

FLIPS = [
    "Foo-32B in fp8 on an H100 with 32k context for 4 users",
    "can acme/Foo-32B-Instruct run in fp8 on one H100 at 32k context with 4 concurrent users?",
    "Bar_32b, fp8 weights, an H100, 4 users, 32k tokens of context",
]


@pytest.mark.parametrize("text", FLIPS)
async def test_a_verdict_that_flips_asks_for_the_config(text: str) -> None:
    said, conversation = await answer(text)
    report = sizing(conversation)
    (sized,) = report.memory
    est = sized.estimate
    assert est is not None and est.kv_cache_bytes_per_token == GENERIC_32B_KV
    # Default reading: 32e9 fp8 weights (1 B each; the 128,256 × 8,192 embedding and head
    # stay 16-bit: one more byte each) + 147,456 B × 32,768 × 4 sequences of KV = 34.1 + 19.3
    # GB, with activations and runtime under the 76.97 GB budget: fits.
    sixteen_bit = 2 * 128_256 * 8_192
    assert 32e9 + sixteen_bit <= est.breakdown["weights"] <= 32e9 + sixteen_bit + 10**6
    assert est.breakdown["kv_cache"] == GENERIC_32B_KV * 32_768 * 4
    assert est.budget_bytes_per_gpu == H100_BUDGET and est.fits is True
    # An MHA model of that size caches 1,310,720 B × 32,768 × 4 = 171.8 GB: more than the
    # whole budget, so with that shape it cannot fit.
    assert COMMAND_R_KV * 32_768 * 4 > H100_BUDGET
    question = report.shape_question
    assert question is not None and question.default_fits is True
    flipped = {s.model_id: s for s in question.flipping}
    assert "command-r-35b" in flipped
    assert flipped["command-r-35b"].kv_cache_bytes_per_token == COMMAND_R_KV
    # The range is the catalog's models of 32B ÷ 1.2 to × 1.2, and the answer says so.
    assert (question.low, question.high) == (26_666_666_667, 38_400_000_000)
    assert "26.7–38.4B" in question.question and "config.json" in question.question
    assert "Fits on 1× H100" in said and question.question in said
    assert "sized as a generic 32B dense model" in said


@pytest.mark.parametrize(
    "text",
    [
        # bf16 32e9 × 2 B = 64 GB of weights alone > a 4090's 22.9 GB budget: no shape fits.
        "Can I run Foo-32B on a 4090?",
        "Foo-32B on my RTX 4090 with 8k context",
        # fp8 at 4k for one user: even MHA's 1,310,720 × 4,096 = 5.4 GB of KV + 32 GB of
        # weights fits 76.97 GB: every shape fits.
        "Foo-32B in fp8 on an H100",
        "serve acme/Foo-32B in fp8 on one H100 with 4k context",
    ],
)
async def test_a_verdict_every_shape_agrees_on_is_answered_with_the_assumption(
    text: str,
) -> None:
    said, conversation = await answer(text)
    report = sizing(conversation)
    assert report.shape_question is None
    assert report.memory[0].fits is not None
    assert "sized as a generic 32B dense model" in said
    assert "depends on the architecture" not in said
