"""`--kv-dtype int8 --engine vllm` warns: vLLM's quantized KV cache is FP8 (vLLM docs,
"Quantized KV Cache", docs.vllm.ai/en/latest/features/quantization/quantized_kvcache/:
`kv_cache_dtype="fp8"`; no int8 KV cache is documented). int8 stays valid and sized at 1 byte.
"""

from __future__ import annotations

from tools.memory import MemoryRequest, estimate_memory
from tools.notes import texts


def _warnings(engine: str, kv_dtype: str) -> list[str]:
    req = MemoryRequest(model="llama-3.1-8b", engine=engine, kv_dtype=kv_dtype)
    return texts(estimate_memory(req).warnings)


def test_int8_kv_on_vllm_warns_fp8_only() -> None:
    found = [w for w in _warnings("vllm", "int8") if "kv_dtype int8" in w]
    assert len(found) == 1
    assert "fp8" in found[0] and "Quantized KV Cache" in found[0]


def test_int8_kv_sizes_one_byte_per_element() -> None:
    # Llama 3.1 8B: 32 layers × 2 (K, V) × 8 KV heads × 128 × 1 B = 65,536 B per token.
    est = estimate_memory(MemoryRequest(model="llama-3.1-8b", engine="vllm", kv_dtype="int8"))
    assert est.kv_cache_bytes_per_token == 32 * 2 * 8 * 128 * 1


def test_no_warning_for_fp8_on_vllm_or_int8_elsewhere() -> None:
    assert not any("kv_dtype" in w for w in _warnings("vllm", "fp8"))
    assert not any("kv_dtype" in w for w in _warnings("transformers", "int8"))
