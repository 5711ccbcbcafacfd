"""Which prices a request considers: the caller's filters, staleness on the caller's date, and
the on-demand rows the recommender ranks "cheapest" and checks budgets by.
"""

from __future__ import annotations

from datetime import date

from tools.cost.inputs import Freshness, PriceFilter
from tools.pricing import (
    DEFAULT_MAX_PRICE_AGE_DAYS,
    PriceBook,
    PriceEntry,
    RankingPrices,
    on_demand_rows,
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


def staleness(price: PriceEntry, freshness: Freshness | None) -> tuple[bool | None, list[str]]:
    """(stale?, the warning as a note) on the caller's date; (None, []) without one."""
    if freshness is None:
        return None, []
    warning = staleness_warning(price, *freshness)
    return warning is not None, [] if warning is None else [f"stale: {warning}"]


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
