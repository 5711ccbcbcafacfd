"""'Can my 3090 run Qwen3 32B?': the card the user named leads the answer — since issue 29 as
the user runs it (the llama.cpp plan in the GGUF type that fits) — and the datacenter sizing
after it says, for that card as asked (vLLM, bf16), that it does not fit and which lower
weight format does.

Hand arithmetic (Qwen3 32B config.json: 64 layers, 8 KV heads, head_dim 128; 32,762,123,264
parameters in the HF safetensors metadata):
- bf16 weights: 32,762,123,264 × 2 B = 65.5 GB = 61.0 GiB > a 24 GiB RTX 3090: does not fit.
- 4-bit (AWQ, group scales, unquantised embeddings and head): about 18-19 GiB of weights.
- KV cache: 2 (K and V) × 64 × 8 × 128 × 2 B = 262,144 B per token: 1.0 GiB at 4,096 tokens.
  4-bit needs 21.8 GiB at 4,096 tokens against vLLM's 0.90 × 24 GiB = 21.6 GiB budget, about
  0.15 GiB over: about 0.15 × 2^30 / 262,144 ≈ 614 tokens shorter fits, so the longest context
  lies between 3,000 and 3,482 tokens (activations shrink with it too).
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


def _first(text: str) -> str:
    """The first verdict line, without a yes/no question's 'Yes.' / 'No.'."""
    lines = [line for line in offline_turns.after_reading(text).splitlines() if line.strip()]
    return offline_turns.without_yes_no(lines[0])


def _lead(text: str) -> list[str]:
    """The datacenter sizing's lead lines (after the local plan, issue 29)."""
    lines = offline_turns.datacenter_part(text).split("\n\n", 1)[0].splitlines()
    return [line for line in lines if line.strip()]


@pytest.mark.parametrize("question", QWEN_ON_3090)
async def test_the_named_3090_leads_and_the_format_that_fits_follows(question: str) -> None:
    text, conversation = await offline_turns.answer(question)
    # Issue 29: the 3090 as the user runs it leads — Q4_K_M (≈ 32.8 B × 4.85 bits ≈ 19.9 GB).
    assert _first(text).startswith("**llama.cpp (llama-server), q4_k_m, on NVIDIA GeForce RTX 3090")
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
    # Issue 29: the local plan leads; Q4_K_M (≈ 70.55 B × 4.85 / 8 = 42.8 GB) is more than the
    # 4090's 24 GiB, so part of the layers stay in system RAM.
    first = _first(text)
    assert first.startswith("**llama.cpp (llama-server), q4_k_m, on NVIDIA GeForce RTX 4090")
    assert "does not fit entirely" in first
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
