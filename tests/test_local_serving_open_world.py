"""plan_local_serving on the new models and owned hardware (issue 15, item 4): windowed layers'
KV as llama.cpp's iSWA cache holds it, no vision tower in the text GGUF, unified memory as one
memory, several GPUs as a layer split. Figures by hand below; parameter counts from
tests/data/research/params-new.json (meta device)."""

from __future__ import annotations

from typing import Any

import pytest

from tools.catalog import get_catalog
from tools.local_serving import LocalServingPlan, LocalServingRequest, plan_local_serving
from tools.memory import MemoryRequest, estimate_memory
from tools.model_sources.tags import OLLAMA_LIBRARY, parse_tag

GB, GiB = 1e9, 2**30
GEMMA3_27B_VISION = 423_060_336  # vision_and_projector_params, params-new.json
N_UBATCH = 512  # llama.cpp common.h default


def _plan(**kwargs: Any) -> LocalServingPlan:
    return plan_local_serving(LocalServingRequest(**kwargs))


@pytest.mark.parametrize(
    ("model", "context", "per_layer", "full", "windowed", "window"),
    [
        # Gemma 3 27B: 16 KV heads × 128 × 2 (K, V) × 2 B (f16) = 8,192 B per layer per token;
        # 10 global layers, 52 sliding of window 1,024.
        ("gemma-3-27b", 32_768, 8_192, 10, 52, 1_024),
        # Llama 4 Scout: 8 KV heads × 128 × 2 × 2 B = 4,096 B; 12 global (NoPE) layers, 36
        # chunked of 8,192.
        ("llama-4-scout", 16_384, 4_096, 12, 36, 8_192),
    ],
)
def test_windowed_layers_keep_the_window_plus_one_batch(
    model: str, context: int, per_layer: int, full: int, windowed: int, window: int
) -> None:
    plan = _plan(model=model, gpu="rtx-3090", context=context, parallel=2)
    # llama.cpp: size_swa = GGML_PAD(window + n_ubatch, 256) cells per slot (below the
    # context here); full layers every token; two slots.
    cells = -(-(window + N_UBATCH) // 256) * 256
    assert plan.kv_cache_bytes == per_layer * (full * context + windowed * cells) * 2
    # Not the uncapped 62-layer figure (what the plan counted before).
    assert plan.kv_cache_bytes < per_layer * (full + windowed) * context * 2


def test_the_text_gguf_holds_no_vision_tower() -> None:
    plan = _plan(model="gemma-3-27b", gpu="rtx-3090", weights="q8_0")
    vllm = estimate_memory(MemoryRequest(model="gemma-3-27b", weights="q8_0", engine="vllm"))
    # vLLM loads the 423,060,336-parameter tower in 16-bit; the GGUF plan leaves it out.
    assert vllm.breakdown["weights"] - plan.weights_bytes == 2 * GEMMA3_27B_VISION
    assert any("--mmproj" in a for a in plan.assumptions)


def test_unified_memory_is_one_memory() -> None:
    # Llama 3.3 70B Q4_K_M on the 36 GB M3 Max (30-core GPU, 300 GB/s): the GPU may wire 2/3
    # of 36 GiB = 24 GiB; what is off the GPU is read by the CPU from the same 300 GB/s memory.
    plan = _plan(model="llama-3.3-70b", gpu="apple-m3-max-30c-36gb")
    assert plan.budget_bytes == 24 * GiB and plan.unified_memory
    assert plan.system_ram_bytes == 36 * GiB
    # ≈ 42.5 GB of weights > 36 GiB − 8 GiB for macOS: it does not run at all.
    assert plan.fits_in_ram is False
    # Both parts read from the same 300 GB/s memory, not a DDR5 figure: no faster than 300 GB/s
    # over the bytes read per token (weights less the token embedding, plus the KV cache); the
    # GPU part at llama.cpp's calibrated share of it, so not at the peak either, yet above half.
    read = plan.weights_bytes + plan.kv_cache_bytes
    speed = plan.decode_tokens_per_s
    assert speed is not None and 0.5 * 300e9 / read < speed < 300e9 / (read - 1.5 * GB)
    assert "89.6" not in str(plan.decode_basis) and "unified memory" in str(plan.decode_basis)
    # On 128 GB (40-core, 96 GiB for the GPU) everything is on the GPU and the RAM holds it.
    big = _plan(model="llama-3.3-70b", gpu="apple-m3-max-40c")
    assert big.fits_fully and big.fits_in_ram is True


def test_several_gpus_are_a_layer_split_capacity_not_speed() -> None:
    one = _plan(model="llama-3.3-70b", gpu="rtx-3090")
    two = _plan(model="llama-3.3-70b", gpu="rtx-3090", gpus=2)
    assert not one.fits_fully and two.fits_fully
    # Every byte read at one card's 936.2 GB/s: no faster than one card holding it all.
    assert (two.decode_tokens_per_s or 0) <= 936.2e9 / two.weights_gpu_bytes
    assert any("capacity, not speed" in a for a in two.assumptions)


def test_the_ollama_library_table_names_catalog_models() -> None:
    catalog = get_catalog()
    for tag, model_id in OLLAMA_LIBRARY.items():
        assert model_id in catalog.models, tag
        parsed = parse_tag(tag)
        assert parsed is not None and parsed.names[0] == model_id
