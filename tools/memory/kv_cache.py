"""KV-cache memory: exact bytes per token, and for a context × concurrent sequences.

Per token (all layers), for a KV dtype of b bytes:
- MHA/GQA/MQA: 2 (K and V) · layers · kv_heads · head_dim · b. Under tensor parallelism each
  rank holds ceil(kv_heads / tp) heads (vLLM replicates KV heads when kv_heads < tp).
  vLLM paper (arXiv 2309.06180 §3): OPT-13B 2 · 40 · 5120 · 2 = 819,200 B ("800 KB").
- MLA (DeepSeek-V2 paper arXiv 2405.04434 §2.1.2): only the compressed latent and the shared
  RoPE key are cached: layers · (kv_lora_rank + qk_rope_head_dim) · b. vLLM's MLA backend keeps
  the full latent on every TP rank (it is not split by heads).
- Sliding-window layers (Mistral, Gemma 2 and Gemma 3 local layers, gpt-oss) keep at most
  `window` tokens; chunked-attention layers (Llama 4: 3 of every 4 layers, chunk 8,192) attend
  within their chunk only, so they keep at most one chunk (vLLM's chunked local attention
  frees the blocks of finished chunks). Only the full-attention layers grow past the cap.
- vLLM PagedAttention allocates blocks of 16 tokens (vLLM `--block-size` default 16), so each
  sequence's length is rounded up to a multiple of 16.
"""

from __future__ import annotations

from tools.architecture import Architecture
from tools.memory.formats import BYTE_DTYPES
from tools.memory.overhead import LLAMA_CPP_N_UBATCH

LLAMA_CPP_SWA_PADDING = 256
"""llama.cpp pads its sliding-window (iSWA) cache to 256 cells (src/llama-kv-cache-iswa.cpp,
issue 17037)."""

KV_DTYPES: tuple[str, ...] = ("bf16", "fp16", "fp8", "int8", "fp32")
VLLM_BLOCK_TOKENS = 16
"""vLLM PagedAttention block size, tokens (vLLM engine args: `--block-size`, default 16)."""


# vLLM docs, "Quantized KV Cache" (docs.vllm.ai/en/latest/features/quantization/
# quantized_kvcache/): the quantized KV cache vLLM offers is FP8 (`kv_cache_dtype="fp8"`,
# E4M3 or E5M2); no int8 KV cache is documented.
VLLM_QUANTIZED_KV_DTYPES: tuple[str, ...] = ("fp8",)


def engine_kv_dtype_warning(engine: str, kv_dtype: str) -> str | None:
    """A warning when `engine` does not offer `kv_dtype` as a quantized KV cache (None if it
    does, or nothing is documented against it). The byte size is still computed: int8 and fp8
    both take 1 byte per element."""
    if engine == "vllm" and kv_dtype == "int8":
        return (
            "kv_dtype int8 with engine=vllm: vLLM's quantized KV cache is fp8 only (vLLM docs, "
            "'Quantized KV Cache': kv_cache_dtype='fp8'); the 1-byte size is the same, so "
            "these figures hold for --kv-dtype fp8 (set in vLLM as --kv-cache-dtype fp8)"
        )
    return None


def kv_heads_per_gpu(arch: Architecture, tp: int = 1) -> int:
    """KV heads each tensor-parallel rank holds: ceil(kv_heads / tp), at least one."""
    return -(-arch.num_kv_heads // tp)


def kv_cache_bytes_per_layer_token(arch: Architecture, kv_dtype: str = "bf16", tp: int = 1) -> int:
    """Bytes one layer caches for one token, on one GPU."""
    b = BYTE_DTYPES[kv_dtype]
    if arch.mla is not None:
        return (arch.mla.kv_lora_rank + arch.mla.qk_rope_head_dim) * b
    return 2 * kv_heads_per_gpu(arch, tp) * arch.head_dim * b


def kv_cache_bytes_per_token(arch: Architecture, kv_dtype: str = "bf16", tp: int = 1) -> int:
    """KV-cache bytes per token over all layers (per GPU when `tp` > 1), before any sliding
    window caps it: the rate at which the cache grows for short contexts."""
    return arch.num_layers * kv_cache_bytes_per_layer_token(arch, kv_dtype, tp)


def round_up(tokens: int, block: int) -> int:
    """`tokens` rounded up to a whole number of `block`-token blocks."""
    return -(-tokens // block) * block


def capped_tokens(context: int, cap: int | None) -> int:
    """Tokens a layer keeps of a `context`-token sequence: all of them, or at most `cap`."""
    return context if cap is None else min(context, cap)


def llama_cpp_window_cells(context: int, cap: int) -> int:
    """Cells per sequence llama.cpp's iSWA cache gives a windowed layer (sliding window or
    Llama 4 chunk, LLAMA_SWA_TYPE_CHUNKED): `GGML_PAD(min(context, window + n_ubatch), 256)`
    (src/llama-kv-cache-iswa.cpp), never above the sequence's own context."""
    kept = cap + int(LLAMA_CPP_N_UBATCH.value)
    return min(context, round_up(kept, LLAMA_CPP_SWA_PADDING))


def kv_layer_tokens(
    arch: Architecture, context: int, block_tokens: int, llama_cpp_windows: bool = False
) -> int:
    """Σ over layers of the tokens each layer caches for one `context`-token sequence
    (sliding/chunked layers capped — at the window (vLLM), or at llama.cpp's window + one
    physical batch with `llama_cpp_windows` — each rounded up to `block_tokens`)."""

    def kept(cap: int | None) -> int:
        if cap is not None and llama_cpp_windows:
            return llama_cpp_window_cells(context, cap)
        return capped_tokens(context, cap)

    return sum(layers * round_up(kept(cap), block_tokens) for layers, cap in arch.kv_layer_groups())


def kv_cache_bytes(
    arch: Architecture,
    *,
    context: int,
    sequences: int = 1,
    kv_dtype: str = "bf16",
    tp: int = 1,
    pp: int = 1,
    block_tokens: int = 1,
    llama_cpp_windows: bool = False,
) -> int:
    """KV-cache bytes on one GPU for `sequences` sequences of `context` tokens each.

    Sliding-window layers hold min(context, window) tokens, chunked-attention layers
    min(context, chunk). With pipeline parallelism a GPU holds the layers of one stage:
    ceil(layers / pp) of them (the largest stage).
    `block_tokens`: allocation granularity per sequence (16 for vLLM, 1 otherwise);
    `llama_cpp_windows`: windowed layers keep llama.cpp's iSWA cells (`llama_cpp_window_cells`).
    """
    per_layer = kv_cache_bytes_per_layer_token(arch, kv_dtype, tp)
    layer_tokens = kv_layer_tokens(arch, context, block_tokens, llama_cpp_windows)
    all_layers = per_layer * layer_tokens * sequences
    if pp == 1:
        return all_layers
    stage_layers = -(-arch.num_layers // pp)
    return -(-all_layers * stage_layers // arch.num_layers)
