"""'Can my 3090 run Qwen3 32B?': the card the user named leads the answer, run as its owner runs
it (issue 29: llama.cpp in the best GGUF type that fits), and the datacenter sizing that follows
as the alternative says, when the model does not fit the card as asked, which lower weight
format does.

Hand arithmetic (Qwen3 32B config.json: 64 layers, 8 KV heads, head_dim 128; 32,762,123,264
parameters in the HF safetensors metadata):
- bf16 weights: 32,762,123,264 × 2 B = 65.5 GB = 61.0 GiB > a 24 GiB RTX 3090: does not fit.
- 4-bit (AWQ, group scales, unquantised embeddings and head): about 18-19 GiB of weights.
- KV cache: 2 (K and V) × 64 × 8 × 128 × 2 B = 262,144 B per token: 1.0 GiB at 4,096 tokens.
  4-bit needs 21.8 GiB at 4,096 tokens against vLLM's 0.90 × 24 GiB = 21.6 GiB budget, about
  0.15 GiB over: about 0.15 × 2^30 / 262,144 ≈ 614 tokens shorter fits, so the longest context
  lies between 3,000 and 3,482 tokens (activations shrink with it too).
- Q4_K_M (about 4.8 bits a weight): 32.76e9 × 4.8 / 8 = 19.7 GB = 18.3 GiB of weights, under
  the card's 24 GiB with an 8,192-token f16 KV cache (2 GiB): the local plan runs every layer on
  the GPU; Q5_K_M (about 5.7 bits a weight, 21.7 GiB) plus that cache does not.
- Llama 3.3 70B (70,553,706,496 parameters): 4-bit is about 35 GB of weights alone, more than
  one 24 GB RTX 4090 at any context: no lower format fits one.
"""

from __future__ import annotations

import re

import pytest

from assistant.cli import main
from tests import offline_turns

QWEN_ON_3090 = [
    "can my 3090 run Qwen3 32B?",
    "will Qwen3 32B run on my RTX 3090?",
    "Qwen3 32B on my 3090",
    "does Qwen3 32B fit on my GeForce RTX 3090",
]


def _local_lead(text: str) -> str:
    """The answer's first line after the reading, without a yes/no question's 'Yes.'."""
    first = offline_turns.after_reading(text).splitlines()[0]
    return offline_turns.without_yes_no(first)


def _lead(text: str) -> list[str]:
    """The datacenter alternative's lead lines (after its heading)."""
    after = offline_turns.after_reading(text).split("**Datacenter alternative**", 1)[1]
    lines = after.split("\n\n", 1)[0].splitlines()[1:]
    return [line for line in lines if line.strip()]


@pytest.mark.parametrize("question", QWEN_ON_3090)
async def test_the_named_3090_leads_and_the_format_that_fits_follows(question: str) -> None:
    text, conversation = await offline_turns.answer(question)
    # Owned: the local plan leads, every layer on the card in Q4_K_M (hand arithmetic above).
    local = _local_lead(text)
    assert local.startswith("**llama.cpp (llama-server), q4_k_m, on NVIDIA GeForce RTX 3090")
    assert "fits on the GPU: all 64 layers" in local
    lead = _lead(text)
    assert lead[0].startswith("**Does not fit on 1× GeForce RTX 3090**")
    report = offline_turns.sizing(conversation)
    (named,) = [m for m in report.memory if m.gpu == "rtx-3090"]
    assert named.count == 1 and named.estimate is not None and named.estimate.fits is False
    assert named.estimate.breakdown["weights"] / 2**30 == pytest.approx(61.0, abs=0.1)
    # The lower formats, decided in tools.sizing and typed on the report.
    fits = {f.weights: f for f in report.lower_formats}
    int4 = fits["int4-awq"]
    assert int4.estimate is not None
    weights_gib = int4.estimate.breakdown["weights"] / 2**30
    assert 17.5 <= weights_gib <= 19.5
    assert int4.estimate.breakdown["kv_cache"] == 262_144 * 4_096
    assert int4.shorter_context is not None and 3_000 <= int4.shorter_context <= 3_482
    # ... and said right after the named card's verdict.
    assert lead[1].startswith("At lower weight precision on 1× GeForce RTX 3090")
    assert f"fits at up to {int4.shorter_context:,} tokens" in lead[1]
    assert "'my" in text and "read as one" in text  # the reading is stated


@pytest.mark.parametrize(
    "question", ["Llama 3.3 70B on my 4090", "can my RTX 4090 run Llama 3.3 70B?"]
)
async def test_no_lower_format_fits_one_4090_for_a_70b(question: str) -> None:
    text, conversation = await offline_turns.answer(question)
    # Owned: the local plan leads; no GGUF type keeps all 80 layers on 24 GB (35 GB at 4-bit).
    assert "does not fit entirely" in _local_lead(text)
    assert _lead(text)[0].startswith("**Does not fit on 1× GeForce RTX 4090**")
    report = offline_turns.sizing(conversation)
    assert report.lower_formats
    for fit in report.lower_formats:
        assert fit.estimate is not None and fit.estimate.fits is False
        assert fit.shorter_context is None
        # 4-bit is still ≥ 35 GB (32.6 GiB) of weights: more than a 24 GB card.
        assert fit.estimate.breakdown["weights"] >= 32 * 2**30
    assert re.search(r"int4-awq does not fit \(", _lead(text)[1])


def test_plural_cards_keep_the_count_open(capsys: pytest.CaptureFixture[str]) -> None:
    # 'my 3090s': how many is the question; the search finds the count.
    assert main(["ask", "--offline", "--json", "can my 3090s run Qwen3 32B?"]) == 0
    out = capsys.readouterr().out
    assert "read as one" not in out
