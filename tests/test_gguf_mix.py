"""GGUF quantization mixes against independent sources: the `gguf` package's block table and
llama-quantize's own size table for Llama-3-8B."""

from __future__ import annotations

import gguf
import pytest

from tools.catalog import get_catalog
from tools.memory.formats import WEIGHT_FORMATS, normalize_format
from tools.memory.gguf_mix import (
    FILE_TYPE_NAMES,
    GGML_BLOCKS,
    GGUF_FTYPES,
    fallback,
    mix_model,
    tensor_type,
)
from tools.memory.weights import weight_bytes


def test_block_table_equals_the_gguf_package() -> None:
    # gguf-py GGML_QUANT_SIZES: type → (weights per block, bytes per block).
    for name, (block_bytes, block_len) in GGML_BLOCKS.items():
        assert gguf.GGML_QUANT_SIZES[gguf.GGMLQuantizationType[name]] == (block_len, block_bytes)


def test_file_type_numbers_equal_the_gguf_package() -> None:
    # gguf-py LlamaFileType mirrors llama.h's enum llama_ftype (general.file_type).
    for name, ftype in GGUF_FTYPES.items():
        assert gguf.LlamaFileType[f"MOSTLY_{name.upper()}"].value == ftype.file_type
    assert FILE_TYPE_NAMES[15] == "q4_k_m"


# tools/quantize/quantize.cpp QUANT_OPTIONS (ggml-org/llama.cpp): model size of Llama-3-8B per
# file type, in GiB ("4.58G"). Llama-3.1-8B has the same tensors. Q2_K_S is listed with Q2_K's
# figure (2.96G), a copy in that table, so it is not used.
LLAMA_3_8B_GIB = {
    "q2_k": 2.96,
    "q3_k_s": 3.41,
    "q3_k_m": 3.74,
    "q3_k_l": 4.03,
    "q4_k_s": 4.37,
    "q4_k_m": 4.58,
    "q5_k_s": 5.21,
    "q5_k_m": 5.33,
    "q6_k": 6.14,
    "q8_0": 7.96,
}


@pytest.mark.parametrize(("ftype", "gib"), LLAMA_3_8B_GIB.items())
def test_llama_3_8b_sizes_match_llama_quantize_table(ftype: str, gib: float) -> None:
    arch = get_catalog().models["llama-3.1-8b"].architecture
    # The table rounds to 0.01 G and its files carry a few MB of header and tokenizer.
    assert weight_bytes(arch, ftype).total / 2**30 == pytest.approx(gib, abs=0.015)


def test_q4_k_m_rules_by_hand_for_llama_3_8b() -> None:
    m = mix_model(get_catalog().models["llama-3.1-8b"].architecture)
    # Output: Q6_K; token embedding (untied): the default Q4_K.
    assert tensor_type("q4_k_m", "lm_head", m, ncols=4096) == "Q6_K"
    assert tensor_type("q4_k_m", "embedding", m, ncols=4096) == "Q4_K"
    # attn_v: Q6_K where use_more_bits (layers 0-3, 28-31 and every third between), else Q4_K.
    kinds = [tensor_type("q4_k_m", "attn_v", m, ncols=4096, i_attn_v=i) for i in range(32)]
    assert kinds.count("Q6_K") == 16 and kinds[0] == "Q6_K" and kinds[4] == "Q4_K"
    # Router and 1-D tensors are never quantized.
    assert tensor_type("q4_k_m", "router", m, ncols=4096) == "F32"


def test_iq_mixes_follow_gqa_and_fallbacks() -> None:
    m = mix_model(get_catalog().models["llama-3.1-70b"].architecture)  # 64/8 heads: n_gqa 8
    assert tensor_type("iq2_xxs", "attn_v", m, ncols=8192) == "Q4_K"
    assert tensor_type("iq2_xxs", "lm_head", m, ncols=8192) == "Q5_K"
    assert tensor_type("iq2_xxs", "embedding", m, ncols=8192) == "Q2_K"
    # 70B: a Q4_K attn_v is raised to Q5_K (llama-quant.cpp LLM_TYPE_70B).
    assert tensor_type("q4_k_s", "attn_v", m, ncols=8192, i_attn_v=10) == "Q5_K"
    # Row of 2880 (gpt-oss): not a multiple of 256 → 32-block fallbacks, then F16.
    assert fallback("IQ2_XS", 2880) == "IQ4_NL"
    assert fallback("Q3_K", 2880) == "Q4_0"
    assert fallback("Q4_K", 100) == "F16"


def test_every_gguf_file_type_is_a_weight_format_with_loose_spellings() -> None:
    for name in GGUF_FTYPES:
        assert name in WEIGHT_FORMATS
        assert normalize_format(name.upper()) == name
        assert normalize_format("gguf " + name.replace("_", "-")) == name
    assert normalize_format("Q4_K") == "q4_k_m"  # llama-quantize's alias
    assert normalize_format("q5-k") == "q5_k_m"
