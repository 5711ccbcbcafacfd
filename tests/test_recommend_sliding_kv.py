"""KV-cache capacity in tokens for models with sliding-window layers (QA round 3, H).

A sliding-window layer keeps at most `window` tokens, so at a long context a token costs less
KV cache than the full-attention per-token rate. The token column must divide the KV room by
the bytes a token costs at the requested context; the sequence count was already right.
Architectures quoted from catalog/models.toml (config.json copies, sources there).
"""

from __future__ import annotations

import pytest

from tools.recommend import Option, recommend
from tools.workload import Constraints, Workload


def _one_gpu(model: str, context: int, gpu: str = "h100-sxm") -> Option:
    w = Workload(model=model, context=context, constraints=Constraints(only_gpus=[gpu]))
    option = recommend(w).options[0]
    assert (option.count, option.tp, option.pp) == (1, 1, 1)
    return option


def test_gpt_oss_120b_on_one_h100_at_32k() -> None:
    # openai/gpt-oss ModelConfig: 36 layers, 8 KV heads, head_dim 64, sliding_window 128 on
    # 18 of the layers (alternating). bf16 KV: 2 (K, V) × 8 × 64 × 2 B = 2,048 B per layer.
    per_layer_token = 2 * 8 * 64 * 2
    full_rate = 36 * per_layer_token  # 73,728 B: the rate QA saw divided into the room
    one_sequence = per_layer_token * (18 * 32_768 + 18 * 128)  # window layers hold 128
    at_32k = one_sequence / 32_768  # 37,008 B per token
    assert at_32k == 37_008
    o = _one_gpu("gpt-oss-120b", 32_768)
    assert o.kv_cache_capacity_tokens == int(o.kv_cache_capacity_bytes // at_32k)
    assert o.kv_cache_capacity_tokens > o.kv_cache_capacity_bytes // full_rate * 1.9
    # QA's figures were ~8.5 GiB of KV room → ~247k tokens, 7 sequences of 32k. vLLM also
    # keeps its sampler reserve for max_num_seqs = 1,024 requests out of the KV cache (H100:
    # ≥ 70 GiB): 1,024 × 201,088 × 16 B = 3.29 GB (3.07 GiB), so ~5.4 GiB → ~156k tokens
    # (5.4 × 2^30 / 37,008) and 4 sequences of 32k.
    # On Hopper vLLM also holds gpt-oss-120b's MXFP4 weights at 64.38 GiB, not the
    # checkpoint's 60.77 (llm-d's vLLM v0.11.0 H100 log): 3.61 GiB less room again, ~1.8 GiB
    # → ~52k tokens and one sequence of 32k (the model pads the 2,880-wide experts to 3,072:
    # 3.78 GiB, within 0.2 GiB of the log; tools/memory/engine_versions.py).
    sampler = 1024 * 201_088 * 16
    hopper_padding = (64.38 - 60.77) * 2**30
    room = 8.5 * 2**30 - sampler - hopper_padding
    assert o.kv_cache_capacity_tokens == pytest.approx(room / at_32k, rel=0.12)
    assert o.max_concurrent_sequences == 1
    # The two columns agree: the sequences × 32,768 tokens fit in the token count.
    assert o.max_concurrent_sequences * 32_768 <= o.kv_cache_capacity_tokens


def test_gemma_2_27b_at_8k() -> None:
    # Gemma 2 27B config.json: 46 layers, 16 KV heads, head_dim 128, sliding_window 4,096 on
    # 23 local layers. bf16: 2 × 16 × 128 × 2 B = 8,192 B per layer per token.
    per_layer_token = 2 * 16 * 128 * 2
    at_8k = per_layer_token * (23 * 8_192 + 23 * 4_096) / 8_192  # 282,624 B per token
    assert at_8k == 282_624
    o = _one_gpu("gemma-2-27b", 8_192)
    assert o.kv_cache_capacity_tokens == int(o.kv_cache_capacity_bytes // at_8k)


def test_full_attention_model_keeps_the_per_token_rate() -> None:
    # Llama 3.1 8B: 32 layers × 2 × 8 KV heads × 128 × 2 B = 131,072 B per token at any
    # context; 4,100 tokens is not a multiple of vLLM's 16-token blocks, and the rounding
    # must not raise the rate.
    o = _one_gpu("llama-3.1-8b", 4_100)
    assert o.kv_cache_capacity_tokens == o.kv_cache_capacity_bytes // (32 * 2 * 8 * 128 * 2)
