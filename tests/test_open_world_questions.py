"""Issue 15 offline questions about local llama.cpp / Ollama serving, GGUF files, cached
Hugging Face ids and unknown names, driven through the offline engine's public turn and checked
on the tool results against hand arithmetic."""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.conversation import Conversation
from assistant.results import stored_calls
from tests.model_files import fake_hf_cache, write_gguf
from tests.offline_turns import after_reading, answer, local_plans, sizing
from tests.test_model_sources import INDEX_TOTAL, LLAMA_CONFIG, SMALL, SMALL_TOTAL, TYPES
from tools.local_serving import LocalServingPlan

GB = 1e9
RAM_BANDWIDTH = 2 * 8 * 5600e6  # dual-channel DDR5-5600, the tool's stated default


def _plans(conversation: Conversation) -> list[LocalServingPlan]:
    return local_plans(conversation)


def _sized(conversation: Conversation) -> bool:
    """Whether the turn made a sizing report (memory, recommender, costs)."""
    return any(c.name == "size" for c in stored_calls(conversation.messages))


async def test_q1_gguf_file_on_a_4090_fits_and_the_launch_line_uses_the_file(
    tmp_path: Path,
) -> None:
    path = tmp_path / "small-q4_k_m.gguf"
    write_gguf(path, context=8192, file_type=15, types=TYPES, **SMALL)
    text, conversation = await answer(f"can my RTX 4090 run {path} with llama.cpp?")
    (plan,) = _plans(conversation)
    assert plan.weights_bytes == pytest.approx(SMALL_TOTAL)
    # 4 layers + the output layer: -ngl 5, everything on the GPU.
    assert plan.fits_fully is True and plan.n_gpu_layers == 5
    assert f"-m {path}" in plan.launch_command and "-ngl 5" in plan.launch_command
    assert "fits on the GPU" in text


async def test_q2_gguf_file_in_ollama_gets_a_modelfile_from_the_file(tmp_path: Path) -> None:
    path = tmp_path / "small.gguf"
    write_gguf(path, context=8192, file_type=15, types=TYPES, **SMALL)
    _, conversation = await answer(f"run {path} in ollama on an L4 for 4 users with 2k context")
    (plan,) = _plans(conversation)
    assert plan.launcher == "ollama" and plan.parallel == 4
    assert str(plan.ollama_modelfile).startswith(f"FROM {path}")
    # Ollama: the KV cache holds num_ctx × parallel = 2,048 × 4 tokens; f16, 2 (K, V) × 4
    # layers × 2 heads × 64 × 2 bytes = 2,048 bytes per token.
    assert plan.kv_cache_bytes == pytest.approx(2048 * 4 * 2048)
    assert plan.ollama_env == {
        "OLLAMA_NUM_PARALLEL": "4",
        "OLLAMA_CONTEXT_LENGTH": "2048",
        "OLLAMA_FLASH_ATTENTION": "1",
    }


@pytest.mark.parametrize(
    ("tag", "model_id", "layers", "kv_per_token"),
    [
        # Qwen3-32B: 64 layers, 8 KV heads of 128 → 64 × 8 × 128 × 2 (K, V) × 2 B (f16).
        ("qwen3:32b", "qwen3-32b", 64, 64 * 8 * 128 * 2 * 2),
        # Ollama's deepseek-r1:32b is the Qwen2.5-32B distill: the same 64 × 8 × 128 shape.
        ("deepseek-r1:32b", "deepseek-r1-distill-qwen-32b", 64, 64 * 8 * 128 * 2 * 2),
        # Qwen2.5-7B: 28 layers, 4 KV heads of 128.
        ("qwen2.5:7b", "qwen2.5-7b", 28, 28 * 4 * 128 * 2 * 2),
    ],
)
async def test_q3_ollama_tag_is_the_model_in_q4_k_m(
    tag: str, model_id: str, layers: int, kv_per_token: int
) -> None:
    _, conversation = await answer(f"{tag} on my RTX 4090 with ollama")
    (plan,) = _plans(conversation)
    assert plan.model_id == model_id and plan.weights_format == "q4_k_m"
    assert str(plan.ollama_modelfile).splitlines()[0] == f"FROM {tag}"
    # Every layer + the output layer: num_gpu = layers + 1 on a 24 GB card (a 32B in Q4_K_M
    # is ≈ 19.8 GB); the KV cache is f16 for Ollama's default 4,096-token slot.
    assert plan.fits_fully is True and plan.n_gpu_layers == layers + 1
    assert plan.kv_cache_bytes == kv_per_token * 4_096


async def test_q4_ollama_tag_quantization_is_kept() -> None:
    _, conversation = await answer("llama3.1:8b-instruct-q8_0 on an L4")
    memory = [m.estimate for m in sizing(conversation).memory if m.estimate is not None]
    assert memory and memory[0].weights_format == "q8_0"
    (plan,) = _plans(conversation)
    assert plan.weights_format == "q8_0"


async def test_q5_70b_on_a_4090_offloads_and_ram_bounds_the_speed() -> None:
    text, conversation = await answer(
        "Llama 3.1 70B in Q4_K_M on my RTX 4090 with 64 GB of RAM using llama.cpp"
    )
    (plan,) = _plans(conversation)
    assert plan.fits_fully is False and 0 < plan.gpu_layers < 80
    assert plan.fits_in_ram is True and plan.host_bytes < 64 * GB
    # What is not on the GPU is in RAM: weights + KV split between the two add up.
    assert plan.weights_gpu_bytes < plan.weights_bytes
    # Speed can be no faster than reading the RAM-resident layers at 89.6 GB/s: the host part
    # is > 15 GB (80 layers of ≈0.5 GB minus at most ~45 on a 24 GB card), so < 6 tokens/s.
    speed = plan.decode_tokens_per_s
    assert speed is not None and 0 < speed < RAM_BANDWIDTH / (plan.host_bytes - 2e9)
    assert "estimated" in str(plan.decode_basis) and "-ngl" in text


@pytest.mark.parametrize("model", ["Llama 3.3 70B", "Llama 3.1 70B"])
async def test_q6_m2_ultra_with_its_memory_is_sized_not_replaced(model: str) -> None:
    # The catalog has the M2 Ultra 192GB (issue 15): sized against its GPU limit, 3/4 of
    # 192 GiB = 144 GiB (macOS default working set), with llama.cpp-style serving (no CUDA).
    text, conversation = await answer(f"Can I run {model} on an M2 Ultra 192GB?")
    sized = sizing(conversation).memory[0]
    est = sized.estimate
    assert sized.gpu == "apple-m2-ultra" and est is not None and est.engine == "generic"
    assert est.usable_bytes_per_gpu == 144 * 2**30
    # 70,553,706,496 parameters (meta device) × 2 B = 141.1 GB of weights + KV and runtime
    # ≤ 154.6 GB (144 GiB): fits.
    assert est.breakdown["weights"] == 2 * 70_553_706_496
    assert est.fits is True
    assert "MI300X" not in text and "M2 Ultra" in text


async def test_q7_a_card_size_no_catalog_gpu_has_is_used() -> None:
    # (20 GB was the example until the catalog gained the RTX 4000 Ada 20GB.)
    _, conversation = await answer("a 7B in Q4_K_M on a 22 GB card")
    (plan,) = _plans(conversation)
    assert plan.budget_bytes == pytest.approx(22 * GB) and plan.fits_fully is True
    assert not _sized(conversation)


async def test_q8_unknown_gpu_without_a_size_is_a_question_naming_catalog_cards() -> None:
    # (The RTX 3090, then the RTX 3060 were the examples until the catalog gained them.)
    text, conversation = await answer("can I run Llama 3.1 8B on an RTX 2080 Ti?")
    # The closest names by spelling: the RTX 3080 Ti since the catalog has it.
    assert "RTX 2080 Ti" in text and "rtx-3080-ti" in text
    # The figures shown while asking are the default reading's: the model on no GPU named,
    # never on a catalog card put in the 2080 Ti's place (issue 18, class 12).
    assert _sized(conversation)
    assert all(m.gpu is None for m in sizing(conversation).memory)
    assert after_reading(text).startswith("For the default reading (without 'RTX 2080 Ti')")


async def test_q9_unknown_name_with_a_size_is_a_generic_model_stated() -> None:
    text, conversation = await answer("serve acme/Foo-32B on an H100")
    report = sizing(conversation)
    assert report.request.workload.params == 32e9
    result = report.memory[0].estimate
    # bf16: 2 bytes × 32e9 stated parameters = 64 GB of weights.
    assert result is not None and result.breakdown["weights"] == 64_000_000_000
    assert "generic 32B" in text


async def test_q10_cached_hf_repo_is_sized_from_its_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_hf_cache(
        tmp_path,
        "acme/tiny-llama-1b",
        {
            "config.json": LLAMA_CONFIG,
            "model.safetensors.index.json": {"metadata": {"total_size": INDEX_TOTAL}},
        },
    )
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    _, conversation = await answer("serve acme/tiny-llama-1b on an L4")
    report = sizing(conversation)
    assert report.request.workload.model == "acme/tiny-llama-1b"
    result = report.memory[0].estimate
    assert result is not None and result.breakdown["weights"] == INDEX_TOTAL


async def test_q11_parallel_slots_and_q8_kv_cache_match_the_launch_line() -> None:
    _, conversation = await answer(
        "Llama 3.1 8B with llama.cpp on an RTX 4090, 4 users, 8k context, int8 KV cache"
    )
    (plan,) = _plans(conversation)
    # q8_0 KV: 34 bytes per 32 elements; 32 layers × 2 × 8 heads × 128 × 34/32 = 69,632 B/token,
    # × 8,192 tokens × 4 slots.
    assert plan.cache_type == "q8_0"
    assert plan.kv_cache_bytes == pytest.approx(69_632 * 8192 * 4)
    line = plan.launch_command
    assert "-c 32768 -np 4" in line and "--cache-type-k q8_0 --cache-type-v q8_0" in line


async def test_q12_a_24_gb_card_and_a_72b_tag_offload_on_every_24_gb_catalog_card() -> None:
    _, conversation = await answer("Can my 24 GB card run qwen2.5:72b?")
    plans = _plans(conversation)
    assert plans and all(p.fits_fully is False for p in plans)
    # Qwen2.5-72B Q4_K_M ≈ 47 GB: at most about half of its 80 layers fit 24 GB.
    assert all(0 < p.gpu_layers < 50 for p in plans)


# --- the 2026-12 models on the hardware people own (issue 15, item 6) -------------------------

MiB, GiB = 2**20, 2**30
H100_BUDGET = int(81_559 * MiB * 0.9)  # vLLM's 0.9 of the driver-reported 81,559 MiB


async def test_q13_gemma3_27b_tag_at_32k_caps_the_local_layers_as_llama_cpp_does() -> None:
    text, conversation = await answer("gemma3:27b on an RTX 3090 with 32k context in ollama")
    (plan,) = _plans(conversation)
    # Gemma 3 27B: 16 KV heads × 128 × 2 × 2 B = 8,192 B per layer per token; the 10 global
    # layers keep all 32,768 tokens, the 52 sliding ones window 1,024 + n_ubatch 512 = 1,536
    # (llama.cpp's iSWA cache, padded to 256).
    kv = 8_192 * (10 * 32_768 + 52 * 1_536)
    assert plan.kv_cache_bytes == kv
    memory = sizing(conversation).memory[0].estimate
    assert memory is not None and memory.breakdown["kv_cache"] == kv  # the same figure
    assert plan.fits_fully is True and plan.n_gpu_layers == 63
    assert "--mmproj" in " ".join(plan.assumptions)  # the vision tower is not in the GGUF
    assert "fits on the GPU" in text


async def test_q14_deepseek_r1_671b_tag_is_q4_k_m_split_over_eight_h200s() -> None:
    _, conversation = await answer("deepseek-r1:671b on 8x H200")
    (plan,) = _plans(conversation)
    # Ollama's 671b tag is Q4_K_M (≈ 404 GB, runaihome.com), not DeepSeek's own FP8.
    assert plan.weights_format == "q4_k_m" and 395e9 < plan.weights_bytes < 415e9
    est = sizing(conversation).memory[0].estimate
    # llama.cpp splits layers: pp 8, no tensor parallelism; ≈ 50 GB per H200 fits.
    assert est is not None and (est.tp, est.pp) == (1, 8) and est.fits is True
    assert any("capacity, not speed" in a or "--split-mode layer" in a for a in est.assumptions)


async def test_q15_llama4_scout_tag_on_a_128gb_m4_max_fits_in_unified_memory() -> None:
    _, conversation = await answer("llama4:scout on my MacBook Pro M4 Max 128GB")
    (plan,) = _plans(conversation)
    # 3/4 of 128 GiB = 96 GiB for the GPU; Q4_K_M Scout without its vision tower ≈ 65 GB.
    assert plan.unified_memory and plan.budget_bytes == 96 * GiB
    assert 60e9 < plan.weights_bytes < 70e9
    assert plan.fits_fully is True and plan.n_gpu_layers == 49  # 48 layers + output
    assert plan.system_ram_bytes == 128 * GiB and plan.fits_in_ram is True


async def test_q16_70b_on_a_36gb_m3_max_is_the_30_core_bin_and_does_not_run() -> None:
    text, conversation = await answer(
        "Llama 3.3 70B Q4_K_M on an M3 Max with 36 GB using llama.cpp"
    )
    (plan,) = _plans(conversation)
    # 36 GB is sold with the 30-core M3 Max only (300 GB/s): 2/3 of 36 GiB = 24 GiB for the
    # GPU; ≈ 42.5 GB of weights > the 28 GiB that 36 GiB leaves after 8 GiB for macOS.
    assert plan.gpu == "apple-m3-max-30c-36gb" and plan.budget_bytes == 24 * GiB
    assert plan.ram_available_bytes == 28 * GiB and plan.fits_in_ram is False
    assert "at 300 GB/s" in str(plan.decode_basis) and "89.6" not in str(plan.decode_basis)
    assert "is sold with that bin only" in text and "it does not run" in text


async def test_q17_qwen3_32b_awq_repo_name_on_a_4090_misses_by_the_runtime() -> None:
    text, conversation = await answer("Qwen3-32B-AWQ on an RTX 4090")
    est = sizing(conversation).memory[0].estimate
    assert est is not None and est.weights_format == "int4-awq"

    # AutoAWQ int4, group 128: 4 bits a weight + an fp16 scale and a 4-bit zero per group.
    def awq(rows: int, cols: int) -> int:
        groups = cols // 128
        return rows * cols // 2 + groups * rows * 2 + groups * rows // 2

    h, q, kv, ffn = 5_120, 64 * 128, 8 * 128, 25_600
    layer = awq(q, h) + 2 * awq(kv, h) + awq(h, q) + 2 * awq(ffn, h) + awq(h, ffn)
    weights = 64 * (layer + (2 * 128 + 2 * h) * 2) + 2 * 151_936 * h * 2 + h * 2
    assert est.breakdown["weights"] == weights
    usable, budget = est.usable_bytes_per_gpu, est.budget_bytes_per_gpu
    assert usable is not None and budget == int(usable * 0.9)  # vLLM's default 0.9
    # Weights and one 4,096-token sequence fit the budget; the runtime pushes it over.
    assert weights + 262_144 * 4_096 < budget < est.per_gpu_bytes
    assert est.fits is False and "Does not fit" in text


async def test_q18_two_4090s_with_llama_cpp_are_a_layer_split() -> None:
    _, conversation = await answer("Llama 3.3 70B in Q4_K_M on 2x RTX 4090 with llama.cpp")
    est = sizing(conversation).memory[0].estimate
    # Half the layers per card (pp 2, no tp): ≈ 21.4 GB of weights each, fits 24 GB.
    assert est is not None and (est.tp, est.pp) == (1, 2) and est.fits is True
    (plan,) = _plans(conversation)
    assert plan.gpus == 2 and plan.fits_fully is True
    # Capacity, not speed: every byte at one card's 1,008 GB/s.
    assert (plan.decode_tokens_per_s or 0) <= 1008e9 / plan.weights_gpu_bytes
    assert any("capacity, not speed" in a for a in plan.assumptions)


async def test_q19_falcon_40b_is_a_generic_40b_not_falcon3() -> None:
    text, conversation = await answer("Falcon 40B on an A100 80GB")
    est = sizing(conversation).memory[0].estimate
    # bf16 2 B × 40e9 = 80 GB > 0.9 × 81,559 MiB = 76.97 GB: does not fit.
    assert est is not None and est.breakdown["weights"] == 80 * 10**9
    assert est.budget_bytes_per_gpu == H100_BUDGET and est.fits is False
    assert "'Falcon 40B' is not in the catalog: sized as a generic 40B" in text
    assert "Did you mean" not in text and "Falcon3" not in text


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("Can I run Zephyr on an H100?", "Zephyr"),
        ("serve acme/foo-instruct on an L4", "acme/foo-instruct"),
    ],
)
async def test_q20_an_unknown_name_without_a_size_is_a_question(text: str, named: str) -> None:
    said, conversation = await answer(text)
    assert not _sized(conversation) and not _plans(conversation)
    assert after_reading(said).startswith("**One question before I size this:**") and named in said


async def test_q21_gemma3_27b_on_a_16gb_card_offloads_a_few_layers() -> None:
    _, conversation = await answer(
        "Gemma 3 27B Q4_K_M on an RTX 4060 Ti 16GB with llama.cpp and 64 GB of RAM"
    )
    (plan,) = _plans(conversation)
    assert plan.fits_fully is False and 0 < plan.gpu_layers < 62
    assert plan.fits_in_ram is True and plan.system_ram_bytes == 64 * 10**9
    # Slower than the card reading it all at 288 GB/s, faster than RAM reading it all.
    speed = plan.decode_tokens_per_s or 0
    assert RAM_BANDWIDTH / plan.weights_bytes < speed < 288e9 / plan.weights_gpu_bytes


async def test_q22_a_moe_tag_offloaded_reads_only_the_experts_a_token_uses() -> None:
    _, conversation = await answer("qwen3-coder:30b on an RTX 4080 with ollama")
    (plan,) = _plans(conversation)
    assert plan.model_id == "qwen3-coder-30b-a3b" and plan.fits_fully is False
    # A dense model would read every RAM-resident byte per token: no faster than 89.6 GB/s
    # over them. Top-8 of 128 experts reads far less, so the estimate beats that bound.
    assert (plan.decode_tokens_per_s or 0) > RAM_BANDWIDTH / plan.host_bytes


async def test_q23_deepseek_r1_q4_on_a_512gb_m3_ultra_fits_under_its_gpu_limit() -> None:
    _, conversation = await answer(
        "DeepSeek R1 in Q4_K_M on a Mac Studio M3 Ultra 512GB with llama.cpp"
    )
    (plan,) = _plans(conversation)
    # 3/4 of 512 GiB = 384 GiB for the GPU; ≈ 404.6 GB (376.8 GiB) of Q4_K_M weights fit.
    assert plan.budget_bytes == 384 * GiB and plan.fits_fully is True
    assert plan.weights_bytes < 384 * GiB < plan.weights_bytes + 8 * GiB  # a tight fit
    assert plan.fits_in_ram is True  # 512 − 8 GiB for macOS
