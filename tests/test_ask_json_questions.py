"""`ask --json` carries the report's clarifying questions typed: the shape question (a model
known only by its size whose verdict on the GPU depends on its architecture) and the variant
question (a GPU name whose variants get different verdicts), each with its figures and the
question in words — not only the answer's prose."""

from __future__ import annotations

import json
from typing import Any

import pytest

from assistant.cli import main

# The generic 32B reading: GQA, 36 layers × 8 KV heads × 128 × 2 (K and V) × 2 B (bf16).
GENERIC_32B_KV = 36 * 8 * 128 * 2 * 2  # 147,456 B per token
# Command R 35B (config.json: 40 layers, 64 KV heads of 128): full MHA.
COMMAND_R_KV = 40 * 64 * 128 * 2 * 2  # 1,310,720 B per token


def _ask(capsys: pytest.CaptureFixture[str], question: str) -> dict[str, Any]:
    assert main(["ask", "--offline", "--no-save", "--json", question]) == 0
    sizing: dict[str, Any] = json.loads(capsys.readouterr().out)["sizing"]
    return sizing


@pytest.mark.parametrize(
    "question",
    [
        "Foo-32B in fp8 on an H100 with 32k context for 4 users",
        "can acme/Foo-32B-Instruct run in fp8 on one H100 at 32k context with 4 concurrent users?",
        "Bar_32b, fp8 weights, an H100, 4 users, 32k tokens of context",
    ],
)
def test_the_shape_question_is_typed(capsys: pytest.CaptureFixture[str], question: str) -> None:
    shape = _ask(capsys, question)["shape_question"]
    assert shape is not None
    assert (shape["params"], shape["gpu"], shape["count"]) == (32e9, "h100-sxm", 1)
    assert shape["default_kv_cache_bytes_per_token"] == GENERIC_32B_KV
    assert shape["default_fits"] is True
    shapes = {s["model_id"]: s for s in shape["shapes"]}
    assert shapes["command-r-35b"]["kv_cache_bytes_per_token"] == COMMAND_R_KV
    assert shapes["command-r-35b"]["fits"] is False
    # The range of 'that size': 32B ÷ 1.2 to × 1.2.
    assert (shape["low"], shape["high"]) == (26_666_666_667, 38_400_000_000)
    assert "config.json" in shape["question"]


def test_the_variant_question_is_typed(capsys: pytest.CaptureFixture[str]) -> None:
    # Qwen3 4B in bf16: 8.04 GB of weights, over the 8 GB card's 6.88 GiB budget, within the
    # 16 GB card's 14.40 GiB.
    sizing = _ask(capsys, "Qwen3 4B on my RTX 4060 Ti")
    variant = sizing["variant_question"]
    assert variant is not None and sizing["shape_question"] is None
    assert variant["fits_on"] == ["GeForce RTX 4060 Ti 16 GB"]
    assert variant["not_on"] == ["GeForce RTX 4060 Ti 8 GB"]
    assert variant["question"] == sizing["question"]


def test_no_question_is_null(capsys: pytest.CaptureFixture[str]) -> None:
    sizing = _ask(capsys, "serve Llama 3.1 8B on an L4 to 10 users")
    assert sizing["shape_question"] is None and sizing["variant_question"] is None


@pytest.mark.parametrize(
    "question",
    [
        "can my 3090 run Qwen3 32B in 4-bit with 16k context?",
        "Qwen3 32B int4 on one RTX 3090 at 16k context",
    ],
)
def test_the_ways_out_are_typed(capsys: pytest.CaptureFixture[str], question: str) -> None:
    """What would fit on the one 3090 is in the JSON too, not only in the answer's prose."""
    sizing = _ask(capsys, question)
    levers = {w["lever"]: w for w in sizing["ways_out"]}
    shorter = levers["shorter_context"]
    assert (shorter["gpu"], shorter["count"], shorter["fits"]) == ("rtx-3090", 1, True)
    # Qwen3 32B's KV cache (config.json: 64 layers × 8 KV heads × 128 × 2 × 2 B = 262,144 B per
    # token) leaves room for 3,456 tokens in whole 16-token blocks on the 3090's budget.
    assert shorter["changes"]["context"] == 3_456
    assert shorter["per_gpu_bytes"] <= shorter["budget_bytes_per_gpu"]
    holds = sizing["holds"]
    # 24.8 GiB needed against a 21.6 GiB budget: at least ceil(24.8 / 21.6) = 2 cards.
    assert holds["gpu"] == "rtx-3090" and holds["count"] >= 2
