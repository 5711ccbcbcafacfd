"""MCP results an agent can take (issue 28, point 7): every tool's default result is under
20,000 characters on the parity workloads (tests/test_parity.py), the whole result one
explicit argument away, and what the compact one holds is the report's own.

A full `size` report is 30,000-2,200,000 characters of JSON on these workloads (the
recommender's every option, every price row); coding agents refuse or cut tool results past
~25,000 tokens. The results here are built by `assistant.mcp.server.call_result`, the function
the server answers `tools/call` with (the subprocess client test is tests/test_mcp_server.py).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from assistant.mcp.compact import MAX_DEFAULT_CHARS
from assistant.mcp.server import call_result
from assistant.offline.parser import parse_workload
from assistant.offline.planner import sizing_arguments
from assistant.registry import ToolOutcome, default_registry
from tests.test_parity import CASES, Case
from tools.sizing import SizingReport


def _chars(outcome: ToolOutcome, full: bool = False) -> int:
    """What an agent receives: the structured content and the text, as JSON on the wire."""
    result = call_result(outcome, full)
    return len(json.dumps(result.structured_content, ensure_ascii=False)) + sum(
        len(c.text) for c in result.content
    )


def _calls(report: SizingReport) -> dict[str, dict[str, Any]]:
    """The other tools asked about the same workload, as an agent would after `size`."""
    workload = report.request.workload.model_dump(mode="json", exclude_defaults=True)
    memory = {k: workload[k] for k in ("model", "weights", "context", "task") if k in workload}
    head = report.headline
    calls: dict[str, dict[str, Any]] = {
        "recommend": workload,
        "estimate_memory": memory if head is None else {**memory, "gpu": head.option.gpu},
        "plan_local_serving": {"model": workload["model"], "gpu": "rtx-4090"},
        "find_model": {"name": workload["model"]},
        "list_models": {},
        "list_gpus": {},
    }
    if head is not None:
        calls["find_gpu"] = {"name": head.option.gpu}
        option: dict[str, Any] = {"gpu": head.option.gpu, "count": head.option.count}
        if head.option.aggregate_tokens_per_s:
            option["aggregate_tokens_per_s"] = head.option.aggregate_tokens_per_s
        calls["compare_costs"] = {"options": [option], "model_id": report.model_id}
    return calls


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_every_tools_default_result_is_under_the_limit(case: Case) -> None:
    registry = default_registry()
    outcome = registry.call("size", sizing_arguments(parse_workload(case.question)))
    assert not outcome.is_error, outcome.value
    report = outcome.value
    assert isinstance(report, SizingReport)
    sizes = {"size": _chars(outcome)}
    for tool, arguments in _calls(report).items():
        other = registry.call(tool, arguments)
        assert not other.is_error, (tool, other.value)
        sizes[tool] = _chars(other)
    over = {tool: chars for tool, chars in sizes.items() if chars >= MAX_DEFAULT_CHARS}
    assert not over, over


def test_the_compact_report_is_the_reports_own_reading_verdict_options_and_costs() -> None:
    registry = default_registry()
    arguments = {"workload": {"model": "llama-3.1-70b", "users": 40, "context": 16384}}
    outcome = registry.call("size", arguments)
    report = outcome.value
    assert isinstance(report, SizingReport) and report.headline is not None
    compact = call_result(outcome).structured_content
    assert compact is not None
    # The reading: what was asked, defaults the sizing filled in stated too (3,072-token
    # prompts and 1,024-token answers are the workload's defaults).
    assert compact["reading"]["model"] == "llama-3.1-70b"
    assert (compact["reading"]["users"], compact["reading"]["context"]) == (40, 16384)
    assert compact["reading"]["prompt_tokens"] == 3072
    # The verdict every surface leads with, and the headline option with its price.
    assert compact["verdict"][0].startswith("Cheapest priced option that fits")
    head = report.headline.option
    assert (compact["headline"]["gpu"], compact["headline"]["count"]) == (head.gpu, head.count)
    assert report.headline.price is not None
    assert compact["headline"]["price"]["usd_per_hour"] == pytest.approx(
        report.headline.price.usd_per_hour, rel=1e-5
    )
    assert "cheapest_by_tier" in compact and "best_options" in compact
    # The whole report is one argument away, and it is the registry's result.
    full = call_result(outcome, full=True).structured_content
    assert full == outcome.result and _chars(outcome, full=True) > 10 * _chars(outcome)


async def test_detail_full_and_a_bad_detail_over_the_protocol() -> None:
    from mcp import Client

    from assistant.mcp.server import build_server

    async with Client(build_server()) as client:
        arguments = {"model": "llama-3.1-8b", "users": 4}
        summary = await client.call_tool("recommend", arguments)
        full = await client.call_tool("recommend", {**arguments, "detail": "full"})
        assert not summary.is_error and not full.is_error
        assert "full_result" in (summary.structured_content or {})
        assert "options" in (full.structured_content or {})
        bad = await client.call_tool("recommend", {**arguments, "detail": "everything"})
        assert bad.is_error and (bad.structured_content or {})["field"] == "detail"
        # Tools whose results are always small take no `detail`: it is an unknown field.
        lookup = await client.call_tool("find_gpu", {"name": "H100", "detail": "full"})
        assert lookup.is_error and "detail" in lookup.content[0].text  # type: ignore[union-attr]


def test_errors_list_only_the_fields_the_schema_offers() -> None:
    from assistant.schemas import compact_schema

    registry = default_registry()
    for name, spec in registry.specs.items():
        offered = set(compact_schema(spec.input_model, hidden=spec.hidden)["properties"])
        outcome = registry.call(name, {"__not_a_field__": 1})
        listed = set(outcome.value.allowed_fields or [])  # type: ignore[attr-defined]
        assert listed and listed <= offered, (name, sorted(listed - offered))
    # e.g. plan_local_serving hides config_path, engine, gpus and the bandwidths (a model
    # never names a local file; the rest have defaults the plan states).
    local = registry.call("plan_local_serving", {"colour": "red"}).value
    assert "config_path" not in (local.allowed_fields or [])  # type: ignore[attr-defined]
