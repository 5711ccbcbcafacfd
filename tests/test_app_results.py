"""Tool result → card table and memory bar: unit handling and overflow drawing.

Values are hand calculations written out here (GB = 10^9 bytes, GiB = 2^30 bytes).
"""

from __future__ import annotations

import pytest

from assistant.app.commands import parse_slash
from assistant.app.results import (
    MemoryBarData,
    answer_unit,
    byte_field,
    memory_bars,
    result_table,
    table_unit,
)
from assistant.app.widgets.memory_bar import render_bar
from tests.app_fakes import LLAMA_8B_BF16_WEIGHT_BYTES, MEMORY_RESULT
from tools.errors import ToolInputError


def test_byte_fields_in_any_unit_spelling() -> None:
    assert byte_field({"headroom_GB": 1.5}, "headroom") == 1.5e9
    assert byte_field({"headroom_bytes": 7}, "headroom") == 7
    assert byte_field({"usable_bytes_per_gpu": 2**30}, "usable_per_gpu") == 2**30
    assert byte_field({"usable_GiB": 2}, "usable") == 2 * 2**30
    # A rate is not a size: GB/s must not be read as GB.
    assert byte_field({"memory_bandwidth_GB_per_s": 3350}, "memory_bandwidth") is None


def test_one_unit_per_table_matching_the_answer() -> None:
    # Drawn alone, a card takes the tool's unit: the registry reports GB (never GB next to GiB).
    assert table_unit(MEMORY_RESULT) == "GB"
    rows = dict(result_table(MEMORY_RESULT).rows)
    # 16,060,522,496 bytes = 16.06 GB; 2 GiB = 2,147,483,648 bytes = 2.15 GB; 24e9 = 24.00 GB.
    assert rows["weights"] == "16.06 GB"
    assert rows["KV cache"] == "2.15 GB"
    assert rows["usable per GPU"] == "24.00 GB"
    # Beside an offline answer (GiB) the same result is in GiB throughout: 16,060,522,496 /
    # 2^30 = 14.96; 24e9 / 2^30 = 22.35; headroom 5,791,993,856 / 2^30 = 5.39.
    assert answer_unit("offline") == "GiB" and answer_unit("llm") == "GB"
    rows = dict(result_table(MEMORY_RESULT, "GiB").rows)
    assert (rows["weights"], rows["KV cache"]) == ("14.96 GiB", "2.00 GiB")
    assert (rows["usable per GPU"], rows["headroom per GPU"]) == ("22.35 GiB", "5.39 GiB")
    assert table_unit({"per_gpu_bytes": 2**30}) == "GiB"
    assert dict(result_table({"per_gpu_bytes": 2**30}).rows) == {"per GPU": "1.00 GiB"}


def test_option_lists_become_columns_with_the_unit_in_the_header() -> None:
    result = {
        "options": [
            {"gpu": "h200-sxm", "count": 1, "per_gpu_GB": 86.5, "fits": True},
            {"gpu": "l40s", "count": 4, "per_gpu_GB": 30.25, "fits": False},
        ]
    }
    table = result_table(result)
    # Labelled, in the order a reader compares them: the GPU, how many, the fit, the figure.
    assert table.columns == ("GPU", "GPUs", "fits", "per GPU (GB)")
    assert table.rows == (("h200-sxm", "1", "yes", "86.50"), ("l40s", "4", "no", "30.25"))
    assert table.to_markdown().splitlines()[1] == "|---|---|---|---|"


def test_long_prose_lists_stay_out_of_the_table() -> None:
    # The answer and the session hold the assumptions; a card has no "assumptions: 2 items".
    rows = dict(result_table({"assumptions": ["x" * 50, "y" * 50], "gpus": ["a", "b"]}).rows)
    assert rows == {"GPUs": "a, b"}


def test_memory_bar_reads_breakdown_and_reported_headroom() -> None:
    (bar,) = memory_bars(MEMORY_RESULT)
    assert bar.label == "1× L4"
    assert bar.components == (
        ("weights", float(LLAMA_8B_BF16_WEIGHT_BYTES)),
        ("kv_cache", float(2 * 2**30)),
    )
    assert bar.capacity_bytes == 24e9 and bar.capacity_label == "usable"
    text = render_bar(bar, 80).plain
    # 16,060,522,496 B / 2^30 = 14.96 GiB → "15.0"; 24e9 B = 22.35 GiB; 5,791,993,856 B = 5.39 GiB.
    assert "weights 15.0" in text and "KV cache 2.0 GiB" in text
    assert "/ 22.4 GiB usable, 5.4 GiB free" in text


def test_overflow_is_drawn_past_the_capacity_mark_in_red() -> None:
    # 90 GiB needed against a 60 GiB budget: the bar spans 90 GiB, capacity at 2/3 of it.
    bar = MemoryBarData(
        label="1× X",
        components=(("weights", 90 * 2**30),),
        capacity_bytes=60 * 2**30,
        capacity_label="budget",
        headroom_bytes=-30 * 2**30,
    )
    text = render_bar(bar, 15 + 30)  # 30 bar cells after the 14-char label and a space
    red = [span for span in text.spans if span.style == "red"]
    assert sum(span.end - span.start for span in red) == 10  # the last third of 30 cells
    assert "over by 30.0 GiB" in text.plain


def test_option_without_breakdown_is_drawn_as_one_segment_against_budget() -> None:
    option = {"gpu": "h100-sxm", "count": 2, "per_gpu_GB": 80.0, "budget_bytes_per_gpu": 76e9}
    (bar,) = memory_bars({"options": [option]})
    assert bar.label == "2× H100 SXM5"  # the catalog's name for h100-sxm
    assert bar.components == (("needed", 80e9),)
    assert bar.capacity_label == "budget" and bar.headroom_bytes is None


def test_unknown_slash_command_names_the_closest() -> None:
    with pytest.raises(ToolInputError) as info:
        parse_slash("/modle qwen3")
    assert info.value.field == "command"
    assert "/model" in info.value.suggestions
    command, argument = parse_slash("/model  qwen3-32b ")
    assert command.name == "model" and argument == "qwen3-32b"
