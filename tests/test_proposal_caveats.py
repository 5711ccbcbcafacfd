"""Issue 33, item 5: a proposal's first page names a hosted API that costs less when there is
one, and never recommends a layout under its own headroom rule without saying so there — with
the option one step up that keeps the rule (`tools.sizing.risks.caveats`, `step_up`).

The rule is checked from the options' own fields (headroom ÷ budget against 10 %), not from
the proposal's words; the words are only looked for on page one."""

from __future__ import annotations

import asyncio

import pytest

from assistant.conversation import Conversation
from assistant.offline.engine import OfflineEngine
from assistant.proposal import render_proposal
from assistant.results import stored_calls
from tools.sizing import SizingReport
from tools.sizing.risks import TIGHT_HEADROOM_FRACTION, caveats, main_risk, step_up

QUESTIONS = (
    "serve Llama 3.1 8B to 20 users",
    "serve Llama 3.1 70B to 40 users with 16k context",
    "serve gpt-oss-120b to 10 users",
    "Llama 3.1 8B at 1,000 tok/s",
    "serve Qwen2.5 14B on A10Gs",
    "full fine-tune of Llama 3.1 8B on 2B tokens",
    "serve Mixtral 8x7B to 16 users",
)


def _answered(question: str) -> tuple[Conversation, SizingReport]:
    conversation = Conversation()

    async def turn() -> None:
        async for _ in OfflineEngine().run_turn(conversation, question):
            pass

    asyncio.run(turn())
    (report,) = [c.value for c in stored_calls(conversation.messages) if c.name == "size"]
    assert isinstance(report, SizingReport)
    return conversation, report


def _tight(headroom: int, budget: int) -> bool:
    return headroom < 0.10 * budget  # the risk rule's 10 %, written out


@pytest.mark.parametrize("question", QUESTIONS)
def test_page_one_says_what_qualifies_the_recommendation(question: str) -> None:
    conversation, report = _answered(question)
    page_one = render_proposal(conversation, "md").split("\n---\n")[0].replace("\\_", "_")
    headline = report.headline
    assert headline is not None
    o = headline.option
    recommendation = page_one.split("## Recommendation")[1].split("## Why")[0]
    if _tight(o.headroom_bytes, o.budget_bytes_per_gpu):
        assert "**Headroom under the risk rule:**" in recommendation
        up = step_up(report)
        if up is not None:
            # One step up keeps the rule, and is named where the recommendation is.
            assert not _tight(up.headroom_bytes, up.budget_bytes_per_gpu)
            assert f"one step up, {up.count:,}× {up.gpu_name}" in recommendation
        else:
            assert "no other option evaluated keeps that headroom" in recommendation
    else:
        assert "Headroom under the risk rule" not in page_one
    cheaper = [r for r in caveats(report) if r.code == "api_cheaper"]
    cost = page_one.split("## Monthly cost")[-1].split("## Main risk")[0]
    if cheaper:
        b = cheaper[0].break_even
        assert b is not None and b.api_provider in cost and b.api_id in cost
        assert "**A hosted API costs less:**" in cost
        # It is cheaper: at the user's volume, or out of the configuration's reach at any.
        assert b.cheaper_at_volume == "api" or b.reachable is False
    else:
        assert "A hosted API costs less" not in page_one
    assert TIGHT_HEADROOM_FRACTION == 0.10


def test_at_least_one_case_of_each_is_covered() -> None:
    reports = [_answered(q)[1] for q in QUESTIONS[:2]]
    codes = {r.code for report in reports for r in caveats(report)}
    assert {"tight_memory", "api_cheaper"} <= codes
    # ...and neither is only the main risk's business: here the API is not the main risk.
    assert any(main_risk(report).code != "api_cheaper" for report in reports)


def test_step_up_is_the_cheapest_option_that_keeps_the_headroom_rule() -> None:
    _, report = _answered("serve Llama 3.1 8B to 20 users")
    assert report.headline is not None and report.recommendation is not None
    up = step_up(report)
    assert up is not None
    priced = report.price_of(up.gpu, up.count)
    assert priced is not None and priced.usd_per_hour is not None
    # Every option that fits, meets the targets and is priced lower per hour is tight.
    for o in report.recommendation.options:
        p = report.price_of(o.gpu, o.count)
        cheaper = p is not None and (p.usd_per_hour or 0) < priced.usd_per_hour
        if o.fits and o.meets_targets and p is not None and p.usd_per_hour and cheaper:
            assert _tight(o.headroom_bytes, o.budget_bytes_per_gpu), o.gpu
