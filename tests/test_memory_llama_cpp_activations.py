"""Activations of the generic (llama.cpp) engine (QA round 4, 12): llama.cpp reserves its
compute buffer for one physical batch (ubatch) of min(n_ctx, n_ubatch) tokens, n_ubatch = 512 by
default (llama.cpp common/common.h `n_ubatch = 512`, flag -ub/--ubatch-size in
common/arg.cpp), so the buffer does not grow with the number of sequences past that.

Hand figures use Llama 3.1 8B's config.json: hidden_size 4,096, intermediate_size 14,336,
vocab_size 128,256; the memory calculator's per-layer inference peak is T·(2h + 3I)·2 B (the
residual stream and its normed copy, the FFN gate, up and their product, 16-bit) and the
sampled logits sequences·V·(2 + 4) B.
"""

from __future__ import annotations

import pytest

from tools.memory import MemoryRequest, estimate_memory

HIDDEN, FFN, VOCAB = 4_096, 14_336, 128_256
N_UBATCH = 512  # llama.cpp common/common.h


def _activations(batch: int, context: int, engine: str = "generic") -> int:
    est = estimate_memory(
        MemoryRequest(model="llama-3.1-8b", engine=engine, batch=batch, context=context)
    )
    return int(est.breakdown["activations"])


def _hand(tokens: int, sequences: int) -> int:
    return tokens * (2 * HIDDEN + 3 * FFN) * 2 + sequences * VOCAB * (2 + 4)


@pytest.mark.parametrize("batch", [1, 8, 64])
def test_generic_compute_buffer_is_one_ubatch_whatever_the_batch(batch: int) -> None:
    # 512 × (8,192 + 43,008) × 2 = 52,428,800 B for the layer, + batch × 769,536 B of logits.
    assert _activations(batch, 4_096) == _hand(N_UBATCH, batch)
    assert _hand(N_UBATCH, 8) == 52_428_800 + 6_156_288


def test_generic_short_context_uses_fewer_tokens_than_a_ubatch() -> None:
    # One 256-token sequence: min(256 × 1, 512) = 256 tokens per forward pass.
    assert _activations(1, 256) == _hand(256, 1)
    # Two of them fill 512; a third adds no buffer, only its logits.
    assert _activations(2, 256) == _hand(512, 2)
    assert _activations(3, 256) == _hand(512, 3)


def test_generic_no_longer_grows_like_a_whole_prompt_batch() -> None:
    # QA: `memory --params 8B --engine generic --batch 8` showed 3.46 GB of activations, the
    # whole 8 × 4,096-token prompt batch in one pass (transformers' generate does that).
    generic = _activations(8, 4_096)
    whole_batch = _activations(8, 4_096, engine="transformers")
    assert whole_batch == _hand(8 * 4_096, 8)  # 3.36e9 B + logits
    assert generic < 0.06e9 < whole_batch
    est = estimate_memory(MemoryRequest(model="llama-3.1-8b", engine="generic", batch=8))
    assert any("n_ubatch" in a and "llama.cpp" in a for a in est.assumptions)
