"""Issue 29: every example on the welcome screen, asked of the offline engine, opens (after its
'Read as' line) with the answer to what it asks — yes or no, the GPU count, the cheaper option,
the longest context, the local plan — not with another question's verdict."""

from __future__ import annotations

import re

import pytest

from assistant.app.widgets.welcome import EXAMPLES
from tests.offline_turns import answer

FIRST_LINE = {
    # A yes/no question about serving on named GPUs: yes or no first.
    "Can I serve Llama 3.1 70B in 4-bit to 20 users with 8k context on 2x L40S?": (
        r"^\*\*(Yes|No)\.\*\* "
    ),
    # A consumer card: yes or no from the local (llama.cpp) plan, in a GGUF type.
    "Can Qwen3 32B run on one RTX 4090?": r"^\*\*(Yes|No)\.\*\* \*\*llama\.cpp .*q\d_k",
    # How many GPUs: the count first.
    "Full fine-tune of Llama 3.1 8B on H100s: how many GPUs?": r"^\*\*Needs \d+× H100",
    # Cheaper per token: the comparison first.
    "Is an L40S cheaper than an H100 per million tokens for Llama 3.1 8B?": (
        r"^\*\*Cheaper per million output tokens"
    ),
    # How much context: the longest context first.
    "How much context can I fit for Llama 3.1 8B on an RTX 4090?": r"^\*\*Longest context on",
    # Ollama with a GPU and RAM: the Ollama plan first.
    "Run Mixtral 8x7B with Ollama on a 24 GB GPU and 64 GB of RAM": r"^\*\*Ollama, q\d_k",
}


def test_every_example_has_a_check() -> None:
    assert set(FIRST_LINE) == set(EXAMPLES)


@pytest.mark.parametrize("example", EXAMPLES)
async def test_each_example_leads_with_what_it_asks(example: str) -> None:
    text, _ = await answer(example)
    lines = [ln for ln in text.splitlines() if ln.strip()]
    assert lines[0].startswith("*Read as:"), lines[0]
    assert re.search(FIRST_LINE[example], lines[1]), lines[1]
