"""Bare parameter counts: parsing and the generic dense shape."""

from __future__ import annotations

import pytest

from tools.architecture import count_parameters
from tools.errors import ToolInputError
from tools.generic_model import generic_architecture, parse_param_count


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("13B", 13_000_000_000),
        ("13b", 13_000_000_000),
        ("7.5e9", 7_500_000_000),
        ("350M", 350_000_000),
        ("1.5T", 1_500_000_000_000),
        ("70 billion", 70_000_000_000),
        ("8B params", 8_000_000_000),
        (7e9, 7_000_000_000),
    ],
)
def test_parse_param_count(text: str | float, count: int) -> None:
    assert parse_param_count(text) == count


@pytest.mark.parametrize("bad", ["", "abc", "-7B", "0", "nan", "inf", "1e30", float("nan"), 5])
def test_parse_param_count_rejects(bad: str | float) -> None:
    with pytest.raises(ToolInputError) as err:
        parse_param_count(bad)
    assert err.value.field == "params"


@pytest.mark.parametrize("count", [5e8, 1e9, 3e9, 7e9, 7.5e9, 13e9, 34e9, 70e9, 180e9, 405e9, 1e12])
def test_generic_shape_within_one_percent(count: float) -> None:
    arch, assumptions = generic_architecture(int(count))
    own = count_parameters(arch).total
    assert abs(own - count) / count < 0.01
    assert arch.family == "generic"
    assert "shape" in assumptions[0]


def test_13b_uses_llama_2_13b_shape() -> None:
    # Llama-2-13B (13,015,864,320 params, params.json) is the nearest Llama-family shape.
    arch, _ = generic_architecture(13_000_000_000)
    assert (arch.hidden_size, arch.num_attention_heads, arch.num_kv_heads) == (5120, 40, 40)
