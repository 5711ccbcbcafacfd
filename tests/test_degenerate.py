"""Degenerate output detection (issue 17): loops and runaway length, not ordinary prose."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assistant.llm.degenerate import MIN_LOOP_WORDS, OutputGuard, repeated_tail

FIXTURES = Path(__file__).resolve().parent / "data" / "llama-cpp"


def _streamed_text(name: str) -> list[str]:
    pieces = []
    for line in (FIXTURES / name).read_text().splitlines():
        if line.startswith("data: {"):
            for choice in json.loads(line[6:])["choices"]:
                pieces.append(choice["delta"].get("content") or "")
    return pieces


def test_the_captured_loop_is_stopped_while_streaming() -> None:
    # SmolLM2-135M's capture: "... The 4-bit Llama 3.1 70B is a 4-bit Llama ..." (60 tokens,
    # cut by max_tokens); repeated once more, as the model would have gone on, it is a loop.
    pieces = _streamed_text("stream-tools-offered-ignored.sse")
    guard = OutputGuard(max_tokens=2048)
    stopped_at = None
    for index, piece in enumerate(pieces * 3):
        if guard.feed(piece) is not None:
            stopped_at = index
            break
    assert guard.stopped == "repetition" and stopped_at is not None
    assert stopped_at < len(pieces) * 3 - 1  # before the end: stopped while streaming


PROSE = [
    "Llama 3.1 70B does not fit on one H100: the bf16 weights alone are 141.1 GB, and an H100 "
    "SXM has 80 GB. Two H100s with tensor parallelism hold it with room for the KV cache.",
    "| GPU | count | per GPU |\n|---|---|---|\n| H100 SXM5 | 2 | 71.0 GiB |\n"
    "| A100 80GB | 2 | 71.0 GiB |\n| MI300X | 1 | 136.1 GiB |\n",
    "- weights: 141.1 GB\n- KV cache: 2.7 GB\n- activations: 1.7 GB\n- runtime: 2.0 GB\n",
    "Yes, very, very, very small models fit on a phone.",
]


@pytest.mark.parametrize("text", PROSE)
def test_ordinary_answers_are_not_loops(text: str) -> None:
    guard = OutputGuard(max_tokens=2048)
    for word in text.split(" "):
        assert guard.feed(word + " ") is None, guard.text


@pytest.mark.parametrize("period", [1, 2, 5, 11, 40])
def test_any_run_repeated_back_to_back_is_a_loop(period: int) -> None:
    run = " ".join(f"w{i}" for i in range(period))
    repeats = max(3, -(-MIN_LOOP_WORDS // period))
    assert repeated_tail(" ".join([run] * repeats)) == period
    assert repeated_tail(" ".join([run] * (repeats - 1))) is None


def test_runaway_length_past_the_cap() -> None:
    guard = OutputGuard(max_tokens=20)
    words = [f"word{i} " for i in range(200)]  # all different: no loop, just too long
    reasons = [guard.feed(w) for w in words]
    assert guard.stopped == "length" and reasons.index("length") < 60


def _fragments(text: str, seed: int) -> list[str]:
    """`text` cut at random places, as some tokenizer would stream it (1-6 characters)."""
    import random

    rng = random.Random(seed)
    out, i = [], 0
    while i < len(text):
        step = rng.randint(1, 6)
        out.append(text[i : i + step])
        i += step
    return out


@pytest.mark.parametrize(
    "loop",
    ["::Llama", "Llama::", "ABC", "的", "<|im_end|>", "=" * 3 + ">", "0.", "-Llama-3.1-70B"],
)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_loop_without_spaces_is_stopped_in_any_tokenisation(loop: str, seed: int) -> None:
    # 'Answer: ' then the run repeated until the cap would end it: no space after the start.
    text = "Answer: " + loop * 400
    guard = OutputGuard(max_tokens=4096)
    fed = 0
    for fragment in _fragments(text, seed):
        fed += len(fragment)
        if guard.feed(fragment) is not None:
            break
    assert guard.stopped == "repetition"
    # Stopped soon after the loop covers MIN_LOOP_CHARS (checked every few characters).
    assert fed <= len("Answer: ") + max(160, 4 * len(loop)) + 2 * len(loop) + 16


def test_prose_tables_and_rules_are_not_character_loops() -> None:
    table = "| GPU | count |\n|" + "---|" * 12 + "\n| H100 | 2 |\n"
    rule = "\n" + "-" * 80 + "\n"
    text = PROSE[0] + rule + table + PROSE[2] + "A" * 40 + " and 1,000,000,000 bytes."
    guard = OutputGuard(max_tokens=4096)
    for fragment in _fragments(text, 7):
        assert guard.feed(fragment) is None, guard.text
