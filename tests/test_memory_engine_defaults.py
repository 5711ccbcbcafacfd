"""Which serving engine an estimate assumes when none is named."""

from __future__ import annotations

import pytest

from tools.catalog import get_catalog
from tools.memory import MemoryRequest, estimate_memory


def test_gguf_weights_are_sized_for_llama_cpp_without_vllms_reserve() -> None:
    usable = get_catalog().gpu("rtx-4090").usable_memory_bytes
    gguf = estimate_memory(MemoryRequest(model="llama-2-13b", weights="q4_k_m", gpu="rtx-4090"))
    assert gguf.budget_bytes_per_gpu == usable  # llama.cpp reserves no fraction
    assert any("GGUF format" in a for a in gguf.assumptions)
    vllm = estimate_memory(
        MemoryRequest(model="llama-2-13b", weights="q4_k_m", gpu="rtx-4090", engine="vllm")
    )
    # vLLM engine arguments: gpu_memory_utilization defaults to 0.9.
    assert vllm.budget_bytes_per_gpu == pytest.approx(0.9 * usable, abs=1)


def test_other_serving_formats_default_to_vllm_and_training_to_transformers() -> None:
    usable = get_catalog().gpu("l40s").usable_memory_bytes
    awq = estimate_memory(MemoryRequest(model="llama-3.1-8b", weights="int4-awq", gpu="l40s"))
    assert awq.budget_bytes_per_gpu == pytest.approx(0.9 * usable, abs=1)
    lora = estimate_memory(MemoryRequest(model="llama-3.1-8b", task="lora", gpu="l40s"))
    assert lora.budget_bytes_per_gpu == usable
