"""One sizing question, one answer: `size(SizingRequest) -> SizingReport`.

Every surface (the `memory` / `recommend` / `cost` commands, the offline chat, the LLM engine's
pre-computation and the model's own `size` calls, the app's cards, the proposal) asks this
package and presents its report, so the headline configuration, the weight format and the $/M
tokens at the stated load are decided once:

- `request.py`: `SizingRequest` (workload, configurations named, pricing scope, what to answer);
- `report.py`: `SizingReport` and its typed parts (`Headline`, `PriceLoad`, `ScaleOut`, ...);
- `configuration.py`: `SizedConfiguration` and the other parts the `memory` command reads;
- `plan.py`: `size()` — memory → recommend → cost → follow-ups;
- `headline.py`: the one rule for the leading option and the one rule for the $/M load;
- `memory.py`: the estimates of named configurations and the follow-ups that re-size them;
- `prices.py`: the price quoted per configuration (cheapest row of the quote tier);
- `asked.py`: the figure the question asked for (yes/no, the GPU count, throughput, cost …);
- `shapes.py`: whether a model known only by its size fits with every plausible architecture.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tools.lazy_exports import lazy_attribute

if TYPE_CHECKING:
    from tools.sizing.claims import Claim, ClaimCheck
    from tools.sizing.configuration import (
        ShapeFit,
        ShapeQuestion,
        SizedConfiguration,
        SizingError,
    )
    from tools.sizing.headline import (
        PRICE_OBJECTIVES,
        choose_headline,
        local_leads,
        price_load,
        states_load,
    )
    from tools.sizing.plan import MAX_PRICED, size
    from tools.sizing.report import (
        AlternativeReading,
        AskedAnswer,
        BudgetCheck,
        ContextFit,
        FormatFit,
        Headline,
        HeadlineRule,
        PricedConfiguration,
        PriceLoad,
        ScaleOut,
        SizingReport,
        VariantQuestion,
        WayOut,
    )
    from tools.sizing.request import (
        SIZE_HIDDEN,
        AskedFigure,
        Budget,
        GpuConfiguration,
        OwnedHardware,
        PricingScope,
        SizingRequest,
    )

# Loaded on first use (PEP 562): a command that needs one typed part (`memory` reads
# `ShapeQuestion` from report.py) does not import the whole planner — recommend, cost,
# deployment and their pydantic models — at start-up.
_WHERE = {
    "Claim": "claims",
    "ClaimCheck": "claims",
    "PRICE_OBJECTIVES": "headline",
    "choose_headline": "headline",
    "local_leads": "headline",
    "price_load": "headline",
    "states_load": "headline",
    "MAX_PRICED": "plan",
    "size": "plan",
    "AlternativeReading": "report",
    "AskedAnswer": "report",
    "BudgetCheck": "report",
    "ContextFit": "report",
    "FormatFit": "report",
    "Headline": "report",
    "HeadlineRule": "report",
    "PricedConfiguration": "report",
    "PriceLoad": "report",
    "ScaleOut": "report",
    "ShapeFit": "configuration",
    "ShapeQuestion": "configuration",
    "SizedConfiguration": "configuration",
    "SizingError": "configuration",
    "SizingReport": "report",
    "VariantQuestion": "report",
    "WayOut": "report",
    "SIZE_HIDDEN": "request",
    "AskedFigure": "request",
    "Budget": "request",
    "GpuConfiguration": "request",
    "OwnedHardware": "request",
    "PricingScope": "request",
    "SizingRequest": "request",
}


def __getattr__(name: str) -> Any:
    return lazy_attribute(__name__, _WHERE, globals(), name)


__all__ = [
    "MAX_PRICED",
    "PRICE_OBJECTIVES",
    "SIZE_HIDDEN",
    "AlternativeReading",
    "AskedAnswer",
    "AskedFigure",
    "Budget",
    "BudgetCheck",
    "Claim",
    "ClaimCheck",
    "ContextFit",
    "FormatFit",
    "GpuConfiguration",
    "Headline",
    "HeadlineRule",
    "OwnedHardware",
    "PriceLoad",
    "PricedConfiguration",
    "PricingScope",
    "ScaleOut",
    "ShapeFit",
    "ShapeQuestion",
    "SizedConfiguration",
    "SizingError",
    "SizingReport",
    "SizingRequest",
    "VariantQuestion",
    "WayOut",
    "choose_headline",
    "local_leads",
    "price_load",
    "size",
    "states_load",
]
