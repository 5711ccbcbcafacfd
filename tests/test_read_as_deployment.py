"""The 'Read as' line names what the deployment parts were asked to answer (issue 30 items
5-7; issue 27: show the reading): buying against renting with its tariff, speculative decoding
with its draft, α and γ, prefix caching and a prefill/decode split — and reading a draft model
leaves the GPUs after it to the GPU reading."""

from __future__ import annotations

import pytest

from assistant.offline.parser import parse_workload
from assistant.reading.of_parsed import reading_of
from assistant.render.reading import read_as_line


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        ("buy vs rent 8x H100 for Llama 3.1 70B at $0.12/kWh", ("buy vs rent", "0.12 USD/kWh")),
        (
            "should we buy or rent 4 H200 for Llama 3.1 70B? power is 0.30 $/kWh, PUE 1.3",
            ("buy vs rent", "0.3 USD/kWh", "PUE 1.3"),
        ),
        (
            "speculative decoding speedup for Llama 3.1 70B with an 8B draft on 4x H100",
            ("speculative decoding, a draft of 8B parameters", "4× H100"),
        ),
        (
            "Llama 3.1 70B on 4 H100s, 10 users, speculative decoding using Llama 3.2 1B as draft "
            "model, acceptance rate 0.7, 5 draft tokens",
            ("speculative decoding with Llama 3.2 1B", "α 0.7", "γ 5", "4× H100"),
        ),
        (
            "How much faster is Llama 3.1 70B with a draft model Llama 3.2 1B on 4 H100s?",
            ("speculative decoding with Llama 3.2 1B", "4× H100"),
        ),
        ("Llama 3.1 70B on 8 H100, 40 users, 60% of prompts cached", ("60% of each prompt",)),
        ("Llama 3.1 8B on an H100 with prefix caching, 50 users", ("prefix caching",)),
        (
            "Disaggregated prefill/decode for Llama 3.1 70B on H100s, 100 users",
            ("prefill/decode split",),
        ),
    ],
)
def test_the_deployment_asked_is_on_the_read_as_line(question: str, parts: tuple[str, ...]) -> None:
    line = read_as_line(reading_of(parse_workload(question)))
    for part in parts:
        assert part in line, line
