"""Counts on the 'Read as' line and in the workload lines are written as people write them in a
question: the training tokens, a batch job's totals and a corpus all in one short form."""

from __future__ import annotations

import pytest

from assistant.offline.parser import parse_workload
from assistant.reading.of_parsed import reading_of
from assistant.render.reading import read_as_line
from tools.units import spoken_count


@pytest.mark.parametrize(
    ("n", "shown"),
    [
        (40, "40"),
        (12_500, "12,500"),  # no 'k': 12.5k would read as a rounded figure
        (2_000_000_000, "2B"),
        (200_000_000, "200M"),
        (1_500_000, "1.5M"),
        (8_030_261_248, "8.03B"),  # two decimals at most
        (2e12, "2T"),
        (0.5, "0.5"),
    ],
)
def test_a_count_is_written_short(n: float, shown: str) -> None:
    assert spoken_count(n) == shown


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        (
            "summarize 2 billion input tokens and 200 million output tokens with Llama 3.1 8B",
            ("2B input tokens", "200M output tokens in total"),
        ),
        ("embed 10 million documents of 512 tokens with bge-m3 on an L4", ("10M texts",)),
        ("LoRA fine-tune of Llama 3.1 8B on 1.5B tokens", ("1.5B training tokens",)),
    ],
)
def test_totals_on_the_read_as_line_use_the_short_form(
    question: str, parts: tuple[str, ...]
) -> None:
    line = read_as_line(reading_of(parse_workload(question)))
    for part in parts:
        assert part in line, line
    assert ",000,000" not in line
