"""The reader on EXL2 and ExLlamaV2: repo names that carry the rate and head bits, bit widths
said with ExLlamaV2, its Q4 / Q6 / Q8 cache. Phrasings written for these tests; the figures
they lead to are checked against hand arithmetic in tests/test_exl2_format.py."""

from __future__ import annotations

import pytest

from assistant.offline.parser import parse_workload


def test_a_format_read_before_the_precision_words_counts_among_those_named() -> None:
    # The Ollama tag sets the weights before the precision reader runs; two more formats
    # named after it are noted against the one sized, never a crash.
    p = parse_workload("would qwen3:32b fit a 4090, or should I grab AWQ or GPTQ instead")
    assert p.weights == "q4_k_m"
    assert any("Several weight formats named: sized in 'q4_k_m'" in n for n in p.notes)


# --- Repo names and branches carry the rate and the head bits -----------------------------------


REPO_NAMES = [
    # A LoneStriker-style name: <model>-<rate>bpw-h<head>-exl2.
    (
        "planning to load LoneStriker/Llama-2-70b-4.65bpw-h6-exl2 on my two 3090s",
        "llama-2-70b",
        "exl2-4.65bpw",
    ),
    (
        "does someone/Llama-2-70b-5.0bpw-h8-exl2 squeeze onto 2x RTX 3090?",
        "llama-2-70b",
        "exl2-5.0bpw-h8",
    ),
    # turboderp's: the rate is the branch after a colon.
    (
        "turboderp/Mixtral-8x7B-instruct-exl2:3.5bpw with a 4090, how much headroom",
        "mixtral-8x7b",
        "exl2-3.5bpw",
    ),
    # bartowski's: branches '6_5', '4_25' (an underscore for the decimal point).
    ("Qwen2.5-32B-Instruct-exl2-6_5 on a single 4090 for coding", "qwen2.5-32b", "exl2-6.5bpw"),
    (
        "grabbed bartowski/Qwen2.5-72B-Instruct-exl2, branch 4_25, for 2 4090s",
        "qwen2.5-72b",
        "exl2-4.25bpw",
    ),
    (
        "Mistral-7B-Instruct-v0.3_exl2_8.0bpw_h8 on an RTX 3060 12GB",
        "mistral-7b-v0.3",
        "exl2-8.0bpw-h8",
    ),
]


@pytest.mark.parametrize(("question", "model", "weights"), REPO_NAMES)
def test_an_exl2_repo_name_gives_the_model_and_the_rate(
    question: str, model: str, weights: str
) -> None:
    p = parse_workload(question)
    assert (p.model, p.weights, p.engine) == (model, weights, "exllamav2")
    assert not p.questions  # nothing of the name is left as an unread figure or a minus sign


def test_the_head_bits_of_a_name_are_said_back() -> None:
    p = parse_workload("someone/Llama-2-70b-4.65bpw-h8-exl2 on 2 RTX 3090")
    assert p.weights == "exl2-4.65bpw-h8"
    assert any("4.65 bits per weight, output layer at -hb 8" in n for n in p.notes)


def test_a_repo_the_catalog_lacks_keeps_its_whole_name() -> None:
    # The size in the name is read as a generic model; the rate goes to the weights and the name
    # said back is the whole repo id, not the part left after the rate was read.
    p = parse_workload("will acme/Behemoth-120b-4.5bpw-h6-exl2 run on four 3090s")
    assert (p.params, p.weights) == (120e9, "exl2-4.5bpw")
    assert any(
        "'acme/Behemoth-120b-4.5bpw-h6-exl2' is neither in the catalog" in n for n in p.notes
    )


def test_exl2_in_a_name_without_a_rate_reads_no_rate() -> None:
    # 'exl2' names the engine; the '2' of 'exl2' and the '2.5' of 'Qwen2.5' are no rate.
    p = parse_workload("Qwen2.5-14B-Instruct-exl2 on a 4080 16GB, enough?")
    assert (p.model, p.weights, p.engine) == ("qwen2.5-14b", None, "exllamav2")


@pytest.mark.parametrize(
    ("question", "weights"),
    [
        ("Llama 3.1 8B exl2 6.0bpw with -hb 8, on a 3060 12GB", "exl2-6.0bpw-h8"),
        ("llama 3.1 8b exl2 at 6 bpw and an 8-bit head, 3060 12gb", "exl2-6.0bpw-h8"),
        ("llama 3.1 8b 6.0bpw h8 exl2 on a 3060 12gb", "exl2-6.0bpw-h8"),
    ],
)
def test_head_bits_said_in_words(question: str, weights: str) -> None:
    p = parse_workload(question)
    assert p.weights == weights  # never '8-bit' weights from the head's width


def test_a_head_rate_the_converter_lacks_is_asked() -> None:
    p = parse_workload("someone/Llama-2-70b-4.65bpw-h7-exl2 on 2 RTX 3090")
    assert p.weights is None
    assert p.asks("weights", "unknown")


# --- A bit width with ExLlamaV2 named is an EXL2 rate -------------------------------------------


@pytest.mark.parametrize(
    ("question", "weights"),
    [
        ("Qwen2.5 32B in 4-bit through ExLlamaV2 on a 4090: does it fit?", "exl2-4.0bpw"),
        ("running llama 3.1 70b at 4bit with exllamav2 over 2x 3090", "exl2-4.0bpw"),
        ("can exllama v2 serve Mistral Small 24B 6-bit on a 4090", "exl2-6.0bpw"),
        ("TabbyAPI with Llama 3.1 8B quantized to 8 bits on a 3060 12GB", "exl2-8.0bpw"),
    ],
)
def test_a_bit_width_with_exllamav2_is_an_exl2_rate(question: str, weights: str) -> None:
    p = parse_workload(question)
    assert (p.weights, p.engine) == (weights, "exllamav2")
    assert any("with ExLlamaV2 named read as EXL2" in n for n in p.notes)


@pytest.mark.parametrize(
    ("question", "weights"),
    [
        ("Qwen2.5 32B 4-bit GPTQ on ExLlamaV2, one 4090", "int4-gptq"),  # the format is named
        ("Qwen2.5 32B 4-bit on vLLM, one 4090", "int4-awq"),  # no ExLlamaV2: the usual reading
    ],
)
def test_a_bit_width_stays_as_before_without_exllamav2_or_with_a_format(
    question: str, weights: str
) -> None:
    assert parse_workload(question).weights == weights


# --- ExLlamaV2's Q4 / Q6 / Q8 cache --------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "kv"),
    [
        ("Llama 3.1 70B 4.0bpw exl2 on 2x 3090 with cache_4bit, 32k context", "q4"),
        ("exllamav2 -cq4, llama 3.1 70b exl2 4.0bpw, two 3090s, 32k ctx", "q4"),
        ("Llama 3.1 8B exl2 6.0bpw plus a Q6 cache on a 3060 12GB", "q6"),
        ("tabbyAPI, cache_mode: Q8, Llama 3.1 8B exl2 6.0bpw on a 3060 12GB", "q8"),
        ("on ExLlamaV2 with the KV cache in Q4: Llama 3.1 8B exl2 6.0bpw, 3060 12GB", "q4"),
        ("Llama 3.1 8B exl2 6.0bpw with --cache_q8 on a 3060 12GB", "q8"),
        ("Llama 3.1 8B exl2 6.0bpw with an 8-bit cache in ExLlamaV2, 3060 12GB", "fp8"),
    ],
)
def test_exllamav2s_quantized_cache_is_read(question: str, kv: str) -> None:
    p = parse_workload(question)
    assert p.kv_dtype == kv
    assert p.weights is not None and p.weights.startswith("exl2-")  # 'Q4' is no weight format
    assert not any("Several weight formats" in n for n in p.notes)


def test_a_q_cache_flag_alone_plans_no_llama_cpp() -> None:
    # '-cq4' is ExLlamaV2's own flag: read without the engine being named, and the owned card's
    # answer is the ExLlamaV2 sizing, not a llama.cpp plan.
    from assistant.offline.planner import runs_locally

    p = parse_workload("can my 3090 run Llama 3.1 8B bf16 with -cq4 at 64k context?")
    assert p.kv_dtype == "q4"
    assert not runs_locally(p)
