"""The hourly price of one configuration, for ranking and budgets: its cheapest rentable
price (`RankingPrices.configuration`), the note naming the catalog row, and the budget check
(an unpriced configuration cannot be confirmed within a budget).
"""

from __future__ import annotations

from typing import Any

from tools.catalog import GpuSpec
from tools.pricing import ConfigurationPrice, RankingPrices
from tools.workload import Workload


def _price_line(quote: ConfigurationPrice, count: int, age: str) -> str:
    """Which catalog row prices the configuration, how, and how old it is."""
    p = quote.price
    if quote.instances is None:
        gpus = f"{count} GPU{'s' if count != 1 else ''}"
        how = f"{gpus} × {p.provider} at {p.price_per_gpu_hour:,.4g} {p.currency}/GPU-h"
    else:
        each = p.instance_price_per_hour or p.price_per_gpu_hour
        size = f"{p.gpus_per_instance} GPU{'s' if p.gpus_per_instance != 1 else ''}"
        many = f"{quote.instances} × " if quote.instances > 1 else ""
        how = f"{many}{p.provider} {p.instance or p.id} ({size}, {each:,.4g} {p.currency}/h)"
    where = f"{p.region}, " if p.region else ""
    doubt = ", low confidence" if quote.low_confidence else ""
    return (
        f"on-demand price: {how} = {quote.usd_per_hour:,.2f} USD/h ({where}as_of {p.as_of}, "
        f"{age}{doubt})"
    )


def quote_fields(quote: ConfigurationPrice | None, prices: RankingPrices) -> dict[str, Any]:
    """The `Option` fields that come from the configuration's price (None without one)."""
    if quote is None:
        return {}
    return {
        "usd_per_hour": quote.usd_per_hour,
        "price_id": quote.price.id,
        "billed_gpus": quote.billed_gpus,
        "price_stale": quote.stale,
        "price_low_confidence": quote.low_confidence,
        "price_as_of": quote.price.as_of,
        "price_age": prices.age(quote.price),
    }


def hourly_cost(
    w: Workload, gpu: GpuSpec, count: int, tp: int, prices: RankingPrices, reasons: list[str]
) -> tuple[ConfigurationPrice | None, bool, list[str]]:
    """The cheapest rentable price of `count` GPUs whose tensor-parallel groups of `tp` each
    sit in one machine (pipeline stages and replicas may use separate machines), whether it is
    within the budget, and notes naming the price. An unpriced configuration cannot be
    confirmed within a budget, so it does not meet one (said why)."""
    quote = prices.configuration(gpu.id, count, tp)
    notes: list[str] = []
    missing = f"no on-demand USD price for {gpu.id} {prices.scope}"
    if quote is not None:
        notes = [_price_line(quote, count, prices.age(quote.price)), *quote.notes]
    elif tp > 1 and gpu.id in prices.priced_gpus():
        missing = (
            f"no on-demand {gpu.id} price {prices.scope} is for one machine with {tp} or more "
            f"GPUs (tensor parallel {tp} needs one)"
        )
        notes = [f"unpriced: {missing}"]
    budget = w.constraints.budget_usd_per_hour
    if budget is None:
        return quote, True, notes
    if quote is None:
        reasons.append(f"{missing}: budget not checked")
        return None, False, notes
    if quote.usd_per_hour > budget:
        reasons.append(f"costs ${quote.usd_per_hour:,.2f}/h > budget ${budget:,.2f}/h")
        return quote, False, notes
    return quote, True, notes
