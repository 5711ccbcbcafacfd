"""The hourly price of `count` GPUs of one kind per tier, for a job billed by the hour (an
embedding corpus, a batch job): the row `tools.pricing.quote_order` quotes — fresh before
stale, confirmed before low confidence, then the lower USD figure —, whole instances billed."""

from __future__ import annotations

from datetime import date

from pydantic import BaseModel, Field

from tools.cost.exchange import rate_used
from tools.cost.filters import eligible_prices
from tools.cost.inputs import PriceFilter
from tools.cost.results import ExcludedPrice
from tools.pricing import (
    DEFAULT_MAX_PRICE_AGE_DAYS,
    PriceBook,
    Tier,
    configuration_price_per_hour,
    is_fresh,
    is_low_confidence,
    quote_order,
    to_usd,
)

JOB_TIERS: tuple[Tier, ...] = ("on_demand", "spot")
"""The tiers a job is priced in: on demand, and spot (interruptible, cheaper)."""


class HourlyQuote(BaseModel):
    """What `count` GPUs cost an hour in one tier, and where the price comes from."""

    tier: Tier
    gpu: str
    count: int
    usd_per_hour: float = Field(description="USD per hour for all `count` GPUs (billed).")
    provider: str
    price_id: str
    as_of: str
    stale: bool = False
    low_confidence: bool = False
    currency: str = "USD"


def hourly_quotes(
    book: PriceBook, gpu: str, count: int, today: date, eu_only: bool = False, tp: int = 1
) -> list[HourlyQuote]:
    """The quoted row per tier of `JOB_TIERS` that prices `count` × `gpu` in groups of `tp`
    GPUs that each sit in one machine (none: no row)."""
    rate = rate_used(None).usd_per_eur
    excluded: list[ExcludedPrice] = []
    best: dict[Tier, tuple[tuple[bool, bool, float], HourlyQuote]] = {}
    flt = PriceFilter(eu_only=eu_only, tiers=list(JOB_TIERS))
    for price in eligible_prices(book, gpu, tp, flt, excluded):
        amount, _, _ = configuration_price_per_hour(price, count, tp)
        usd = to_usd(amount, price.currency, rate)
        if usd is None:
            continue
        stale = not is_fresh(price, today, DEFAULT_MAX_PRICE_AGE_DAYS)
        key = quote_order(stale, is_low_confidence(price), usd)
        if price.tier in best and best[price.tier][0] <= key:
            continue
        best[price.tier] = (
            key,
            HourlyQuote(
                tier=price.tier,
                gpu=gpu,
                count=count,
                usd_per_hour=usd,
                provider=price.provider,
                price_id=price.id,
                as_of=price.as_of,
                stale=stale,
                low_confidence=is_low_confidence(price),
                currency=price.currency,
            ),
        )
    return [best[t][1] for t in JOB_TIERS if t in best]
