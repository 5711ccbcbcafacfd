"""`memory`, `recommend` and `cost` take the new catalog's ids and aliases (issue 15), through
the real dispatcher (assistant.cli.main)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from assistant.cli import main

GiB = 2**30


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    code = main([*argv, "--json"])
    out = capsys.readouterr().out
    assert code == 0, out
    return json.loads(out)


def test_memory_takes_a_checkpoint_name_and_a_mac_with_its_ram(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = _json(capsys, "memory", "--model", "Qwen/Qwen3-32B-AWQ", "--gpu", "M3 Max 64GB")
    # The AWQ repo is Qwen3 32B in AWQ int4; the 64 GB M3 Max gives the GPU 3/4 = 48 GiB.
    assert (out["model_id"], out["weights_format"]) == ("qwen3-32b", "int4-awq")
    assert (out["gpu"], out["engine"]) == ("apple-m3-max-40c-64gb", "generic")
    assert out["usable_bytes_per_gpu"] == out["budget_bytes_per_gpu"] == 48 * GiB


def test_recommend_takes_r1_and_a_t4(capsys: pytest.CaptureFixture[str]) -> None:
    out = _json(capsys, "recommend", "--model", "Llama 3.3 70B", "--only", "T4", "--max-gpus", "8")
    assert out["model_id"] == "llama-3.3-70b"
    assert {o["gpu"] for o in out["options"]} == {"t4"}
    # T4 has no bf16: the recommendation is sized in fp16 (2 B × 70,553,706,496 weights).
    assert out["weights_format"] == "fp16"
    out = _json(capsys, "recommend", "--model", "R1", "--only", "h200-sxm", "--max-gpus", "8")
    assert out["model_id"] == "deepseek-r1" and out["weights_format"] == "fp8"


def test_cost_takes_a_new_gpu(capsys: pytest.CaptureFixture[str]) -> None:
    out = _json(capsys, "cost", "--gpu", "rtx-3090", "--count", "1")
    providers = {row["provider"] for row in out["rows"]}
    # RunPod Secure Cloud $0.43/h (snapshot 2025-07-13) and the Vast.ai floor $0.18/h.
    assert "RunPod" in providers
    assert any(row["usd_per_hour"] == pytest.approx(0.43) for row in out["rows"])
