"""llama.cpp's KV cache for a local-serving plan: bytes per token in a cache type, and the cache
of P parallel slots with sliding-window and chunked-attention layers capped as llama.cpp caps
them.

llama.cpp keeps the windowed layers in their own cache (src/llama-kv-cache-iswa.cpp, since the
iSWA cache of mid-2025): `size_swa = GGML_PAD(min(size_base, n_swa·n_seq + n_ubatch), 256)` —
the window (Gemma 3's sliding_window, Llama 4's attention_chunk_size: LLAMA_SWA_TYPE_CHUNKED)
plus one physical batch, rounded up to 256 cells, for each slot; the full-attention layers
hold every token of every slot. `--swa-full` gives the windowed layers the full size instead.
"""

from __future__ import annotations

from tools.architecture import Architecture
from tools.memory.gguf_mix import GGML_BLOCKS
from tools.memory.kv_cache import (
    LLAMA_CPP_KV_CACHES,
    LLAMA_CPP_SWA_PADDING,
    llama_cpp_window_cells,
)
from tools.memory.overhead import LLAMA_CPP_N_UBATCH

CACHE_GGML = {"f32": "F32", "f16": "F16", "bf16": "BF16", **LLAMA_CPP_KV_CACHES}


def kv_bytes_per_token(arch: Architecture, cache_type: str) -> float:
    """KV-cache bytes per token over all layers in a llama.cpp cache type (K and V each
    kv_heads × head_dim elements per layer, at the type's block size; MLA's latent once)."""
    block_bytes, block_len = GGML_BLOCKS[CACHE_GGML[cache_type]]
    per_element = block_bytes / block_len
    if arch.mla is not None:
        elements = arch.mla.kv_lora_rank + arch.mla.qk_rope_head_dim
    else:
        elements = 2 * arch.num_kv_heads * arch.head_dim
    return arch.num_layers * elements * per_element


def layer_tokens(arch: Architecture, per_slot: int) -> int:
    """Σ over layers of the cells each layer keeps for one slot of `per_slot` tokens."""
    return sum(
        layers * (per_slot if cap is None else llama_cpp_window_cells(per_slot, cap))
        for layers, cap in arch.kv_layer_groups()
    )


def kv_cache_total(arch: Architecture, cache_type: str, per_slot: int, parallel: int) -> int:
    """Bytes of the whole KV cache: `parallel` slots of `per_slot` tokens."""
    per_layer_token = kv_bytes_per_token(arch, cache_type) / arch.num_layers
    return round(per_layer_token * layer_tokens(arch, per_slot) * parallel)


def windowed_note(arch: Architecture, per_slot: int) -> str | None:
    """What the cache holds for windowed layers, in words; None without them."""
    parts = []
    for layers, cap in arch.kv_layer_groups():
        if cap is not None and layers:
            kind = "sliding-window" if cap == arch.sliding_window else "chunked-attention"
            cells = llama_cpp_window_cells(per_slot, cap)
            parts.append(
                f"{layers} {kind} layers keep {cells:,} tokens per slot (window {cap:,} + "
                f"n_ubatch {int(LLAMA_CPP_N_UBATCH.value)}, padded to {LLAMA_CPP_SWA_PADDING})"
            )
    if not parts:
        return None
    return (
        "KV cache as llama.cpp's iSWA cache holds it: "
        + "; ".join(parts)
        + f"; the {arch.full_attention_layers} full-attention layers keep all {per_slot:,} "
        "(--swa-full would give every layer the full context)."
    )
