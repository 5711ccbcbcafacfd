"""The recommender ranks "cheapest" and checks budgets with prices, never silently without."""

from __future__ import annotations

import pytest

from tools.pricing import builtin_price_book, cheapest_usd_per_gpu_hour
from tools.recommend import recommend
from tools.workload import Workload


def test_catalog_price_per_gpu_is_the_cheapest_eligible_row() -> None:
    book = builtin_price_book()
    chosen = cheapest_usd_per_gpu_hour(book)
    for gpu_id, price in chosen.items():
        eligible = [
            p.price_per_gpu_hour
            for p in book.prices
            if p.gpu == gpu_id
            and p.tier == "on_demand"
            and p.currency == "USD"
            and not p.superseded
        ]
        assert price.price_per_gpu_hour == min(eligible)
    eu = cheapest_usd_per_gpu_hour(book, eu_only=True)
    assert eu and all(p.eu for p in eu.values())


def test_cheapest_objective_ranks_by_count_times_price() -> None:
    prices = {"l4": 0.80, "l40s": 0.86, "h100-sxm": 2.00}
    workload = Workload(
        model="llama-3.1-8b", users=10, constraints={"only_gpus": ["l4", "l40s", "h100-sxm"]}
    )
    result = recommend(workload, price_per_gpu_hour=prices)
    for option in result.options:
        assert option.usd_per_hour == pytest.approx(prices[option.gpu] * option.count)
    feasible = [o for o in result.options if o.meets_targets]
    assert [o.usd_per_hour for o in feasible] == sorted(o.usd_per_hour or 0 for o in feasible)


def test_budget_rejects_dearer_and_unpriced_options_with_reasons() -> None:
    workload = Workload(
        model="llama-3.1-8b",
        users=10,
        constraints={"only_gpus": ["l4", "h100-sxm"], "budget_usd_per_hour": 1.0},
    )
    # Only the L4 is priced here (0.80 $/h): the H100 cannot be confirmed within budget.
    result = recommend(workload, price_per_gpu_hour={"l4": 0.80})
    h100 = next(o for o in result.options if o.gpu == "h100-sxm")
    assert not h100.meets_targets
    assert any("budget not checked" in r for r in h100.reasons)
    l4 = next(o for o in result.options if o.gpu == "l4")
    if l4.usd_per_hour is not None and l4.usd_per_hour > 1.0:
        assert any("> budget $1.00/h" in r for r in l4.reasons)


def test_without_given_prices_the_catalog_is_used_and_said() -> None:
    result = recommend(Workload(model="llama-3.1-8b", users=4))
    assert any("cheapest current on-demand USD price" in a for a in result.assumptions)
    assert any(o.usd_per_hour is not None for o in result.options)
