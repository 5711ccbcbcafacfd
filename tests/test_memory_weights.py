"""Weight bytes by format, against published sizes and hand calculations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tools.architecture import count_parameters
from tools.catalog import get_catalog
from tools.errors import ToolInputError
from tools.memory import normalize_format, weight_bytes
from tools.memory.formats import ggml_type_bytes, linear_bytes, use_more_bits
from tools.memory.tensors import inventory_params

# shared/research/params.json (meta-device counts), copied into tests/data.
PARAMS_JSON = Path(__file__).resolve().parent / "data" / "research" / "params.json"
RESEARCH = json.loads(PARAMS_JSON.read_text())["models"]


def arch(model_id: str):  # type: ignore[no-untyped-def]
    return get_catalog().models[model_id].architecture


@pytest.mark.parametrize("model_id", sorted(get_catalog().models))
def test_tensor_inventory_sums_to_exact_parameter_count(model_id: str) -> None:
    a = arch(model_id)
    assert inventory_params(a) == count_parameters(a).total


def test_bf16_weights_match_research_for_all_models() -> None:
    # params.json bf16_weight_bytes = 2 × numel of the model instantiated on the meta device.
    from tests.test_memory_kv import RESEARCH_TO_ID

    for name, model_id in RESEARCH_TO_ID.items():
        assert weight_bytes(arch(model_id), "bf16").total == RESEARCH[name]["bf16_weight_bytes"]


def test_fp16_7b_rule_of_thumb() -> None:
    # Rule of thumb: 7B × 2 bytes ≈ 14 GB. Llama-2-7B really has 6,738,415,616 parameters
    # (params.json) → 13,476,831,232 bytes = 13.48 GB.
    assert weight_bytes(arch("llama-2-7b"), "fp16").total == 6_738_415_616 * 2
    assert weight_bytes(arch("llama-2-7b"), "fp32").total == 6_738_415_616 * 4


def test_nf4_bits_per_weight_from_qlora_paper() -> None:
    # QLoRA §3: blocksize 64 with fp32 absmax → 32/64 = 0.5 bits of constants → 4.5 bits.
    assert linear_bytes("nf4", 4096, 4096, 1, 128) == 4096 * 4096 * 4.5 / 8
    # Double quantization: 8/64 + 32/(64·256) = 0.127 bits of constants.
    dq_bits = linear_bytes("nf4-dq", 4096, 4096, 1, 128) * 8 / (4096 * 4096)
    assert dq_bits == pytest.approx(4.127, abs=0.0005)
    # "a reduction of 0.373 bits per parameter ... approximately 3 GB for a 65B model"
    saving_bytes = (4.5 - dq_bits) * 65e9 / 8
    assert saving_bytes == pytest.approx(3e9, rel=0.02)


def test_gptq_and_awq_bytes_by_hand() -> None:
    # 4096×4096 linear, group 128: 32 groups per input row.
    qweight = 4096 * 4096 // 2  # 4 bits
    scales = 32 * 4096 * 2  # fp16 per (group, output)
    qzeros = 32 * 4096 // 2  # 4 bits per (group, output)
    g_idx = 4096 * 4  # int32 per input feature (GPTQ only)
    assert linear_bytes("int4-awq", 4096, 4096, 1, 128) == qweight + scales + qzeros
    assert linear_bytes("int4-gptq", 4096, 4096, 1, 128) == qweight + scales + qzeros + g_idx
    # bits/weight without g_idx: 4 + 16/128 + 4/128 = 4.15625
    assert (qweight + scales + qzeros) * 8 / 4096**2 == 4.15625


def test_int8_per_channel_scales() -> None:
    # 1 byte per weight + one fp16 scale per output row
    assert linear_bytes("int8", 11008, 4096, 1, 128) == 11008 * 4096 + 2 * 11008


def test_gguf_block_sizes() -> None:
    # ggml-common.h: block_q8_0 = fp16 scale + 32 int8 = 34 bytes per 32 weights
    assert ggml_type_bytes("Q8_0", 1, 4096) == 4096 // 32 * 34
    # block_q4_K = 144 bytes per 256; block_q6_K = 210 bytes per 256
    assert ggml_type_bytes("Q4_K", 1, 4096) == 16 * 144
    assert ggml_type_bytes("Q6_K", 1, 4096) == 16 * 210
    # a row of 2880 (gpt-oss) is not a multiple of 256: Q4_K falls back to Q5_0 (22 B / 32)
    assert ggml_type_bytes("Q4_K", 1, 2880) == 2880 // 32 * 22


def test_q4_k_m_uses_q6_k_for_half_of_attn_v_and_ffn_down() -> None:
    # TheBloke/localmodels Llama-2 GGML READMEs: "Uses GGML_TYPE_Q6_K for half of the
    # attention.wv and feed_forward.w2 tensors, else GGML_TYPE_Q4_K" (32-layer 7B/13B-class).
    assert sum(use_more_bits(i, 32) for i in range(32)) == 16
    assert sum(use_more_bits(i, 40) for i in range(40)) == 20


def test_q4_k_m_llama_2_13b_file_size() -> None:
    # localmodels/Llama-2-13B-ggml README, 'Provided files': llama-2-13b.ggmlv3.q4_K_M.bin
    # 7.87 GB (k-quants of llama.cpp commit 2d43387). The file adds only a small header.
    assert weight_bytes(arch("llama-2-13b"), "q4_k_m").total / 1e9 == pytest.approx(7.87, abs=0.01)


def test_mxfp4_gpt_oss_checkpoint_size() -> None:
    # params.json mxfp4_checkpoint_bytes_est: routed experts at 4.25 bits, the rest bf16
    # (gpt-oss model card: MoE weights in MXFP4).
    assert weight_bytes(arch("gpt-oss-120b"), "mxfp4").total == pytest.approx(
        RESEARCH["gpt-oss-120b"]["mxfp4_checkpoint_bytes_est"], abs=1
    )
    assert weight_bytes(arch("gpt-oss-20b"), "mxfp4").total == pytest.approx(
        RESEARCH["gpt-oss-20b"]["mxfp4_checkpoint_bytes_est"], abs=1
    )


def test_quantized_formats_keep_embedding_and_output_16bit_by_default() -> None:
    a = arch("llama-3.1-70b")
    emb = a.vocab_size * a.hidden_size  # 128256 × 8192 = 1,050,673,152 per table
    int8 = weight_bytes(a, "int8")
    assert int8.embedding == emb * 2 and int8.lm_head == emb * 2
    all_int8 = weight_bytes(a, "int8", keep_16bit=[])
    assert all_int8.embedding == emb + 2 * a.vocab_size
    assert int8.total - all_int8.total == 2 * (emb - 2 * a.vocab_size)


def test_tensor_parallel_shares_weights() -> None:
    a = arch("llama-3.1-70b")
    whole = weight_bytes(a, "bf16").total
    per_gpu = weight_bytes(a, "bf16", tp=8).total
    # Norms (81 × 2 × 8192 + 8192 values) stay replicated; everything else splits 8 ways.
    norms = (80 * 2 * 8192 + 8192) * 2
    assert per_gpu == (whole - norms) // 8 + norms
    # tp=16 > 8 KV heads: k_proj and v_proj are replicated 2×, so more than whole/16
    assert weight_bytes(a, "bf16", tp=16).total > (whole - norms) // 16 + norms


def test_format_names_are_normalized_and_unknown_rejected() -> None:
    assert normalize_format("GGUF Q4_K_M") == "q4_k_m"
    assert normalize_format("gptq") == "int4-gptq"
    assert normalize_format("BF16") == "bf16"
    with pytest.raises(ToolInputError) as err:
        normalize_format("q4_k_x")
    assert err.value.field == "weights"
    assert "q4_k_m" in err.value.message


def test_fp8_keeps_embeddings_and_1d_tensors_16bit() -> None:
    # params.json Llama-3.1-8B: embedding 525,336,576 (and an untied lm_head of the same size),
    # non-embedding 6,979,588,096 of which the RMSNorm weights are 32 × 2 × 4096 + 4096 =
    # 266,240. fp8: 1 byte per block linear weight, 2 bytes for everything else.
    norms = 32 * 2 * 4096 + 4096
    expected = (6_979_588_096 - norms) * 1 + norms * 2 + 2 * 525_336_576 * 2
    assert weight_bytes(arch("llama-3.1-8b"), "fp8").total == expected
