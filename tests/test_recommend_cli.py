"""`gpu-sizer recommend` through the dispatcher: JSON contract, human table, errors.

Sources: /work/shared/research/params.json (Llama-3.1-70B 70,553,706,496 parameters, 327,680
KV bytes per token in bf16); catalog/gpus.toml (H200 usable 150,754,820,096 B, nvidia-smi
143,771 MiB); Llama 3 paper §6.1 (405B BF16 does not fit one 8×H100 machine).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from assistant.cli import main
from tools.catalog import get_catalog

ISSUE_FIELDS = (
    "gpu",
    "count",
    "tp",
    "pp",
    "dp",
    "fits",
    "per_gpu_bytes",
    "kv_cache_capacity_bytes",
    "max_concurrent_sequences",
    "decode_tokens_per_s_per_seq",
    "aggregate_tokens_per_s",
    "ttft_s",
    "reasons",
    "notes",
)


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["recommend", *argv, "--json"]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def test_json_lists_every_catalog_gpu_with_the_issue_fields(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = _json(capsys, "--model", "llama-3.1-70b", "--users", "16", "--ttft", "0.5")
    expected = sorted(g.id for g in get_catalog().default_candidates())
    assert sorted(o["gpu"] for o in out["options"]) == expected
    for option in out["options"]:
        for field in ISSUE_FIELDS:
            assert field in option
        assert isinstance(option["per_gpu_bytes"], int)
        assert "training_hours" not in option  # inference only
        if not option["meets_targets"]:
            assert option["reasons"]
    assert out["weight_bytes"] == 2 * 70_553_706_496
    assert out["kv_cache_bytes_per_token"] == 327_680


def test_human_output_shows_exact_kv_tokens_on_one_h200(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from tools.memory import MemoryRequest, estimate_memory

    # 0.99: at 0.98 the sampler reserve vLLM keeps for max_num_seqs = 1,024 requests
    # (1,024 × 128,256 × 16 B = 2.1 GB) leaves less than one 4,096-token sequence.
    argv = ["--model", "llama-3.1-70b", "--only", "h200-sxm", "--gpu-memory-utilization", "0.99"]
    assert main(["recommend", *argv]) == 0
    text = capsys.readouterr().out
    # KV tokens = (0.99 × 150,754,820,096 − weights 2 × 70,553,706,496 − activations − runtime)
    # // 327,680, with activations and runtime from the memory calculator.
    mem = estimate_memory(
        MemoryRequest(
            model="llama-3.1-70b", gpu="h200-sxm", context=4096, gpu_memory_utilization=0.99
        )
    )
    non_kv = 2 * 70_553_706_496 + mem.breakdown["activations"] + mem.breakdown["overhead"]
    tokens = (int(150_754_820_096 * 0.99) - non_kv) // 327_680
    row = next(line for line in text.splitlines() if line.startswith("h200-sxm "))
    assert row.split()[:2] == ["h200-sxm", "1"] and f"{tokens:,}" in row.split()
    # No lengths given: the default request, 3,072 prompt + 1,024 output = 4,096 tokens.
    assert "context 4,096 tokens" in text and "327,680 bytes per token" in text


def test_405b_on_h100_node_says_it_does_not_fit_and_what_does(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = _json(capsys, "--model", "llama-3.1-405b", "--only", "h100-sxm", "--single-node")
    (option,) = out["options"]
    assert option["fits"] is False and option["reasons"]
    assert out["nearest_feasible"]
    assert any("does not fit one node" in n and "fp8 weights" in n for n in out["notes"])


def test_training_json_carries_hours(capsys: pytest.CaptureFixture[str]) -> None:
    out = _json(
        capsys, "--model", "llama-3.1-8b", "--task", "lora", "--train-tokens", "1e8",
        "--only", "h100-sxm",
    )  # fmt: skip
    (option,) = out["options"]
    assert option["training_hours"] > 0
    assert option["gpu_hours"] == pytest.approx(option["training_hours"] * option["count"])


@pytest.mark.parametrize(
    ("argv", "field"),
    [
        (["--model", "llama-3.1-70b", "--weights", "int3"], "weights"),
        (["--model", "llama-3.1-70b", "--users", "0"], "users"),
        (["--model", "no-such-model"], "model"),
    ],
)
def test_bad_input_exits_2_naming_the_field(
    capsys: pytest.CaptureFixture[str], argv: list[str], field: str
) -> None:
    assert main(["recommend", *argv]) == 2
    captured = capsys.readouterr()
    assert f"error: --{field}:" in captured.err  # the flag typed, not the model field
    assert "Traceback" not in captured.err
