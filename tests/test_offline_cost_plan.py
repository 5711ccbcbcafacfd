"""Which throughput the offline engine prices: the user's load, or full load when none is given.

$/M tokens divide an hourly price by the tokens produced: at one user an 8B on an H100 produces
a few dozen times fewer tokens than with its KV cache full, so "is an L40S cheaper than an H100
per million tokens?" (no load stated) must be priced at full load, while "… for 40 users" is
priced at those 40 users' throughput. The recommend result below is written by hand.
"""

from __future__ import annotations

from typing import Any

import pytest

from assistant.offline import parse_workload
from assistant.offline.planner import plan_cost_call

RESULT: dict[str, Any] = {
    "model_id": "llama-3.1-8b",
    "options": [
        {
            "gpu": "h100-sxm",
            "count": 1,
            "tp": 1,
            "fits": True,
            "aggregate_tokens_per_s": 150.0,
            "full_load_tokens_per_s": 9000.0,
        },
        {"gpu": "l40s", "count": 1, "tp": 1, "fits": False},
    ],
}


@pytest.mark.parametrize(
    ("text", "rate"),
    [
        ("is an L40S cheaper than an H100 per million tokens for Llama 3.1 8B?", 9000.0),
        ("serve Llama 3.1 8B to 40 users on an H100", 150.0),
        ("Llama 3.1 8B at 1,000 tok/s on an H100", 150.0),
    ],
)
def test_cost_rate_is_full_load_only_when_no_load_is_stated(text: str, rate: float) -> None:
    call = plan_cost_call(parse_workload(text), RESULT)
    assert call is not None and call.name == "compare_costs"
    rows = call.arguments["options"]
    assert [r["gpu"] for r in rows] == ["h100-sxm"]  # only fitting options are priced
    assert rows[0]["aggregate_tokens_per_s"] == rate
