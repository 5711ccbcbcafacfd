"""Batch / offline jobs (issue 30 item 3): job totals → hours and GPU-hours at the headline's
full-load rate, cost per tier, the deadline's replica count and the hosted APIs' price — by
hand arithmetic over the report's own typed figures —, and the parser reading '2 billion input
tokens, 200 million output' as a job's totals, never one prompt's length."""

from __future__ import annotations

import json
import math

import pytest

from assistant.app.results import card_view
from assistant.mcp.text import render_result
from assistant.offline.parser import parse_workload
from assistant.offline.planner import plan_tool_calls
from tests.fuzzing_cli import run_cli
from tests.offline_turns import answer, sizing
from tools.pricing import builtin_price_book
from tools.sizing import SizingRequest, size
from tools.workloads.batch import BATCH_DISCOUNTS, BatchJob


def _report(job: dict[str, object], **workload: object):  # type: ignore[no-untyped-def]
    request = SizingRequest.model_validate(
        {"workload": {"model": "llama-3.1-8b", **workload}, "batch_job": job}
    )
    return size(request)


def test_a_job_without_requests_runs_at_the_default_prompt_and_its_ratio() -> None:
    request = SizingRequest.model_validate(
        {
            "workload": {"model": "llama-3.1-8b"},
            "batch_job": {"input_tokens": 2e9, "output_tokens": 2e8},
        }
    )
    # 2B in : 200M out = 10 : 1 → 3,072-token prompts (the default) with 307 output tokens.
    assert request.workload.prompt_tokens == 3072 and request.workload.output_tokens == 307
    assert request.workload.objective == "cheapest_per_token"  # a fixed job: $ per token


def test_a_job_with_requests_runs_at_its_own_lengths() -> None:
    job = BatchJob(input_tokens=2e9, output_tokens=2e7, requests=1_000_000)
    assert job.request_shape(3072) == (2000, 20)  # 2e9 / 1e6 and 2e7 / 1e6


def test_hours_cost_and_the_deadline_by_hand() -> None:
    report = _report({"input_tokens": 2e9, "output_tokens": 2e8, "deadline_hours": 10})
    job, option = report.batch_job, report.headline.option  # type: ignore[union-attr]
    assert job is not None and option.full_load_tokens_per_s is not None
    hours = 2e8 / option.full_load_tokens_per_s / 3600  # output tokens ÷ full-load rate
    assert job.hours == pytest.approx(hours)
    assert job.gpu_hours == pytest.approx(hours * option.count)
    assert job.input_tokens_per_s == pytest.approx(option.full_load_tokens_per_s * 10)
    for quote in job.quotes:
        assert quote.job_usd == pytest.approx(hours * quote.quote.usd_per_hour)
    replicas = math.ceil(hours * option.dp / 10)
    assert job.replicas_for_deadline == replicas
    assert job.hours_for_deadline == pytest.approx(hours * option.dp / replicas)
    assert job.hours_for_deadline <= 10


def test_hosted_apis_price_the_same_tokens_with_only_cited_batch_discounts() -> None:
    report = _report({"input_tokens": 2e9, "output_tokens": 2e8})
    job = report.batch_job
    assert job is not None and job.apis
    rows = {r.id: r for r in builtin_price_book().api_prices}
    for api in job.apis:
        row = rows[api.api_id]
        if row.currency != "USD":
            continue
        # 2,000 million input tokens × input price + 200 million × output price.
        assert api.usd == pytest.approx(2000 * row.input_per_mtok + 200 * row.output_per_mtok)
        if api.discount is None:
            assert api.batch_usd is None
        else:
            assert api.discount in BATCH_DISCOUNTS and api.discount.source
            assert api.batch_usd == pytest.approx(api.usd * (1 - api.discount.fraction))


JOBS = [
    ("summarize 2 billion input tokens, 200 million output with Llama 3.1 8B, cheapest GPUs "
     "and total cost", 2e9, 2e8, None),
    ("Batch job on Llama 3.1 8B: 500M tokens in, 50M out, within 48 hours", 5e8, 5e7, None),
    ("classify 1 million documents of 2,000 tokens each with 20-token labels using Llama "
     "3.1 8B", 2e9, 2e7, 1_000_000),
    ("offline: summarize 10M articles averaging 1k tokens into 200-token summaries with "
     "Llama 3.1 8B", 1e10, 2e9, 10_000_000),
    ("translate 3B input tokens and 3B output tokens with Llama 3.1 8B on H100s", 3e9, 3e9,
     None),
]  # fmt: skip


@pytest.mark.parametrize(("text", "tokens_in", "tokens_out", "requests"), JOBS)
def test_job_totals_are_read_as_totals_not_a_prompt(
    text: str, tokens_in: float, tokens_out: float, requests: int | None
) -> None:
    parsed = parse_workload(text)
    assert parsed.model == "llama-3.1-8b" and parsed.params is None  # '2 billion' no size
    assert not parsed.questions, parsed.questions
    (call,) = [c for c in plan_tool_calls(parsed) if c.name == "size"]
    job = call.arguments["batch_job"]
    assert job["input_tokens"] == tokens_in and job["output_tokens"] == tokens_out
    assert job.get("requests") == requests
    if requests is None:
        assert "prompt_tokens" not in call.arguments["workload"]  # not one prompt's length


def test_a_deadline_goes_to_the_job() -> None:
    parsed = parse_workload("Batch job on Llama 3.1 8B: 500M tokens in, 50M out, within 48 hours")
    (call,) = [c for c in plan_tool_calls(parsed) if c.name == "size"]
    assert call.arguments["batch_job"]["deadline_hours"] == 48


def test_one_total_alone_is_asked_for_the_other() -> None:
    parsed = parse_workload("summarize 2 billion input tokens with Llama 3.1 8B")
    assert parsed.batch_input_tokens == 2e9 and parsed.asks("figure", "missing")


def test_a_short_prompt_pair_stays_per_request() -> None:
    parsed = parse_workload("Llama 3.1 8B with 2k prompts and 500 output tokens for 10 users")
    assert parsed.batch_input_tokens is None and parsed.prompt_tokens == 2048


QUESTION = JOBS[0][0]


async def test_every_surface_shows_the_job() -> None:
    from assistant.proposal import render_proposal

    text, conversation = await answer(QUESTION)
    report = sizing(conversation)
    job = report.batch_job
    assert job is not None
    assert text.splitlines()[2].startswith("**Batch job: 2B input + 200M output tokens")
    assert f"{job.hours:,.1f} h at full load" in text
    assert any("GPU-hours" in line for line in card_view(job).lines)
    assert "Batch job: 2B input" in render_result(report)
    assert "## Batch job" in render_proposal(conversation)


def test_ask_json_carries_the_typed_part() -> None:
    run = run_cli(["ask", "--offline", "--json", "--no-save", QUESTION])
    assert run.code == 0, run.err
    part = json.loads(run.out)["sizing"]["workloads"]["batch_job"]
    assert part["input_tokens"] == 2e9 and part["output_tokens"] == 2e8


def test_a_job_whose_ratio_gives_a_request_longer_than_allowed_is_shaped_at_the_limit() -> None:
    from tools.limits import MAX_CONTEXT_TOKENS
    from tools.workloads.batch import BatchJob

    # 1 input token for every 10^9 output tokens: at a 1,000-token default prompt a request
    # would be 10^12 output tokens, past the 2^24 a request may hold. The shape keeps the
    # ratio at the limit (2^24 output, 2^24 / 10^9 → 1 prompt token); the totals stay as said.
    job = BatchJob(input_tokens=1, output_tokens=1e9)
    prompt, output = job.request_shape(1_000)
    assert output == MAX_CONTEXT_TOKENS and prompt == 1
    assert job.output_tokens == 1e9 and job.input_tokens == 1
    # Within the limit, the shape is the plain ratio: 2 billion in, 200 million out → 10:1.
    assert BatchJob(input_tokens=2e9, output_tokens=2e8).request_shape(1_000) == (1_000, 100)
