"""Numbers past every bound the tools accept are asked back, never dropped or read in part
(issue 21: "99999999999999999999999999 users" was sized for 1 user, "1e400 users" for 400)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assistant.offline.parser import parse_workload
from tools.limits import MAX_CONTEXT_TOKENS, MAX_SEQUENCES

_READ = (
    "users",
    "batch",
    "context",
    "prompt_tokens",
    "output_tokens",
    "tokens_per_s",
    "tokens_per_s_per_user",
    "train_tokens",
    "gpu_count",
    "params",
    "budget_amount",
)


def _nothing_sized(text: str) -> None:
    parsed = parse_workload(text)
    read = {name: getattr(parsed, name) for name in _READ if getattr(parsed, name) is not None}
    if parsed.model:
        read.pop("params", None)
    assert read == {}, (text, read)
    assert any("more than gpu-sizer can size" in q for q in (x.text for x in parsed.questions)), (
        parsed.questions
    )


@pytest.mark.parametrize(
    ("text", "bound"),
    [
        ("Llama 3.1 8B for 99999999999999999999999999 users", f"{MAX_SEQUENCES:,} concurrent"),
        ("Llama 3.1 8B for 1e400 users", f"{MAX_SEQUENCES:,} concurrent"),
        ("serve llama 3.1 8b to 1e20 concurrent users", f"{MAX_SEQUENCES:,} concurrent"),
        ("Llama 3.1 8B for 10^400 users", f"{MAX_SEQUENCES:,} concurrent"),
        ("Llama 3.1 8B for 5×10^30 requests", f"{MAX_SEQUENCES:,} concurrent"),
        ("Llama 3.1 70B for 10^9 users", f"{MAX_SEQUENCES:,} concurrent"),
        ("Llama 3.1 8B with 1e400 context", f"{MAX_CONTEXT_TOKENS:,} tokens"),
        ("Llama 3.1 8B with 100M context", f"{MAX_CONTEXT_TOKENS:,} tokens"),
        ("Llama 3.1 8B at 99999999999999999999 tokens/s", "far below 10^15"),
    ],
)
def test_out_of_range_figures_are_asked_back_with_the_bound(text: str, bound: str) -> None:
    parsed = parse_workload(text)
    assert parsed.users is None and parsed.context is None and parsed.tokens_per_s is None
    assert len(parsed.questions) == 1 and bound in parsed.questions[0].text
    assert parsed.unplaced, "the figure is listed as not placed, never silently dropped"


def test_figures_within_the_bounds_are_still_read() -> None:
    assert parse_workload("Llama 3.1 8B for 10^7 users").users == 10**7
    assert parse_workload("Llama 3.1 8B for 2.5e3 users").users == 2500
    assert parse_workload("Llama 3.1 8B with 16M context").context == 16_000_000
    assert parse_workload("Llama 3.1 8B for 40 users").questions == []


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(
    digits=st.integers(min_value=16, max_value=400),
    exponent=st.integers(min_value=16, max_value=5000),
    form=st.sampled_from(["digits", "e", "pow", "times"]),
    noun=st.sampled_from(
        [
            "users",
            "concurrent users",
            "tokens of context",
            "requests",
            "GPUs",
            "tokens/s",
            "billion tokens",
            "",
        ]
    ),
)
def test_no_huge_number_is_read_in_part(digits: int, exponent: int, form: str, noun: str) -> None:
    number = {
        "digits": "9" * digits,
        "e": f"1e{exponent}",
        "pow": f"10^{exponent}",
        "times": f"3×10^{exponent}",
    }[form]
    _nothing_sized(f"Llama 3.1 8B for {number} {noun}".strip())
