"""Which prices a request considers: the caller's filters, staleness on the caller's date, and
the on-demand rows the recommender ranks "cheapest" and checks budgets by.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from typing import Any

from tools.cost.inputs import Freshness, PriceFilter
from tools.cost.results import ExcludedPrice
from tools.pricing import (
    DEFAULT_MAX_PRICE_AGE_DAYS,
    PriceBook,
    PriceEntry,
    RankingPrices,
    age_label,
    as_instant,
    hosts_group,
    is_future,
    is_low_confidence,
    on_demand_rows,
    price_age,
    staleness_warning,
)


def _matches(price: PriceEntry, gpu: str, flt: PriceFilter) -> str | None:
    """None if the price passes the filter for `gpu`, else the reason it does not."""
    if price.gpu != gpu:
        return "other GPU"
    if flt.gpus and gpu not in flt.gpus:
        return "GPU filter"
    if flt.providers and not any(p.lower() in price.provider.lower() for p in flt.providers):
        return "provider filter"
    if flt.eu_only and not price.eu:
        return "EU-only filter"
    if flt.tiers and price.tier not in flt.tiers:
        return "tier filter"
    return None


def eligible_prices(
    book: PriceBook, gpu: str, tp: int, flt: PriceFilter, excluded: list[ExcludedPrice]
) -> Iterator[PriceEntry]:
    """The prices of `gpu` that pass `flt` and can host a tensor-parallel group of `tp` GPUs
    (a group sits in one machine); superseded rows and rows too small for the group are
    appended to `excluded` with the reason. Serving and training price the same rows."""
    for price in book.prices:
        if _matches(price, gpu, flt) is not None:
            continue
        if not hosts_group(price, tp):
            reason = (
                f"{price.gpus_per_instance}-GPU instance cannot hold the tensor-parallel "
                f"group of {tp} GPUs (a group sits in one machine)"
            )
            excluded.append(ExcludedPrice(id=price.id, provider=price.provider, reason=reason))
            continue
        if price.superseded and not flt.include_superseded:
            excluded.append(
                ExcludedPrice(id=price.id, provider=price.provider, reason=price.superseded)
            )
            continue
        yield price


def stale_rule(freshness: Freshness | None) -> list[str]:
    """The assumption saying how stale prices are treated (empty without a date)."""
    if freshness is None:
        return []
    day = as_instant(freshness[0]).date()
    return [
        f"prices undated or older than {freshness[1]} days on {day.isoformat()} are "
        "marked stale and listed after fresh ones of the same tier"
    ]


LOW_CONFIDENCE_RULE = (
    "prices the research marks low confidence (unconfirmed) rank after the confirmed prices "
    "of their tier as fresh (fresh before stale, confirmed before low confidence, then USD)"
)
"""The assumption every priced result states: `tools.pricing.quote_order` in words."""


def confidence_notes(price: PriceEntry) -> list[str]:
    """The note a low-confidence row carries (empty for the others)."""
    if not is_low_confidence(price):
        return []
    return [
        "unconfirmed price (research confidence low: "
        f"{price.source_type or 'source'}); ranked after confirmed prices"
    ]


def staleness(price: PriceEntry, freshness: Freshness | None) -> tuple[bool | None, list[str]]:
    """(stale?, the warning as a note) on the caller's date; (None, []) without one."""
    if freshness is None:
        return None, []
    warning = staleness_warning(price, *freshness)
    return warning is not None, [] if warning is None else [f"stale: {warning}"]


def age_fields(price: PriceEntry, freshness: Freshness | None) -> dict[str, Any]:
    """The row's `age_hours` and `age` on the caller's clock (empty without one)."""
    if freshness is None:
        return {}
    age = None if is_future(price.as_of, freshness[0]) else price_age(price.as_of, freshness[0])
    return {
        "age_hours": None if age is None else age.total_seconds() / 3600,
        "age": age_label(price.as_of, freshness[0]),
    }


def ranking_prices(
    book: PriceBook,
    flt: PriceFilter | None = None,
    today: date | None = None,
    max_age_days: int = DEFAULT_MAX_PRICE_AGE_DAYS,
) -> RankingPrices:
    """The on-demand rows under `flt` the recommender ranks "cheapest" and checks budgets by
    (spot and commitments are left out so the ranking is not skewed; EUR rows count only with
    the user's rate). Each configuration is then priced by `RankingPrices.configuration`."""
    flt = flt or PriceFilter()
    rows = tuple(
        p for p in on_demand_rows(book) if p.gpu is not None and _matches(p, p.gpu, flt) is None
    )
    scope = "under the price filters" + (" (user price file included)" if book.user_file else "")
    return RankingPrices(
        rows=rows,
        today=today or date.today(),
        eur_to_usd=flt.eur_to_usd,
        max_age_days=max_age_days,
        scope=scope,
    )
