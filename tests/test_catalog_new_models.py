"""The 48 models of the 2026-12 research pass: exact counts, KV bytes, aliases, shared shapes.

Oracle: tests/data/research/params-new.json, printed by shared/research/2026-12/
count_params_new.py (torch 2.13.0 CPU, transformers 5.24.0), which instantiates each
models-new.json config on PyTorch's meta device (the whole *ForConditionalGeneration for
multimodal checkpoints) and sums `p.numel()`; its KV bytes/token come from the instantiated
config's layer types. Independent of tools/architecture.py. Checkpoint metadata quoted in
models-new.json (safetensors totals) is a second oracle where the research found one.
"""

from __future__ import annotations

import json
from datetime import date
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from tools.architecture import Architecture, MoE, count_parameters
from tools.catalog import get_catalog
from tools.memory.kv_cache import kv_cache_bytes, kv_cache_bytes_per_token
from tools.memory.tensors import inventory_params
from tools.pricing import as_of_instant, check_as_of
from tools.vision_tower import VisionTower

DATA = Path(__file__).parent / "data" / "research"

# research record key -> catalog id
NEW_MODELS: dict[str, str] = {
    "Llama-3.3-70B": "llama-3.3-70b",
    "Llama-4-Scout-17B-16E": "llama-4-scout",
    "Llama-4-Maverick-17B-128E": "llama-4-maverick",
    "Qwen3-0.6B": "qwen3-0.6b",
    "Qwen3-1.7B": "qwen3-1.7b",
    "Qwen3-4B": "qwen3-4b",
    "Qwen3-8B": "qwen3-8b",
    "Qwen3-14B": "qwen3-14b",
    "Qwen3-32B": "qwen3-32b",
    "Qwen3-235B-A22B": "qwen3-235b-a22b",
    "Qwen3-Coder-30B-A3B": "qwen3-coder-30b-a3b",
    "Qwen3-Coder-480B-A35B": "qwen3-coder-480b-a35b",
    "Qwen2.5-0.5B": "qwen2.5-0.5b",
    "Qwen2.5-1.5B": "qwen2.5-1.5b",
    "Qwen2.5-3B": "qwen2.5-3b",
    "Qwen2.5-14B": "qwen2.5-14b",
    "Qwen2.5-32B": "qwen2.5-32b",
    "Qwen2.5-Coder-32B": "qwen2.5-coder-32b",
    "Gemma-3-1B": "gemma-3-1b",
    "Gemma-3-4B": "gemma-3-4b",
    "Gemma-3-12B": "gemma-3-12b",
    "Gemma-3-27B": "gemma-3-27b",
    "Mistral-Small-3.1-24B": "mistral-small-3.1-24b",
    "Mistral-Nemo-12B": "mistral-nemo-12b",
    "Mistral-Large-2-123B": "mistral-large-2-123b",
    "DeepSeek-R1": "deepseek-r1",
    "DeepSeek-R1-Distill-Qwen-7B": "deepseek-r1-distill-qwen-7b",
    "DeepSeek-R1-Distill-Qwen-14B": "deepseek-r1-distill-qwen-14b",
    "DeepSeek-R1-Distill-Qwen-32B": "deepseek-r1-distill-qwen-32b",
    "DeepSeek-R1-Distill-Llama-8B": "deepseek-r1-distill-llama-8b",
    "DeepSeek-R1-Distill-Llama-70B": "deepseek-r1-distill-llama-70b",
    "DeepSeek-V2-Lite": "deepseek-v2-lite",
    "Phi-4": "phi-4",
    "Phi-4-mini": "phi-4-mini",
    "Phi-3.5-MoE": "phi-3.5-moe",
    "Kimi-K2": "kimi-k2",
    "GLM-4.5": "glm-4.5",
    "GLM-4.5-Air": "glm-4.5-air",
    "MiniMax-M2": "minimax-m2",
    "Command-R-35B": "command-r-35b",
    "Command-R-Plus-104B": "command-r-plus-104b",
    "Falcon3-7B": "falcon3-7b",
    "Falcon3-10B": "falcon3-10b",
    "OLMo-2-7B": "olmo-2-7b",
    "OLMo-2-13B": "olmo-2-13b",
    "OLMo-2-32B": "olmo-2-32b",
    "SmolLM3-3B": "smollm3-3b",
    "Granite-3.3-8B": "granite-3.3-8b",
}


@cache
def _meta() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DATA / "params-new.json").read_text(encoding="utf-8"))
    return data


@cache
def _configs() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DATA / "models-new.json").read_text(encoding="utf-8"))
    return data


def test_oracle_names_its_script_and_versions() -> None:
    meta = _meta()
    assert "count_params_new.py" in meta["script"]
    assert meta["torch"].startswith("2.13.0") and meta["transformers"] == "5.24.0"
    assert set(meta["models"]) == set(NEW_MODELS) == set(_configs())


def test_catalog_has_every_research_model() -> None:
    catalog = get_catalog()
    assert set(NEW_MODELS.values()) <= set(catalog.models)
    assert len(catalog.models) >= 69


@pytest.mark.parametrize("key", sorted(NEW_MODELS))
def test_counts_equal_the_meta_device(key: str) -> None:
    expected = _meta()["models"][key]
    entry = get_catalog().models[NEW_MODELS[key]]
    counts = entry.params
    assert counts.total == expected["total_params"]
    assert counts.active_per_token == expected["active_params_per_token"]
    assert counts.embedding == expected["embedding_params_input"]
    assert counts.lm_head == expected["lm_head_params_untied"] + (
        entry.architecture.vocab_size if entry.architecture.lm_head_bias else 0
    )
    assert entry.architecture.tied_embeddings == expected["tied_embeddings"]
    assert counts.vision == expected["vision_and_projector_params"]
    assert counts.text_only == expected["text_only_params"]
    assert counts.routed_experts == expected["routed_expert_params"]
    if expected["moe_layers"] is not None:
        assert entry.architecture.num_moe_layers == expected["moe_layers"]
    # The per-tensor inventory that weight bytes are built on sums to the same total.
    assert inventory_params(entry.architecture) == expected["total_params"]


@pytest.mark.parametrize("key", sorted(NEW_MODELS))
def test_kv_bytes_per_token_equal_the_meta_device(key: str) -> None:
    kv = _meta()["models"][key]["kv_cache"]
    arch = get_catalog().models[NEW_MODELS[key]].architecture
    if kv["kind"].startswith("MLA"):
        # layers × (kv_lora_rank + qk_rope_head_dim) × 2 B, as vLLM/SGLang cache MLA.
        assert kv_cache_bytes_per_token(arch) == kv["bytes_per_token_bf16"]
        return
    assert arch.head_dim == kv["head_dim"] and arch.num_kv_heads == kv["kv_heads"]
    assert kv_cache_bytes_per_token(arch) == kv["bytes_per_token_bf16_all_layers"]
    assert arch.full_attention_layers == kv.get("full_layers", arch.num_layers)
    assert arch.sliding_window_layers == kv.get("sliding_layers", 0)
    assert arch.chunked_attention_layers == kv.get("chunked_attention_layers", 0)
    if "window" in kv:
        assert arch.sliding_window == kv["window"]
    if "attention_chunk_size" in kv:
        assert arch.attention_chunk_size == kv["attention_chunk_size"]


@pytest.mark.parametrize(
    "key", sorted(k for k in NEW_MODELS if "full_layers" in _meta()["models"][k]["kv_cache"])
)
def test_windowed_layers_cap_the_cache_at_long_context(key: str) -> None:
    kv = _meta()["models"][key]["kv_cache"]
    arch = get_catalog().models[NEW_MODELS[key]].architecture
    per_layer = kv["bytes_per_layer_per_token_bf16"]
    cap = kv.get("window") or kv["attention_chunk_size"]
    windowed = kv.get("sliding_layers", 0) + kv.get("chunked_attention_layers", 0)
    for context in (cap // 2, 131_072):
        # Hand formula: full layers hold the whole context, windowed layers min(context, cap).
        expected = per_layer * (kv["full_layers"] * context + windowed * min(context, cap))
        assert kv_cache_bytes(arch, context=context) == expected
    # Past the window only the full layers grow: the long-context rate is the full-layer one.
    grow = kv_cache_bytes(arch, context=200_000) - kv_cache_bytes(arch, context=100_000)
    assert grow == 100_000 * kv["bytes_per_token_bf16_full_layers_only"]


def test_gemma3_27b_cache_at_128k_by_hand() -> None:
    # Gemma 3 27B: 62 layers, 5 local : 1 global → 52 sliding (window 1,024) + 10 global;
    # 16 KV heads × 128 × 2 (K, V) × 2 B = 8,192 B per layer per token.
    arch = get_catalog().model("gemma-3-27b").architecture
    expected = 8_192 * (10 * 131_072 + 52 * 1_024)
    assert kv_cache_bytes(arch, context=131_072) == expected == 11_173_625_856


def test_llama4_scout_cache_at_1m_by_hand() -> None:
    # Llama 4 Scout: 48 layers, every 4th global (NoPE), 36 chunked at 8,192;
    # 8 KV heads × 128 × 2 × 2 B = 4,096 B per layer per token.
    arch = get_catalog().model("llama-4-scout").architecture
    expected = 4_096 * (12 * 1_000_000 + 36 * 8_192)
    assert kv_cache_bytes(arch, context=1_000_000) == expected


@pytest.mark.parametrize(
    ("model_id", "checkpoint_params"),
    [
        # models-new.json `official_params`: HF safetensors metadata quoted by the research.
        # Qwen3-0.6B stores lm_head.weight although tied: 596,049,920 + 155,582,464.
        ("qwen3-0.6b", 751_632_384),
        ("qwen3-8b", 8_190_735_360),
        ("qwen3-32b", 32_762_123_264),
        ("qwen3-235b-a22b", 235_093_634_560),
        ("qwen3-coder-30b-a3b", 61_064_245_248 // 2),  # BF16 index total_size / 2 bytes
        ("qwen2.5-0.5b", 494_032_768),
        ("qwen2.5-1.5b", 1_543_714_304),
        ("qwen2.5-3b", 3_085_938_688),
        ("gemma-3-1b", 999_885_952),
        ("mistral-small-3.1-24b", 24_011_361_280),  # Magistral-Small-2509, same architecture
        ("deepseek-r1-distill-qwen-32b", 32_763_876_352),
        ("deepseek-r1-distill-llama-8b", 8_030_261_248),
        ("deepseek-r1-distill-qwen-7b", 7_615_616_512),  # Qwen2.5-7B-Instruct, shared geometry
        ("granite-3.3-8b", 8_170_864_640),  # the third-party table's count (vocab 49,159)
    ],
)
def test_checkpoint_metadata(model_id: str, checkpoint_params: int) -> None:
    assert get_catalog().model(model_id).checkpoint_params == checkpoint_params


def test_mtp_modules_are_on_disk_not_in_the_total() -> None:
    catalog = get_catalog()
    r1 = catalog.model("deepseek-r1")
    # DeepSeek-V3 README: 671B main model; the MTP module is extra (HF checkpoint ~685B).
    assert r1.params.total == 671_026_404_352
    assert r1.architecture.mtp_layers == 1
    # One MoE decoder layer + eh_proj (2 × 7,168 → 7,168) + 3 norms of 7,168, by hand:
    layer = (
        7_168 * 1_536 + 1_536 + 1_536 * 128 * 192  # q_a, q_a_layernorm, q_b
        + 7_168 * 576 + 512 + 512 * 128 * 256  # kv_a_proj_with_mqa, kv_a_layernorm, kv_b
        + 128 * 128 * 7_168  # o_proj
        + 2 * 7_168  # input / post-attention norms
        + 256 * 3 * 7_168 * 2_048 + 3 * 7_168 * 2_048 + 256 * 7_168  # experts, shared, router
    )  # fmt: skip
    assert r1.params.mtp == layer + 2 * 7_168 * 7_168 + 3 * 7_168
    assert 11.5e9 < r1.params.mtp < 11.7e9  # README_WEIGHTS: "11.5B unique" MTP parameters
    assert r1.checkpoint_params == r1.params.total + r1.params.mtp
    assert catalog.model("kimi-k2").architecture.mtp_layers == 0  # no MTP layer (research)


@pytest.mark.parametrize("key", sorted(NEW_MODELS))
def test_catalog_shape_matches_the_research_config(key: str) -> None:
    # The TOML carries the research config's values (the text config of multimodal ones).
    config = _configs()[key]["config"]
    text = config.get("text_config", config)
    arch = get_catalog().models[NEW_MODELS[key]].architecture
    assert arch.num_layers == text["num_hidden_layers"]
    assert arch.hidden_size == text["hidden_size"]
    assert arch.num_attention_heads == text["num_attention_heads"]
    assert arch.num_kv_heads == (text.get("num_key_value_heads") or text["num_attention_heads"])
    assert arch.vocab_size == text["vocab_size"]
    if text.get("max_position_embeddings"):
        assert arch.max_context == text["max_position_embeddings"]
    if "head_dim" in text and arch.mla is None:
        assert arch.head_dim == text["head_dim"]  # explicit head_dim, not hidden / heads
    if "intermediate_size_mlp" in text:
        assert arch.intermediate_size == text["intermediate_size_mlp"]
        assert arch.moe is not None
        assert arch.moe.expert_intermediate_size == text["intermediate_size"]
    assert (arch.vision is not None) == ("vision_config" in config)


def test_qwen3_head_dim_is_not_hidden_over_heads() -> None:
    # Qwen3-32B: hidden 5,120 / 64 heads = 80, but head_dim is 128 (research notes).
    arch = get_catalog().model("qwen3-32b").architecture
    assert arch.hidden_size // arch.num_attention_heads == 80
    assert arch.head_dim == 128
    assert kv_cache_bytes_per_token(arch) == 64 * 8 * 128 * 2 * 2  # 262,144 B


def test_llama4_maverick_alternates_moe_and_dense_layers() -> None:
    arch = get_catalog().model("llama-4-maverick").architecture
    # interleave_moe_layer_step 2: layers 1, 3, ..., 47 are MoE; 0, 2, ... dense with
    # intermediate_size_mlp 16,384 (transformers Llama4TextConfig.moe_layers).
    assert [arch.is_moe_layer(i) for i in range(4)] == [False, True, False, True]
    assert (arch.num_moe_layers, arch.num_dense_ffn_layers) == (24, 24)
    counts = arch.moe
    assert counts is not None and counts.layer_step == 2


def test_qk_norm_scopes() -> None:
    catalog = get_catalog()
    # Qwen3: q_norm/k_norm of head_dim (128) each; OLMo 2 7B: over the projections
    # (32 heads × 128 + 32 KV heads × 128); Llama 4's L2 norm has no weights.
    qwen = catalog.model("qwen3-8b").architecture
    olmo = catalog.model("olmo-2-7b").architecture
    assert (qwen.qk_norm, qwen.qk_norm_scope) == (True, "head")
    assert (olmo.qk_norm, olmo.qk_norm_scope) == (True, "projection")
    assert not catalog.model("llama-4-scout").architecture.qk_norm
    without = olmo.model_copy(update={"qk_norm": False})
    layers = olmo.num_layers
    assert count_parameters(olmo).total - count_parameters(without).total == layers * 2 * 4096


def test_vision_tower_gemma3_by_hand() -> None:
    # SigLIP so400m/14 at 896 px (Gemma 3 4B): patch conv 3·14²·1,152 + bias, 64² positions,
    # 27 layers of LN + qkvo (biases) + LN + fc1/fc2 (biases), post LN; projector 1,152 × 2,560
    # + soft-embedding RMSNorm 1,152.
    h, f = 1_152, 4_304
    layer = 2 * h + 4 * (h * h + h) + 2 * h + (h * f + f) + (f * h + h)
    siglip = 3 * 14 * 14 * h + h + 64 * 64 * h + 27 * layer + 2 * h
    assert get_catalog().model("gemma-3-4b").params.vision == siglip + h * 2_560 + h
    assert siglip == 416_866_032  # Gemma 3 report Table 1: "417M" vision encoder


def test_shared_architectures_are_identical() -> None:
    catalog = get_catalog()
    pairs = [
        ("llama-3.3-70b", "llama-3.1-70b"),
        ("deepseek-r1", "deepseek-v3"),
        ("deepseek-r1-distill-llama-70b", "llama-3.1-70b"),
        ("deepseek-r1-distill-llama-8b", "llama-3.1-8b"),
        ("deepseek-r1-distill-qwen-32b", "qwen2.5-32b"),
    ]
    for model_id, base in pairs:
        entry = catalog.model(model_id)
        assert entry.architecture == catalog.model(base).architecture
        assert entry.source != catalog.model(base).source  # each keeps its own sources


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Llama 3.3 70B", "llama-3.3-70b"),
        ("meta-llama/Llama-3.3-70B-Instruct", "llama-3.3-70b"),
        ("R1", "deepseek-r1"),
        ("DeepSeek R1", "deepseek-r1"),
        ("deepseek-ai/DeepSeek-R1", "deepseek-r1"),
        ("deepseek-ai/DeepSeek-V3", "deepseek-v3"),
        ("Qwen3-32B-AWQ", "qwen3-32b"),
        ("Qwen/Qwen3-32B-AWQ", "qwen3-32b"),
        ("Qwen/Qwen3-32B", "qwen3-32b"),
        ("Qwen3 32B", "qwen3-32b"),
        ("Llama 4 Scout", "llama-4-scout"),
        ("meta-llama/Llama-4-Scout-17B-16E-Instruct", "llama-4-scout"),
        ("google/gemma-3-27b-it", "gemma-3-27b"),
        ("Gemma 3 27B", "gemma-3-27b"),
        ("moonshotai/Kimi-K2-Instruct", "kimi-k2"),
        ("Mistral Small 3.2", "mistral-small-3.1-24b"),
        ("deepseek-ai/DeepSeek-R1-Distill-Llama-70B", "deepseek-r1-distill-llama-70b"),
        ("CohereForAI/c4ai-command-r-plus", "command-r-plus-104b"),
    ],
)
def test_new_aliases_resolve(name: str, expected: str) -> None:
    assert get_catalog().model(name).id == expected


@pytest.mark.parametrize(
    ("name", "weights"),
    [
        ("Qwen3-32B-AWQ", "int4-awq"),
        ("Qwen/Qwen3-8B-AWQ", "int4-awq"),
        ("Qwen/Qwen3-32B-FP8", "fp8"),
        ("Qwen3-32B", None),
    ],
)
def test_checkpoint_names_carry_their_format(name: str, weights: str | None) -> None:
    named = get_catalog().checkpoint(name)
    assert (named.weights if named else None) == weights


@pytest.mark.parametrize("model_id", sorted(NEW_MODELS.values()))
def test_every_new_model_is_sourced(model_id: str) -> None:
    entry = get_catalog().model(model_id)
    # Dated on or after the research pass that added it (2026-12): a later re-check keeps it.
    assert len(entry.source) > 20
    dated = as_of_instant(check_as_of(entry.as_of))  # a month alone reads as its 1st
    assert dated is not None and dated.date() >= date(2026, 12, 1)
    assert entry.official_params


# ------------------------------------------------------------------ bounds of the new fields

_BASE: dict[str, Any] = {
    "family": "llama4",
    "num_layers": 48,
    "hidden_size": 5120,
    "intermediate_size": 16384,
    "num_attention_heads": 40,
    "num_kv_heads": 8,
    "head_dim": 128,
    "vocab_size": 202048,
    "max_context": 131072,
}


@pytest.mark.parametrize(
    "update",
    [
        {"chunked_attention_layers": 36},  # no chunk size
        {"attention_chunk_size": 8192, "chunked_attention_layers": 49},
        {"attention_chunk_size": 0, "chunked_attention_layers": 1},
        {
            "sliding_window": 1024,
            "sliding_window_layers": 30,
            "attention_chunk_size": 8192,
            "chunked_attention_layers": 30,
        },
        {"mtp_layers": -1},
        {"mtp_layers": 10_000},
        {"norms_per_layer": 1_000},
    ],
)
def test_new_architecture_fields_are_bounded(update: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        Architecture(**{**_BASE, **update})


def test_moe_layer_step_bounds() -> None:
    with pytest.raises(ValidationError):
        MoE(num_experts=128, experts_per_token=1, expert_intermediate_size=8192, layer_step=0)
    with pytest.raises(ValidationError, match="not both"):
        MoE(
            num_experts=8,
            experts_per_token=2,
            expert_intermediate_size=1024,
            layer_step=2,
            first_dense_layers=1,
        )


@pytest.mark.parametrize(
    "update",
    [
        {"num_layers": 0},
        {"hidden_size": 10**9},
        {"patch_size": 2_000},  # larger than the image
        {"image_size": float("inf")},
        {"kind": "llama4"},  # needs projector dims
    ],
)
def test_vision_tower_fields_are_bounded(update: dict[str, Any]) -> None:
    base: dict[str, Any] = {
        "kind": "siglip",
        "num_layers": 27,
        "hidden_size": 1152,
        "intermediate_size": 4304,
        "num_attention_heads": 16,
        "image_size": 896,
        "patch_size": 14,
    }
    with pytest.raises(ValidationError):
        VisionTower(**{**base, **update})
