"""Cost lines of an answer, from the sizing report's quoted prices: the budget check, which
configuration is cheaper per million tokens, EUR offers left out of the USD ranking, and the
load $/M tokens were priced at.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from assistant.render.results import config_label, gpu_name, option_label, priced_by
from tools.cost.results import MATCH_WORDS
from tools.sizing import PricedConfiguration, SizingReport
from tools.sizing.headline import candidates
from tools.units import format_count

if TYPE_CHECKING:
    # The parser's workload, for annotations only: the presentation layer never imports the
    # offline engine's package at run time (it imports this layer).
    from assistant.reading.parsed import ParsedWorkload


def billed_as(price: PricedConfiguration) -> str:
    """' (billed as 8 GPUs: the smallest instance)' when the provider rents more GPUs than the
    option uses."""
    if price.billed_gpus > price.count:
        return f" (billed as {price.billed_gpus} GPUs: the smallest instance)"
    return ""


def offer_text(price: PricedConfiguration, report: SizingReport) -> str:
    """Where a quoted price comes from, for a lead line: ' (OVHcloud, 2026-09-26; region
    eu-west-gra; 0.75 EUR per hour at 1.1172 USD per EUR)', plus the billing note."""
    parts = [priced_by(price)]
    if price.region:
        parts.append(f"region {price.region}")
    rate = report.exchange_rate
    if price.currency != "USD" and rate is not None:
        parts.append(
            f"{price.per_hour:,.2f} {price.currency} per hour at {rate.usd_per_eur:g} USD per EUR"
        )
    return f"{billed_as(price)} ({'; '.join(parts)})"


def usd_in_period(price: PricedConfiguration, report: SizingReport) -> str:
    """The price in the period asked: '12,374 USD a month (16.95 USD per hour × 730 h)' when a
    month was asked and the row has a monthly figure, else 'X USD per hour' (or the job total)."""
    if price.usd_job is not None:
        return f"{price.usd_job:,.2f} USD total"
    hourly = f"{price.usd:,.2f} USD per hour"
    hours = price.billed_hours_per_month
    if report.request.price_period == "month" and price.usd_per_month is not None and hours:
        return f"{price.usd_per_month:,.0f} USD a month ({hourly} × {hours:,.0f} h billed)"
    return hourly


def exchange_rate_lines(report: SizingReport) -> list[str]:
    """Which EUR→USD rate the USD figures of EUR prices used, its date and source, when it
    bears on the lead (`SizingReport.eur_rate_leads`); elsewhere the cost tool's own
    assumption ('EUR prices converted at …') says the rate among the folded ones."""
    rate = report.exchange_rate
    return [rate.statement] if rate is not None and report.eur_rate_leads else []


def budget_line(report: SizingReport) -> str | None:
    """Whether the cheapest priced option is within a USD budget per hour or per month."""
    check = report.budget_check
    if check is None:
        return None
    budget = f"Budget {check.amount:,.2f} {check.currency} per {check.period}"
    if check.usd_per_eur is not None:
        budget += f" ({check.amount_usd:,.2f} USD at {check.usd_per_eur:g} USD per EUR)"
    cheapest, usd = check.cheapest, check.cheapest_usd
    if cheapest is None or usd is None:
        return f"**{budget}:** no option is priced here, so it could not be checked."
    verdict = "within" if check.within else "over"
    label = f"{cheapest.count}× {gpu_name(cheapest.gpu)}{billed_as(cheapest)}"
    return (
        f"**{budget}: {verdict}** — the cheapest priced option is {label} at "
        f"{usd:,.2f} USD per {check.period} ({priced_by(cheapest)})."
    )


def cheaper_per_token_line(
    report: SizingReport, per_token_question: bool, standalone: bool = False
) -> list[str]:
    """When two or more configurations were priced per token: which one is cheaper per
    million output tokens, with each figure (the price each is quoted at). A per-token
    question compares the options the headline was chosen among (one per GPU type), so the
    cheaper one is the headline; otherwise the configurations the user named, when each was
    priced as sized. `standalone`: shown without the options table, so none is pointed to."""
    priced: list[tuple[float, str, str]] = []
    if per_token_question and report.recommendation is not None:
        limit = report.search.constraints.max_gpus if report.search else 10**9
        for option in candidates(report.recommendation, limit):
            price = report.price_of(option.gpu, option.count)
            if price is not None and price.usd_per_million_tokens is not None:
                priced.append((price.usd_per_million_tokens, option_label(option), _basis(price)))
    else:
        for sized in report.memory:
            price = None if sized.gpu is None else report.price_of(sized.gpu, sized.count)
            if price is not None and price.usd_per_million_tokens is not None:
                priced.append((price.usd_per_million_tokens, config_label(sized), _basis(price)))
    if len(priced) < 2:
        return []
    priced.sort()
    (best, label, basis), others = priced[0], priced[1:]
    versus = "; ".join(f"{value:,.3f} on {name}{b}" for value, name, b in others)
    tier = report.request.pricing.quote_tier.replace("_", "-")
    table = "" if standalone else "; table below"
    return [
        f"**Cheaper per million output tokens{report.price_load.label}: {label}** — "
        f"{best:,.3f} USD/M{basis} vs {versus} (cheapest {tier} price of each{table})."
    ]


def _basis(price: PricedConfiguration) -> str:
    """' (calibrated throughput)': how the throughput a $/M figure divides by was obtained."""
    return f" ({price.throughput_basis} throughput)" if price.throughput_basis else ""


def unconverted_lines(report: SizingReport) -> list[str]:
    """EUR offers the cost tool could not compare in USD (no exchange rate), said where the
    cheapest option is, not only in the folded assumptions: the cost tool's own note."""
    if report.costs is None:
        return []
    return [f"- Not compared in USD: {n}." for n in report.costs.unconverted_notes]


def price_load_lines(report: SizingReport) -> list[str]:
    """How the $/M-token figures were priced when no load was stated: each priced option run
    full (its KV cache's worth of sequences), with the speed each sequence then sees."""
    if report.price_load.basis != "full_load" or report.costs is None:
        return []
    rec = report.recommendation
    priced = [] if rec is None else [report.price_of(o.gpu, o.count) for o in rec.options]
    parts = [
        f"{p.count}× {gpu_name(p.gpu)} {p.sequences_per_replica:,} concurrent sequences "
        f"per replica at {p.tokens_per_s_per_sequence:,.1f} tok/s each "
        f"({p.tokens_per_s:,.0f} tok/s in all"
        + (f", {p.throughput_basis}" if p.throughput_basis else "")
        + ")"
        for p in priced
        if p is not None
        and p.sequences_per_replica
        and p.tokens_per_s
        and p.tokens_per_s_per_sequence
    ]
    if not parts:
        return []
    return [
        "No load stated: $/M output tokens are priced at full load (every KV slot in use), "
        "not at one user: " + "; ".join(parts)
    ]


def api_comparison_lines(parsed: ParsedWorkload, report: SizingReport) -> list[str]:
    """Self-hosted vs hosted API, when asked or a volume was said: the cost tool's break-even
    of the cheapest on-demand configuration against the cheapest API for the model, and at the
    user's volume which bill is lower (both figures from the cost tool)."""
    if not (parsed.api_comparison or parsed.output_tokens_per_day is not None):
        return []
    serving = None if report.costs is None else report.costs.serving
    if serving is None:
        return []
    evens = [e for e in serving.break_even if e.tier == "on_demand"]
    apis = {a.api_id: a for a in serving.api_comparison}
    if not evens or not apis:
        if not parsed.api_comparison:
            return []
        return [
            "**Self-hosted vs hosted API:** the catalog has no hosted API price for this model, "
            "so only the self-hosted cost is shown."
        ]
    even = evens[0]
    api = apis.get(even.api_id)
    row = next((r for r in serving.rows if r.price_id == even.price_id), None)
    hosted = f"{row.count}× {gpu_name(row.gpu)}" if row is not None else "self-hosted"
    provider = row.provider if row is not None else even.provider
    self_month = even.self_hosted_usd_per_month
    api_per_m = even.api_usd_per_million_output_tokens
    api_label = (api.provider if api else even.api_provider) + (f" {api.model}" if api else "")
    if api is not None and api.match != "same":
        api_label += f" ({MATCH_WORDS[api.match]})"
    threshold = even.break_even_output_tokens_per_month
    crossing = (
        ""
        if threshold is None
        else f" Self-hosting breaks even above {format_count(threshold)} output tokens a month."
    )
    volume = even.volume_output_tokens_per_month
    if volume is None or even.api_usd_per_month_at_volume is None:
        return [
            f"**Self-hosted vs hosted API:** {hosted} on demand costs {self_month:,.0f} USD a "
            f"month ({provider}); {api_label} costs {api_per_m:,.3f} USD per million output "
            "tokens (with their input tokens)." + crossing
        ]
    api_month = even.api_usd_per_month_at_volume
    cheaper = "the API is cheaper" if even.cheaper_at_volume == "api" else "self-hosting is cheaper"
    as_of = "n/a" if api is None else api.as_of + (f", {api.age}" if api.age else "")
    lines = [
        f"**Self-hosted vs hosted API at {format_count(volume)} output tokens a month: "
        f"{cheaper}** — {api_label} {api_month:,.0f} USD a month ({api_per_m:,.3f} USD per "
        f"million output tokens with their input tokens; as_of {as_of}) vs "
        f"{hosted} on demand {self_month:,.0f} USD a month ({provider})." + crossing
    ]
    capacity = even.capacity_output_tokens_per_month
    if even.volume_within_capacity is False and capacity is not None:
        lines.append(
            f"{hosted} produces at most {format_count(capacity)} output tokens a month at "
            "its estimated throughput: the volume needs more GPUs."
        )
    return lines
