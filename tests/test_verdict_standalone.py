"""The standalone verdict (`verdict_text`: what LLM answers and MCP text lead with) never points
to a table, because none follows it; the offline answer, whose tables do follow, still does.

$/M figures are checked by hand: USD per million output tokens = USD per hour / (output tokens
per second × 3,600 s) × 1,000,000, from the priced row's own hourly price and throughput.
"""

from __future__ import annotations

import re

import pytest

from assistant.mcp.text import render_result
from assistant.render import verdict_text
from tests import offline_turns

POINTERS = re.compile(r"\b(below|above)\b", re.IGNORECASE)
TABLE_POINTERS = re.compile(r"\b(table|options|breakdown)\b[^.]*\bbelow\b", re.IGNORECASE)
"""In MCP text, which adds its own lines ('memory above in GiB' points to lines that are there)."""

PER_TOKEN = [
    "Is an L40S cheaper than an H100 per million tokens for Llama 3.1 8B?",
    "Llama 3.1 8B for 20 users on 1x L40S or 1x H100: which is cheaper per million tokens?",
    "which is cheaper per token for Qwen3 8B, one L40S or one H100?",
]
OTHERS = [
    "Full fine-tune of Llama 3.1 8B on 1B tokens on 8 H100s in 1 hour",
    "Can I serve Llama 3.1 70B in 4-bit to 20 users with 8k context on 2x L40S?",
    "serve Llama 3.1 8B to 50 users",
    "Does Llama 3.1 8B fit on one RTX 4090?",
]


@pytest.mark.parametrize("question", PER_TOKEN)
async def test_per_token_verdict_alone_names_no_table(question: str) -> None:
    text, conversation = await offline_turns.answer(question)
    report = offline_turns.sizing(conversation)
    verdict = verdict_text(report)
    (line,) = [v for v in verdict.splitlines() if v.startswith("**Cheaper per million")]
    assert not POINTERS.search(verdict)
    # The answer's own line still points to its table, which follows it.
    assert "table below" in text and "**Best option per GPU**" in text
    assert text.index("table below") < text.index("**Best option per GPU**")
    # The cheaper figure, by hand from the row it quotes.
    best = float(re.search(r"— ([\d.]+) USD/M", line).group(1))  # type: ignore[union-attr]
    rows = [report.price_of(m.gpu, m.count) for m in report.memory if m.gpu is not None]
    hand = [
        r.usd_per_hour / (r.tokens_per_s * 3600) * 1e6
        for r in rows
        if r is not None and r.usd_per_hour and r.tokens_per_s
    ]
    assert len(hand) == 2 and best == pytest.approx(min(hand), abs=0.0005)


@pytest.mark.parametrize("question", PER_TOKEN + OTHERS)
async def test_no_standalone_surface_points_to_a_missing_table(question: str) -> None:
    _, conversation = await offline_turns.answer(question)
    report = offline_turns.sizing(conversation)
    assert verdict_text(report).strip()
    assert not POINTERS.search(verdict_text(report))
    assert not TABLE_POINTERS.search(render_result(report))


async def test_a_missed_target_alone_says_why_without_the_options() -> None:
    _, conversation = await offline_turns.answer(
        "Full fine-tune of Llama 3.1 8B on 1B tokens on 8 H100s in 1 hour"
    )
    verdict = verdict_text(offline_turns.sizing(conversation))
    assert "**8× H100 SXM5 misses a target**" in verdict
    assert "deadline 1.0 h" in verdict
