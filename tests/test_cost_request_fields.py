"""The chat's flat `compare_costs` request takes its filter and usage fields from
`tools.cost` (`PriceFilter`, `UsageProfile`): same type, bounds and default, so they cannot
drift; only the descriptions are the chat's shorter ones (the prompt's token budget)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from assistant.cost_tool import PRICE_FILTER_FIELDS, USAGE_FIELDS, CostRequest
from tools.cost import PriceFilter, UsageProfile

DERIVED = [(PriceFilter, n) for n in PRICE_FILTER_FIELDS] + [
    (UsageProfile, n) for n in USAGE_FIELDS
]


@pytest.mark.parametrize(("source", "name"), DERIVED)
def test_fields_are_the_cost_models_own(source: type, name: str) -> None:
    mine, theirs = CostRequest.model_fields[name], source.model_fields[name]
    assert mine.annotation == theirs.annotation
    assert mine.metadata == theirs.metadata  # ge / le / gt / max_length
    assert mine.get_default(call_default_factory=True) == theirs.get_default(
        call_default_factory=True
    )
    assert mine.description and len(mine.description) <= len(theirs.description or "") + 20


def test_every_filter_and_usage_field_but_the_internal_ones_is_offered() -> None:
    # include_superseded (history rows), gpus (the options name them) and the blended-price
    # ratio are not the chat's to set.
    internal = {"include_superseded", "gpus", "input_tokens_per_output_token"}
    offered = set(PRICE_FILTER_FIELDS) | set(USAGE_FIELDS)
    assert offered == (set(PriceFilter.model_fields) | set(UsageProfile.model_fields)) - internal


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("utilization", 1.5),  # a fraction: at most 1
        ("active_hours_per_month", 731),  # a month has 730 hours (8,760 / 12)
        ("active_hours_per_month", 0),
        ("max_usd_per_hour", 0),  # gt 0
        ("eur_to_usd", 0),
        ("output_tokens_per_month", -1),
    ],
)
def test_bounds_are_enforced_as_in_tools_cost(field: str, value: float) -> None:
    options = [{"gpu": "h100-sxm", "count": 1}]
    with pytest.raises(ValidationError):
        CostRequest.model_validate({"options": options, field: value})
    source = PriceFilter if field in PRICE_FILTER_FIELDS else UsageProfile
    with pytest.raises(ValidationError):
        source.model_validate({field: value})


def test_defaults_price_an_always_on_month() -> None:
    req = CostRequest.model_validate({"options": [{"gpu": "h100-sxm", "count": 1}]})
    # 8,760 hours a year / 12 = 730 hours: always on, at full use.
    assert req.active_hours_per_month == 730 and req.utilization == 1.0
