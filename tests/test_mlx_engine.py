"""MLX is an engine of its own (issue 31 point 1): `--engine mlx` sizes mlx-lm (text model only,
prompts in steps of 2,048 tokens, no memory reserve) and times it with the MLX family's
figures, not llama.cpp's per-token host time."""

from __future__ import annotations

import json

import pytest

from assistant.cli import main
from tools.memory import MemoryRequest, estimate_memory

# waybarrios/vllm-mlx#531 (2026-05-13): Apple M4 Pro, mlx-community/Qwen3-0.6B-8bit, 1,280
# tokens generated over 5 runs (256 each) after ~11-token prompts: 284.22 tok/s. A held-out
# publication of the performance fit (bench/perf_rows.py).
VLLM_MLX_M4_PRO_QWEN3_06B = 284.22


def _option(capsys: pytest.CaptureFixture[str], engine: str) -> dict[str, object]:
    argv = ["recommend", "--model", "qwen3-0.6b", "--weights", "q8_0", "--engine", engine]
    argv += ["--gpu", "apple-m4-pro", "--prompt-tokens", "11", "--output-tokens", "256", "--json"]
    assert main(argv) == 0
    option: dict[str, object] = json.loads(capsys.readouterr().out)["options"][0]
    return option


def test_the_mlx_figure_is_the_model_s_within_25_percent(
    capsys: pytest.CaptureFixture[str],
) -> None:
    option = _option(capsys, "mlx")
    assert option["speed_basis"] == "measured"
    assert option["decode_tokens_per_s_per_seq"] == VLLM_MLX_M4_PRO_QWEN3_06B
    modelled = option["modelled_tokens_per_s_per_seq"]
    assert isinstance(modelled, float)
    assert VLLM_MLX_M4_PRO_QWEN3_06B / 1.25 < modelled < VLLM_MLX_M4_PRO_QWEN3_06B * 1.25
    # llama.cpp's Metal figure for the same setup is its own engine's, not MLX's measurement.
    llama = _option(capsys, "generic")
    assert llama["speed_basis"] != "measured"


def test_mlx_memory_is_the_text_model_at_its_prefill_step() -> None:
    est = estimate_memory(
        MemoryRequest(model="gemma-3-27b", engine="mlx", gpu="apple-m3-ultra", context=8192)
    )
    assert est.engine == "mlx"
    assert est.budget_bytes_per_gpu == est.usable_bytes_per_gpu  # no utilization reserve
    # mlx-lm loads the language model only: the vision tower is left out, as for llama.cpp.
    assert any("Vision tower" in a and "left out" in a for a in est.assumptions)
    # mlx-lm's generate_step prefills in steps of prefill_step_size = 2,048 tokens.
    assert any("2,048 tokens per forward pass" in a for a in est.assumptions)


def test_mlx_on_a_cuda_card_is_warned() -> None:
    est = estimate_memory(MemoryRequest(model="llama-3.1-8b", engine="mlx", gpu="rtx-4090"))
    assert any("MLX is Apple's framework" in w.text for w in est.warnings)
