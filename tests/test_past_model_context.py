"""A context past the model's own maximum (its config.json max_position_embeddings) is said
before the verdict, on every kind of question, and no way out offers a context past it: the
memory of 1M tokens of Llama 3.1 8B can be sized, but the model was trained to 131,072, so a
'fits at up to 427,152 tokens' was an answer to a question no one should act on."""

from __future__ import annotations

import re

import pytest

from tests.offline_turns import after_reading, answer, sizing

# meta-llama/Llama-3.1-8B config.json: max_position_embeddings 131072 (rope_scaling llama3);
# mistralai/Mistral-7B-v0.3 config.json: max_position_embeddings 32768.
LLAMA_31_8B_MAX = 131_072
MISTRAL_7B_MAX = 32_768

PAST = [
    ("Llama 3.1 8B with 1M context on an H100?", 1_000_000, LLAMA_31_8B_MAX),
    ("how much VRAM does Llama 3.1 8B need at 500k context?", 500_000, LLAMA_31_8B_MAX),
    ("how many 64k chats fit on one H100 with mistral 7b", 65_536, MISTRAL_7B_MAX),
    ("serve Mistral 7B with 100k context to 4 users, which GPU?", 100_000, MISTRAL_7B_MAX),
]


@pytest.mark.parametrize(("question", "context", "maximum"), PAST)
async def test_a_context_past_the_models_maximum_is_said_first(
    question: str, context: int, maximum: int
) -> None:
    text, _conversation = await answer(question)
    first = after_reading(text).splitlines()[0]
    assert f"{context:,} tokens is past the model's maximum context of {maximum:,}" in first, (
        question,
        first,
    )


async def test_no_way_out_offers_a_context_past_the_maximum() -> None:
    text, conversation = await answer("Llama 3.1 8B with 1M context on an H100?")
    report = sizing(conversation)
    offered = [w.changes["context"] for w in report.ways_out if "context" in w.changes]
    offered += [f.shorter_context for f in report.lower_formats if f.shorter_context]
    assert offered and all(c <= LLAMA_31_8B_MAX for c in offered), offered
    # Every 'fits at up to N tokens' the answer prints is within the maximum too.
    said = [int(n.replace(",", "")) for n in re.findall(r"fits at up to ([\d,]+) tokens", text)]
    assert said and max(said) <= LLAMA_31_8B_MAX, said


async def test_a_context_within_the_maximum_says_nothing_of_it() -> None:
    text, _ = await answer("Llama 3.1 8B with 128k context on an H100?")
    assert "past the model's maximum" not in text
