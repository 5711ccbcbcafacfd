"""`assistant.wire.summarize_report`: what the model reads of a sizing report — the headline's
figures without the table's bookkeeping, two more options at most, the scale-out instead of
the options when the GPUs named do not hold the load, the budget as stated."""

from __future__ import annotations

from assistant.offline.parser import parse_workload
from assistant.offline.planner import sizing_arguments
from assistant.wire import MAX_REJECTED_GPUS, MAX_REPORT_OPTIONS, summarize_report
from tools.sizing import SizingReport, SizingRequest, size


def _report(question: str) -> SizingReport:
    return size(SizingRequest.model_validate(sizing_arguments(parse_workload(question))))


def test_the_headline_leads_with_its_figures_and_two_more_options() -> None:
    summary = summarize_report(_report("serve Llama 3.1 70B in 4-bit to 40 users with 16k context"))
    assert summary["model_id"] == "llama-3.1-70b"
    headline = summary["headline"]
    assert headline["rule"] in ("cheapest", "recommender_first") and headline["reason"]
    # The options table's bookkeeping stays with the user's full result.
    assert not {"notes", "nodes", "fits", "meets_targets"} & set(headline)
    assert {"gpu", "count", "price"} <= set(headline) and headline["price"]["usd_per_hour"] > 0
    assert 1 <= len(summary["best_options"]) <= MAX_REPORT_OPTIONS == 2
    assert all("notes" not in option for option in summary["best_options"])
    assert len(summary.get("more_feasible_gpus", [])) <= MAX_REJECTED_GPUS == 8
    assert "scale_out" not in summary and "notes" in summary
    assert summary["price_load"]["basis"] == "stated_load"  # 40 users stated
    assert None not in summary.values()


def test_a_scale_out_replaces_the_options_and_names_the_gpus_said() -> None:
    summary = summarize_report(_report("can we serve Llama 3.1 70B on 4 A100 40GB for 10 users?"))
    assert summary["headline"]["rule"] == "scale_out"
    assert summary["scale_out"]["named"] == {"gpu": "a100-40gb-sxm4", "count": 4}
    holds = summary["scale_out"]["holds"]
    assert holds["gpu"] == "a100-40gb-sxm4" and holds["count"] > 4
    assert "best_options" not in summary and "nearest_feasible" not in summary


def test_a_budget_is_read_back_as_stated() -> None:
    summary = summarize_report(_report("serve Llama 3.1 8B to 20 users with a $20/hour budget"))
    assert summary["budget_check"]["amount_usd"] == 20.0
    assert summary["budget_check"]["period"] == "hour"
    assert isinstance(summary["budget_check"]["within"], bool)
