"""`memory_figures`, the memory calculator's lean path (its figures without the text), against
the full `estimate_memory`: the same numbers for every inference request, and a recommendation
built on it identical, ranking and figures, to one built on full estimates."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

import tools.recommend.inference as inference
from tools.memory import MemoryFigures, estimate_memory, memory_figures, validate_request
from tools.recommend import recommend
from tools.workload import Constraints, Workload

MODELS = ("llama-3.1-8b", "llama-3.1-405b", "mixtral-8x7b", "gemma-2-27b", "deepseek-v3")
GPUS = ("h100-sxm", "rtx-4090", "apple-m2-ultra", "mi300x")
LAYOUTS = ((1, 1), (2, 1), (8, 1), (4, 2))
ENGINES = (None, "vllm", "generic", "transformers")


def _requests() -> list[dict[str, Any]]:
    out = []
    for i, (model, gpu, (tp, pp), engine) in enumerate(
        itertools.product(MODELS, GPUS, LAYOUTS, ENGINES)
    ):
        fields: dict[str, Any] = {
            "model": model,
            "gpu": gpu,
            "gpus": tp * pp,
            "tp": tp,
            "pp": pp,
            "batch": 1 + i % 3,
            "context": (4096, 32_768, 1000)[i % 3],
        }
        if engine is not None:
            fields["engine"] = engine
        if i % 4 == 1:
            fields["weights"] = "fp8"
        if i % 4 == 2:
            fields["weights"] = "q4_k_m"
        out.append(fields)
    return out


def test_lean_figures_equal_the_full_estimate() -> None:
    checked = 0
    for fields in _requests():
        req = validate_request(fields)
        assert memory_figures(req) == MemoryFigures.of(estimate_memory(req)), fields
        checked += 1
    assert checked == len(MODELS) * len(GPUS) * len(LAYOUTS) * len(ENGINES)


def test_training_requests_take_the_full_estimates_figures() -> None:
    req = validate_request(
        {"model": "llama-3.1-8b", "task": "qlora", "gpu": "rtx-4090", "gpus": 1, "batch": 2}
    )
    assert memory_figures(req) == MemoryFigures.of(estimate_memory(req))


@pytest.mark.parametrize(
    "workload",
    [
        Workload(model="llama-3.1-405b", users=256),
        Workload(model="llama-3.1-70b", users=32, prompt_tokens=2048, output_tokens=512),
        Workload(model="mixtral-8x7b", users=100, weights="fp8", objective="fastest"),
        Workload(model="gemma-2-27b", users=8, engine="generic", objective="cheapest_per_token"),
        Workload(
            model="qwen2.5-7b",
            users=4,
            constraints=Constraints(only_gpus=["apple-m2-ultra", "apple-m4-max-40c"]),
        ),
    ],
    ids=["405b-256", "70b-32", "mixtral-fastest", "gemma-llamacpp", "qwen-mac"],
)
def test_recommendation_on_lean_figures_is_the_full_ones(
    workload: Workload, monkeypatch: pytest.MonkeyPatch
) -> None:
    lean = recommend(workload).model_dump(mode="json")
    monkeypatch.setattr(inference, "memory_figures", lambda r: MemoryFigures.of(estimate_memory(r)))
    full = recommend(workload).model_dump(mode="json")
    assert [o["gpu"] for o in lean["options"]] == [o["gpu"] for o in full["options"]]
    assert lean == full
