"""Speed of the cost tables: every catalog GPU priced at every matching price, with the API
comparison and break-even, plus training cost (target < 20 ms for the whole catalog)."""

from __future__ import annotations

from typing import Any

from bench.harness import time_call
from tools.catalog import get_catalog
from tools.cost import (
    ServingCostInput,
    TrainingCostInput,
    UsageProfile,
    compare_costs,
    training_costs,
)
from tools.pricing import load_price_book

TARGET_MS = 20.0


def _whole_catalog() -> int:
    book = load_price_book()
    gpus = sorted(get_catalog().gpus)
    serving = [ServingCostInput(gpu=g, count=8, aggregate_tokens_per_s=5_000) for g in gpus]
    result = compare_costs(
        serving, book, profile=UsageProfile(utilization=0.5), model_id="llama-3.1-70b"
    )
    jobs = [TrainingCostInput(gpu=g, count=8, training_hours=100) for g in gpus]
    train = training_costs(jobs, book, deadline_hours=120)
    return len(result.rows) + len(train.rows)


def run() -> dict[str, Any]:
    rows = _whole_catalog()
    timing = time_call(_whole_catalog, repeat=50)
    return {
        "area": "cost",
        "rows_priced": rows,
        "whole_catalog_ms": timing,
        "target_ms": TARGET_MS,
        "meets_target": timing["median_ms"] < TARGET_MS,
        "speed": {"whole_catalog_cost_tables": {**timing, "target_ms": TARGET_MS}},
    }


if __name__ == "__main__":
    import json

    print(json.dumps(run(), indent=2))
