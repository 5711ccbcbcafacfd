"""Cost of a configuration: serving $/hour, $/month, $/million tokens, hosted-API comparison,
break-even volume, and training cost with a spot interruption overhead.

Inputs come from the recommender (`tools.recommend.Option`: gpu, count, aggregate_tokens_per_s,
training_hours); prices from `tools.pricing`. Prices stay in the currency published: a EUR
price is converted only with a rate the caller gives (`eur_to_usd`), and the row says so.
Tiers are never merged: every row is labelled with its tier and the cheapest row is reported
per tier.

One job a module: `inputs` (what the caller gives, and the defaults assumed), `results` (the
rows and results returned), `filters` (which prices count, staleness, the recommender's ranking
prices), `serving` (`compare_costs`), `hosted_api` (API prices for a model), `breakeven`
(self-hosted vs API volume), `currency` (offers not comparable in USD), `training`
(`training_costs`), `fabric` (the network a multi-machine job crosses), `recommended` (inputs
from the recommender's options), `comparison` (serving and training priced in one call, the
typed result of the cost tool). This package re-exports what the rest of the project imports.
"""

from tools.cost.comparison import CostComparison, price_configurations
from tools.cost.filters import ranking_prices
from tools.cost.inputs import (
    HOURS_PER_MONTH,
    PriceFilter,
    ServingCostInput,
    TrainingCostInput,
    UsageProfile,
)
from tools.cost.recommended import serving_inputs, training_inputs
from tools.cost.results import (
    ServingCostResult,
    ServingCostRow,
    TrainingCostResult,
    TrainingCostRow,
)
from tools.cost.serving import compare_costs
from tools.cost.training import training_costs

__all__ = [
    "HOURS_PER_MONTH",
    "CostComparison",
    "PriceFilter",
    "ServingCostInput",
    "ServingCostResult",
    "ServingCostRow",
    "TrainingCostInput",
    "TrainingCostResult",
    "TrainingCostRow",
    "UsageProfile",
    "compare_costs",
    "price_configurations",
    "ranking_prices",
    "serving_inputs",
    "training_costs",
    "training_inputs",
]
