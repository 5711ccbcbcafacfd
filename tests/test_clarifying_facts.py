"""A clarifying answer's "So far I have" line reads as words: no parsed field name
(`model_text`, `tokens_per_s`), no unrounded float (`13000000000.0`, `144.67592592592592`)."""

from __future__ import annotations

import asyncio
import re

import pytest

from tests.offline_turns import answer

QUESTIONS = [
    "ZeRO-2 on 8x A100 for a 13B full fine-tune",
    "is self-hosting a 70B cheaper than an API at 50M tokens a day?",
    "serve a model to 20 users on my 24 GB card",
    "LoRA rank 16 fine-tune for 3 epochs of 20k examples on 2x A100",
]


@pytest.mark.parametrize("question", QUESTIONS)
def test_so_far_is_in_words(question: str) -> None:
    text, _ = asyncio.run(answer(question))
    line = next((ln for ln in text.splitlines() if ln.startswith("So far I have: ")), None)
    assert line is not None, text[:300]  # each question leaves something to ask
    facts = line.removeprefix("So far I have: ").rstrip(".").split("; ")
    for fact in facts:
        label = fact.split(": ", 1)[0]
        assert "_" not in label, fact
    assert not re.search(r"\d\.\d{4,}", line), line
    assert not re.search(r"\d{7,}", line.replace(",", "")), line


def test_the_said_figures_are_shown_as_said() -> None:
    # 50M tokens a day → 12.5M output tokens a day (1 output : 3 input, the blended default)
    # and 12.5e6 / 86,400 s = 144.7 → "145" output tokens/s; a 70B → "70B"; 24 GB → "24.0 GB".
    text, _ = asyncio.run(answer("is self-hosting a 70B cheaper than an API at 50M tokens a day?"))
    assert "parameters: 70B" in text and "output tokens/s in all: 145" in text
    text, _ = asyncio.run(answer("serve a model to 20 users on my 24 GB card"))
    assert "GPU memory: 24.0 GB" in text and "concurrent users: 20" in text


def test_whole_numbers_are_shown_whole() -> None:
    # "3 epochs" is parsed as the float 3.0; the answer says 3, as the user did.
    text, _ = asyncio.run(answer("LoRA rank 16 fine-tune for 3 epochs of 20k examples on 2x A100"))
    assert "epochs: 3;" in text and "training examples: 20,000" in text and "LoRA rank: 16" in text
