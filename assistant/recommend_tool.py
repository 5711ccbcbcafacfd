"""The `recommend` tool the chat and `gpu-sizer recommend` call: the recommender, ranking by the
same prices the cost tool bills.

`tools.recommend.recommend` ranks "cheapest" and checks budgets by the built-in catalog unless
given prices (tools/ reads no user files). Here it is given the ones `compare_costs` uses, so
the option ranked cheapest is the one the cost table prices lowest: the user's `prices.toml`
over the catalog, EU rows only when the constraints say 'eu', and EUR rows at the EUR→USD rate
set for this run or in the settings (without a rate they are not ranked, as in the cost tool).
Refreshed prices (`gpu-sizer prices refresh`) are included as the cost tool includes them, and
every price's age is counted to `assistant.clock.now()`.
"""

from __future__ import annotations

from assistant.clock import now
from assistant.cost_tool import eur_to_usd_rate, price_book
from tools.cost import PriceFilter, ranking_prices
from tools.recommend import Recommendation, recommend
from tools.workload import Workload


def run_recommend(workload: Workload) -> Recommendation:
    """`recommend(workload)` ranked by the user's price book under the workload's region."""
    rate, _ = eur_to_usd_rate(None)
    prices = ranking_prices(
        price_book(), PriceFilter(eu_only=workload.constraints.eu_only, eur_to_usd=rate), now()
    )
    return recommend(workload, prices)
