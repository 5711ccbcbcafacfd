"""`Architecture` validation and the KV-relevant properties, against published configs."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from tools.architecture import Architecture, MoE
from tools.catalog import get_catalog

# Llama-2-7B config.json (shared/research/models.json): 32 layers, 4096 hidden, 32 heads, MHA.
_BASE: dict[str, Any] = {
    "family": "llama",
    "num_layers": 32,
    "hidden_size": 4096,
    "intermediate_size": 11008,
    "num_attention_heads": 32,
    "num_kv_heads": 32,
    "head_dim": 128,
    "vocab_size": 32000,
    "max_context": 4096,
}


def test_heads_not_divisible_by_kv_heads() -> None:
    with pytest.raises(ValidationError, match="not a multiple of num_kv_heads"):
        Architecture(**{**_BASE, "num_kv_heads": 5})


def test_top_k_above_experts() -> None:
    with pytest.raises(ValidationError, match="exceeds num_experts"):
        MoE(num_experts=8, experts_per_token=9, expert_intermediate_size=14336)


def test_sliding_layers_need_a_window_and_fit_the_model() -> None:
    with pytest.raises(ValidationError, match="without sliding_window"):
        Architecture(**{**_BASE, "sliding_window_layers": 4})
    with pytest.raises(ValidationError, match="exceeds num_layers"):
        Architecture(**{**_BASE, "sliding_window": 4096, "sliding_window_layers": 33})


def test_non_positive_sizes_rejected() -> None:
    with pytest.raises(ValidationError):
        Architecture(**{**_BASE, "num_layers": 0})


@pytest.mark.parametrize(
    ("model_id", "kind"),
    [
        ("llama-2-7b", "MHA"),  # 32 heads, 32 KV heads (Llama 2 7B config)
        ("llama-3.1-70b", "GQA"),  # 64 heads, 8 KV heads (Llama 3.1 70B config)
        ("deepseek-v3", "MLA"),  # kv_lora_rank 512 (DeepSeek-V3 config, arXiv 2412.19437)
    ],
)
def test_attention_kind(model_id: str, kind: str) -> None:
    assert get_catalog().model(model_id).architecture.attention_kind == kind


def test_single_kv_head_is_mqa() -> None:
    assert Architecture(**{**_BASE, "num_kv_heads": 1}).attention_kind == "MQA"


def test_moe_layer_counts() -> None:
    catalog = get_catalog()
    # DeepSeek-V3 config: 61 layers, first_k_dense_replace = 3 -> 58 MoE layers.
    assert catalog.model("deepseek-v3").architecture.num_moe_layers == 58
    # Mixtral 8x7B: every one of its 32 layers is MoE; Llama has none.
    assert catalog.model("mixtral-8x7b").architecture.num_moe_layers == 32
    assert catalog.model("llama-3.1-8b").architecture.num_moe_layers == 0


def test_gemma2_sliding_window_layers_in_catalog() -> None:
    # Gemma 2 9B: 42 layers alternating local (4,096-token window) and global attention
    # (Gemma 2 paper, arXiv 2408.00118 §2): 21 local layers.
    arch = get_catalog().model("gemma-2-9b").architecture
    assert (arch.sliding_window, arch.sliding_window_layers) == (4096, 21)
