"""What an agent gets back from a tool by default: a compact structured result, the full one on
request.

A sizing report in full is ~100,000-2,000,000 characters of JSON (every option the recommender
weighed, every price row, every note), far over what coding agents accept from one tool call
(~25,000 tokens). By default the four tools whose results can be that large — `size`,
`recommend`, `compare_costs`, `estimate_memory` — return the summary the chat's model reads
(`assistant.wire.summary`: the headline with its price and the load $/M is priced at, the
configurations named, the leading options, the cheapest price per tier, the hosted APIs, the
follow-ups), led by how the request was read and the verdict lines every surface leads with;
`detail: "full"` returns the whole result (`DETAIL`). tests/test_mcp_compact.py holds every
tool's default result under `MAX_DEFAULT_CHARS` on the parity workloads.

A sizing report one of whose names was not found (an unknown model, a GPU in
`constraints.only_gpus`) is an error result (`isError`), with the closest catalog names.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from assistant.registry import ToolOutcome
from assistant.results import SCHEMAS, TOOL_RESULTS, ToolError
from assistant.wire import lean, lean_result, summary
from tools.cost import CostComparison
from tools.memory import MemoryEstimate
from tools.recommend import Recommendation
from tools.sizing import SizingReport
from tools.sizing.request import SizingRequest
from tools.sizing.verdict import verdict as verdict_items

DETAIL = "detail"
"""The argument MCP adds to the summarised tools: "summary" (the default) or "full"."""
DETAIL_LEVELS = ("summary", "full")
MAX_DEFAULT_CHARS = 20_000
"""What a default result (structured content and text) must stay under: coding agents refuse
or truncate tool results past ~25,000 tokens (Claude Code's MCP output limit); 20,000
characters is ~6,000 tokens, so a few calls fit one turn."""

_SUMMARISED: tuple[type[BaseModel], ...] = (
    SizingReport,
    Recommendation,
    CostComparison,
    MemoryEstimate,
)

_READING_KEYS = (
    "model",
    "params",
    "task",
    "weights",
    "users",
    "prompt_tokens",
    "output_tokens",
    "context",
    "tokens_per_s",
    "tokens_per_s_per_user",
    "ttft_s",
    "train_tokens",
    "deadline_hours",
    "objective",
)
"""Workload fields a reading always states (defaults included: they are part of it)."""


def summarised(tool: str) -> bool:
    """Whether `tool`'s result is summarised by default (and takes `detail`)."""
    model = SCHEMAS.get(TOOL_RESULTS.get(tool, ""))
    return model is not None and issubclass(model, _SUMMARISED)


def detail_property() -> dict[str, Any]:
    """The JSON schema of `detail`, added to a summarised tool's input schema."""
    return {
        "type": "string",
        "enum": list(DETAIL_LEVELS),
        "default": "summary",
        "description": "summary (default): the reading, the verdict, the leading options and "
        "costs, a few thousand characters; full: the whole result (every option and price "
        "row, up to ~2 MB of JSON).",
    }


def failed_report(report: SizingReport) -> ToolError | None:
    """The error of a report one of whose names was not found (the model, a GPU named or
    allowed, a provider: its error carries the closest names), else None. Whatever else the
    report sized, it is not the answer to the request: the name asked about is not in it."""
    errors = [m.error for m in report.memory if m.error is not None]
    errors += [e for e in (report.recommendation_error, report.costs_error) if e is not None]
    unknown = next((e for e in errors if e.did_you_mean), None)
    if unknown is None:
        return None
    # The recommender and the memory calculator name Workload fields ('model',
    # 'constraints.only_gpus'); the size tool's arguments hold them under `workload`.
    own = unknown.field.split(".", 1)[0] in SizingRequest.model_fields
    field = unknown.field if own else f"workload.{unknown.field}"
    return ToolError(
        error=unknown.problem,
        field=field,
        allowed=unknown.allowed,
        did_you_mean=unknown.did_you_mean,
    )


def reading(report: SizingReport) -> dict[str, Any]:
    """How the request was read: the workload's main fields (defaults included), everything
    else it set, the configurations named and the pricing scope where it is not the default."""
    request = report.request
    workload = request.workload.model_dump(mode="json")
    given = request.workload.model_dump(mode="json", exclude_defaults=True)
    out: dict[str, Any] = {k: workload[k] for k in _READING_KEYS if workload.get(k) is not None}
    out |= {k: v for k, v in given.items() if k not in out}
    if request.configurations:
        out["configurations"] = [
            c.model_dump(mode="json", exclude_defaults=True) for c in request.configurations
        ]
    pricing = request.pricing.model_dump(mode="json", exclude_defaults=True)
    if pricing:
        out["pricing"] = pricing
    return lean(out)  # type: ignore[no-any-return]


def structured(outcome: ToolOutcome, full: bool, verdict: list[str]) -> dict[str, Any]:
    """The structured content of an outcome: the whole lean result when `full` (or for a
    result that is never large), else the compact one (see the module docstring)."""
    value = outcome.value
    short = None if full or not isinstance(value, _SUMMARISED) else summary(value)
    if short is None:
        return outcome.result
    out: dict[str, Any] = {}
    if isinstance(value, SizingReport):
        out["reading"] = reading(value)
    if verdict:
        out["verdict"] = verdict
    if isinstance(value, SizingReport):
        # The typed items the verdict lines word (`tools.sizing.verdict`).
        out["verdict_items"] = verdict_items(value).record()
    out |= short
    out["full_result"] = f'call again with "{DETAIL}": "full" for the whole result'
    return out


def error_structured(error: ToolError) -> dict[str, Any]:
    """An error result's structured content (its lean JSON, as every error)."""
    return lean_result(error)
