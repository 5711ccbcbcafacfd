"""One cost comparison: serving configurations and training jobs priced in one call, the typed
result the `compare_costs` tool and the sizing report carry.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from tools.cost.inputs import (
    SPOT_INTERRUPTION_OVERHEAD,
    Freshness,
    PriceFilter,
    ServingCostInput,
    TrainingCostInput,
    UsageProfile,
)
from tools.cost.results import ServingCostResult, TrainingCostResult
from tools.cost.serving import compare_costs
from tools.cost.training import training_costs
from tools.pricing import PriceBook


class CostComparison(BaseModel):
    """Serving prices ($/hour, $/month, $/M tokens, API comparison, break-even) of the serving
    configurations and training prices of the jobs; each part None when none was given."""

    serving: ServingCostResult | None = Field(
        default=None, description="Serving rows, API comparison, break-even."
    )
    training: TrainingCostResult | None = Field(
        default=None, description="Training jobs priced by wall-clock hours."
    )

    @property
    def unconverted_notes(self) -> list[str]:
        """The one-line notes on offers not compared in USD (no exchange rate), each once."""
        notes = [part.unconverted_note for part in (self.serving, self.training) if part]
        return list(dict.fromkeys(n for n in notes if n))


def price_configurations(
    serving: list[ServingCostInput],
    jobs: list[TrainingCostInput],
    book: PriceBook,
    flt: PriceFilter | None = None,
    profile: UsageProfile | None = None,
    model_id: str | None = None,
    freshness: Freshness | None = None,
    deadline_hours: float | None = None,
    spot_interruption_overhead: float | None = None,
) -> CostComparison:
    """Price `serving` (`compare_costs`) and `jobs` (`training_costs`) under one filter."""
    out = CostComparison()
    if serving:
        out.serving = compare_costs(serving, book, flt, profile, model_id, freshness)
    if jobs:
        overhead = (
            SPOT_INTERRUPTION_OVERHEAD
            if spot_interruption_overhead is None
            else spot_interruption_overhead
        )
        out.training = training_costs(
            jobs, book, flt, deadline_hours, overhead, freshness=freshness
        )
    return out
