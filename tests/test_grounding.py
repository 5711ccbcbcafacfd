"""Grounding check: figures with units in the answer must match tool results (hand-checked)."""

from __future__ import annotations

import json

import pytest

from assistant.grounding import extract_figures, turn_sources, unverified_figures

RESULT = '{"per_gpu_GB":140.02,"count":2,"ttft_s":0.25,"usd_per_hour":4.5,"tok_s":35.2}'


def test_extracts_units() -> None:
    figs = extract_figures("140 GB, 130.4 GiB, 2x H100, 8 GPUs, 35 tokens/s, 250 ms, $4.50")
    assert [f.unit for f in figs] == ["GB", "GB", "gpus", "gpus", "tok/s", "s", "$"]
    # 130.4 GiB = 130.4 x 2^30 / 10^9 GB = 140.016 GB (hand calculation).
    assert abs(figs[1].value - 140.016) < 0.001
    assert figs[5].value == 0.25


def test_matching_with_rounding_and_conversion() -> None:
    # 140.02 GB = 130.40 GiB (140.02e9 / 2^30 = 130.40); 0.25 s = 250 ms; 35.2 -> "35".
    text = "About 140 GB (130.4 GiB) on 2 GPUs, 250 ms TTFT, 35 tokens/s, $4.50 per hour."
    assert unverified_figures(text, [RESULT]) == []


def test_unsupported_figures_are_returned() -> None:
    text = "You need 3 GPUs, 96 GB each, 500 ms, $9.99/h"
    assert unverified_figures(text, [RESULT]) == ["3 GPUs", "96 GB", "500 ms", "$9.99"]


def test_trailing_zero_rounding() -> None:
    # "150 GB" may be 148 rounded to the tens (tolerance 5); "151 GB" has tolerance 1.5 (1 %).
    assert unverified_figures("150 GB", ['{"x_GB":148}']) == []
    assert unverified_figures("151 GB", ['{"x_GB":148}']) == ["151 GB"]


def test_turn_sources_only_last_turn_and_user_words() -> None:
    msgs = [
        {"role": "user", "content": "old"},
        {"role": "tool", "tool_call_id": "a", "content": '{"x_GB":999}'},
        {"role": "user", "content": "I have 4 GPUs"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "b",
                    "type": "function",
                    "function": {"name": "t", "arguments": '{"gpus":4}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "b", "content": '{"y_GB":80}'},
    ]
    sources = turn_sources(msgs)
    assert unverified_figures("4 GPUs with 80 GB", sources) == []
    assert unverified_figures("999 GB", sources) == ["999 GB"]


def test_a_dollar_figure_is_not_verified_by_a_memory_number_of_the_same_value() -> None:
    # Found while rendering proposals: "$3.99/h" counted as verified by an unrelated 3.99.
    memory_only = ['{"per_gpu_GB":3.99,"kv_cache_GB":12.5}']
    assert unverified_figures("It costs $3.99 per hour.", memory_only) == ["$3.99"]
    priced = ['{"usd_per_hour":3.99}']
    assert unverified_figures("It costs $3.99 per hour.", priced) == []


def test_throughput_and_memory_figures_need_fields_of_their_own_kind() -> None:
    result = ['{"aggregate_tokens_per_s":1450,"per_gpu_GB":72.7,"count":2}']
    assert unverified_figures("About 1,450 tokens/s on 2 GPUs using 72.7 GB.", result) == []
    assert unverified_figures("About 72.7 tokens/s.", result) == ["72.7 tokens/s"]
    # A field without a unit in its name supports nothing on its own; inside a field that
    # names one (the registry's byte breakdown) it carries that unit: 16e9 bytes = 16 GB.
    assert unverified_figures("Weights take 16 GB.", ['{"weights":16000000000}']) == ["16 GB"]
    breakdown = ['{"breakdown_bytes_per_gpu":{"weights":16000000000}}']
    assert unverified_figures("Weights take 16 GB.", breakdown) == []


# Issue 17: what a real result looks like; digits in names, ids and prose are not evidence.
NAMED = json.dumps(
    {
        "model_id": "llama-3.1-70b",
        "model_name": "Llama 3.1 70B",
        "gpu": "h100-sxm",
        "weights_format": "bf16",
        "context": 8192,
        "layers": 80,
        "per_gpu_GB": 147.449,
        "assumptions": ["context 8192 tokens, bf16 weights, 16-token KV blocks on h100-sxm"],
    }
)


@pytest.mark.parametrize(
    "claim",
    [
        "100 GB",  # the 100 of 'h100-sxm'
        "$16 per hour",  # the 16 of 'bf16' / '16-token'
        "70 GPUs",  # the 70 of 'llama-3.1-70b'
        "80 GPUs",  # a unit-less field (layers: 80)
        "$8,192",  # a unit-less field (context: 8192) and the same digits in prose
        "8192 GB",
        "3.1 GB",  # the version in the model's name
    ],
)
def test_digits_in_names_ids_and_prose_are_not_evidence(claim: str) -> None:
    assert unverified_figures(f"You need {claim}.", [NAMED]) == [claim.split(" per")[0]]


def test_the_numeric_field_with_its_unit_is_evidence() -> None:
    # 147.449 GB = 137.32 GiB (147.449e9 / 2^30 = 137.322, hand calculation).
    assert unverified_figures("It needs 147.4 GB (137.3 GiB) per GPU.", [NAMED]) == []


@pytest.mark.parametrize(
    "value,figure,ok",
    [
        (97.3, "100 GB", True),  # two significant figures: 95-105
        (94.0, "100 GB", False),
        (150.0, "100 GB", False),  # one significant figure would have accepted 50-150
        (1040.0, "1,000 GB", True),  # 950-1,050
        (1080.0, "1,000 GB", False),
        (148.0, "150 GB", True),
    ],
)
def test_round_numbers_are_read_at_two_significant_figures(
    value: float, figure: str, ok: bool
) -> None:
    flagged = unverified_figures(f"About {figure}.", [json.dumps({"total_GB": value})])
    assert flagged == ([] if ok else [figure])


def test_unit_figures_written_in_tool_text_and_user_words_count() -> None:
    reason = json.dumps({"reason": "needs 81.2 GiB per GPU, budget 19.8 GiB"})
    assert unverified_figures("The budget is 19.8 GiB.", [reason]) == []
    assert unverified_figures("I have 4 GPUs; use 4 GPUs.", ["I have 4 GPUs"]) == []
    # A bare number the user typed is not a figure with a unit.
    assert unverified_figures("Use 4 GPUs.", ["serve 4 users"]) == ["4 GPUs"]
