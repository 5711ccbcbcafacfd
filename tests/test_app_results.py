"""Tool result → card table and memory bar: unit handling and overflow drawing.

Values are hand calculations written out here (GB = 10^9 bytes, GiB = 2^30 bytes).
"""

from __future__ import annotations

import pytest

from assistant.app.commands import parse_slash
from assistant.app.results import MemoryBarData, answer_unit, card_view, option_bar
from assistant.app.widgets.memory_bar import render_bar
from assistant.results import LegacyResult, ToolError
from tests.app_fakes import LLAMA_8B_BF16_WEIGHT_BYTES, MEMORY_RESULT
from tools.errors import ToolInputError
from tools.recommend import recommend
from tools.workload import Workload


def test_memory_card_is_in_one_unit_gib() -> None:
    # Issue 33: GiB on every card (as every CLI table), in either engine mode.
    assert answer_unit("offline") == answer_unit("llm") == "GiB"
    rows = dict(card_view(MEMORY_RESULT).table.rows)
    # 16,060,522,496 / 2^30 = 14.96; 2 GiB; 24e9 / 2^30 = 22.35; headroom 5,791,993,856 / 2^30
    # = 5.39.
    assert (rows["weights"], rows["KV cache"]) == ("14.96 GiB", "2.00 GiB")
    assert (rows["usable per GPU"], rows["headroom per GPU"]) == ("22.35 GiB", "5.39 GiB")
    assert rows["fits"] == "yes" and not any(v.endswith(" GB") for v in rows.values())
    # GB on request is GB throughout: 16,060,522,496 B = 16.06 GB; 24e9 = 24.00 GB.
    rows = dict(card_view(MEMORY_RESULT, "GB").table.rows)
    assert (rows["weights"], rows["usable per GPU"]) == ("16.06 GB", "24.00 GB")
    assert not any("GiB" in value for value in rows.values())


def test_recommendation_card_lists_options_with_the_unit_in_the_header() -> None:
    rec = recommend(Workload(model="llama-3.1-8b", constraints={"only_gpus": ["l4", "h100-sxm"]}))
    view = card_view(rec)
    assert "per GPU (GiB)" in view.table.columns
    assert [row[0] for row in view.table.rows] == [o.gpu for o in rec.options]
    assert view.table.columns[:2] == ("GPU", "GPUs")  # labels in words, not field names
    first = rec.options[0]
    cells = dict(zip(view.table.columns, view.table.rows[0], strict=True))
    assert cells["per GPU (GiB)"] == f"{first.per_gpu_bytes / 2**30:,.2f}"
    assert cells["TP×PP×DP"] == f"{first.tp}×{first.pp}×{first.dp}"
    assert view.table.to_markdown().splitlines()[1] == "|" + "---|" * len(view.table.columns)
    assert len(view.bars) == len(rec.options)


def test_a_gpu_card_quotes_the_datasheet_label_and_says_why_usable_differs() -> None:
    from assistant.lookups import FindGpuInput, find_gpu

    view = card_view(find_gpu(FindGpuInput(name="h100")))
    rows = dict(view.table.rows)
    # NVIDIA H100 SXM5 datasheet: "80GB HBM3", 3.35 TB/s; usable 81,559 MiB = 79.65 GiB.
    assert rows["memory (datasheet)"] == "80 GB" and rows["usable memory"] == "79.65 GiB"
    assert rows["memory bandwidth (datasheet)"] == "3,350 GB/s"
    assert any("not a byte count" in line for line in view.lines)


def test_memory_bar_reads_breakdown_and_reported_headroom() -> None:
    (bar,) = card_view(MEMORY_RESULT).bars
    assert bar.label == "1× L4"
    assert bar.components == (
        ("weights", float(LLAMA_8B_BF16_WEIGHT_BYTES)),
        ("kv_cache", float(2 * 2**30)),
    )
    assert bar.capacity_bytes == 24e9 and bar.capacity_label == "usable"
    text = render_bar(bar, 80).plain
    # 16,060,522,496 B / 2^30 = 14.96 GiB → "15.0"; 24e9 B = 22.35 GiB; 5,791,993,856 B = 5.39 GiB.
    assert "weights 15.0" in text and "KV cache 2.0 GiB" in text
    usable_gib = 24e9 / 2**30  # 22.35 → "22.4"
    free_gib = (24e9 - LLAMA_8B_BF16_WEIGHT_BYTES - 2 * 2**30) / 2**30  # 5.39 → "5.4"
    assert f"/ {usable_gib:.1f} GiB usable, {free_gib:.1f} GiB free" in text


def test_errors_and_unreadable_results_are_shown_as_such() -> None:
    error = card_view(ToolError(error="is not in the catalog", field="gpu"))
    assert error.error == "gpu: is not in the catalog" and not error.table.rows
    legacy = card_view(LegacyResult(tool="recommend", data={}, notice="saved by another version"))
    assert legacy.notice == "saved by another version" and legacy.error is None


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


def test_option_is_drawn_as_one_segment_against_its_budget() -> None:
    rec = recommend(Workload(model="llama-3.1-70b", constraints={"only_gpus": ["h100-sxm"]}))
    option = rec.options[0]
    bar = option_bar(option)
    assert bar.label == f"{option.count}× H100 SXM5"  # the catalog's name for h100-sxm
    assert bar.components == (("needed", float(option.per_gpu_bytes)),)
    assert bar.capacity_label == "budget"
    assert bar.capacity_bytes == option.budget_bytes_per_gpu
    assert bar.headroom_bytes == option.headroom_bytes


def test_unknown_slash_command_names_the_closest() -> None:
    with pytest.raises(ToolInputError) as info:
        parse_slash("/modle qwen3")
    assert info.value.field == "command"
    assert "/model" in info.value.suggestions
    command, argument = parse_slash("/model  qwen3-32b ")
    assert command.name == "model" and argument == "qwen3-32b"
