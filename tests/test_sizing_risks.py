"""The main-risk rule (`tools.sizing.risks`) and the alternative rule
(`tools.sizing.alternative`): each rule alone on a report whose other facts are cleared, then
their order, then the alternative's choice under each headline rule.

The reports are real (`tools.sizing.size` on Llama 3.1 8B for 20 users and on Llama 3.1 70B
for 40 users on 2× L40S, judged on 2026-10-01) with single fields changed, so every case is a
report the tools could produce with those facts.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from tools.notes import Note
from tools.sizing import BudgetCheck, GpuConfiguration, SizingReport, SizingRequest, size
from tools.sizing.alternative import alternative
from tools.sizing.headline import candidates
from tools.sizing.risks import TIGHT_HEADROOM_FRACTION, main_risk, risks
from tools.workload import Workload

DAY = date(2026, 10, 1)


@pytest.fixture(scope="module")
def served() -> SizingReport:
    return size(SizingRequest(workload=Workload(model="llama-3.1-8b", users=20)), today=DAY)


@pytest.fixture(scope="module")
def scaled_out() -> SizingReport:
    request = SizingRequest(
        workload=Workload(model="llama-3.1-70b", users=40),
        configurations=[GpuConfiguration(gpu="l40s", count=2)],
    )
    return size(request, today=DAY)


def _changed(report: SizingReport, **option: Any) -> SizingReport:
    """`report` with its headline option's fields changed (deep copies, the fixture intact)."""
    report = report.model_copy(deep=True)
    assert report.headline is not None
    report.headline.option = report.headline.option.model_copy(update=option)
    return report


def _cleared(report: SizingReport) -> SizingReport:
    """`report` with no rule applying: half the budget free, two replicas, calibrated speeds,
    a fresh price, no hosted API comparison, no warnings, no budget."""
    assert report.headline is not None
    budget = report.headline.option.budget_bytes_per_gpu
    out = _changed(
        report,
        headroom_bytes=budget // 2,
        dp=2,
        speed_basis="calibrated",
        throughput_basis="calibrated",
        ttft_basis="calibrated",
    )
    assert out.headline is not None and out.headline.price is not None
    out.headline.price = out.headline.price.model_copy(update={"stale": False})
    if out.costs is not None and out.costs.serving is not None:
        out.costs.serving.break_even = []
    if out.recommendation is not None:
        out.recommendation.warnings = []
        out.recommendation.notes = [n for n in out.recommendation.notes if n.severity == "info"]
    for sized in [*out.memory, *([out.layout_breakdown] if out.layout_breakdown else [])]:
        if sized.estimate is not None:
            sized.estimate = sized.estimate.model_copy(update={"warnings": []})
    out.budget_check = None
    return out


def _codes(report: SizingReport) -> list[str]:
    return [r.code for r in risks(report)]


def test_nothing_flagged_is_said_so(served: SizingReport) -> None:
    assert _codes(_cleared(served)) == ["none"]
    assert main_risk(_cleared(served)).code == "none"


def test_each_rule_alone(served: SizingReport) -> None:
    base = _cleared(served)
    assert base.headline is not None and base.headline.price is not None
    budget = base.headline.option.budget_bytes_per_gpu
    # 4. headroom under 10 % of the per-GPU budget (strictly): 9.9 % is tight, 10 % is not.
    assert TIGHT_HEADROOM_FRACTION == 0.10
    assert _codes(_changed(base, headroom_bytes=int(budget * 0.099))) == ["tight_memory"]
    assert _codes(_changed(base, headroom_bytes=int(budget * 0.10) + 1)) == ["none"]
    # 9. one replica serves everyone.
    assert _codes(_changed(base, dp=1)) == ["single_replica"]
    # 10. the $/M figure rests on an estimated throughput (no basis stated counts as estimated).
    assert _codes(_changed(base, throughput_basis="estimated")) == ["estimated_speed"]
    assert _codes(_changed(base, throughput_basis=None)) == ["estimated_speed"]
    # 5. a stale quoted price.
    stale = base.model_copy(deep=True)
    assert stale.headline is not None and stale.headline.price is not None
    stale.headline.price.stale = True
    assert _codes(stale) == ["stale_price"]
    # 6. a low-confidence (unconfirmed) quoted price.
    low = base.model_copy(deep=True)
    assert low.headline is not None and low.headline.price is not None
    low.headline.price.low_confidence = True
    assert _codes(low) == ["low_confidence_price"]
    # 2. over the budget stated.
    over = base.model_copy(deep=True)
    over.budget_check = BudgetCheck(
        amount=1, amount_usd=1, period="month", within=False, cheapest=base.headline.price
    )
    assert _codes(over) == ["over_budget"]


def test_tool_warnings_about_the_request_or_its_gpu_only(served: SizingReport) -> None:
    base = _cleared(served)
    assert base.recommendation is not None and base.headline is not None
    other = Note(code="device", text="about another GPU", gpu="t4", severity="warning")
    info = Note(code="moe", text="an info note", severity="info")
    mine = Note(code="context_above_maximum", text="context above the maximum", severity="warning")
    report = base.model_copy(deep=True)
    assert report.recommendation is not None
    report.recommendation.warnings = [other, info]
    assert _codes(report) == ["none"]
    report.recommendation.warnings = [other, info, mine]
    risk = main_risk(report)
    assert risk.code == "tool_warning" and risk.note == mine


def test_a_hosted_api_cheaper_at_any_volume(scaled_out: SizingReport) -> None:
    # 70B for 40 users on 8× L40S: the break-even with the hosted APIs is out of reach.
    report = scaled_out
    assert report.costs is not None and report.costs.serving is not None
    assert report.headline is not None and report.headline.price is not None
    price_id = report.headline.price.price_id
    unreachable = [
        b for b in report.costs.serving.break_even if b.price_id == price_id and not b.reachable
    ]
    assert unreachable
    found = [r for r in risks(report) if r.code == "api_cheaper"]
    assert len(found) == 1 and found[0].break_even in unreachable


def test_a_speed_target_resting_on_an_estimate(served: SizingReport) -> None:
    base = _cleared(served).model_copy(deep=True)
    base.request.workload = base.request.workload.model_copy(update={"tokens_per_s_per_user": 20})
    assert _codes(base) == ["none"]  # calibrated speed: no risk
    estimated = _changed(base, speed_basis="estimated")
    risk = main_risk(estimated)
    assert risk.code == "speed_target_estimated" and risk.target == "tokens_per_s_per_user"
    # The target's risk replaces the generic one for the same estimate.
    both = _changed(base, speed_basis="estimated", throughput_basis="estimated")
    assert _codes(both) == ["speed_target_estimated"]


def test_the_order_of_the_rules(served: SizingReport) -> None:
    base = _cleared(served)
    assert base.headline is not None and base.recommendation is not None
    budget = base.headline.option.budget_bytes_per_gpu
    report = _changed(base, headroom_bytes=budget // 20, dp=1, throughput_basis="estimated")
    assert report.headline is not None and report.headline.price is not None
    report.headline.price.stale = True
    report.headline.price.low_confidence = True
    assert report.recommendation is not None
    report.recommendation.warnings = [Note(code="kv_dtype", text="w", severity="warning")]
    report.budget_check = BudgetCheck(
        amount=1, amount_usd=1, period="month", within=False, cheapest=report.headline.price
    )
    assert _codes(report) == [
        "over_budget",
        "tool_warning",
        "tight_memory",
        "stale_price",
        "low_confidence_price",
        "single_replica",
        "estimated_speed",
    ]
    # Without a headline nothing is recommended: that comes first.
    nothing = report.model_copy(update={"headline": None})
    assert _codes(nothing)[0] == "nothing_meets_targets"


# --- the alternative -----------------------------------------------------------------------------


def test_the_runner_up_by_price_under_a_price_rule(served: SizingReport) -> None:
    assert served.headline is not None and served.headline.rule == "cheapest"
    assert served.recommendation is not None
    alt = alternative(served)
    assert alt is not None and alt.kind == "runner_up" and alt.ordered_by == "price"
    # Independently: the lowest USD per hour among the other priced options that fit and meet
    # the targets (the default objective "cheapest" compares USD per hour).
    head = served.headline.option
    others = [
        (p.usd_per_hour, o.gpu)
        for o in candidates(served.recommendation, served.request.workload.constraints.max_gpus)
        if (o.gpu, o.count) != (head.gpu, head.count)
        and (p := served.price_of(o.gpu, o.count)) is not None
        and p.usd_per_hour is not None
    ]
    assert alt.option is not None and alt.option.gpu == min(others)[1]


def test_the_recommenders_next_option_under_its_own_rule(served: SizingReport) -> None:
    report = served.model_copy(deep=True)
    assert report.headline is not None and report.recommendation is not None
    report.headline.rule = "recommender_first"
    meeting = candidates(report.recommendation, report.request.workload.constraints.max_gpus)
    report.headline.option = meeting[0]
    alt = alternative(report)
    assert alt is not None and alt.ordered_by == "recommender"
    assert alt.option == meeting[1]


def test_a_lower_format_keeps_the_gpus_named(scaled_out: SizingReport) -> None:
    report = scaled_out.model_copy(deep=True)
    assert report.scale_out is not None and report.lower_formats
    fit = report.lower_formats[-1]
    assert fit.estimate is not None
    fit.estimate = fit.estimate.model_copy(update={"fits": True})
    alt = alternative(report)
    assert alt is not None and alt.kind == "lower_format" and alt.format_fit == fit


def test_a_hosted_api_when_no_other_gpu_qualifies(scaled_out: SizingReport) -> None:
    # 2× L40S named: every fitting layout of more L40S is the headline; no lower format fits.
    assert all(f.estimate is None or not f.estimate.fits for f in scaled_out.lower_formats)
    alt = alternative(scaled_out)
    assert alt is not None and alt.kind == "hosted_api" and alt.api is not None
    # The API the headline's price is compared with in its break-even, so both speak of one.
    assert scaled_out.costs is not None and scaled_out.costs.serving is not None
    compared = {b.api_id for b in scaled_out.costs.serving.break_even}
    assert alt.api.api_id in compared


def test_no_alternative(scaled_out: SizingReport) -> None:
    report = scaled_out.model_copy(update={"costs": None}, deep=True)
    assert alternative(report) is None


# --- a real low-confidence quote -----------------------------------------------------------------


def test_two_a10g_priced_only_by_an_unconfirmed_undated_aws_row() -> None:
    """Qwen2.5 14B on 2× A10G (TP 2): the only on-demand rows of 2+ A10Gs in one machine are
    AWS g5.12xlarge (4 GPUs, 5.672 USD/h) and g5.48xlarge (8 GPUs, 16.288 USD/h), both
    `confidence = "low"` and `as_of = "undated"` in catalog/prices.toml (research notes: the
    same table carries pre-June-2025 P-family prices). Undated is stale, so both price rules
    apply, stale first (the order `tools.pricing.quote_order` keys them in), and the proposal
    names the row, its source and why it is unconfirmed."""
    from assistant.proposal.document import Paragraph
    from assistant.proposal.page_one import risk_blocks
    from assistant.proposal.risk_text import RISK_NAMES, RISK_TITLES, risk_text

    request = SizingRequest(
        workload=Workload(model="qwen2.5-14b"),
        configurations=[GpuConfiguration(gpu="a10g", count=2)],
    )
    report = size(request, today=DAY)
    assert report.headline is not None and report.headline.price is not None
    price = report.headline.price
    assert (report.headline.option.gpu, report.headline.option.count) == ("a10g", 2)
    # The 4-GPU instance, whole: 1.418 USD/GPU-h × 4 = 5.672 USD/h (catalog row, by hand).
    assert price.price_id == "aws-g5-12xlarge-a10g-on-demand"
    assert price.usd_per_hour == pytest.approx(1.418 * 4)
    assert price.stale and price.low_confidence and price.confidence == "low"

    # No warning, no tight memory or budget applies here: the stale price leads, the
    # unconfirmed one comes next and is listed under 'Also' on page one.
    codes = _codes(report)
    assert codes[:2] == ["stale_price", "low_confidence_price"]
    lead, also = risk_blocks(report)[:2]
    assert isinstance(lead, Paragraph) and lead.lead == RISK_TITLES["stale_price"]
    assert isinstance(also, Paragraph) and also.text.startswith("Also (see Risks): ")
    assert RISK_NAMES["low_confidence_price"] in also.text
    sentence = risk_text(next(r for r in risks(report) if r.code == "low_confidence_price"), report)
    assert "aws-g5-12xlarge-a10g-on-demand" in sentence
    assert "GitHub cost script" in sentence  # the row's source
    assert "research confidence low" in sentence
    assert "pre-June-2025 p4d" in sentence  # the row's own notes, as written
