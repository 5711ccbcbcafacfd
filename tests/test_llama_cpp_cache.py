"""llama.cpp's quantized KV cache (`--cache-type-k/-v q8_0`, Ollama's OLLAMA_KV_CACHE_TYPE):
its bytes by ggml's block layout, the engines that have it, and the reader on the ways users
say it. Phrasings written for these tests.

Hand figures. ggml-common.h: block_q8_0 = an fp16 scale + 32 int8 = 34 bytes per 32 elements;
block_q4_0 = an fp16 scale + 16 bytes of nibbles = 18 bytes per 32. A layer caches a K row and
a V row of kv_heads × head_dim elements per token (llama.cpp's `ggml_row_size`).
- Llama 3.1 8B (config.json: 32 layers, 8 KV heads, head_dim 4096 / 32 = 128): a row is 1,024
  elements; f16 2 · 1,024 · 2 B = 4,096 B per layer, × 32 = 131,072 B per token; q8_0
  2 · 1,024 / 32 · 34 = 2,176 B per layer, × 32 = 69,632; q4_0 2 · 32 · 18 = 1,152, × 32 = 36,864.
- Qwen3 30B-A3B (config.json: 48 layers, 4 KV heads, head_dim 128): a row is 512 elements;
  q8_0 2 · 16 · 34 = 1,088 B per layer, × 48 = 52,224 B per token.
"""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from assistant.offline.parser import parse_workload
from tools.errors import from_validation_error
from tools.local_serving import LocalServingRequest, plan_local_serving
from tools.memory import MemoryRequest, estimate_memory


def _kv_bytes(**fields: object) -> int:
    estimate = estimate_memory(MemoryRequest(**fields))  # type: ignore[arg-type]
    return next(c.bytes_per_gpu for c in estimate.components if c.name == "kv_cache")


@pytest.mark.parametrize(
    ("model", "kv_dtype", "per_token"),
    [
        ("llama-3.1-8b", "fp16", 131_072),
        ("llama-3.1-8b", "f16", 131_072),  # llama.cpp's name of the same type
        ("llama-3.1-8b", "q8_0", 69_632),
        ("llama-3.1-8b", "q4_0", 36_864),
        ("qwen3-30b-a3b", "q8_0", 52_224),
    ],
)
def test_the_cache_is_sized_in_whole_ggml_blocks(model: str, kv_dtype: str, per_token: int) -> None:
    tokens = 8_192
    got = _kv_bytes(model=model, weights="q4_k_m", kv_dtype=kv_dtype, context=tokens)
    assert got == per_token * tokens


def test_a_llama_cpp_cache_type_with_no_engine_is_sized_for_llama_cpp() -> None:
    estimate = estimate_memory(MemoryRequest(model="llama-3.1-8b", kv_dtype="q8_0", context=4096))
    assert any("llama.cpp cache type" in a for a in estimate.assumptions)
    # A contiguous cache: no vLLM 16-token blocks, 4,096 tokens exactly.
    kv = next(c.bytes_per_gpu for c in estimate.components if c.name == "kv_cache")
    assert kv == 69_632 * 4_096


@pytest.mark.parametrize("engine", ["vllm", "exllamav2", "mlx"])
def test_another_engine_asked_for_a_llama_cpp_cache_type_is_told_which_have_it(
    engine: str,
) -> None:
    with pytest.raises(ValidationError) as caught:
        MemoryRequest(model="llama-3.1-8b", kv_dtype="q4_0", engine=engine)  # type: ignore[arg-type]
    error = from_validation_error(caught.value, MemoryRequest)
    assert error.field == "kv_dtype"
    assert f"engine {engine} does not have" in error.problem
    assert "engine generic" in error.allowed


def test_the_local_plan_launches_with_the_cache_type_asked() -> None:
    plan = plan_local_serving(
        LocalServingRequest(
            model="llama-3.1-8b", weights="q4_k_m", kv_dtype="q8_0", gpu="rtx-4090", context=8192
        )
    )
    assert plan.cache_type == "q8_0"
    assert plan.kv_cache_bytes == 69_632 * 8_192
    assert "--cache-type-k q8_0 --cache-type-v q8_0" in plan.launch.llama_server


# --- The reader ---------------------------------------------------------------------------------

SAID = [
    ("qwen3 32b q4_k_m on my 3090 with llama.cpp, 32k context and a q4_0 kv cache?", "q4_0"),
    ("llama 3.1 8b on my 4060 laptop with ollama, 16k context, KV cache q8_0", "q8_0"),
    ("llama-server -m x.gguf -c 65536 -fa -ctk q8_0 -ctv q8_0 on a 4090, does it fit?", "q8_0"),
    ("--cache-type-k q4_0 --cache-type-v q4_0 with llama.cpp: mistral 7b on an 8GB card?", "q4_0"),
    ("With OLLAMA_KV_CACHE_TYPE=q4_0 how long a context fits gemma 3 27b on 24GB?", "q4_0"),
    ("ollama with the K/V cache quantized to q8_0: qwen2.5 14b at 32k on a 16GB card?", "q8_0"),
    ("ollama, mistral small 24b, 8-bit kv cache, 32k context, RTX 4080 16GB: will it fit?", "q8_0"),
    ("llama.cpp with a q4 KV cache: llama 3.3 70b q4_k_m on 2x 3090 at 64k?", "q4_0"),
]


@pytest.mark.parametrize(("question", "cache"), SAID)
def test_a_llama_cpp_cache_type_is_read_as_the_cache_never_the_weights(
    question: str, cache: str
) -> None:
    p = parse_workload(question)
    assert p.kv_dtype == cache
    assert p.weights != cache or "q4_k_m" in question  # the weights' format is its own
    assert not p.asks("meaning")  # nothing of it left unread


def test_k_and_v_of_two_types_are_sized_at_the_larger_and_said() -> None:
    p = parse_workload("llama.cpp, llama 3.1 70b q4_k_m on 2x 3090, -ctk q8_0 -ctv q4_0, 32k?")
    assert p.kv_dtype == "q8_0"
    assert any("K and V said as q8_0 and q4_0" in n for n in p.notes)


def test_bits_of_a_cache_with_exllamav2_named_stay_exllamav2s() -> None:
    # ExLlamaV2's own Q4 cache is not llama.cpp's q4_0 (0.5625 B per element both, but another
    # engine with another layout).
    p = parse_workload("with exllamav2 and q4 cache can llama 3 70b 4.0bpw fit on 2x3090?")
    assert p.kv_dtype == "q4"


def test_bits_of_a_cache_without_llama_cpp_named_are_not_its_types() -> None:
    # vLLM's '8-bit KV cache' is fp8, as before.
    p = parse_workload("vllm, llama 3.1 70b awq on 2x A100 80GB with an 8-bit kv cache, 40 users")
    assert p.kv_dtype == "fp8"
