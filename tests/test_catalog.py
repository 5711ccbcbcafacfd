"""The catalog: exact parameter counts, name resolution, loader errors, GPUs, config.json import.

Expected parameter counts are copied from shared/research/params.json, which instantiated each
published config.json on PyTorch's meta device with transformers 5.24 (torch 2.13) and summed
`p.numel()` over `model.parameters()` (so tied weights count once). They are an oracle
independent of tools/architecture.py. The publisher's stated size is in each row's comment.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.test_catalog_new_gpus import NEW_GPU_IDS
from tests.test_catalog_new_models import NEW_MODELS
from tools.architecture import count_parameters
from tools.catalog import CatalogError, GpuSpec, ModelEntry, get_catalog, load_entries
from tools.errors import ToolInputError
from tools.hf_config import SUPPORTED_MODEL_TYPES, architecture_from_config, load_config_file
from tools.units import GB, GiB, MiB

# id -> (total, active per token) from shared/research/params.json (meta device, transformers
# 5.24). Comment: the publisher's stated size (shared/research/models.json `official_params`).
PARAMS_JSON: dict[str, tuple[int, int]] = {
    "llama-3.1-8b": (8_030_261_248, 8_030_261_248),  # 8B, Llama 3.1 model card
    "llama-3.1-70b": (70_553_706_496, 70_553_706_496),  # 70B, Llama 3.1 model card
    "llama-3.1-405b": (405_853_388_800, 405_853_388_800),  # 405B, Llama 3.1 model card
    "llama-3.2-1b": (1_235_814_400, 1_235_814_400),  # "1B (1.23B)", Llama 3.2 model card
    "llama-3.2-3b": (3_212_749_824, 3_212_749_824),  # "3B (3.21B)", Llama 3.2 model card
    "llama-2-7b": (6_738_415_616, 6_738_415_616),  # 7B, Llama 2 model card
    "llama-2-13b": (13_015_864_320, 13_015_864_320),  # 13B, Llama 2 model card
    "llama-2-70b": (68_976_648_192, 68_976_648_192),  # 70B, Llama 2 model card
    "mistral-7b-v0.3": (7_248_023_552, 7_248_023_552),  # 7.3B, Mistral 7B announcement
    "mixtral-8x7b": (46_702_792_704, 12_879_925_248),  # 46.7B total / 13B active (arXiv 2401.04088)
    "mixtral-8x22b": (140_620_634_112, 39_152_031_744),  # 141B total / 39B active (Mistral)
    "qwen2.5-7b": (7_615_616_512, 7_615_616_512),  # 7.61B, Qwen2.5 model card
    "qwen2.5-72b": (72_706_203_648, 72_706_203_648),  # 72.7B, Qwen2.5 model card
    "qwen3-30b-a3b": (30_532_122_624, 3_353_032_704),  # 30.5B total / 3.3B active, model card
    "gemma-2-9b": (9_241_705_984, 9_241_705_984),  # Gemma 2 paper Table 2 (tied embedding)
    "gemma-2-27b": (27_227_128_320, 27_227_128_320),  # Gemma 2 paper Table 2 (tied embedding)
    "phi-3-mini-4k": (3_821_079_552, 3_821_079_552),  # 3.8B, Phi-3 model card
    # 671B total / 37B activated (DeepSeek-V3 README); HF's model excludes the 11.5B MTP module.
    "deepseek-v3": (671_026_404_352, 37_552_282_624),
    "gpt-oss-20b": (20_914_757_184, 4_187_440_704),  # 21B total (openai/gpt-oss README)
    "gpt-oss-120b": (116_829_156_672, 5_711_982_912),  # 117B total (openai/gpt-oss README)
}

# Input embedding table sizes from params.json (`embedding_params_input`), for the tied models.
TIED_EMBEDDING: dict[str, int] = {
    "llama-3.2-1b": 262_668_288,  # 128,256 x 2,048
    "llama-3.2-3b": 394_002_432,  # 128,256 x 3,072
    "gemma-2-9b": 917_504_000,  # 256,000 x 3,584
    "gemma-2-27b": 1_179_648_000,  # 256,000 x 4,608
}

# The 24 GPU ids of shared/research/gpus.json, in its order.
RESEARCH_GPU_IDS = [
    "a10g",
    "a10",
    "l4",
    "l40s",
    "a100-40gb-sxm4",
    "a100-40gb-pcie",
    "a100-80gb-sxm4",
    "a100-80gb-pcie",
    "h100-sxm",
    "h100-pcie",
    "h100-nvl",
    "h200-sxm",
    "h200-nvl",
    "b200-hgx",
    "b300-hgx",
    "gb200",
    "rtx-4090",
    "rtx-5090",
    "rtx-6000-ada",
    "rtx-pro-6000-blackwell",
    "mi300x",
    "mi325x",
    "mi355x",
    "gaudi3",
]


# ---------------------------------------------------------------------------- parameter counts


def test_catalog_holds_the_twenty_models_and_llama_65b() -> None:
    # The twenty (all counted in params.json) plus LLaMA-65B, which params.json lacks:
    # its count is checked against the LLaMA paper in tests/test_memory_training.py; and the
    # 48 of the 2026-12 research pass (tests/test_catalog_new_models.py).
    expected = set(PARAMS_JSON) | {"llama-65b"} | set(NEW_MODELS.values())
    assert set(get_catalog().models) == expected


@pytest.mark.parametrize("model_id", sorted(PARAMS_JSON))
def test_parameter_counts_equal_params_json(model_id: str) -> None:
    total, active = PARAMS_JSON[model_id]
    counts = get_catalog().model(model_id).params
    assert counts.total == total
    assert counts.active_per_token == active


@pytest.mark.parametrize("model_id", sorted(TIED_EMBEDDING))
def test_tied_embedding_counted_once(model_id: str) -> None:
    counts = get_catalog().model(model_id).params
    assert counts.embedding == TIED_EMBEDDING[model_id]
    assert counts.lm_head == 0
    # params.json: non_embedding = total - embedding, with no second copy for the output layer.
    assert counts.total - counts.embedding == PARAMS_JSON[model_id][0] - TIED_EMBEDDING[model_id]


def test_untied_output_layer_is_counted() -> None:
    # Llama 3.1 8B: 128,256 x 4,096 = 525,336,576 for both the embedding and lm_head
    # (params.json lm_head_params_untied); dropping it gives the 7.5B some calculators show.
    counts = get_catalog().model("llama-3.1-8b").params
    assert counts.embedding == counts.lm_head == 128_256 * 4_096


# ------------------------------------------------------------------------------ name resolution


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("meta-llama/Llama-3.1-70B-Instruct", "llama-3.1-70b"),
        ("Llama 3.1 70B", "llama-3.1-70b"),
        ("llama 3.1 70b", "llama-3.1-70b"),
        ("mixtral 8x7b", "mixtral-8x7b"),
        ("mistralai/Mixtral-8x7B-Instruct-v0.1", "mixtral-8x7b"),
        ("Qwen/Qwen3-30B-A3B", "qwen3-30b-a3b"),
        ("google/gemma-2-9b-it", "gemma-2-9b"),
        ("deepseek-ai/DeepSeek-V3", "deepseek-v3"),
        ("openai/gpt-oss-120b", "gpt-oss-120b"),
        ("LLAMA-3.1-8B", "llama-3.1-8b"),
    ],
)
def test_model_aliases_resolve(name: str, expected: str) -> None:
    assert get_catalog().model(name).id == expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("H100", "h100-sxm"),  # ambiguous short name -> most common datacenter variant
        ("H100 SXM", "h100-sxm"),
        ("H100 80GB", "h100-sxm"),
        ("H100 PCIe", "h100-pcie"),
        ("H100 NVL", "h100-nvl"),
        ("H200", "h200-sxm"),
        ("H200 NVL", "h200-nvl"),
        ("A100", "a100-80gb-sxm4"),  # ambiguous short name -> most common datacenter variant
        ("A100 80GB", "a100-80gb-sxm4"),
        ("A100 40GB", "a100-40gb-sxm4"),
        ("L40S", "l40s"),
        ("L4", "l4"),
        ("B200", "b200-hgx"),
        ("MI300X", "mi300x"),
        ("RTX 4090", "rtx-4090"),
        ("4090", "rtx-4090"),
        ("Gaudi 3", "gaudi3"),
    ],
)
def test_gpu_aliases_resolve(name: str, expected: str) -> None:
    assert get_catalog().gpu(name).id == expected


def test_every_alias_resolves_to_its_own_entry() -> None:
    # Two entries sharing an alias would make one of them unreachable under that name.
    catalog = get_catalog()
    for gpu in catalog.gpus.values():
        for alias in (gpu.id, gpu.name, *gpu.aliases):
            assert catalog.gpu(alias).id == gpu.id, alias
    for model in catalog.models.values():
        for alias in (model.id, model.name, *model.aliases):
            assert catalog.model(alias).id == model.id, alias


def test_ambiguous_short_names_are_explained_in_notes() -> None:
    catalog = get_catalog()
    assert '"H100"' in (catalog.gpu("h100-sxm").notes or "")
    assert '"A100"' in (catalog.gpu("a100-80gb-sxm4").notes or "")


def test_unknown_model_suggests_close_names() -> None:
    with pytest.raises(ToolInputError) as info:
        get_catalog().model("llama-3.1-7b")
    assert info.value.field == "model"
    assert "llama-3.1-8b" in info.value.suggestions
    assert "llama-3.1-7b" in info.value.message


def test_unknown_gpu_suggests_close_names() -> None:
    with pytest.raises(ToolInputError) as info:
        get_catalog().gpu("H300")
    assert info.value.field == "gpu"
    assert info.value.suggestions  # e.g. h100-*, h200-*
    assert all(s in get_catalog().gpus for s in info.value.suggestions)
    with pytest.raises(ToolInputError) as info:
        get_catalog().gpu("mi300")
    assert "mi300x" in info.value.suggestions


# ---------------------------------------------------------------------------------- GPU entries


ADDED_GPU_IDS = [
    "rtx-4060-ti-8gb",
    "rtx-3060-12gb",
    "rtx-3060-8gb",
    "rtx-3060-ti",
    "rtx-3070",
    "rtx-4060",
    "rtx-4070",
    "rtx-4070-super",
    "rtx-4070-ti",
    "rtx-5060-ti-16gb",
    "rtx-5060-ti-8gb",
    "rtx-5070",
    "rx-7800-xt",
    "rx-9070-xt",
    "rtx-4060-laptop",
    "rtx-4070-laptop",
    "rtx-4080-laptop",
    "rtx-4090-laptop",
    "rtx-5060-laptop",
    "rtx-5070-laptop",
    "rtx-5070-ti-laptop",
    "rtx-5080-laptop",
    "rtx-5090-laptop",
    "apple-m1",
    "apple-m2",
    "apple-m3",
    "apple-m4",
    "rtx-3080-ti",
    "rtx-5060",
]
"""GPUs added after the research passes, each sourced in its entry (the RTX 4060 Ti 8 GB: the
16 GB card's variant, so 'RTX 4060 Ti' is never silently the 16 GB one; then the consumer
cards people own, read from the TechPowerUp GPU Database: tests/test_consumer_cards.py; the
laptop GPUs and the base Apple chips: tests/test_laptop_and_base_chips.py)."""


def test_gpu_ids_match_research() -> None:
    # The 24 of shared/research/gpus.json and the 55 of 2026-12/gpus-new.json are the devices,
    # with the entries added since from their own sources (ADDED_GPU_IDS); the rest are RAM
    # configurations generated from the unified-memory chips.
    catalog = get_catalog()
    expected = RESEARCH_GPU_IDS + NEW_GPU_IDS + ADDED_GPU_IDS
    assert sorted(g.id for g in catalog.devices()) == sorted(expected)
    assert all(g.configuration_of for g in catalog.gpus.values() if g not in catalog.devices())


@pytest.mark.parametrize("gpu_id", RESEARCH_GPU_IDS)
def test_every_gpu_is_sourced_and_dated(gpu_id: str) -> None:
    gpu = get_catalog().gpus[gpu_id]
    assert len(gpu.source) > 10
    assert gpu.as_of.strip()
    assert gpu.usable_memory_basis.strip()
    assert gpu.usable_memory_bytes <= gpu.memory_bytes * GiB / GB
    # Each unconfirmed item starts with the name of a GpuSpec field, so a reader knows which
    # figure is in doubt.
    for item in gpu.unconfirmed:
        assert item.split(":")[0].strip() in GpuSpec.model_fields, item


@pytest.mark.parametrize(
    ("gpu_id", "memory_gb", "bandwidth_gb_per_s", "bf16_dense_tflops"),
    [
        # NVIDIA H100 datasheet: 80 GB, 3.35 TB/s, BF16 1,979 TFLOPS "with sparsity" (1/2 dense).
        ("h100-sxm", 80, 3_350, 1_979 / 2),
        # NVIDIA A100 datasheet: 80 GB, 2,039 GB/s, BF16 624 with sparsity -> 312 dense.
        ("a100-80gb-sxm4", 80, 2_039, 312),
        # NVIDIA HGX B200 datasheet column: 180 GB, 7.7 TB/s, BF16 4.5 PF with sparsity.
        ("b200-hgx", 180, 7_700, 4_500 / 2),
        # AMD MI300X: 192 GB HBM3, 5.3 TB/s, FP16/BF16 1,307.4 TFLOPS dense.
        ("mi300x", 192, 5_300, 1_307.4),
    ],
)
def test_gpu_datasheet_figures(
    gpu_id: str, memory_gb: int, bandwidth_gb_per_s: int, bf16_dense_tflops: float
) -> None:
    gpu = get_catalog().gpus[gpu_id]
    assert gpu.memory_bytes == memory_gb * GB
    assert gpu.memory_bandwidth_bytes_per_s == bandwidth_gb_per_s * GB
    assert gpu.bf16_tflops == pytest.approx(bf16_dense_tflops)


def test_usable_memory_uses_measurements_where_published() -> None:
    catalog = get_catalog()
    # nvidia-smi readings recorded in shared/research/README.md.
    assert catalog.gpu("h100-sxm").usable_memory_bytes == 81_559 * MiB
    assert catalog.gpu("h200-sxm").usable_memory_bytes == 143_771 * MiB
    # AWS EC2 accelerated-instance specification: 22 GiB usable per A10G.
    assert catalog.gpu("a10g").usable_memory_bytes == 22 * GiB


def test_usable_memory_rule_reproduces_the_h100_measurement() -> None:
    # The stated rule for unmeasured parts (marketed GB read as GiB, less the 361 MiB the driver
    # keeps on an H100: 81,920 - 81,559) gives the same H100 PCIe 80GB figure as the measurement.
    h100_pcie = get_catalog().gpu("h100-pcie")
    assert h100_pcie.usable_memory_bytes == 80 * GiB - (81_920 - 81_559) * MiB
    assert h100_pcie.usable_memory_basis.startswith("rule:")
    assert any(u.startswith("usable_memory_bytes") for u in h100_pcie.unconfirmed)


@pytest.mark.parametrize(
    ("gpu_id", "bidirectional_gb_per_s"),
    [("h100-sxm", 900), ("a100-80gb-sxm4", 600), ("b200-hgx", 1_800), ("h200-nvl", 900)],
)
def test_nvlink_bandwidth_is_one_direction(gpu_id: str, bidirectional_gb_per_s: int) -> None:
    # Vendors print bidirectional totals per GPU (NVLink 4: 900 GB/s); the catalog halves them.
    gpu = get_catalog().gpus[gpu_id]
    assert gpu.interconnect_bytes_per_s == bidirectional_gb_per_s * GB / 2
    assert gpu.interconnect in ("nvlink", "nvlink-bridge")


def test_unknown_figures_stay_null() -> None:
    catalog = get_catalog()
    # NVIDIA publishes no A10G tensor throughput; AMD's Infinity Fabric per-GPU figure not found.
    assert catalog.gpu("a10g").bf16_tflops is None
    assert catalog.gpu("mi300x").interconnect_bytes_per_s is None
    # Ampere has no FP8 (NVIDIA A100 datasheet).
    assert catalog.gpu("a100-80gb-sxm4").fp8_tflops is None


def test_b200_memory_conflict_is_noted() -> None:
    notes = get_catalog().gpu("b200-hgx").notes or ""
    assert "180 GB" in notes and "192 GB" in notes


# ------------------------------------------------------------------------ malformed catalog files

_GOOD_GPU = """
[[gpu]]
id = "test-gpu"
name = "Test GPU"
vendor = "NVIDIA"
architecture = "Hopper"
memory_bytes = 80_000_000_000
usable_memory_bytes = 85_520_809_984
usable_memory_basis = "measured"
memory_type = "HBM3"
memory_bandwidth_bytes_per_s = 3_350_000_000_000
interconnect = "nvlink"
form_factor = "sxm"
source = "a datasheet"
as_of = "2024-01-01"
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "gpus.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_good_file_loads(tmp_path: Path) -> None:
    (gpu,) = load_entries(_write(tmp_path, _GOOD_GPU), "gpu", GpuSpec)
    assert gpu.id == "test-gpu"


def test_missing_field_is_named(tmp_path: Path) -> None:
    path = _write(tmp_path, _GOOD_GPU.replace('as_of = "2024-01-01"\n', ""))
    with pytest.raises(CatalogError) as info:
        load_entries(path, "gpu", GpuSpec)
    assert (info.value.file, info.value.entry, info.value.field) == (path, "test-gpu", "as_of")
    assert str(path) in str(info.value) and "test-gpu" in str(info.value)


def test_wrong_type_is_named(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        _GOOD_GPU.replace(
            "memory_bandwidth_bytes_per_s = 3_350_000_000_000",
            'memory_bandwidth_bytes_per_s = "fast"',
        ),
    )
    with pytest.raises(CatalogError) as info:
        load_entries(path, "gpu", GpuSpec)
    assert info.value.entry == "test-gpu"
    assert info.value.field == "memory_bandwidth_bytes_per_s"


def test_usable_above_vendor_capacity_is_rejected(tmp_path: Path) -> None:
    # 80 GB read as GiB is 85,899,345,920 bytes: nothing usable can exceed it.
    path = _write(tmp_path, _GOOD_GPU.replace("85_520_809_984", "85_899_345_921"))
    with pytest.raises(CatalogError) as info:
        load_entries(path, "gpu", GpuSpec)
    assert "exceeds the vendor capacity" in info.value.problem


def test_duplicate_id_is_named(tmp_path: Path) -> None:
    path = _write(tmp_path, _GOOD_GPU + _GOOD_GPU)
    with pytest.raises(CatalogError) as info:
        load_entries(path, "gpu", GpuSpec)
    assert (info.value.entry, info.value.field, info.value.problem) == (
        "test-gpu",
        "id",
        "duplicate id",
    )


def test_invalid_toml_names_the_file(tmp_path: Path) -> None:
    path = _write(tmp_path, "[[gpu]\nid = ")
    with pytest.raises(CatalogError) as info:
        load_entries(path, "gpu", GpuSpec)
    assert info.value.file == path
    assert "invalid TOML" in info.value.problem


def test_bad_model_architecture_names_the_nested_field(tmp_path: Path) -> None:
    path = tmp_path / "models.toml"
    path.write_text(
        """
[[model]]
id = "bad-model"
name = "Bad"
source = "a config"
as_of = "2024-01-01"
[model.architecture]
family = "llama"
num_layers = 2
hidden_size = 64
intermediate_size = 128
num_attention_heads = 4
num_kv_heads = 4
head_dim = 16
vocab_size = -5
max_context = 128
""",
        encoding="utf-8",
    )
    with pytest.raises(CatalogError) as info:
        load_entries(path, "model", ModelEntry)
    assert info.value.entry == "bad-model"
    assert info.value.field == "architecture.vocab_size"


# -------------------------------------------------------------------------- config.json import

# Published config.json values, copied from shared/research/models.json (which cites where each
# was read); keys that do not affect shapes (rope, eps, token ids) left out.
HF_CONFIGS: dict[str, dict[str, Any]] = {
    "llama-3.1-8b": {
        "model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336,
        "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
        "head_dim": 128, "vocab_size": 128256, "max_position_embeddings": 131072,
        "tie_word_embeddings": False, "attention_bias": False, "mlp_bias": False,
    },
    "llama-3.2-1b": {
        "model_type": "llama", "hidden_size": 2048, "intermediate_size": 8192,
        "num_hidden_layers": 16, "num_attention_heads": 32, "num_key_value_heads": 8,
        "head_dim": 64, "vocab_size": 128256, "max_position_embeddings": 131072,
        "tie_word_embeddings": True, "attention_bias": False, "mlp_bias": False,
    },
    "mistral-7b-v0.3": {
        "model_type": "mistral", "hidden_size": 4096, "intermediate_size": 14336,
        "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
        "head_dim": 128, "vocab_size": 32768, "max_position_embeddings": 32768,
        "sliding_window": None, "tie_word_embeddings": False,
    },
    "mixtral-8x7b": {
        "model_type": "mixtral", "hidden_size": 4096, "intermediate_size": 14336,
        "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
        "head_dim": 128, "vocab_size": 32000, "max_position_embeddings": 32768,
        "sliding_window": None, "num_local_experts": 8, "num_experts_per_tok": 2,
        "tie_word_embeddings": False,
    },
    "qwen2.5-7b": {
        "model_type": "qwen2", "hidden_size": 3584, "intermediate_size": 18944,
        "num_hidden_layers": 28, "num_attention_heads": 28, "num_key_value_heads": 4,
        "head_dim": 128, "vocab_size": 152064, "max_position_embeddings": 131072,
        "use_sliding_window": False, "tie_word_embeddings": False,
    },
    "qwen3-30b-a3b": {
        "model_type": "qwen3_moe", "hidden_size": 2048, "intermediate_size": 6144,
        "moe_intermediate_size": 768, "num_hidden_layers": 48, "num_attention_heads": 32,
        "num_key_value_heads": 4, "head_dim": 128, "vocab_size": 151936,
        "max_position_embeddings": 40960, "num_experts": 128, "num_experts_per_tok": 8,
        "decoder_sparse_step": 1, "mlp_only_layers": [], "attention_bias": False,
        "tie_word_embeddings": False,
    },
    "gemma-2-9b": {
        "model_type": "gemma2", "hidden_size": 3584, "intermediate_size": 14336,
        "num_hidden_layers": 42, "num_attention_heads": 16, "num_key_value_heads": 8,
        "head_dim": 256, "vocab_size": 256000, "max_position_embeddings": 8192,
        "sliding_window": 4096, "tie_word_embeddings": True,
    },
    "phi-3-mini-4k": {
        "model_type": "phi3", "hidden_size": 3072, "intermediate_size": 8192,
        "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 32,
        "vocab_size": 32064, "max_position_embeddings": 4096, "sliding_window": 2047,
        "tie_word_embeddings": False,
    },
    "deepseek-v3": {
        "model_type": "deepseek_v3", "hidden_size": 7168, "intermediate_size": 18432,
        "moe_intermediate_size": 2048, "num_hidden_layers": 61, "first_k_dense_replace": 3,
        "num_attention_heads": 128, "num_key_value_heads": 128, "n_routed_experts": 256,
        "n_shared_experts": 1, "num_experts_per_tok": 8, "q_lora_rank": 1536,
        "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64,
        "v_head_dim": 128, "vocab_size": 129280, "max_position_embeddings": 163840,
        "tie_word_embeddings": False,
    },
    "gpt-oss-20b": {
        "model_type": "gpt_oss", "hidden_size": 2880, "intermediate_size": 2880,
        "num_hidden_layers": 24, "num_attention_heads": 64, "num_key_value_heads": 8,
        "head_dim": 64, "vocab_size": 201088, "num_local_experts": 32,
        "num_experts_per_tok": 4, "sliding_window": 128, "max_position_embeddings": 131072,
        "attention_bias": True, "tie_word_embeddings": False,
        "layer_types": ["sliding_attention", "full_attention"] * 12,
    },
}  # fmt: skip


@pytest.mark.parametrize("model_id", sorted(HF_CONFIGS))
def test_config_json_import_counts_exactly(model_id: str, tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(HF_CONFIGS[model_id]), encoding="utf-8")
    arch = load_config_file(path)
    counts = count_parameters(arch)
    assert (counts.total, counts.active_per_token) == PARAMS_JSON[model_id]
    # A directory holding config.json works too (a downloaded model folder).
    assert load_config_file(tmp_path) == arch


def test_config_json_sliding_window_layers() -> None:
    # Gemma 2 alternates local (4,096-token window) and global layers: 21 of 42 are local
    # (Gemma 2 paper arXiv 2408.00118 §2); gpt-oss's layer_types marks 12 of 24 as sliding.
    gemma = architecture_from_config(HF_CONFIGS["gemma-2-9b"])
    assert (gemma.sliding_window, gemma.sliding_window_layers) == (4096, 21)
    gpt_oss = architecture_from_config(HF_CONFIGS["gpt-oss-20b"])
    assert (gpt_oss.sliding_window, gpt_oss.sliding_window_layers) == (128, 12)


def test_config_json_qwen3_dense_family() -> None:
    # No dense Qwen3 is in the catalog; a qwen3 config maps with per-head q/k norms
    # (transformers Qwen3Attention q_norm/k_norm) and no qkv bias.
    cfg = {
        "model_type": "qwen3", "hidden_size": 4096, "intermediate_size": 12288,
        "num_hidden_layers": 36, "num_attention_heads": 32, "num_key_value_heads": 8,
        "head_dim": 128, "vocab_size": 151936, "max_position_embeddings": 40960,
        "tie_word_embeddings": False, "attention_bias": False,
    }  # fmt: skip
    arch = architecture_from_config(cfg)
    assert arch.family == "qwen3" and arch.qk_norm and not arch.qkv_bias
    assert arch.attention_kind == "GQA"


def test_every_supported_family_is_exercised() -> None:
    from tests.test_hf_config_new_families import research_model_types

    # The 2026-12 research configs (tests/test_hf_config_new_families.py) exercise the rest.
    tested = {c["model_type"] for c in HF_CONFIGS.values()} | {"qwen3"} | research_model_types()
    assert tested == set(SUPPORTED_MODEL_TYPES)


def test_config_json_unsupported_model_type(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**HF_CONFIGS["llama-3.1-8b"], "model_type": "bert"}))
    with pytest.raises(ToolInputError) as info:
        load_config_file(path)
    assert info.value.field == "config.model_type"
    assert "llama" in (info.value.allowed or "")


def test_config_json_missing_field(tmp_path: Path) -> None:
    cfg = dict(HF_CONFIGS["llama-3.1-8b"])
    del cfg["vocab_size"]
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    with pytest.raises(ToolInputError) as info:
        load_config_file(path)
    assert info.value.field == "config.vocab_size"


def test_config_json_inconsistent_heads() -> None:
    cfg = {**HF_CONFIGS["llama-3.1-8b"], "num_key_value_heads": 5}  # 32 heads not divisible
    with pytest.raises(ToolInputError) as info:
        architecture_from_config(cfg)
    assert "num_kv_heads" in info.value.message


def test_config_json_bad_json(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text('{"model_type": "llama", ')
    with pytest.raises(ToolInputError) as info:
        load_config_file(path)
    assert info.value.field == "config"
    assert "not valid JSON" in info.value.problem


def test_config_json_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ToolInputError) as info:
        load_config_file(tmp_path / "nope.json")
    assert "file not found" in info.value.problem
