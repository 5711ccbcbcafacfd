"""The reader on EXL2 and ExLlamaV2: repo names that carry the rate and head bits, bit widths
said with ExLlamaV2, its Q4 / Q6 / Q8 cache. Phrasings written for these tests; the figures
they lead to are checked against hand arithmetic in tests/test_exl2_format.py."""

from __future__ import annotations

from assistant.offline.parser import parse_workload


def test_a_format_read_before_the_precision_words_counts_among_those_named() -> None:
    # The Ollama tag sets the weights before the precision reader runs; two more formats
    # named after it are noted against the one sized, never a crash.
    p = parse_workload("would qwen3:32b fit a 4090, or should I grab AWQ or GPTQ instead")
    assert p.weights == "q4_k_m"
    assert any("Several weight formats named: sized in 'q4_k_m'" in n for n in p.notes)
