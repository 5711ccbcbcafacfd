"""LoRA adapter dtype: bf16 (QLoRA paper setup) vs fp32 (PEFT's default autocast)."""

from __future__ import annotations

import json

import pytest

from assistant.cli import main
from tools.memory import MemoryRequest, estimate_memory

# Llama-2-7B, LoRA r=64 on q,k,v,o,gate,up,down: r·(in + out) per matrix, 32 layers:
# attention 4 × 64 × (4096 + 4096) = 2,097,152; gate/up 2 × 64 × (4096 + 11008) = 1,933,312;
# down 64 × (11008 + 4096) = 966,656 → 4,997,120 per layer × 32 = 159,907,840.
LORA_PARAMS = 159_907_840
BASE_BF16 = 6_738_415_616 * 2  # params.json count × 2 bytes


def test_fp32_adapters_cost_two_more_bytes_for_weights_and_gradients() -> None:
    fp32 = estimate_memory(
        MemoryRequest(model="llama-2-7b", task="lora", lora_rank=64, adapter_dtype="fp32")
    )
    assert fp32.breakdown["weights"] == BASE_BF16 + LORA_PARAMS * 4
    assert fp32.breakdown["gradients"] == LORA_PARAMS * 4
    assert fp32.breakdown["optimizer"] == LORA_PARAMS * 8  # AdamW m and v in fp32
    bf16 = estimate_memory(MemoryRequest(model="llama-2-7b", task="lora", lora_rank=64))
    assert fp32.per_gpu_bytes - bf16.per_gpu_bytes == LORA_PARAMS * (2 + 2)


def test_default_states_the_choice_and_the_alternative() -> None:
    est = estimate_memory(MemoryRequest(model="llama-2-7b", task="lora"))
    text = " ".join(est.assumptions + [a for c in est.components for a in c.assumptions])
    assert "PEFT upcasts them to fp32 by default" in text


def test_cli_flag(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["memory", "--model", "llama-2-7b", "--task", "lora", "--lora-rank", "64", "--json"]
    assert main([*args, "--adapter-dtype", "fp32"]) == 0
    assert json.loads(capsys.readouterr().out)["breakdown"]["gradients"] == LORA_PARAMS * 4
