"""Speed of a full recommendation over the whole GPU catalog (target < 20 ms, issue 3)."""

from __future__ import annotations

from typing import Any

from bench.harness import time_call

TARGET_MS = 20.0


def run() -> dict[str, Any]:
    from tools.recommend import recommend
    from tools.workload import Workload

    workload = Workload(model="llama-3.1-70b", users=32, prompt_tokens=2048, output_tokens=512)
    timing = time_call(lambda: recommend(workload), repeat=20, warmup=2)
    return {
        "workload": workload.model_dump(mode="json", exclude_defaults=True),
        "full_catalog_recommendation": timing,
        "target_ms": TARGET_MS,
        "meets_target": timing["median_ms"] < TARGET_MS,
    }
