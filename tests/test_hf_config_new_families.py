"""tools/hf_config.py reads the config.json of every 2026-12 catalog model (issue 15, the 12 new
families: llama4, gemma3 / gemma3_text, mistral3, deepseek_v2, phimoe, glm4_moe, minimax_m2,
cohere, olmo2, smollm3, granite) into exactly the catalog's architecture.

Configs: the config.json values of tests/data/research/models-new.json, written to a file and
read through the public loader. Oracle: tests/data/research/params-new.json (meta-device counts
and KV bytes/token of the same configs, torch/transformers; independent of our counting code).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from tests.test_catalog_new_models import NEW_MODELS
from tools.architecture import count_parameters
from tools.catalog import get_catalog
from tools.errors import ToolInputError
from tools.hf_config import SUPPORTED_MODEL_TYPES, architecture_from_config, load_config_file
from tools.memory.kv_cache import kv_cache_bytes, kv_cache_bytes_per_token

DATA = Path(__file__).parent / "data" / "research"

# What the research records left out of a config.json that the real file carries (their `gaps`
# and `notes` say so): max_position_embeddings of four records (no parameter effect; the
# catalog's value from the model card), and the MTP module count of the checkpoints whose notes
# say they carry "1 MTP layer".
_MISSING_MAX_POSITION = {
    "DeepSeek-R1-Distill-Qwen-7B",
    "Command-R-Plus-104B",
    "Falcon3-7B",
    "Falcon3-10B",
}
_ONE_MTP_MODULE = {"DeepSeek-R1", "GLM-4.5", "GLM-4.5-Air"}


@cache
def _records() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DATA / "models-new.json").read_text(encoding="utf-8"))
    return data


@cache
def _oracle() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DATA / "params-new.json").read_text(encoding="utf-8"))
    return data["models"]  # type: ignore[no-any-return]


def _config(key: str) -> dict[str, Any]:
    config: dict[str, Any] = json.loads(json.dumps(_records()[key]["config"]))
    text = config.get("text_config", config)
    if key in _MISSING_MAX_POSITION:
        assert "max_position_embeddings" not in text
        catalog_arch = get_catalog().models[NEW_MODELS[key]].architecture
        text["max_position_embeddings"] = catalog_arch.max_context
    if key in _ONE_MTP_MODULE:
        assert "1 MTP layer" in _records()[key]["notes"]
        text["num_nextn_predict_layers"] = 1
    return config


def research_model_types() -> set[str]:
    """The model_types the research configs exercise (wrappers and their text configs)."""
    types = set()
    for record in _records().values():
        types.add(record["config"]["model_type"])
        types.add(record["config"].get("text_config", {}).get("model_type", "llama"))
    return types


def test_every_new_family_is_a_supported_model_type() -> None:
    types = research_model_types()
    assert types <= set(SUPPORTED_MODEL_TYPES)
    new = {"llama4", "gemma3", "gemma3_text", "mistral3", "deepseek_v2", "phimoe"}
    new |= {"glm4_moe", "minimax_m2", "cohere", "olmo2", "smollm3", "granite"}
    assert new <= types


@pytest.mark.parametrize("key", sorted(NEW_MODELS))
def test_config_json_gives_the_catalog_architecture_and_meta_counts(
    key: str, tmp_path: Path
) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(_config(key)), encoding="utf-8")
    arch = load_config_file(path)
    assert arch == get_catalog().models[NEW_MODELS[key]].architecture
    expected = _oracle()[key]
    counts = count_parameters(arch)
    assert counts.total == expected["total_params"]
    assert counts.active_per_token == expected["active_params_per_token"]
    assert counts.vision == expected["vision_and_projector_params"]
    assert counts.routed_experts == expected["routed_expert_params"]
    kv = expected["kv_cache"]
    own = kv.get("bytes_per_token_bf16", kv.get("bytes_per_token_bf16_all_layers"))
    assert kv_cache_bytes_per_token(arch) == own


@pytest.mark.parametrize(
    ("key", "layers_full", "layers_capped", "cap"),
    [
        # Gemma 3 27B: layer_types marks 52 of 62 layers sliding (window 1,024).
        ("Gemma-3-27B", 10, 52, 1_024),
        # Gemma 3 1B: 22 of 26 sliding, window 512.
        ("Gemma-3-1B", 4, 22, 512),
        # Llama 4 Scout: no_rope_layers = [1, 1, 1, 0] × 12 → 36 chunked layers of 8,192.
        ("Llama-4-Scout-17B-16E", 12, 36, 8_192),
    ],
)
def test_windowed_layers_are_read_from_the_config(
    key: str, layers_full: int, layers_capped: int, cap: int
) -> None:
    arch = architecture_from_config(_config(key))
    # At 131,072 tokens (bf16, one sequence, no block rounding): the full layers hold every
    # token, the windowed ones `cap`, each layer 2 (K, V) × kv_heads × head_dim × 2 B.
    per_layer = 2 * arch.num_kv_heads * arch.head_dim * 2
    expected = per_layer * (layers_full * 131_072 + layers_capped * cap)
    assert kv_cache_bytes(arch, context=131_072) == expected


def test_gemma3_text_config_without_layer_types_uses_its_pattern_of_six() -> None:
    # Gemma3TextConfig: sliding_window_pattern 6 — layers 6, 12, ... global; 62 layers → 10
    # global, 52 sliding (the 27B's own layer_types agree).
    text = dict(_records()["Gemma-3-27B"]["config"]["text_config"])
    del text["layer_types"]
    arch = architecture_from_config(text)
    assert (arch.sliding_window_layers, arch.full_attention_layers) == (52, 10)


def test_llama4_interleave_and_dense_width() -> None:
    # Maverick: interleave_moe_layer_step 2 → 24 MoE layers of 128 experts (8,192 wide, + one
    # shared), 24 dense layers of intermediate_size_mlp 16,384.
    arch = architecture_from_config(_config("Llama-4-Maverick-17B-128E"))
    assert arch.moe is not None and arch.moe.layer_step == 2
    assert (arch.num_moe_layers, arch.intermediate_size) == (24, 16_384)
    assert arch.moe.expert_intermediate_size == 8_192 and arch.moe.num_shared_experts == 1
    # An explicit moe_layers list that is not the step pattern is refused, not misread.
    config = _config("Llama-4-Maverick-17B-128E")
    config["text_config"]["moe_layers"] = [0, 5]
    with pytest.raises(ToolInputError) as info:
        architecture_from_config(config)
    assert info.value.field == "config.moe_layers"


@pytest.mark.parametrize(
    ("key", "scope", "per_layer"),
    [
        # OLMo 2 7B: q_norm over 32 × 128, k_norm over 32 × 128 (Olmo2Attention).
        ("OLMo-2-7B", "projection", (32 + 32) * 128),
        # MiniMax-M2: use_qk_norm, over 48 × 128 and 8 × 128.
        ("MiniMax-M2", "projection", (48 + 8) * 128),
        # GLM-4.5: use_qk_norm, per head (head_dim 128 each for q and k).
        ("GLM-4.5", "head", 2 * 128),
        # Gemma 3: always, per head (head_dim 256).
        ("Gemma-3-1B", "head", 2 * 256),
    ],
)
def test_qk_norm_scope_per_family(key: str, scope: str, per_layer: int) -> None:
    arch = architecture_from_config(_config(key))
    assert arch.qk_norm and arch.qk_norm_scope == scope
    without = arch.model_copy(update={"qk_norm": False})
    assert count_parameters(arch).total - count_parameters(without).total == (
        arch.num_layers * per_layer
    )


def test_cohere_qk_norm_follows_its_flag() -> None:
    # Command R (use_qk_norm false): none. The same config with it on: (64 + 64) × 128 weights
    # per layer (CohereLayerNorm of (heads, head_dim), no bias), 40 layers.
    config = _config("Command-R-35B")
    plain = architecture_from_config(config)
    normed = architecture_from_config({**config, "use_qk_norm": True})
    assert not plain.qk_norm and normed.qk_norm_scope == "projection"
    gained = count_parameters(normed).total - count_parameters(plain).total
    assert gained == 40 * (64 + 64) * 128


def test_phimoe_biases_and_glm_o_proj() -> None:
    phi = architecture_from_config(_config("Phi-3.5-MoE"))
    # attention_bias true: q, k, v and o biases; LayerNorm biases; lm_head_bias true.
    assert (phi.qkv_bias, phi.o_bias, phi.norm_bias, phi.lm_head_bias) == (True,) * 4
    glm = architecture_from_config(_config("GLM-4.5"))
    # Glm4MoeAttention: attention_bias applies to q/k/v only; o_proj has none.
    assert glm.qkv_bias and not glm.o_bias


def test_vision_config_becomes_the_tower() -> None:
    scout = architecture_from_config(_config("Llama-4-Scout-17B-16E"))
    gemma = architecture_from_config(_config("Gemma-3-27B"))
    mistral = architecture_from_config(_config("Mistral-Small-3.1-24B"))
    assert scout.vision is not None and scout.vision.kind == "llama4"
    assert gemma.vision is not None and gemma.vision.kind == "siglip"
    assert mistral.vision is not None and mistral.vision.spatial_merge_size == 2
    # The text config alone (a text-only export) has no tower.
    assert architecture_from_config(_config("Gemma-3-27B")["text_config"]).vision is None


@pytest.mark.parametrize(
    ("update", "field"),
    [
        ({"vision_use_head": True}, "config.vision_config.vision_use_head"),
        ({"num_hidden_layers": 0}, "config.vision_config.num_hidden_layers"),
        ({"patch_size": "14"}, "config.vision_config.patch_size"),
    ],
)
def test_bad_vision_config_is_a_named_error(update: dict[str, Any], field: str) -> None:
    config = _config("Gemma-3-4B")
    config["vision_config"] = {**config["vision_config"], **update}
    with pytest.raises(ToolInputError) as info:
        architecture_from_config(config)
    assert info.value.field == field
