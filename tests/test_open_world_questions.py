"""Issue 15 offline questions about local llama.cpp / Ollama serving, GGUF files, cached
Hugging Face ids and unknown names, driven through the offline engine's public turn and checked
on the tool results against hand arithmetic."""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.conversation import Conversation
from assistant.results import stored_calls
from tests.model_files import fake_hf_cache, write_gguf
from tests.offline_turns import answer, sizing
from tests.test_model_sources import INDEX_TOTAL, LLAMA_CONFIG, SMALL, SMALL_TOTAL, TYPES
from tools.local_serving import LocalServingPlan

GB = 1e9
RAM_BANDWIDTH = 2 * 8 * 5600e6  # dual-channel DDR5-5600, the tool's stated default


def _plans(conversation: Conversation) -> list[LocalServingPlan]:
    return [
        c.value
        for c in stored_calls(conversation.messages)
        if isinstance(c.value, LocalServingPlan)
    ]


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


async def test_q3_ollama_tag_is_the_model_in_q4_k_m() -> None:
    _, conversation = await answer("qwen2.5:7b on my RTX 4090 with ollama")
    (plan,) = _plans(conversation)
    assert plan.model_id == "qwen2.5-7b" and plan.weights_format == "q4_k_m"
    assert str(plan.ollama_modelfile).splitlines()[0] == "FROM qwen2.5:7b"
    # Qwen2.5-7B has 28 layers: all + output = num_gpu 29 on a 24 GB card (≈4.7 GB of weights).
    assert plan.fits_fully is True and plan.n_gpu_layers == 29


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


async def test_q6_m2_ultra_with_its_memory_is_sized_not_replaced() -> None:
    # The catalog has the M2 Ultra 192GB (issue 15): sized against its GPU limit, 3/4 of
    # 192 GiB = 144 GiB (macOS default working set), with llama.cpp-style serving (no CUDA).
    text, conversation = await answer("Can I run Llama 3.1 70B on an M2 Ultra 192GB?")
    sized = sizing(conversation).memory[0]
    est = sized.estimate
    assert sized.gpu == "apple-m2-ultra" and est is not None and est.engine == "generic"
    assert est.usable_bytes_per_gpu == 144 * 2**30
    # 70.55B bf16 = 141.1 GB of weights + KV and runtime ≤ 154.6 GB (144 GiB): fits.
    assert est.fits is True
    assert "MI300X" not in text and "M2 Ultra" in text


async def test_q7_a_card_size_no_catalog_gpu_has_is_used() -> None:
    # (20 GB was the example until the catalog gained the RTX 4000 Ada 20GB.)
    _, conversation = await answer("a 7B in Q4_K_M on a 22 GB card")
    (plan,) = _plans(conversation)
    assert plan.budget_bytes == pytest.approx(22 * GB) and plan.fits_fully is True
    assert not _sized(conversation)


async def test_q8_unknown_gpu_without_a_size_is_a_question_naming_catalog_cards() -> None:
    # (The RTX 3090 was the example until the catalog gained it, issue 15.)
    text, conversation = await answer("can I run Llama 3.1 8B on an RTX 3060?")
    assert not _sized(conversation)
    assert "RTX 3060" in text and "rtx-3090" in text


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
