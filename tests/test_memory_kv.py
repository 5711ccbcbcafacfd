"""KV-cache bytes per token and per context, against published figures and hand calculations."""

from __future__ import annotations

import json

import pytest

from bench import references
from tools.architecture import Architecture
from tools.catalog import get_catalog
from tools.memory import kv_cache_bytes, kv_cache_bytes_per_token

PARAMS_JSON = references.PARAMS_JSON  # meta-device counts from shared/research, copied

# params.json key → catalog id (the research file uses Hugging Face names).
RESEARCH_TO_ID = references.RESEARCH_TO_ID


def arch(model_id: str) -> Architecture:
    return get_catalog().models[model_id].architecture


# An OPT-13B-shaped MHA model (OPT paper arXiv 2205.01068 Table 1: 40 layers, 40 heads,
# d_model 5120). Only the attention shape matters for the KV cache.
OPT_13B_SHAPE = Architecture(
    family="generic",
    num_layers=40,
    hidden_size=5120,
    intermediate_size=20480,
    num_attention_heads=40,
    num_kv_heads=40,
    head_dim=128,
    vocab_size=50272,
    max_context=2048,
)


def test_llama_3_1_70b_kv_bytes_per_token() -> None:
    # Hand calculation: 2 (K, V) × 80 layers × 8 KV heads × 128 head_dim × 2 bytes = 327,680.
    assert kv_cache_bytes_per_token(arch("llama-3.1-70b"), "bf16") == 2 * 80 * 8 * 128 * 2
    assert kv_cache_bytes_per_token(arch("llama-3.1-70b"), "bf16") == 327_680


def test_deepseek_v3_mla_kv_bytes_per_token() -> None:
    # DeepSeek-V2 paper §2.1.2: MLA caches the latent (kv_lora_rank 512) and the decoupled RoPE
    # key (64) per layer: 61 layers × (512 + 64) × 2 bytes = 70,272.
    assert kv_cache_bytes_per_token(arch("deepseek-v3"), "bf16") == 61 * (512 + 64) * 2 == 70_272


def test_opt_13b_shape_matches_vllm_paper() -> None:
    # vLLM paper (arXiv 2309.06180 §3): "the KV cache of a single token demands 800 KB of space,
    # calculated as 2 (key and value vectors) × 5120 (hidden state size) × 40 (number of layers)
    # × 2 (bytes per FP16)", and up to 1.6 GB for one 2048-token request.
    assert kv_cache_bytes_per_token(OPT_13B_SHAPE, "fp16") == 2 * 5120 * 40 * 2 == 819_200
    request_bytes = kv_cache_bytes(OPT_13B_SHAPE, context=2048, kv_dtype="fp16")
    assert request_bytes == 819_200 * 2048
    assert request_bytes / 2**30 == pytest.approx(1.6, abs=0.05)  # 1.5625 GiB


def test_gemma2_sliding_layers_stop_growing_at_window() -> None:
    # Gemma 2 (transformers Gemma2Config): 42 layers alternating local (window 4096) and
    # global; 8 KV heads × head_dim 256 × 2 (K, V) × 2 bytes = 8,192 bytes per layer per token.
    a = arch("gemma-2-9b")
    per_layer = 2 * 8 * 256 * 2
    at_window = kv_cache_bytes(a, context=4096)
    assert at_window == 42 * per_layer * 4096
    beyond = kv_cache_bytes(a, context=8192)
    # Past 4096 tokens only the 21 global layers grow.
    assert beyond - at_window == 21 * per_layer * 4096
    assert kv_cache_bytes(a, context=8192) - kv_cache_bytes(a, context=8191) == 21 * per_layer


@pytest.mark.parametrize("research_name", sorted(RESEARCH_TO_ID))
def test_kv_bytes_per_token_match_research_for_all_models(research_name: str) -> None:
    # params.json: computed independently from each config.json by count_params.py.
    record = json.loads(PARAMS_JSON.read_text())["models"][research_name]["kv_cache"]
    expected = record.get("bytes_per_token_bf16_all_layers", record.get("bytes_per_token_bf16"))
    assert kv_cache_bytes_per_token(arch(RESEARCH_TO_ID[research_name]), "bf16") == expected


def test_kv_dtype_scales_bytes() -> None:
    a = arch("llama-3.1-8b")
    # 2 × 32 layers × 8 KV heads × 128 × 1 byte (fp8) = 65,536
    assert kv_cache_bytes_per_token(a, "fp8") == 2 * 32 * 8 * 128 == 65_536
    assert kv_cache_bytes_per_token(a, "fp32") == 4 * 65_536


def test_tensor_parallel_splits_then_replicates_kv_heads() -> None:
    a = arch("llama-3.1-70b")
    # tp=8: one of the 8 KV heads per GPU → 2 × 80 × 1 × 128 × 2 = 40,960
    assert kv_cache_bytes_per_token(a, "bf16", tp=8) == 40_960
    # tp=16: still one head per GPU (replicated), not half a head
    assert kv_cache_bytes_per_token(a, "bf16", tp=16) == 40_960
    # MLA's latent is not split by heads: the same bytes on every rank
    ds = arch("deepseek-v3")
    assert kv_cache_bytes_per_token(ds, "bf16", tp=8) == 70_272


def test_vllm_blocks_round_each_sequence_up_to_16_tokens() -> None:
    a = arch("llama-3.1-8b")
    per_token = 131_072  # 2 × 32 × 8 × 128 × 2
    # 1000 tokens → 63 blocks of 16 = 1008 tokens, for each of 3 sequences
    assert kv_cache_bytes(a, context=1000, sequences=3, block_tokens=16) == per_token * 1008 * 3
    assert kv_cache_bytes(a, context=1000, sequences=3) == per_token * 1000 * 3


def test_pipeline_stage_holds_its_layers_only() -> None:
    a = arch("llama-3.1-70b")
    # pp=4 → 20 of 80 layers per stage: a quarter of the cache
    assert kv_cache_bytes(a, context=4096, pp=4) == 327_680 * 4096 // 4
