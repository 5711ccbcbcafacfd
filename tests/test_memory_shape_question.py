"""`gpu-sizer memory` with a model given only by its size asks what `ask` asks when the verdict
on the GPU depends on the architecture (the shape question, tools/sizing/shapes.py)."""

from __future__ import annotations

import json

import pytest

from assistant.cli import main

# The generic 32B reading: 36 layers × 8 KV heads × 128 × 2 (K and V) × 2 B = 147,456 B per
# token; Command R 35B (config.json: 40 layers, 64 KV heads of 128) caches 1,310,720 B:
# × 32,768 tokens × 4 sequences = 171.8 GB, over an H100's 76.97 GB budget alone.
GENERIC_32B_KV = 36 * 8 * 128 * 2 * 2
COMMAND_R_KV = 40 * 64 * 128 * 2 * 2
WORKLOAD = ["--weights", "fp8", "--gpu", "h100-sxm", "--context", "32768", "--batch", "4"]


@pytest.mark.parametrize("params", ["32B", "32e9", "32000000000"])
def test_memory_json_carries_the_shape_question(
    capsys: pytest.CaptureFixture[str], params: str
) -> None:
    assert main(["memory", "--params", params, *WORKLOAD, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    shape = out["shape_question"]
    assert (
        shape["default_kv_cache_bytes_per_token"]
        == GENERIC_32B_KV
        == out["kv_cache_bytes_per_token"]
    )
    assert shape["default_fits"] is True and out["fits"] is True
    flipped = {s["model_id"]: s for s in shape["shapes"] if not s["fits"]}
    assert flipped["command-r-35b"]["kv_cache_bytes_per_token"] == COMMAND_R_KV
    assert "config.json" in shape["question"]


def test_memory_text_asks_the_question(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["memory", "--params", "32B", *WORKLOAD]) == 0
    assert "Architecture question: The verdict depends on the architecture" in (
        capsys.readouterr().out
    )


def test_a_catalog_model_or_no_gpu_has_no_shape_question(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["memory", "--model", "qwen3-32b", *WORKLOAD, "--json"]) == 0
    assert "shape_question" not in json.loads(capsys.readouterr().out)
    assert main(["memory", "--params", "32B", "--weights", "fp8", "--json"]) == 0
    assert "shape_question" not in json.loads(capsys.readouterr().out)
