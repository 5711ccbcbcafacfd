"""The one alternative an answer offers beside its headline, chosen by one rule.

In order — the first that finds something decides:

1. `lower_format`: the GPUs the user named do not hold the load (`report.scale_out`) and a
   lower weight format fits on them (`report.lower_formats`, highest precision first): keep
   the hardware named, at a format whose quality must be checked.
2. `runner_up`: the next option that fits and meets the targets within the GPU count named,
   by the rule that chose the headline — under a price rule ("cheapest"), the next lowest by
   the same price (USD per hour, per million tokens, or the job's USD; unpriced options after
   priced ones); otherwise the recommender's next option in its own order. None under the
   request-rate rule: the other options are sized for the users, not the arrivals.
3. `lower_format` again, when no other GPU option qualifies: a lower format that fits the
   named GPUs although they hold the load (fewer bytes per GPU, the same GPUs).
4. `hosted_api`: a hosted API priced in USD: the one the headline's price is compared with
   (its break-even), else the same model before a comparable one, the cheapest first —
   renting tokens instead of GPUs.

None when none applies: no other configuration fits and meets the targets and nothing else
was priced.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from tools.cost.results import ApiComparisonRow
from tools.recommend import Option
from tools.sizing.headline import PRICE_OBJECTIVES, candidates, price_key
from tools.sizing.report import FormatFit, PricedConfiguration, SizingReport

AlternativeKind = Literal["lower_format", "runner_up", "hosted_api"]


class Alternative(BaseModel):
    """The alternative, the rule that chose it and what it is (one of the three)."""

    kind: AlternativeKind
    ordered_by: Literal["price", "recommender", "format", "api_price"]
    option: Option | None = None
    price: PricedConfiguration | None = None
    format_fit: FormatFit | None = None
    api: ApiComparisonRow | None = None


def _fitting_formats(report: SizingReport) -> list[FormatFit]:
    return [f for f in report.lower_formats if f.estimate is not None and f.estimate.fits is True]


def _runner_up(report: SizingReport) -> Alternative | None:
    rec, headline = report.recommendation, report.headline
    if rec is None or headline is None or headline.rule == "request_rate":
        # A rate's headline is the layout whose replicas serve it for least; the
        # recommender's other options hold the users, not the rate (2 replicas where it
        # needs 9), so none of them is an alternative way to serve it.
        return None
    workload = report.search or report.request.workload
    others = [
        o
        for o in candidates(rec, workload.constraints.max_gpus)
        if not o.same_layout(headline.option)
    ]
    if not others:
        return None
    objective = workload.objective
    if headline.rule == "cheapest" and objective in PRICE_OBJECTIVES:

        def key(option: Option) -> tuple[int, float]:
            priced = report.price_of(option.gpu, option.count)
            value = None if priced is None else price_key(objective, priced)
            return (1, 0.0) if value is None else (0, value)

        # sorted() is stable: unpriced options keep the recommender's order after the priced.
        best = sorted(others, key=key)[0]
        return Alternative(
            kind="runner_up",
            ordered_by="price",
            option=best,
            price=report.price_of(best.gpu, best.count),
        )
    best = others[0]
    return Alternative(
        kind="runner_up",
        ordered_by="recommender",
        option=best,
        price=report.price_of(best.gpu, best.count),
    )


def _hosted_api(report: SizingReport) -> Alternative | None:
    costs = report.costs
    if costs is None or costs.serving is None:
        return None
    priced = [a for a in costs.serving.api_comparison if a.usd_blended_per_mtok is not None]
    if not priced:
        return None
    # The API the headline's price is compared with (its break-even), so the alternative and
    # the break-even speak of one API; else the same model before a comparable one, cheapest.
    price = None if report.headline is None else report.headline.price
    compared = {
        b.api_id
        for b in costs.serving.break_even
        if price is not None and b.price_id == price.price_id
    }
    best = min(
        priced,
        key=lambda a: (a.api_id not in compared, a.match != "same", a.usd_blended_per_mtok or 0),
    )
    return Alternative(kind="hosted_api", ordered_by="api_price", api=best)


def alternative(report: SizingReport) -> Alternative | None:
    """The alternative by the module docstring's rule."""
    formats = _fitting_formats(report)
    if report.scale_out is not None and formats:
        return Alternative(kind="lower_format", ordered_by="format", format_fit=formats[0])
    runner_up = _runner_up(report)
    if runner_up is not None:
        return runner_up
    if formats:
        return Alternative(kind="lower_format", ordered_by="format", format_fit=formats[0])
    return _hosted_api(report)
