"""A max-context answer's two token figures agree: vLLM holds the KV cache in whole 16-token
blocks, so the longest context is the KV capacity the next line states rounded down to a
block, and the lead says so."""

from __future__ import annotations

import asyncio
import re

import pytest

from tests.offline_turns import answer, sizing

QUESTIONS = [
    "how much context can I fit for Llama 3.1 8B on a 4090?",
    "how much context can I fit for Qwen3 32B in 4-bit on an RTX 4090?",
    "Llama 3.1 70B in 4-bit on 2x L40S: how much context can I fit?",
    "max context for Llama 3.1 8B on an L4",
]


@pytest.mark.parametrize("question", QUESTIONS)
def test_the_longest_context_is_the_capacity_in_whole_blocks(question: str) -> None:
    text, _ = asyncio.run(answer(question))
    lead = re.search(r"Longest context that fits [^:]+: ([\d,]+) tokens\*\*(.*)", text)
    capacity = re.search(r"KV-cache capacity [\d.]+ GiB \(([\d,]+) tokens\)", text)
    assert lead is not None and capacity is not None, text[:400]
    context = int(lead.group(1).replace(",", ""))
    tokens = int(capacity.group(1).replace(",", ""))
    assert context == tokens // 16 * 16  # whole 16-token blocks (vLLM's default block size)
    assert "in whole 16-token KV blocks as vLLM allocates them" in lead.group(2)


def test_a_context_capped_by_the_model_says_the_cap_not_the_blocks() -> None:
    # Llama 3.1 8B's max_position_embeddings is 131,072: on an L40S memory is not the limit.
    text, conversation = asyncio.run(
        answer("what's the longest context Llama 3.1 8B can take on one L40S?")
    )
    (fit,) = sizing(conversation).longest_context
    assert (fit.gpu, fit.context_tokens) == ("l40s", 131_072)
    maximum = f"{131_072:,} tokens** for one sequence at a time (batch 1) — the model's maximum"
    assert maximum in text
