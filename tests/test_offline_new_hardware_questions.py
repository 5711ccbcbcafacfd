"""Issue 15: offline questions about the new models and the hardware people own, driven through
the offline engine's public turn (OfflineEngine.run_turn) and `gpu-sizer ask --offline --json`,
checked on the tool results against hand arithmetic written out below.

Independent figures: parameter counts from tests/data/research/params-new.json (meta device),
config values from models-new.json, GPU memory from the research records (driver-reported MiB,
nvidia-smi), the macOS working-set fractions observed in the research (2/3, 3/4), vLLM's
gpu_memory_utilization default 0.9 and 16-token KV blocks (vLLM docs).
"""

from __future__ import annotations

import json

import pytest

from assistant.cli import main
from assistant.conversation import Conversation
from tests.offline_turns import answer, local_plans, recommendation, sizing
from tools.local_serving import LocalServingPlan
from tools.memory import MemoryRequest, estimate_memory
from tools.memory.request import MemoryEstimate
from tools.notes import texts
from tools.sizing import SizedConfiguration

GB, GiB, MiB = 10**9, 2**30, 2**20
VLLM_UTILISATION = 0.9  # vLLM docs: gpu_memory_utilization defaults to 0.9
H100_USABLE = 81_559 * MiB  # nvidia-smi (shared research README)
H200_USABLE = 143_771 * MiB
RTX_3090_USABLE = 24_576 * MiB  # driver-reported (research record)

# Meta-device parameter counts (tests/data/research/params-new.json).
LLAMA_33_70B = 70_553_706_496
SCOUT_TOTAL = 108_641_793_536
GEMMA3_27B_TOTAL = 27_432_406_640
QWEN3_8B_TOTAL = 8_190_735_360
QWEN3_30B_A3B_TOTAL = 30_532_122_624


def _memory(conversation: Conversation) -> tuple[SizedConfiguration, MemoryEstimate]:
    """The first configuration the turn's sizing report sized, and its memory estimate."""
    memory = sizing(conversation).memory
    assert memory and memory[0].estimate is not None, "no memory estimate in the turn"
    return memory[0], memory[0].estimate


def _per_gpu(result: MemoryEstimate) -> int:
    return sum(result.breakdown.values())


def _recommend_notes(conversation: Conversation) -> list[str]:
    return texts(recommendation(conversation).notes)


def _plan(conversation: Conversation) -> LocalServingPlan:
    (plan,) = local_plans(conversation)
    return plan


async def test_qwen3_32b_awq_on_an_rtx_3090_misses_by_the_runtime() -> None:
    text, conversation = await answer("Qwen3 32B in 4-bit on an RTX 3090")
    args, result = _memory(conversation)
    assert (result.model_id, args.gpu, result.weights_format) == (
        "qwen3-32b",
        "rtx-3090",
        "int4-awq",
    )

    # AWQ int4, group 128: 4 bits per weight + an fp16 scale and a 4-bit zero per 128 inputs
    # and output (AutoAWQ WQLinear_GEMM). Qwen3-32B: hidden 5,120, 64 layers, 64 q heads and
    # 8 KV heads of head_dim 128, FFN 25,600, vocabulary 151,936, untied, q/k norms of 128.
    def awq(rows: int, cols: int) -> int:
        groups = cols // 128
        return rows * cols // 2 + groups * rows * 2 + groups * rows // 2

    h, q, kv, ffn = 5_120, 64 * 128, 8 * 128, 25_600
    layer = awq(q, h) + 2 * awq(kv, h) + awq(h, q) + 2 * awq(ffn, h) + awq(h, ffn)
    vectors = (2 * 128 + 2 * h) * 2  # q/k norms and the two layer norms, 16-bit
    embedding_and_head = 2 * 151_936 * h * 2  # kept in 16-bit by AWQ
    weights = 64 * (layer + vectors) + embedding_and_head + h * 2
    assert result.breakdown["weights"] == weights  # 19.33 GB
    # KV: 64 layers × 8 heads × 128 × 2 (K, V) × 2 B = 262,144 B per token × 4,096 tokens.
    assert result.breakdown["kv_cache"] == 262_144 * 4_096
    # vLLM's budget: 0.9 × 24,576 MiB = 21.60 GiB; weights and KV alone take 19.00 GiB, the
    # activations and runtime (CUDA context, CUDA graphs) push it over.
    budget = int(RTX_3090_USABLE * VLLM_UTILISATION)
    assert result.budget_bytes_per_gpu == budget
    assert weights + 262_144 * 4_096 < budget < _per_gpu(result)
    assert result.fits is False and "Does not fit" in text


async def test_qwen3_32b_q4_k_m_on_an_rtx_3090_with_llama_cpp_fits() -> None:
    text, conversation = await answer("Qwen3 32B Q4_K_M on an RTX 3090 with llama.cpp")
    plan = _plan(conversation)
    assert plan.gpu == "rtx-3090" and plan.fits_fully is True
    # 64 layers + the output layer on the GPU; no reserve: the budget is the card's 24,576 MiB.
    assert plan.n_gpu_layers == 65
    assert plan.budget_bytes / GB == pytest.approx(RTX_3090_USABLE / GB, abs=1e-3)
    assert "fits on the GPU" in text


async def test_llama4_scout_on_one_h100_needs_4_bit() -> None:
    text, conversation = await answer("Llama 4 Scout on one H100")
    _, result = _memory(conversation)
    assert result.model_id == "llama-4-scout" and result.weights_format == "bf16"
    # bf16: 2 B × 108,641,793,536 parameters, vision tower included (vLLM loads it).
    assert result.breakdown["weights"] == 2 * SCOUT_TOTAL
    assert result.budget_bytes_per_gpu == int(H100_USABLE * VLLM_UTILISATION)
    assert result.fits is False
    # AWQ int4 ≈ 0.52 B per expert weight: ~59 GB < 76.97 GB (Meta: "fits on a single H100
    # with on-the-fly int4"); the recommender says which lower format fits.
    assert any(n.startswith("In int4-awq weights Llama 4 Scout") for n in _recommend_notes(
        conversation
    ))  # fmt: skip
    assert "In int4-awq weights" in text


async def test_llama33_70b_on_an_m3_max_128gb_fits_in_q8_not_bf16() -> None:
    text, conversation = await answer("Llama 3.3 70B on my MacBook Pro M3 Max with 128 GB")
    args, result = _memory(conversation)
    assert args.gpu == "apple-m3-max-40c" and result.engine == "generic"
    # macOS lets the GPU wire 3/4 of 128 GiB by default = 96 GiB (no vLLM reserve).
    assert result.usable_bytes_per_gpu == result.budget_bytes_per_gpu == 96 * GiB
    # bf16 weights 2 × 70,553,706,496 = 141.1 GB > 103.1 GB; even raised to 128 − 8 = 120 GiB
    # (128.8 GB) they do not fit, so no "fits after raising" warning.
    assert result.breakdown["weights"] == 2 * LLAMA_33_70B
    assert result.fits is False and not result.warnings
    assert any("sudo sysctl iogpu.wired_limit_mb=122880" in a for a in result.assumptions)
    # Q8_0 (34 bytes per 32 weights): 70.55 × 34/32 ≈ 75.0 GB < 96 GiB.
    q8 = estimate_memory(
        MemoryRequest(model="llama-3.3-70b", weights="q8_0", gpu=args.gpu, engine="generic")
    )
    assert q8.breakdown["weights"] == pytest.approx(LLAMA_33_70B * 34 / 32, rel=1e-3)
    assert q8.budget_bytes_per_gpu == 96 * GiB and q8.fits is True
    assert "In q8_0 weights Llama 3.3 70B fits 1× Apple M3 Max" in text
    assert "I could not place" not in text  # 'MacBook Pro' and '128 GB' are the machine


async def test_llama33_70b_q8_on_an_m2_ultra_192gb_fits() -> None:
    _, conversation = await answer("Llama 3.3 70B in Q8_0 on a Mac Studio M2 Ultra 192GB")
    args, result = _memory(conversation)
    assert args.gpu == "apple-m2-ultra" and result.weights_format == "q8_0"
    # Q8_0: every matrix at 34 B per 32 weights, norms F32: 80 layers of q, o (8,192²),
    # k, v (1,024 × 8,192), gate, up, down (28,672 × 8,192), embedding and output 128,256 ×
    # 8,192, and (80 × 2 + 1) norms of 8,192.
    matrices = 80 * (2 * 8_192**2 + 2 * 1_024 * 8_192 + 3 * 28_672 * 8_192) + 2 * 128_256 * 8_192
    assert result.breakdown["weights"] == matrices * 34 // 32 + 161 * 8_192 * 4
    # 3/4 of 192 GiB = 144 GiB for the GPU: 75 GB fits.
    assert result.usable_bytes_per_gpu == 144 * GiB and result.fits is True


async def test_glm45_air_q8_on_an_m3_max_fits_only_after_raising_the_limit() -> None:
    _, conversation = await answer("GLM-4.5-Air in Q8_0 on an M3 Max 128GB")
    _, result = _memory(conversation)
    # 106.85B parameters at ~1.06 B ≈ 113.6 GB > 96 GiB (103.1 GB), < 120 GiB (128.8 GB).
    assert 96 * GiB < _per_gpu(result) <= 120 * GiB
    assert result.fits is False
    (warning,) = result.warnings
    assert "fits after raising it" in warning.text
    assert "iogpu.wired_limit_mb=122880" in warning.text


async def test_llama31_8b_on_a_24gb_m4_pro_has_no_room_to_raise() -> None:
    _, conversation = await answer("Llama 3.1 8B on an M4 Pro with 24 GB")
    args, result = _memory(conversation)
    assert args.gpu == "apple-m4-pro-24gb"
    # 2/3 of 24 GiB = 16 GiB; raising it to 24 − 8 GiB gains nothing, so no sysctl line.
    assert result.budget_bytes_per_gpu == 16 * GiB
    # bf16 weights 2 × 8,030,261,248 = 16.06 GB + KV 131,072 B × 4,096 = 0.54 GB = 16.60 GB
    # < 16 GiB = 17.18 GB: it fits, just, since a Mac carries no CUDA context or cuBLAS
    # workspace (Metal), only llama.cpp's compute buffers beside weights and KV.
    assert result.breakdown["weights"] == 2 * 8_030_261_248
    assert result.breakdown["kv_cache"] == 131_072 * 4_096
    assert result.breakdown["overhead"] == 0
    assert result.fits is True
    assert result.per_gpu_bytes - (2 * 8_030_261_248 + 131_072 * 4_096) < 0.5 * GiB
    assert not any("iogpu" in a for a in result.assumptions)


async def test_gemma3_27b_at_128k_on_an_h100_caps_the_local_layers() -> None:
    _, conversation = await answer("Gemma 3 27B with 128k context on an H100")
    _, result = _memory(conversation)
    # 52 local layers keep 1,024 tokens, 10 global layers all 131,072; 16 KV heads × 128 ×
    # 2 × 2 B = 8,192 B per layer per token.
    kv = 8_192 * (10 * 131_072 + 52 * 1_024)
    assert result.breakdown["kv_cache"] == kv  # 11.17 GB, not 8,192 × 62 × 131,072 = 66.6
    assert result.breakdown["weights"] == 2 * GEMMA3_27B_TOTAL  # vision tower included
    assert result.budget_bytes_per_gpu == int(H100_USABLE * VLLM_UTILISATION)
    assert result.fits is True


async def test_gemma3_27b_on_an_rtx_4090_needs_4_bit() -> None:
    text, conversation = await answer("Gemma 3 27B on an RTX 4090")
    _, result = _memory(conversation)
    assert result.breakdown["weights"] == 2 * GEMMA3_27B_TOTAL  # 54.9 GB > 22.9 GB budget
    assert result.fits is False
    # The lower formats on the same GPU: fp8 keeps the vision tower (423,060,336) and the tied
    # embedding (262,208 × 5,376 = 1,409,630,208) in bf16: (27,432,406,640 − 423,060,336 −
    # 1,409,630,208) × 1 B + (423,060,336 + 1,409,630,208) × 2 B = 29.27e9 B (norms aside),
    # still over the 22.85e9 B budget; int4-awq (~0.5 B each for the quantized layers) fits.
    lower = {f.weights: f.estimate for f in sizing(conversation).lower_formats}
    fp8, awq = lower["fp8"], lower["int4-awq"]
    assert fp8 is not None and awq is not None and fp8.budget_bytes_per_gpu is not None
    kept = 423_060_336 + 262_208 * 5_376
    fp8_weights = (GEMMA3_27B_TOTAL - kept) * 1 + kept * 2
    assert fp8.breakdown["weights"] == pytest.approx(fp8_weights, rel=1e-4)
    assert fp8_weights > fp8.budget_bytes_per_gpu and fp8.fits is False
    assert awq.fits is True
    assert "In int4-awq weights Gemma 3 27B fits 1× NVIDIA GeForce RTX 4090" in text


async def test_deepseek_r1_on_8_h200s_in_its_fp8() -> None:
    _, conversation = await answer("DeepSeek R1 on 8x H200")
    args, result = _memory(conversation)
    assert (args.count, result.tp, result.weights_format) == (8, 8, "fp8")

    # fp8 (1 B per linear weight) split over 8 ranks (ceil); MLA's q_a/kv_a down-projections
    # and the routers (bf16) replicated; norms bf16; embedding and head bf16 split by 8.
    def split(n: int) -> int:
        return -(-n // 8)

    h = 7_168
    attention = split(1_536 * 128 * 192) + split(512 * 128 * 256) + split(128 * 128 * h)
    replicated = h * 1_536 + h * 576
    vectors = (2 * h + 1_536 + 512) * 2
    dense = attention + replicated + vectors + 3 * split(18_432 * h)
    moe = attention + replicated + vectors + 3 * split(2_048 * h * 256) + 3 * split(2_048 * h)
    moe += 256 * h * 2  # router
    weights = 3 * dense + 58 * moe + 2 * split(129_280 * h * 2) + h * 2
    assert result.breakdown["weights"] == weights  # 85.1 GB per GPU
    # MLA caches 61 × (512 + 64) × 2 B = 70,272 B per token, whole on every rank.
    assert result.kv_cache_bytes_per_token_per_gpu == 70_272
    assert result.breakdown["kv_cache"] == 70_272 * 4_096
    assert result.budget_bytes_per_gpu == int(H200_USABLE * VLLM_UTILISATION)
    assert result.fits is True
    # The MTP module is on disk, not in memory: said in the weights' assumptions.
    assert any("multi-token-prediction" in a for a in result.assumptions)


async def test_kimi_k2_on_8_h200s_fits_with_little_kv_room() -> None:
    _, conversation = await answer("Kimi K2 on 8x H200")
    _, result = _memory(conversation)
    # 1.026T parameters in fp8 over 8 GPUs ≈ 128 GB each of the 135.7 GB budget.
    assert 1_026_408_209_408 / 8 < result.breakdown["weights"] < 0.9 * H200_USABLE
    assert result.breakdown["kv_cache"] == 70_272 * 4_096  # 61 × 576 × 2 B, MLA
    assert result.fits is True
    assert (
        result.headroom_bytes is not None and result.headroom_bytes / GB < 5
    )  # room for about 50k tokens of KV, not more


async def test_two_rtx_3090s_add_capacity_not_speed() -> None:
    _, conversation = await answer("Llama 3.3 70B in Q4_K_M on two RTX 3090s with llama.cpp")
    plan = _plan(conversation)
    # The layer split pools 2 × 24,576 MiB; everything fits.
    assert plan.gpus == 2 and plan.fits_fully is True
    assert plan.budget_bytes / GB == pytest.approx(2 * RTX_3090_USABLE / GB, abs=1e-3)
    # Speed: every token passes through both cards in turn, so decode is bounded by ONE card's
    # 936.2 GB/s over all the weights read per token, not two cards' bandwidth.
    assert (plan.decode_tokens_per_s or 0) <= 936.2e9 / plan.weights_gpu_bytes
    _, memory = _memory(conversation)
    # llama.cpp's layer split, not tensor parallelism: half the layers on each card.
    assert (memory.tp, memory.pp) == (1, 2)
    assert any("capacity, not speed" in a for a in memory.assumptions)


async def test_qwen3_8b_on_a_t4_is_sized_in_fp16() -> None:
    _, conversation = await answer("Qwen3 8B on a T4")
    _, result = _memory(conversation)
    # T4 (Turing): no bf16, so fp16 weights and KV: 2 × 8,190,735,360 = 16.38 GB.
    assert result.weights_format == "fp16" and result.kv_dtype == "fp16"
    assert result.breakdown["weights"] == 2 * QWEN3_8B_TOTAL
    # 16 GiB less the 361 MiB driver reserve, × 0.9 = 14.15 GiB < 16.38 GB.
    assert result.budget_bytes_per_gpu == int((16 * GiB - 361 * MiB) * VLLM_UTILISATION)
    assert result.fits is False
    assert any("no bf16" in a for a in result.assumptions)


async def test_mixtral_on_one_mi250x_board_is_two_gcds_and_fits() -> None:
    # One MI250X board is two GCDs to software (64 GB each): sized as 2 devices at TP 2.
    text, conversation = await answer("Mixtral 8x7B on one MI250X")
    args, result = _memory(conversation)
    assert (args.gpu, args.count) == ("mi250x", 2)
    assert result.tp == 2
    assert result.usable_bytes_per_gpu == 64 * GiB - 361 * MiB
    # bf16, TP 2: every linear and the embedding/head halved; the 32 × 2 + 1 norms of 4,096
    # and the 32 routers (4,096 × 8, replicated in vLLM) whole on each GCD.
    replicated = (32 * 2 + 1) * 4_096 + 32 * 4_096 * 8
    assert result.breakdown["weights"] == 2 * ((46_702_792_704 - replicated) // 2 + replicated)
    # 46.7 GB per GCD < 0.9 × (64 GiB − 361 MiB) = 61.5 GB: fits (one GCD alone would not).
    assert result.fits is True
    assert "read as 1 board = 2 devices" in text


async def test_two_mi250x_boards_are_four_gcds() -> None:
    text, conversation = await answer("Llama 3.3 70B on 2x MI250X")
    args, result = _memory(conversation)
    assert (args.count, result.tp) == (4, 4)
    assert "'2x MI250X' read as 2 boards = 4 devices" in text
    _, conversation = await answer("Llama 3.3 70B on 4 MI250X GCDs")
    args, _ = _memory(conversation)
    assert args.count == 4


async def test_qwen3_30b_a3b_on_a_dgx_spark_fits() -> None:
    _, conversation = await answer("Qwen3 30B-A3B on a DGX Spark")
    args, result = _memory(conversation)
    assert args.gpu == "dgx-spark-gb10"
    # Coherent 128 GB less 8 GiB for the OS = 120 GiB; × 0.9 for vLLM (CUDA) = 108 GiB.
    assert result.usable_bytes_per_gpu == 120 * GiB
    assert result.breakdown["weights"] == 2 * QWEN3_30B_A3B_TOTAL  # 61.1 GB
    assert result.fits is True


def test_llama31_8b_on_an_rtx_3080_through_the_cli(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["ask", "--offline", "--json", "Llama 3.1 8B on an RTX 3080"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    size = next(c for c in out["tool_calls"] if c["name"] == "size")
    sized = size["result"]["memory"][0]
    result = sized["estimate"]
    # "RTX 3080" is the 10 GB card: 10 GiB − 361 MiB, × 0.9; bf16 16.06 GB does not fit.
    assert sized["gpu"] == "rtx-3080-10gb"
    assert result["budget_bytes_per_gpu"] == int((10 * GiB - 361 * MiB) * VLLM_UTILISATION)
    assert result["breakdown"]["weights"] == 2 * 8_030_261_248
    assert result["fits"] is False
    assert "In q8_0 weights" in out["answer"] or "In int4-awq weights" in out["answer"]
