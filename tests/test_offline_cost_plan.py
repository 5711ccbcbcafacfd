"""Which throughput $/M tokens is priced at: the user's load, or full load when none is given
(one rule, tools/sizing/headline.price_load, stated in every report).

$/M tokens divide an hourly price by the tokens produced: at one user an 8B on an H100 produces
a few dozen times fewer tokens than with its KV cache full, so "is an L40S cheaper than an H100
per million tokens?" (no load stated) must be priced at full load, while "… for 40 users" is
priced at those 40 users' throughput. The options below are written by hand.
"""

from __future__ import annotations

from typing import Any

import pytest

from assistant.offline.parser import parse_workload
from assistant.offline.planner import sizing_arguments
from tools.recommend import Option, Recommendation
from tools.sizing import SizingRequest, price_load
from tools.sizing.plan import cost_inputs


def _option(**fields: Any) -> Option:
    base: dict[str, Any] = {
        "gpu_name": fields["gpu"],
        "tp": 1,
        "pp": 1,
        "dp": 1,
        "nodes": 1,
        "meets_targets": fields["fits"],
        "per_gpu_bytes": 1,
        "budget_bytes_per_gpu": 1,
        "headroom_bytes": 0,
        "kv_cache_capacity_bytes": 0,
        "kv_cache_capacity_tokens": 0,
        "max_concurrent_sequences": 0,
    }
    return Option.model_validate({**base, **fields})


RECOMMENDATION = Recommendation(
    model_id="llama-3.1-8b",
    total_params=1,
    active_params=1,
    weights_format="bf16",
    weight_bytes=1,
    kv_cache_bytes_per_token=1,
    context_tokens=4096,
    objective="cheapest",
    options=[
        _option(
            gpu="h100-sxm",
            count=1,
            fits=True,
            aggregate_tokens_per_s=150.0,
            full_load_tokens_per_s=9000.0,
        ),
        _option(gpu="l40s", count=1, fits=False),
    ],
    rejected=[],
    notes=[],
    assumptions=[],
)


@pytest.mark.parametrize(
    ("text", "basis", "rate"),
    [
        ("is an L40S cheaper than an H100 per million tokens for Llama 3.1 8B?", "full_load", 9000),
        ("serve Llama 3.1 8B to 40 users on an H100", "stated_load", 150.0),
        ("Llama 3.1 8B at 1,000 tok/s on an H100", "stated_load", 150.0),
        ("serve Llama 3.1 8B with batch 64 on an H100", "stated_load", 150.0),
    ],
)
def test_cost_rate_is_full_load_only_when_no_load_is_stated(
    text: str, basis: str, rate: float
) -> None:
    request = SizingRequest.model_validate(sizing_arguments(parse_workload(text)))
    load = price_load(request)
    assert load.basis == basis and load.reason
    serving, jobs, nearest = cost_inputs(RECOMMENDATION, load, [])
    assert [r.gpu for r in serving] == ["h100-sxm"]  # only fitting options are priced
    assert serving[0].aggregate_tokens_per_s == rate
    assert jobs == [] and not nearest


def test_the_request_can_name_the_load_itself() -> None:
    arguments = sizing_arguments(parse_workload("serve Llama 3.1 8B to 40 users on an H100"))
    request = SizingRequest.model_validate({**arguments, "price_tokens_at": "full_load"})
    assert price_load(request).basis == "full_load"
    training = SizingRequest.model_validate({"workload": {"model": "llama-3.1-8b", "task": "full"}})
    assert price_load(training).basis == "training_job"
