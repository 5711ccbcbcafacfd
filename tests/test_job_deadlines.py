"""A batch job's deadline and lengths said as engineers say them (issue 27): 'overnight' is a
stated 12-hour window; a date ('by Friday', 'by end of week') is asked back in hours — when
the job starts is not said — and a bare '72 hours' answers that question; only the length
that is missing is asked ('each of the 10M documents is 500 tokens: how long is each
output?'). Hours and counts are the ones written in each question."""

from __future__ import annotations

import pytest

from assistant.offline.parser import parse_workload
from assistant.offline.planner import plan_tool_calls

JOB = "classify 5M reviews of 300 tokens into one-token labels with Llama 3.1 8B"


@pytest.mark.parametrize(
    "question",
    [
        "batch 2M prompts of 1k tokens with 100-token answers through Llama 3.1 70B overnight",
        "Run 1M documents of 2,000 tokens, 200-token summaries, on Llama 3.1 8B overnight",
    ],
)
def test_overnight_is_a_stated_twelve_hour_window(question: str) -> None:
    parsed = parse_workload(question)
    assert parsed.deadline_hours == 12
    assert any("'overnight' read as a 12-hour window" in n for n in parsed.notes)
    assert parsed.unread == [] or all(u.text != "overnight" for u in parsed.unread)


@pytest.mark.parametrize(
    "when", ["by Friday", "by end of week", "before tomorrow", "by the weekend", "by next Monday"]
)
def test_a_deadline_given_as_a_date_is_asked_in_hours(when: str) -> None:
    parsed = parse_workload(f"{JOB} {when}, how many L4?")
    assert parsed.deadline_hours is None
    assert parsed.asks("deadline", "missing")
    assert plan_tool_calls(parsed) == []  # nothing sized for a deadline it does not know


@pytest.mark.parametrize(("reply", "hours"), [("72 hours", 72), ("3 days", 72), ("about 48h", 48)])
def test_hours_answering_the_date_question_are_the_deadline(reply: str, hours: int) -> None:
    first = parse_workload(f"{JOB} by Friday, how many L4?")
    answered = parse_workload(reply, first)
    assert answered.deadline_hours == hours
    # The job is kept: 5,000,000 reviews of 300 tokens, one-token labels, on L4s.
    assert (answered.batch_requests, answered.prompt_tokens, answered.output_tokens) == (
        5_000_000,
        300,
        1,
    )
    assert [g.gpu for g in answered.gpus] == ["l4"] and answered.questions == []


def test_only_the_missing_length_is_asked() -> None:
    parsed = parse_workload(
        "summarize 10 million documents of 500 tokens with Llama 3.1 8B in a day, how many H100?"
    )
    (question,) = parsed.questions
    assert "How many tokens does each output have" in question.text
    assert "10,000,000 documents is 500 tokens" in question.text
