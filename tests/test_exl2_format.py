"""EXL2 (ExLlamaV2): the format's name, bytes and engine, against hand arithmetic.

Facts from turboderp-org/exllamav2 (commit da07fac): doc/convert.md ("-b / --bits: Target
average number of bits per weight"; "-hb ... Default is 6, although that value actually results
in a mixed-precision quantization of about 6.3 bits"); conversion/optimize.py (the budget is
`numel × target_bpw` over the decoder layers, charged each option's `total_bits`, which
qparams.py counts with its scales, groups and permutation); conversion/qparams.py
`qparams_headoptions[6] = QParams(128, [8, 6], [0.15, 0.85], 4)`; model.py (the embedding
module on device -1, the CPU, in set_device_map / load_tp_gen / load_autosplit_gen). The other
head rates: conversion/qparams.py `qparams_headoptions` at turboderp/exllamav2 b9c025b (2: 32,
[4, 2], [0.3, 0.7]; 3: 32, [4, 3]; 4: 32, [6, 4]; 5: 128, [6, 5]; 6: 128, [8, 6]; 8: 128, [8],
[1.0]; 4-bit scales throughout).
"""

from __future__ import annotations

import math

import pytest

from tools.errors import ToolInputError
from tools.memory import estimate_memory, normalize_format, resolve_model, weight_bytes
from tools.memory.formats import engine_format_problem, is_weight_format
from tools.memory.request import MemoryRequest

# Llama-2-70B's config.json: hidden 8192, intermediate 28672, 80 layers, 64 heads of 128,
# 8 KV heads, vocab 32000, untied output layer.
HIDDEN, INTER, LAYERS, KV_DIM, VOCAB = 8192, 28672, 80, 8 * 128, 32000
LINEAR_PER_LAYER = 2 * HIDDEN * HIDDEN + 2 * HIDDEN * KV_DIM + 3 * HIDDEN * INTER
LINEAR = LAYERS * LINEAR_PER_LAYER  # 68,451,041,280 decoder linear weights


def _head_bits_by_hand() -> int:
    # qparams_headoptions[6] over matrix_shape() = (in 8192, out 32000), group 128:
    # 8-bit groups ceil(8192 × 0.15 / 128) = 10 (1,280 rows), 6-bit groups ceil(6912/128) = 54.
    g8, g6 = math.ceil(8192 * 0.15 / 128), 54
    rows8, rows6 = g8 * 128, 8192 - g8 * 128
    q_weight = rows8 * VOCAB * 8 + rows6 * VOCAB * 6
    groups = g8 + g6
    return q_weight + groups * 16 + groups * 32 + groups * VOCAB * 4 + 8192 * 32


@pytest.mark.parametrize(
    "spelling",
    ["exl2-4.65bpw", "EXL2 4.65bpw", "exl2_4.65", "4.65bpw", "4.65 bpw", "4.65", "EXL2 at 4.65"],
)
def test_exl2_spellings_are_one_canonical_name(spelling: str) -> None:
    assert normalize_format(spelling) == "exl2-4.65bpw"


def test_integer_rates_keep_one_decimal_and_other_formats_are_untouched() -> None:
    assert normalize_format("5.0bit exl2") == "exl2-5.0bpw"
    assert normalize_format("exl2 6bpw") == "exl2-6.0bpw"
    with pytest.raises(ToolInputError):
        normalize_format("8bit")  # an integer width alone is not EXL2 (nor a format)
    assert normalize_format("4bit") == "int4-awq"
    assert is_weight_format("exl2-4.65bpw") and not is_weight_format("exl2-4.65")


@pytest.mark.parametrize("spelling", ["9.0bpw", "exl2 1.5bpw", "exl2-4.655bpw"])
def test_a_rate_exllamav2_does_not_make_is_refused(spelling: str) -> None:
    with pytest.raises(ToolInputError) as err:
        normalize_format(spelling)
    assert err.value.field == "weights"


def test_the_output_layer_is_about_6_3_bits() -> None:
    bits = _head_bits_by_hand()
    assert bits / (8192 * VOCAB) == pytest.approx(6.3448, abs=1e-4)  # "about 6.3 bits"


def test_llama2_70b_at_4_65_bpw_by_hand() -> None:
    arch = resolve_model(model="llama-2-70b").architecture
    wb = weight_bytes(arch, "exl2-4.65bpw")
    linear = LINEAR * 4.65 / 8  # 39,787,167,744 B: the average already counts the scales
    norms = (2 * LAYERS * HIDDEN + HIDDEN) * 2  # RMSNorm weights, fp16
    head = _head_bits_by_hand() / 8  # 207,905,152 B
    # Each linear is rounded to whole bytes: 560 tensors, < 1 byte each.
    assert sum(wb.layers) + wb.final_norm == pytest.approx(linear + norms, abs=600)
    assert wb.lm_head == head
    assert wb.embedding == 0  # on the GPU: nothing
    assert wb.embedding_host_ram == VOCAB * HIDDEN * 2  # fp16 table in system RAM: 0.524 GB
    assert wb.total == pytest.approx(linear + norms + head, abs=600)  # ≈ 40.00 GB of VRAM


def test_a_tied_head_is_still_a_quantized_tensor_of_its_own() -> None:
    arch = resolve_model(model="llama-3.2-1b").architecture  # tie_word_embeddings: true
    assert arch.tied_embeddings
    wb = weight_bytes(arch, "exl2-6.0bpw")
    assert wb.lm_head > 0 and wb.embedding == 0
    assert wb.embedding_host_ram == arch.vocab_size * arch.hidden_size * 2


def test_only_exllamav2_loads_exl2() -> None:
    assert engine_format_problem("exllamav2", "exl2-4.65bpw") is None
    for engine in ("vllm", "generic", "transformers", "mlx"):
        problem = engine_format_problem(engine, "exl2-4.65bpw")
        assert problem is not None and "cannot load" in problem[0]
    assert engine_format_problem("exllamav2", "q4_k_m") is not None
    with pytest.raises(ValueError, match=r"engine: exl2-4\.65bpw is ExLlamaV2.s EXL2 format"):
        MemoryRequest(model="llama-2-70b", weights="exl2-4.65bpw", engine="vllm")


def test_two_3090s_hold_llama2_70b_at_4_65_bpw_with_exllamav2() -> None:
    est = estimate_memory(
        MemoryRequest(model="llama-2-70b", weights="EXL2 4.65bpw", gpu="rtx-3090", gpus=2)
    )
    assert est.engine == "exllamav2"
    assert est.weights_format == "exl2-4.65bpw"
    assert (est.tp, est.pp) == (1, 2)  # gpu_split by layers
    # Half of the ≈40.00 GB on each card (40 layers each; the head on the last one).
    (weights,) = [c for c in est.components if c.name == "weights"]
    assert weights.bytes_per_gpu == pytest.approx(40.0e9 / 2, rel=0.01)
    assert est.fits


def test_the_answer_for_llama2_70b_exl2_on_two_3090s(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from assistant.cli import main

    question = "Will Llama2-70B EXL2 4.65bpw fit on 2x RTX 3090?"
    assert main(["ask", "--offline", "--no-save", "--json", question]) == 0
    out = json.loads(capsys.readouterr().out)
    (call,) = [c for c in out["tool_calls"] if c["name"] == "size"]
    estimate = call["result"]["memory"][0]["estimate"]
    assert (estimate["weights_format"], estimate["engine"]) == ("exl2-4.65bpw", "exllamav2")
    assert estimate["fits"] is True
    # The heavier of the two stages: 40 layers (their linears at 4.65 bits, two fp16 norms of
    # 8192 each), the final norm and the output layer at -hb 6.
    stage = 40 * (LINEAR_PER_LAYER * 4.65 / 8 + 2 * HIDDEN * 2) + HIDDEN * 2
    stage += _head_bits_by_hand() / 8  # ≈ 20.10e9 B = 18.72 GiB
    (weights,) = [c for c in estimate["components"] if c["name"] == "weights"]
    assert weights["bytes_per_gpu"] == pytest.approx(stage, abs=600)
    answer = out["answer"]
    assert "Fits on 2× GeForce RTX 3090" in answer
    assert "exl2-4.65bpw" in answer and "ExLlamaV2" in answer


def test_an_owned_card_with_exl2_is_not_given_a_llama_cpp_plan(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # ExLlamaV2 loads EXL2, llama.cpp does not: the exllamav2 sizing answers, no GGUF plan.
    from assistant.cli import main

    assert main(["ask", "--offline", "--no-save", "can my 3090 run Qwen2.5 32B exl2 4.0bpw?"]) == 0
    out = capsys.readouterr().out
    assert "Fits on 1× GeForce RTX 3090" in out
    assert "llama-server" not in out and "q4_k_m" not in out


# --- The output layer at another -hb than 6 (qparams_headoptions, turboderp/exllamav2 b9c025b) --


def _head8_bits_by_hand() -> int:
    # qparams_headoptions[8] = QParams(128, [8], [1.0], 4): every one of the 8192 input rows at
    # 8 bits, 8192 / 128 = 64 groups, 4-bit scales per group and output column.
    groups = 8192 // 128
    q_weight = 8192 * VOCAB * 8  # 2,097,152,000
    return q_weight + groups * 16 + groups * 32 + groups * VOCAB * 4 + 8192 * 32


def _head4_bits_by_hand() -> int:
    # qparams_headoptions[4] = QParams(32, [6, 4], [0.15, 0.85], 4): groups of 32 rows;
    # 6-bit groups ceil(8192 × 0.15 / 32) = ceil(38.4) = 39 (1,248 rows), then 4-bit groups
    # ceil(6944 / 32) = 217 over the 6,944 rows left: 256 groups.
    rows6, rows4, groups = 39 * 32, 8192 - 39 * 32, 39 + 217
    q_weight = rows6 * VOCAB * 6 + rows4 * VOCAB * 4
    return q_weight + groups * 16 + groups * 32 + groups * VOCAB * 4 + 8192 * 32


@pytest.mark.parametrize(
    ("spelling", "canonical"),
    [
        ("4.65bpw-h8-exl2", "exl2-4.65bpw-h8"),  # a repo name's own order
        ("exl2-4.65bpw-h8", "exl2-4.65bpw-h8"),
        ("EXL2 4.65bpw hb8", "exl2-4.65bpw-h8"),
        ("exl2_6.0bpw_h4", "exl2-6.0bpw-h4"),
        ("4.65bpw-h6-exl2", "exl2-4.65bpw"),  # -hb 6 is the default: no suffix
    ],
)
def test_head_bits_are_part_of_the_exl2_name(spelling: str, canonical: str) -> None:
    assert normalize_format(spelling) == canonical
    assert is_weight_format(canonical)


@pytest.mark.parametrize("spelling", ["exl2-4.65bpw-h7", "4.65bpw-h16-exl2"])
def test_a_head_rate_the_converter_has_no_option_for_is_refused(spelling: str) -> None:
    # convert.py accepts -hb 2, 3, 4, 5, 6 or 8 (16 is commented out in qparams.py).
    with pytest.raises(ToolInputError) as err:
        normalize_format(spelling)
    assert err.value.field == "weights" and "-hb" in err.value.problem


def test_an_8_bit_head_is_about_8_03_bits_and_a_4_bit_head_about_4_43() -> None:
    # 8-bit: 2,105,609,216 bits over 262,144,000 weights; 4-bit: 1,161,490,432 bits.
    assert _head8_bits_by_hand() == 2_105_609_216
    assert _head8_bits_by_hand() / (8192 * VOCAB) == pytest.approx(8.0322, abs=1e-4)
    assert _head4_bits_by_hand() == 1_161_490_432
    assert _head4_bits_by_hand() / (8192 * VOCAB) == pytest.approx(4.4308, abs=1e-4)


@pytest.mark.parametrize(
    ("fmt", "head_bits"),
    [("exl2-4.65bpw-h8", _head8_bits_by_hand()), ("exl2-4.65bpw-h4", _head4_bits_by_hand())],
)
def test_llama2_70b_with_another_head_by_hand(fmt: str, head_bits: int) -> None:
    arch = resolve_model(model="llama-2-70b").architecture
    wb = weight_bytes(arch, fmt)
    assert wb.lm_head == head_bits // 8  # 263,201,152 B at -hb 8; 145,186,304 B at -hb 4
    linear = LINEAR * 4.65 / 8
    norms = (2 * LAYERS * HIDDEN + HIDDEN) * 2
    assert wb.total == pytest.approx(linear + norms + head_bits / 8, abs=600)
    # The decoder layers do not change with the head: only the output layer does.
    assert wb.layers == weight_bytes(arch, "exl2-4.65bpw").layers


def test_an_h8_repo_is_55_mb_more_than_its_h6_twin() -> None:
    arch = resolve_model(model="llama-2-70b").architecture
    h6, h8 = weight_bytes(arch, "exl2-4.65bpw"), weight_bytes(arch, "exl2-4.65bpw-h8")
    # 263,201,152 − 207,905,152 = 55,296,000 B: the head's 15 % of rows at 8 bits become 100 %.
    assert h8.total - h6.total == (_head8_bits_by_hand() - _head_bits_by_hand()) // 8
    assert h8.total - h6.total == 55_296_000


# --- ExLlamaV2's quantized KV caches (exllamav2/cache.py, cuda/cache.cu at b9c025b) -------------
# Llama 3.1 8B: 32 layers, 8 KV heads of 128. Per head, layer and token the cache holds the keys
# and values as uint8 (head_dim // elements per byte) plus K's and V's fp16 scales (head_dim // 32
# of them, 2 bytes each): Q4 64 + 64 + 16 = 144 B (0.5625 B per element); Q6 (8-bit keys, 4-bit
# values) 128 + 64 + 16 = 208 B; Q8 128 + 128 + 16 = 272 B; fp16 2 × 128 × 2 = 512 B.
L8B_LAYERS, L8B_KV_HEADS, L8B_HEAD_DIM = 32, 8, 128
Q_HEAD_BYTES = {"q4": 64 + 64 + 16, "q6": 128 + 64 + 16, "q8": 128 + 128 + 16}
DEQUANT_PER_TOKEN = 2 * L8B_KV_HEADS * L8B_HEAD_DIM * 2  # one layer's K and V in fp16: 4,096 B


@pytest.mark.parametrize(("kv", "per_token"), [("q4", 36_864), ("q6", 53_248), ("q8", 69_632)])
def test_q_cache_bytes_per_token_by_hand(kv: str, per_token: int) -> None:
    from tools.memory import kv_cache_bytes_per_token

    assert L8B_LAYERS * L8B_KV_HEADS * Q_HEAD_BYTES[kv] == per_token
    arch = resolve_model(model="llama-3.1-8b").architecture
    assert kv_cache_bytes_per_token(arch, kv) == per_token
    # Against the fp16 cache's 131,072 B: 0.5625 / 2, 0.8125 / 2, 1.0625 / 2 of it.
    assert (
        per_token / kv_cache_bytes_per_token(arch, "fp16")
        == {
            "q4": 0.28125,
            "q6": 0.40625,
            "q8": 0.53125,
        }[kv]
    )


def test_a_q4_cache_on_one_gpu_with_its_fp16_working_layer() -> None:
    est = estimate_memory(
        MemoryRequest(
            model="llama-3.1-8b", weights="exl2-6.0bpw", kv_dtype="cache_q4", context=8192
        )
    )
    assert (est.engine, est.kv_dtype) == ("exllamav2", "q4")
    (kv,) = [c for c in est.components if c.name == "kv_cache"]
    # 36,864 B × 8,192 tokens = 301,989,888 B of Q4 cache, + 4,096 B × 8,192 = 33,554,432 B of
    # fp16 keys and values one layer is dequantized into: 335,544,320 B.
    assert kv.bytes_per_gpu == 36_864 * 8192 + DEQUANT_PER_TOKEN * 8192 == 335_544_320
    assert est.kv_cache_bytes_per_token_per_gpu == 36_864 + DEQUANT_PER_TOKEN


def test_a_q_cache_split_over_two_gpus_keeps_a_working_layer_on_each() -> None:
    est = estimate_memory(
        MemoryRequest(
            model="llama-3.1-70b",
            weights="exl2-4.0bpw",
            kv_dtype="q6",
            context=32768,
            gpu="rtx-3090",
            gpus=2,
        )
    )
    assert (est.tp, est.pp) == (1, 2)
    (kv,) = [c for c in est.components if c.name == "kv_cache"]
    # Llama 3.1 70B: 80 layers, 8 KV heads of 128; 40 layers per card at 8 × 208 B each per
    # token, and one layer's fp16 K/V (4,096 B per token) on each card.
    assert kv.bytes_per_gpu == (40 * 8 * 208 + 4096) * 32768


def test_a_q_cache_length_rounds_up_to_whole_quantization_blocks() -> None:
    from tools.memory.kv_cache import exllamav2_q_block

    # Qwen2.5 3B: 2 KV heads × 128 = 256 elements per token; 512-element blocks need 2 tokens,
    # so 1,001 tokens are allocated as 1,002. 36 layers × 2 heads × 144 B per token at Q4.
    arch = resolve_model(model="qwen2.5-3b").architecture
    assert exllamav2_q_block(arch) == 2
    est = estimate_memory(
        MemoryRequest(model="qwen2.5-3b", engine="exllamav2", kv_dtype="q4", context=1001)
    )
    (kv,) = [c for c in est.components if c.name == "kv_cache"]
    assert kv.bytes_per_gpu == 36 * 2 * 144 * 1002 + 2 * 2 * 128 * 2 * 1002


def test_an_exllamav2_fp8_cache_is_one_byte_with_its_fp16_working_layer() -> None:
    est = estimate_memory(
        MemoryRequest(model="llama-3.1-8b", engine="exllamav2", kv_dtype="fp8", context=4096)
    )
    (kv,) = [c for c in est.components if c.name == "kv_cache"]
    # ExLlamaV2Cache_8bit: 32 × 2 × 8 × 128 × 1 B = 65,536 B per token, no scales.
    assert kv.bytes_per_gpu == (65_536 + DEQUANT_PER_TOKEN) * 4096


@pytest.mark.parametrize(
    "fields",
    [
        {"kv_dtype": "q4", "engine": "vllm"},
        {"kv_dtype": "q8", "engine": "generic"},
        {"kv_dtype": "q4", "weights": "q4_k_m"},  # ExLlamaV2 loads no GGUF
    ],
)
def test_a_q_cache_is_exllamav2s_alone(fields: dict[str, str]) -> None:
    with pytest.raises(ValueError, match=r"kv_dtype: kv_dtype q\d is ExLlamaV2's Q\d cache"):
        MemoryRequest(model="llama-3.1-8b", **fields)


def test_a_q_cache_alone_sizes_exllamav2_and_says_so() -> None:
    est = estimate_memory(MemoryRequest(model="llama-3.1-8b", kv_dtype="q8"))
    assert est.engine == "exllamav2"
    assert any("Q8 cache, so the estimate is for ExLlamaV2" in a for a in est.assumptions)


def test_the_pcie_note_of_an_exllamav2_plan_names_exllamav2() -> None:
    # Two GeForce cards have no NVLink: the note on the split is for the engine sized.
    est = estimate_memory(
        MemoryRequest(model="llama-2-70b", weights="exl2-4.65bpw", gpu="rtx-3090", gpus=2)
    )
    (note,) = [a for a in est.assumptions if a.startswith("Several cards without NVLink")]
    assert "ExLlamaV2 splits the layers" in note and "gpu_split" in note
    assert "--split-mode" not in note  # llama.cpp's flag is no ExLlamaV2 setting
    gguf = estimate_memory(
        MemoryRequest(model="llama-2-70b", weights="q4_k_m", gpu="rtx-3090", gpus=2)
    )
    assert any("llama.cpp splits the layers" in a for a in gguf.assumptions)


def test_the_answer_for_an_h8_repo_with_a_q4_cache(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from assistant.cli import main

    question = "someone/Llama-2-70b-4.65bpw-h8-exl2 on 2x RTX 3090, cache_q4, 16k ctx: fits?"
    assert main(["ask", "--offline", "--no-save", "--json", question]) == 0
    out = json.loads(capsys.readouterr().out)
    (call,) = [c for c in out["tool_calls"] if c["name"] == "size"]
    est = call["result"]["memory"][0]["estimate"]
    assert (est["weights_format"], est["kv_dtype"], est["engine"]) == (
        "exl2-4.65bpw-h8",
        "q4",
        "exllamav2",
    )
    parts = {c["name"]: c["bytes_per_gpu"] for c in est["components"]}
    # The heavier stage: 40 layers at 4.65 bits with their two fp16 norms, the final norm and
    # the output layer at -hb 8 (263,201,152 B).
    stage = 40 * (LINEAR_PER_LAYER * 4.65 / 8 + 2 * HIDDEN * 2) + HIDDEN * 2
    assert parts["weights"] == pytest.approx(stage + _head8_bits_by_hand() / 8, abs=600)
    # Q4 cache: 40 layers × 8 KV heads × 144 B, plus the fp16 working layer (8 × 128 × 2 × 2 B),
    # per token, × 16,384 tokens = 822,083,584 B.
    assert parts["kv_cache"] == (40 * 8 * 144 + 4096) * 16384 == 822_083_584
