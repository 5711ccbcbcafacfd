"""Memory calculator benchmark: speed of one estimate, accuracy against published figures.

Speed target: one estimate well under 1 ms (the recommender runs hundreds per question).
Accuracy rows compare against figures from papers and model cards, each with its source.
"""

from __future__ import annotations

from typing import Any

from bench import references
from bench.harness import percent_error, time_call
from tools.architecture import count_parameters
from tools.memory import (
    MemoryRequest,
    estimate_memory,
    kv_cache_bytes_per_token,
    weight_bytes,
)
from tools.memory.weights import _weight_bytes

TARGET_MS = 1.0

SPEED_CASES: dict[str, MemoryRequest] = {
    "inference_llama_3_1_70b_h100": MemoryRequest(model="llama-3.1-70b", gpu="h100-sxm", gpus=4),
    "inference_deepseek_v3_q4_k_m": MemoryRequest(model="deepseek-v3", weights="q4_k_m"),
    "full_7.5b_zero3_64gpu": MemoryRequest(
        params="7.5e9", task="full", precision="mixed-zero", gpus=64, zero=3
    ),
    "qlora_llama_2_70b": MemoryRequest(model="llama-2-70b", task="qlora", gpu="l40s"),
}


def _accuracy() -> list[dict[str, Any]]:
    from tools.catalog import get_catalog

    models = get_catalog().models
    rows: list[tuple[str, float, float, str, str]] = []
    rows.append(
        (
            "KV bytes/token Llama-3.1-70B bf16",
            kv_cache_bytes_per_token(models["llama-3.1-70b"].architecture),
            327_680,
            "B",
            "2·80·8·128·2 (Llama 3.1 config)",
        )
    )
    rows.append(
        (
            "KV bytes/token DeepSeek-V3 (MLA)",
            kv_cache_bytes_per_token(models["deepseek-v3"].architecture),
            70_272,
            "B",
            "DeepSeek-V2 paper §2.1.2 latent layout",
        )
    )
    for zero, reference in ((0, 120.0), (1, 31.4), (2, 16.6), (3, 1.9)):
        est = estimate_memory(
            MemoryRequest(params="7.5e9", task="full", precision="mixed-zero", gpus=64, zero=zero)
        )
        state = sum(est.breakdown[k] for k in ("weights", "gradients", "optimizer"))
        if zero == 3:  # the paper counts the sharded state alone, not the gathered layers
            state -= references.zero3_gathered_bytes_bf16(params="7.5e9")
        rows.append(
            (
                f"ZeRO-{zero} model states, 7.5B on 64 GPUs",
                state / 1e9,
                reference,
                "GB",
                "ZeRO paper arXiv 1910.02054 Fig. 1",
            )
        )
    rows.append(
        (
            "Llama-2-13B Q4_K_M file",
            weight_bytes(models["llama-2-13b"].architecture, "q4_k_m").total / 1e9,
            7.87,
            "GB",
            "localmodels/Llama-2-13B-ggml README",
        )
    )
    return [
        {
            "quantity": q,
            "predicted": p,
            "reference": r,
            "unit": u,
            "error_pct": percent_error(p, r),
            "source": s,
        }
        for q, p, r, u, s in rows
    ]


def run() -> dict[str, Any]:
    """Median time of one estimate per case (ms) and accuracy rows."""
    speed: dict[str, dict[str, float]] = {}
    for name, request in SPEED_CASES.items():
        # A first question about a model: the weight-bytes and parameter-count caches are
        # emptied before each estimate, so the figure is not the cached repeat.
        def cold(request: MemoryRequest = request) -> object:
            _weight_bytes.cache_clear()
            count_parameters.cache_clear()
            return estimate_memory(request)

        timing = time_call(cold, repeat=300)
        speed[name] = {**timing, "target_ms": TARGET_MS}
    return {"speed": speed, "accuracy": _accuracy()}


if __name__ == "__main__":
    import json

    print(json.dumps(run(), indent=2))
