"""The engine part (issue 30 item 5) on every surface: `ask --json`, the MCP text, the app's
cards, the proposal, and the `plan_engine` tool in the registry (MCP lists every spec)."""

from __future__ import annotations

import json

import pytest

from assistant.app.results import card_view
from assistant.cli import main
from assistant.mcp.text import render_result
from assistant.proposal.page_one import recommendation_blocks
from assistant.registry import default_registry
from tools.deployment import EnginePlan
from tools.sizing import SizingReport, SizingRequest, size

QUESTION = "How do I launch Llama 3.1 8B with SGLang on an H100 for 16 users?"


def _report() -> SizingReport:
    return size(
        SizingRequest.model_validate(
            {
                "workload": {"model": "llama-3.1-8b", "users": 16, "context": 8192},
                "configurations": [{"gpu": "h100-sxm"}],
                "serve_engine": "sglang",
            }
        )
    )


def test_ask_json_carries_the_engine_plan(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "--offline", "--json", QUESTION]) == 0
    out = json.loads(capsys.readouterr().out)
    plan = out["sizing"]["engine_plan"]
    assert plan["engine"] == "sglang"
    assert plan["command"].startswith("python -m sglang.launch_server --model-path ")
    assert "sglang.launch_server" in out["answer"]


def test_mcp_text_and_cards_show_the_command() -> None:
    report = _report()
    assert report.engine_plan is not None
    command = report.engine_plan.command
    assert command in render_result(report)
    assert f"launch: {command}" in card_view(report).lines


def test_proposal_names_the_launch_line() -> None:
    report = _report()
    text = " ".join(getattr(b, "text", "") for b in recommendation_blocks(report))
    assert "--mem-fraction-static 0.88" in text  # SGLang's TP-1 default (its 2024 rule)


def test_plan_engine_is_a_registered_tool() -> None:
    registry = default_registry()
    assert "plan_engine" in registry.specs and not registry.specs["plan_engine"].offered
    out = registry.call(
        "plan_engine",
        {"model": "llama-3.1-8b", "gpu": "h100-sxm", "serve_engine": "tensorrt-llm", "tp": 1},
    )
    assert not out.is_error and isinstance(out.value, EnginePlan)
    assert out.value.command.startswith("trtllm-serve ")
    assert "trtllm-serve" in render_result(out.value)
    assert any("trtllm-serve" in line for line in card_view(out.value).lines)
    bad = registry.call("plan_engine", {"model": "llama-3.1-8b", "gpu": "h100-sxm"})
    assert bad.is_error and "serve_engine" in json.dumps(bad.result)


def test_the_model_reads_the_deployment_parts() -> None:
    from assistant.wire import summarize_report

    report = _report()
    assert report.engine_plan is not None
    summary = summarize_report(report)
    assert summary["engine_plan"]["command"] == report.engine_plan.command
    # Nothing asked, nothing added to what the model reads.
    plain = size(SizingRequest.model_validate({"workload": {"model": "llama-3.1-8b"}}))
    assert not {"engine_plan", "buy_vs_rent", "speedups"} & set(summarize_report(plain))


def test_the_llm_verdict_states_the_launch_line() -> None:
    from assistant.llm.verdict import _report_lines

    report = _report()
    assert report.engine_plan is not None
    assert report.engine_plan.command in "\n".join(_report_lines(report))
