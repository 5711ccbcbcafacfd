"""The sentences for a risk (`tools.sizing.risks`) and for the alternative
(`tools.sizing.alternative`): one per rule code, figures read from the typed facts the rule
returned and the report, with their units. Which risk leads and which option is the
alternative are decided in `tools.sizing`; here they are only put into words.
"""

from __future__ import annotations

from assistant.proposal.figures import format_count, format_number, gib, usd
from assistant.proposal.labels import basis, gpus, layout_words, price_age, price_date, tier
from assistant.proposal.quotes import gpu_name
from tools.cost.results import MATCH_WORDS, BreakEven
from tools.recommend import Option
from tools.sizing import SizingReport
from tools.sizing.alternative import Alternative
from tools.sizing.report import PricedConfiguration
from tools.sizing.risks import TIGHT_HEADROOM_FRACTION, Risk, RiskCode

RISK_TITLES: dict[RiskCode, str] = {
    "question_pending": "A question is open.",
    "nothing_meets_targets": "Nothing meets the targets.",
    "over_budget": "Over budget.",
    "tool_warning": "A tool warning about this request.",
    "tight_memory": "Tight memory.",
    "stale_price": "Stale price.",
    "low_confidence_price": "Unconfirmed price.",
    "api_cheaper": "A hosted API costs less.",
    "speed_target_estimated": "The speed target rests on an estimate.",
    "single_replica": "Single point of failure.",
    "estimated_speed": "Speed estimated, not measured.",
    "none": "No risk rule applies.",
}

RISK_NAMES: dict[RiskCode, str] = {
    "question_pending": "a question is open",
    "nothing_meets_targets": "nothing meets the targets",
    "over_budget": "over budget",
    "tool_warning": "a tool warning",
    "tight_memory": "tight memory",
    "stale_price": "a stale price",
    "low_confidence_price": "an unconfirmed (low-confidence) price",
    "api_cheaper": "a hosted API costs less",
    "speed_target_estimated": "a speed target resting on an estimate",
    "single_replica": "a single point of failure",
    "estimated_speed": "an estimated speed",
    "none": "none",
}
"""Short names for the 'Also' line under the main risk."""

TARGET_WORDS = {
    "tokens_per_s_per_user": "the tokens/s-per-user target",
    "tokens_per_s": "the total tokens/s target",
    "ttft_s": "the time-to-first-token target",
    "deadline_hours": "the training deadline",
}


def _target_figure(risk: Risk, option: Option) -> str:
    if risk.target == "tokens_per_s_per_user":
        return f"{format_number(option.decode_tokens_per_s_per_seq)} tokens/s per user"
    if risk.target == "tokens_per_s":
        return f"{format_number(option.aggregate_tokens_per_s)} output tokens/s in total"
    if risk.target == "ttft_s":
        return f"{format_number(option.ttft_s)} s to the first token"
    return f"{format_number(option.training_hours)} h of training"


def _api_cheaper(risk: Risk, option: Option, report: SizingReport) -> str:
    b = risk.break_even
    assert b is not None
    serving = None if report.costs is None else report.costs.serving
    row = (
        next((a for a in serving.api_comparison if a.api_id == b.api_id), None) if serving else None
    )
    what = "" if row is None or row.match == "same" else f", {MATCH_WORDS[row.match]}"
    api = (
        f"{b.api_provider} ({b.api_id}{what}) costs {usd(b.api_usd_per_million_output_tokens)} "
        "per million output tokens, its input tokens included"
    )
    if b.cheaper_at_volume == "api" and b.api_usd_per_month_at_volume is not None:
        return (
            f"{api}: at your volume of {format_count(b.volume_output_tokens_per_month)} output "
            f"tokens a month it would bill {usd(b.api_usd_per_month_at_volume)} a month, "
            f"against {usd(b.self_hosted_usd_per_month)} a month for {gpus(option)}."
        )
    return (
        f"{api}: breaking even takes {format_count(b.break_even_output_tokens_per_month)} output "
        f"tokens a month, more than {gpus(option)} can produce "
        f"({format_count(b.capacity_output_tokens_per_month)} a month at full speed), so the "
        "API stays cheaper at any volume. Self-hosting is for control of data and latency, not "
        "cost, at this load."
    )


def _quoted(report: SizingReport) -> tuple[PricedConfiguration, str]:
    """The headline's quoted price and its amount in words ('5.67 USD per hour', '95.9 USD
    for the job'), for the rules about that price."""
    price = report.headline.price if report.headline else None
    assert price is not None
    if price.usd_job is not None:
        return price, f"{usd(price.usd_job)} for the job"
    return price, f"{usd(price.usd_per_hour)} per hour"


def _low_confidence(report: SizingReport) -> str:
    """The row quoted, its source and why the research could not confirm it (its confidence
    and notes, as written)."""
    price, amount = _quoted(report)
    why = f"research confidence {price.confidence or 'low'}"
    if price.price_notes:
        why += f": {price.price_notes}"
    source = f"; source: {price.source}" if price.source else ""
    return (
        f"The {amount} quoted is {price.provider}'s row {price.price_id} ({tier(price.tier)}, "
        f"{price_age(price)}{source}), a rate the research could not confirm ({why}); no "
        "confirmed price as fresh prices this configuration: get a quote from the provider "
        "before ordering."
    )


def risk_text(risk: Risk, report: SizingReport) -> str:
    """The sentence for `risk` (one per rule code, figures with their units)."""
    o = risk.option
    if risk.code == "question_pending":
        return (
            "The GPU named covers variants on which the verdict differs: nothing is "
            "recommended until the question above is answered in the session."
        )
    if risk.code == "nothing_meets_targets":
        return (
            "No configuration evaluated fits and meets every target, so none is recommended; "
            "the alternative, or relaxing a target (users, context, speed, the GPUs allowed), "
            "changes that."
        )
    if risk.code == "tool_warning":
        assert risk.note is not None
        return risk.note.text
    if risk.code == "over_budget":
        b = report.budget_check
        assert b is not None and b.cheapest is not None
        name = gpu_name(report, b.cheapest.gpu)
        return (
            f"The cheapest option priced, {b.cheapest.count:,}× {name}, costs "
            f"{usd(b.cheapest_usd)} per {b.period}: above the {usd(b.amount_usd)} per "
            f"{b.period} budget."
        )
    if risk.code == "none" or o is None:
        if o is None:
            return "No risk rule applies."
        return (
            f"No rule flagged a risk: {gib(o.headroom_bytes)} of headroom per GPU, a fresh, "
            "confirmed price "
            f"and {basis(o.throughput_basis or o.speed_basis)} speed figures."
        )
    if risk.code == "tight_memory":
        growth = (
            "longer training sequences, a larger micro-batch or a framework version that "
            "reserves more"
            if report.is_training
            else "a longer context, more concurrent users or an engine version that reserves "
            "more memory"
        )
        return (
            f"{gib(o.headroom_bytes)} of headroom per GPU is under "
            f"{TIGHT_HEADROOM_FRACTION:.0%} of the {gib(o.budget_bytes_per_gpu)} budget: "
            f"{growth} can push {gpus(o)} out of memory. Test at the real load before "
            "ordering, or size one step up."
        )
    if risk.code == "stale_price":
        quoted, amount = _quoted(report)
        return (
            f"The {amount} quoted ({quoted.provider}, {tier(quoted.tier)}, {price_age(quoted)}) "
            f"was older than {report.request.pricing.max_price_age_days:,} days when sized: "
            "re-check it with the provider before ordering."
        )
    if risk.code == "low_confidence_price":
        return _low_confidence(report)
    if risk.code == "api_cheaper":
        return _api_cheaper(risk, o, report)
    if risk.code == "speed_target_estimated":
        return (
            f"{TARGET_WORDS[risk.target or 'tokens_per_s']} is checked against an estimated "
            f"{_target_figure(risk, o)} (default efficiencies, not a measurement of this setup): "
            "benchmark one server before ordering the rest; a slower real speed needs more GPUs."
        )
    if risk.code == "single_replica":
        return (
            f"{gpus(o)} run one replica of the model: a failed GPU or server stops the service "
            f"until it is replaced. A second replica (another {o.count:,} GPUs) removes the "
            "single point of failure."
        )
    # estimated_speed
    if o.training_hours is not None:
        figure = f"the {format_number(o.training_hours)} h of training behind the job's cost"
    else:
        price = report.headline.price if report.headline else None
        rate = price.tokens_per_s if price is not None else o.aggregate_tokens_per_s
        figure = f"the {format_number(rate)} output tokens/s behind the $/M figure"
    return (
        f"{figure[0].upper()}{figure[1:]} is estimated from default efficiencies, not measured: "
        "measure one server at the real load before committing to the full order."
    )


# --- the alternative ------------------------------------------------------------------------


def _ordered_by(alt: Alternative, report: SizingReport) -> str:
    if alt.ordered_by == "price":
        objective = (report.search or report.request.workload).objective
        if report.is_training:
            what = "job cost"
        elif objective == "cheapest_per_token":
            what = "USD per million output tokens"
        else:
            what = "USD per hour"
        return f"The next lowest {what} of the options that fit and meet the targets."
    return "The recommender's next option that fits and meets the targets."


def _option_alternative(alt: Alternative, report: SizingReport) -> tuple[str, str]:
    o = alt.option
    assert o is not None
    p = alt.price
    parts: list[str] = [layout_words(o, report.is_training)]
    if p is not None and p.usd_job is not None:
        parts.append(f"{usd(p.usd_job)} for the job ({tier(p.tier)}, {price_date(p)})")
    elif p is not None:
        cost = f"{usd(p.usd_per_hour)} per hour, {usd(p.usd_per_month)} per month"
        if p.usd_per_million_tokens is not None:
            cost += (
                f", {usd(p.usd_per_million_tokens)} per million output tokens"
                f"{report.price_load.label}"
            )
        parts.append(cost + f" — {tier(p.tier)}, {p.provider}, {price_date(p)}")
    else:
        parts.append("not priced in the scope asked")
    parts.append(f"{gib(o.per_gpu_bytes)} needed of {gib(o.budget_bytes_per_gpu)} per GPU")
    if o.training_hours is not None:
        parts.append(f"{format_number(o.training_hours)} h of training ({basis(o.speed_basis)})")
    elif o.decode_tokens_per_s_per_seq is not None:
        parts.append(
            f"{format_number(o.decode_tokens_per_s_per_seq)} tokens/s per user "
            f"({basis(o.speed_basis)})"
        )
    return gpus(o) + ":", "; ".join(parts) + ". " + _ordered_by(alt, report)


def alternative_text(alt: Alternative | None, report: SizingReport) -> tuple[str, str]:
    """(bold lead, text) for the alternative; the lead names it."""
    if report.question is not None:
        return ("Not yet:", "the answer to the open question decides the configuration first.")
    if alt is None:
        apis = "" if report.is_training else ", and no hosted API was priced for this model"
        return ("None.", f"No other configuration evaluated fits and meets the targets{apis}.")
    if alt.kind == "runner_up":
        return _option_alternative(alt, report)
    if alt.kind == "lower_format":
        fit = alt.format_fit
        assert fit is not None and fit.estimate is not None
        est = fit.estimate
        name = gpu_name(report, fit.gpu)
        return (
            f"{fit.count:,}× {name} with {fit.weights} weights:",
            f"keeps the GPUs named — {gib(est.per_gpu_bytes)} needed of "
            f"{gib(est.budget_bytes_per_gpu)} per GPU at the same load. A lower-bit format must "
            "be checked for output quality on your own evaluation set first.",
        )
    api = alt.api
    assert api is not None
    match = MATCH_WORDS[api.match]
    even = _break_even_for(report, api.api_id)
    per_output = (
        ""
        if even is None
        else f"{usd(even.api_usd_per_million_output_tokens)} per million output tokens, input "
        "included ("
    )
    close = ")" if per_output else ""
    return (
        f"A hosted API: {api.provider},",
        f"{api.model} ({match}), at {per_output}{usd(api.usd_blended_per_mtok)} per million "
        f"tokens blended{close}; list price {price_age(api)}. No hardware to run, billed per "
        "token; the prompts leave your infrastructure.",
    )


def _break_even_for(report: SizingReport, api_id: str) -> BreakEven | None:
    """The break-even row of the headline's quoted price against `api_id` (its per-output-
    token figure is the one to set beside the self-hosted $/M)."""
    price = report.headline.price if report.headline is not None else None
    costs = report.costs
    if price is None or costs is None or costs.serving is None:
        return None
    return next(
        (
            b
            for b in costs.serving.break_even
            if b.price_id == price.price_id and b.api_id == api_id
        ),
        None,
    )
