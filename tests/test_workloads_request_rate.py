"""Request rate and latency percentiles (issue 30 item 4): the M/D/1 waiting-time distribution
against its known moments, Little's law and the replica count meeting a percentile target on
the report's own typed figures, and the parser reading 'p99' as a percentile (never a GPU) and
'10 req/s' as a rate (never 10 users)."""

from __future__ import annotations

import json

import pytest

from assistant.app.results import card_view
from assistant.mcp.text import render_result
from assistant.offline.parser import parse_workload
from assistant.offline.planner import plan_tool_calls
from tests.fuzzing_cli import run_cli
from tests.offline_turns import answer, sizing
from tools.sizing import SizingRequest, size
from tools.workloads.request_rate import md1_wait_cdf, wait_quantile


@pytest.mark.parametrize("rho", [0.3, 0.5, 0.8])
def test_the_md1_wait_has_its_atom_and_the_pollaczek_khinchine_mean(rho: float) -> None:
    service = 1.0
    # P(W = 0) = 1 − ρ: an arrival finds the server idle.
    assert md1_wait_cdf(rho, service, 0.0) == pytest.approx(1 - rho)
    # E[W] = ρS / (2(1 − ρ)) (Pollaczek–Khinchine), integrated from the distribution.
    dt = 0.002
    mean = sum((1 - md1_wait_cdf(rho, service, i * dt)) * dt for i in range(int(25 / dt)))
    assert mean == pytest.approx(rho * service / (2 * (1 - rho)), rel=0.01)


def test_below_the_idle_probability_nobody_waits() -> None:
    # ρ = 0.3: 70 % of arrivals wait 0, so the median wait is 0 and the p90 is not.
    assert wait_quantile(0.3, 1.0, 0.5) == 0.0
    assert wait_quantile(0.3, 1.0, 0.9) > 0.0
    p90 = wait_quantile(0.3, 1.0, 0.9)
    assert md1_wait_cdf(0.3, 1.0, p90) == pytest.approx(0.9, abs=1e-6)


def test_the_rate_part_meets_its_target_with_littles_law() -> None:
    request = SizingRequest.model_validate(
        {
            "workload": {"model": "llama-3.1-8b", "prompt_tokens": 2000, "output_tokens": 300},
            "request_rate": {"requests_per_s": 10, "percentile": 99, "ttft_s": 0.5},
        }
    )
    report = size(request)
    rate = report.request_rate
    assert rate is not None, report.workloads_error
    p99 = next(q for q in rate.quantiles if q.percentile == 99)
    assert p99.ttft_s <= 0.5 and rate.target_met
    # Little's law: requests in flight = arrival rate × time each spends (per replica).
    per_replica = 10 / rate.replicas
    assert rate.concurrency_per_replica == pytest.approx(per_replica * rate.request_s, rel=1e-3)
    assert rate.utilisation == pytest.approx(per_replica * rate.prefill_s)
    # Quantiles grow with the percentile.
    ttfts = [q.ttft_s for q in rate.quantiles]
    assert ttfts == sorted(ttfts) and ttfts[0] >= rate.prefill_s


def test_a_peak_factor_multiplies_the_rate() -> None:
    base = {"workload": {"model": "llama-3.1-8b"}}
    one = size(SizingRequest.model_validate({**base, "request_rate": {"requests_per_s": 4}}))
    peak = size(
        SizingRequest.model_validate(
            {**base, "request_rate": {"requests_per_s": 4, "peak_factor": 3}}
        )
    )
    assert one.request_rate is not None and peak.request_rate is not None
    assert peak.request_rate.requests_per_s == 12 == 3 * one.request_rate.requests_per_s


RATES = [
    ("p99 TTFT at 10 requests per second with 2000-token prompts on Llama 3.1 8B", 10.0, 99,
     None),
    ("Llama 3.1 8B: 864k requests per day, peak factor 3, p99 TTFT under 500 ms", 10.0, 99,
     0.5),
    ("Serve Llama 3.1 8B at 50 QPS with p90 TTFT below 1 s", 50.0, 90, 1.0),
    ("How many H100s for Llama 3.1 8B at 20 req/s with p99 time to first token under 2 s?",
     20.0, 99, 2.0),
    ("Llama 3.1 8B, 600 requests a minute, p50 TTFT under 300 ms", 10.0, 50, 0.3),
]  # fmt: skip


@pytest.mark.parametrize(("text", "rps", "percentile", "target"), RATES)
def test_a_rate_is_a_rate_and_p99_a_percentile(
    text: str, rps: float, percentile: int, target: float | None
) -> None:
    parsed = parse_workload(text)
    assert parsed.requests_per_s == pytest.approx(rps)
    assert parsed.latency_percentile == percentile
    assert parsed.users is None  # '10 requests per second' is not 10 users
    assert all(m.text.lower() != "p99" for m in parsed.gpus)  # 'p99' is not a GPU
    assert not parsed.questions, parsed.questions
    (call,) = [c for c in plan_tool_calls(parsed) if c.name == "size"]
    rate = call.arguments["request_rate"]
    assert rate["requests_per_s"] == pytest.approx(rps) and rate.get("ttft_s") == target
    assert "ttft_s" not in call.arguments["workload"]


QUESTION = RATES[1][0]


async def test_every_surface_shows_the_percentiles() -> None:
    from assistant.proposal import render_proposal

    text, conversation = await answer(QUESTION)
    rate = sizing(conversation).request_rate
    assert rate is not None
    assert "30.00 requests/s at peak (10.00/s × 3)" in text
    assert "TTFT p50 / p90 / p95 / p99" in text
    assert any("in flight" in line for line in card_view(rate).lines)
    assert "requests/s at peak" in render_result(sizing(conversation))
    assert "## Request rate and latency" in render_proposal(conversation)


def test_ask_json_carries_the_typed_part() -> None:
    run = run_cli(["ask", "--offline", "--json", "--no-save", QUESTION])
    assert run.code == 0, run.err
    part = json.loads(run.out)["sizing"]["workloads"]["request_rate"]
    assert part["requests_per_s"] == 30 and part["percentile"] == 99
