"""Speed of a full recommendation over the whole GPU catalog (target < 20 ms, issue 3).

Two workloads: a typical 70B chat service, and 405B BF16 for 256 users, which walks the most
layouts (pipeline stages across nodes on small GPUs) and the does-not-fit-one-node probes.
"""

from __future__ import annotations

import functools
from typing import Any

from bench.harness import time_call

TARGET_MS = 20.0


def run() -> dict[str, Any]:
    from tools.recommend import recommend
    from tools.workload import Workload

    workloads = {
        "full_catalog_recommendation": Workload(
            model="llama-3.1-70b", users=32, prompt_tokens=2048, output_tokens=512
        ),
        "full_catalog_405b_256_users": Workload(model="llama-3.1-405b", users=256),
    }
    result: dict[str, Any] = {"target_ms": TARGET_MS}
    for name, workload in workloads.items():
        timing = time_call(functools.partial(recommend, workload), repeat=20, warmup=2)
        result[name] = {
            "workload": workload.model_dump(mode="json", exclude_defaults=True),
            **timing,
        }
    result["meets_target"] = all(result[name]["median_ms"] < TARGET_MS for name in workloads)
    result["speed"] = {
        name: {k: v for k, v in result[name].items() if k != "workload"} | {"target_ms": TARGET_MS}
        for name in workloads
    }
    return result
