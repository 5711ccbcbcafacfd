"""The 'Read as' line every answer opens with reads as words — a clarifying one included: no
parsed field name (`model_text`, `tokens_per_s`), no unrounded float (`13000000000.0`,
`144.67592592592592`), the figures as the user said them."""

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


def _read_as(text: str) -> str:
    line = next((ln for ln in text.splitlines() if ln.startswith("*Read as: ")), None)
    assert line is not None, text[:300]
    return line


@pytest.mark.parametrize("question", QUESTIONS)
def test_the_reading_is_in_words(question: str) -> None:
    line = _read_as(asyncio.run(answer(question))[0])
    assert not re.search(r"\b[a-z]+_[a-z_]+\b", line), line  # no field names
    assert not re.search(r"\d\.\d{4,}", line), line
    assert not re.search(r"\d{7,}", line.replace(",", "")), line


def test_the_said_figures_are_shown_as_said() -> None:
    # 50M tokens a day → 12.5M output tokens a day (1 output : 3 input, the blended default)
    # and 12.5e6 / 86,400 s = 144.7 → "145" output tokens/s; a 70B → "70B"; 24 GB → "24 GB".
    line = _read_as(
        asyncio.run(answer("is self-hosting a 70B cheaper than an API at 50M tokens a day?"))[0]
    )
    assert "a generic 70B-parameter model" in line and "145 tokens/s in total" in line
    assert "12.5M output tokens a day" in line
    line = _read_as(asyncio.run(answer("serve a model to 20 users on my 24 GB card"))[0])
    assert "GPUs with 24 GB" in line and "20 concurrent users" in line


def test_whole_numbers_are_shown_whole() -> None:
    # "3 epochs" is parsed as the float 3.0; the answer says 3, as the user did.
    text = asyncio.run(answer("LoRA rank 16 fine-tune for 3 epochs of 20k examples on 2x A100"))[0]
    line = _read_as(text)
    assert "3 epochs" in line and "20,000 examples" in line and "rank 16" in line
