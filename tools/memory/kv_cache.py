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
- ExLlamaV2's quantized caches (`q4`, `q6`, `q8`: `exllamav2_q_bytes_per_head`), as
  exllamav2/cache.py (turboderp/exllamav2 at b9c025b) allocates them per layer: keys and values
  as uint8 tensors of `head_dim // weights_per_element` bytes per head and token
  (ExLlamaV2Cache_Q4: 2 elements per byte for K and V; Q6: 1 for K, 2 for V — the CUDA kernels
  run Q6 as `<8, 4>`, 8-bit keys and 4-bit values, exllamav2_ext/cuda/cache.cu; Q8: 1 and 1),
  plus fp16 scales of `head_dim // 32` per head for each (`shape_s`: one scale per 32
  elements, cache_q.cuh). Per element (K and V averaged): Q4 4/8 + 2/32 = 0.5625 bytes, Q6
  (1 + 0.5)/2 + 2/32 = 0.8125, Q8 1 + 2/32 = 1.0625 (fp16: 2). ExLlamaV2Cache_8bit (FP8 e5m2,
  `fp8` here) is 1 byte per element with no scales. Both keep, on every device holding cache
  layers, one layer's K and V in fp16 at the full cache shape to dequantize into
  (`temp_tensors`, counted in their `footprint()`): `exllamav2_dequant_bytes`. Q caches round
  the cache length up to `q_block` tokens, the fewest whose K (or V) elements fill a 512-element
  quantization block (`Q_CACHE_BLOCKSIZE_Q`, exllamav2_ext/config.h): `exllamav2_q_block`.
"""

from __future__ import annotations

import math

from tools.architecture import Architecture
from tools.memory.formats import BYTE_DTYPES, GGUF_FORMATS
from tools.memory.gguf_mix import GGML_BLOCKS
from tools.memory.overhead import LLAMA_CPP_N_UBATCH

LLAMA_CPP_SWA_PADDING = 256
"""llama.cpp pads its sliding-window (iSWA) cache to 256 cells (src/llama-kv-cache-iswa.cpp,
issue 17037)."""

EXLLAMAV2_Q_CACHES: dict[str, tuple[int, int]] = {"q4": (2, 2), "q6": (1, 2), "q8": (1, 1)}
"""ExLlamaV2's Q caches: (key, value) elements per uint8 byte (cache.py ExLlamaV2Cache_Q4 /
_Q6 / _Q8 `weights_per_byte_k`, `weights_per_byte_v`)."""
EXLLAMAV2_Q_SCALE_ELEMENTS = 32
"""Elements per fp16 scale of a Q cache (cache.py `shape_s`: head_dim // 32 per head)."""
EXLLAMAV2_Q_BLOCK_ELEMENTS = 512
"""Elements per quantization block of a Q cache (exllamav2_ext/config.h Q_CACHE_BLOCKSIZE_Q)."""
EXLLAMAV2_KV_DTYPES: tuple[str, ...] = tuple(EXLLAMAV2_Q_CACHES)
"""The KV dtypes only ExLlamaV2 has (its Q4 / Q6 / Q8 cache: TabbyAPI cache_mode, -cq4)."""

LLAMA_CPP_KV_CACHES: dict[str, str] = {
    "q8_0": "Q8_0", "q4_0": "Q4_0", "q4_1": "Q4_1", "iq4_nl": "IQ4_NL", "q5_0": "Q5_0",
    "q5_1": "Q5_1",
}  # fmt: skip
"""llama.cpp's quantized KV-cache types (`--cache-type-k/-v`, common/arg.cpp kv_cache_types;
Ollama's OLLAMA_KV_CACHE_TYPE q8_0 / q4_0) and their ggml block types: a K or V row of
`n_embd_k_gqa` elements is `ggml_row_size(type, n)` = n / block length × block bytes
(ggml-common.h: block_q8_0 is an fp16 scale and 32 int8, 34 bytes per 32 elements =
1.0625 bytes each; block_q4_0 an fp16 scale and 16 bytes of nibbles, 18 per 32 = 0.5625)."""
LLAMA_CPP_KV_DTYPES: tuple[str, ...] = tuple(LLAMA_CPP_KV_CACHES)
"""The KV dtypes only llama.cpp (and Ollama, which runs it) has."""

KV_DTYPES: tuple[str, ...] = (
    "bf16", "fp16", "fp8", "int8", "fp32", *EXLLAMAV2_KV_DTYPES, *LLAMA_CPP_KV_DTYPES,
)  # fmt: skip
VLLM_BLOCK_TOKENS = 16
"""vLLM PagedAttention block size, tokens (vLLM engine args: `--block-size`, default 16)."""


# vLLM docs, "Quantized KV Cache" (docs.vllm.ai/en/latest/features/quantization/
# quantized_kvcache/): the quantized KV cache vLLM offers is FP8 (`kv_cache_dtype="fp8"`,
# E4M3 or E5M2); no int8 KV cache is documented.
VLLM_QUANTIZED_KV_DTYPES: tuple[str, ...] = ("fp8",)


def engine_kv_problem(
    engine: str | None, weights: str | None, kv_dtype: str | None
) -> tuple[str, str] | None:
    """(problem, allowed) when a Q4 / Q6 / Q8 cache, ExLlamaV2's alone, is asked of another
    engine or with GGUF weights (which ExLlamaV2 cannot load), or a llama.cpp cache type
    (q8_0, q4_0 …) of an engine other than llama.cpp's (generic); else None."""
    if kv_dtype in LLAMA_CPP_KV_DTYPES:
        if engine in (None, "generic"):
            return None
        return (
            f"kv_dtype {kv_dtype} is a llama.cpp cache type (--cache-type-k/-v), which engine "
            f"{engine} does not have",
            "engine generic (llama.cpp / Ollama) or none with a llama.cpp cache type; "
            "kv_dtype fp8 with vLLM, SGLang or TensorRT-LLM; q4 / q6 / q8 with ExLlamaV2",
        )
    if kv_dtype not in EXLLAMAV2_KV_DTYPES:
        return None
    allowed = "engine exllamav2 (or none) with a Q cache, or kv_dtype fp8 / fp16 elsewhere"
    if engine not in (None, "exllamav2"):
        return (
            f"kv_dtype {kv_dtype} is ExLlamaV2's {kv_dtype.upper()} cache, which engine "
            f"{engine} does not have",
            allowed,
        )
    if weights in GGUF_FORMATS:
        return (
            f"kv_dtype {kv_dtype} is ExLlamaV2's {kv_dtype.upper()} cache, and ExLlamaV2 cannot "
            f"load the GGUF type {weights}",
            allowed,
        )
    return None


def exllamav2_q_bytes_per_head(head_dim: int, kv_dtype: str) -> int:
    """Bytes one KV head of one layer caches per token in ExLlamaV2's `kv_dtype` Q cache, K and
    V with their fp16 scales (cache.py `shape_wk`, `shape_wv`, `shape_s`)."""
    per_byte_k, per_byte_v = EXLLAMAV2_Q_CACHES[kv_dtype]
    scales = 2 * 2 * (head_dim // EXLLAMAV2_Q_SCALE_ELEMENTS)  # K's and V's, 2 bytes each
    return head_dim // per_byte_k + head_dim // per_byte_v + scales


def exllamav2_q_block(arch: Architecture) -> int:
    """Tokens a Q cache's length is rounded up to (ExLlamaV2Cache_Q: the fewest tokens whose
    `num_key_value_heads × head_dim` elements fill whole 512-element blocks); 1 otherwise."""
    kv_dim = arch.num_kv_heads * arch.head_dim
    return EXLLAMAV2_Q_BLOCK_ELEMENTS // math.gcd(kv_dim, EXLLAMAV2_Q_BLOCK_ELEMENTS)


def exllamav2_dequant_bytes(arch: Architecture, tokens: int, tp: int = 1) -> int:
    """Bytes of the fp16 K and V one GPU keeps to dequantize an ExLlamaV2 FP8 or Q cache into
    (`temp_tensors`: one layer's K and V at the full cache shape, batch × max_seq_len, per
    device), for a cache of `tokens` tokens (sequences × length)."""
    return 2 * kv_heads_per_gpu(arch, tp) * arch.head_dim * BYTE_DTYPES["fp16"] * tokens


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
    if engine == "exllamav2" and kv_dtype == "int8":
        return (
            "kv_dtype int8 with engine=exllamav2: ExLlamaV2's 8-bit caches are FP8 "
            "(cache_8bit, sized as kv_dtype fp8) and Q8 (kv_dtype q8, 1.0625 bytes per element "
            "with its scales); sized at 1 byte per element"
        )
    return None


def kv_heads_per_gpu(arch: Architecture, tp: int = 1) -> int:
    """KV heads each tensor-parallel rank holds: ceil(kv_heads / tp), at least one."""
    return -(-arch.num_kv_heads // tp)


def kv_cache_bytes_per_layer_token(arch: Architecture, kv_dtype: str = "bf16", tp: int = 1) -> int:
    """Bytes one layer caches for one token, on one GPU."""
    if kv_dtype in EXLLAMAV2_Q_CACHES:
        if arch.mla is not None:  # no MLA in ExLlamaV2: the latent at the keys' rate, with scales
            latent = arch.mla.kv_lora_rank + arch.mla.qk_rope_head_dim
            per_byte_k = EXLLAMAV2_Q_CACHES[kv_dtype][0]
            return latent // per_byte_k + 2 * (latent // EXLLAMAV2_Q_SCALE_ELEMENTS)
        return kv_heads_per_gpu(arch, tp) * exllamav2_q_bytes_per_head(arch.head_dim, kv_dtype)
    if kv_dtype in LLAMA_CPP_KV_CACHES:
        return llama_cpp_q_bytes_per_layer_token(arch, kv_dtype, tp)
    b = BYTE_DTYPES[kv_dtype]
    if arch.mla is not None:
        return (arch.mla.kv_lora_rank + arch.mla.qk_rope_head_dim) * b
    return 2 * kv_heads_per_gpu(arch, tp) * arch.head_dim * b


def kv_cache_bytes_per_element(kv_dtype: str) -> float:
    """Bytes per cached element of `kv_dtype`, scales included (K and V averaged for
    ExLlamaV2's Q6): what orders two cache types by size."""
    if kv_dtype in LLAMA_CPP_KV_CACHES:
        block_bytes, block_len = GGML_BLOCKS[LLAMA_CPP_KV_CACHES[kv_dtype]]
        return block_bytes / block_len
    if kv_dtype in EXLLAMAV2_Q_CACHES:
        return exllamav2_q_bytes_per_head(EXLLAMAV2_Q_SCALE_ELEMENTS, kv_dtype) / (
            2 * EXLLAMAV2_Q_SCALE_ELEMENTS
        )
    return float(BYTE_DTYPES[kv_dtype])


def llama_cpp_q_bytes_per_layer_token(arch: Architecture, kv_dtype: str, tp: int = 1) -> int:
    """Bytes one layer caches per token in a llama.cpp quantized cache type: a K row and a V
    row of kv_heads × head_dim elements, each `ggml_row_size` (whole blocks: llama.cpp refuses
    a quantized cache whose row is not a whole number of blocks); MLA's latent once, as
    `tools.local_serving.kv` keeps it."""
    block_bytes, block_len = GGML_BLOCKS[LLAMA_CPP_KV_CACHES[kv_dtype]]
    if arch.mla is not None:
        latent = arch.mla.kv_lora_rank + arch.mla.qk_rope_head_dim
        return -(-latent // block_len) * block_bytes
    row = kv_heads_per_gpu(arch, tp) * arch.head_dim
    return 2 * -(-row // block_len) * block_bytes


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
