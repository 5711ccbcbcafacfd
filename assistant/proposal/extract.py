"""Collect what a proposal is built from: the latest sizing report, typed.

Results are loaded by `assistant.results` (the one reader of stored tool output). A session
with a `size` result (both engines make one per question) is quoted from its latest report:
the memory of each configuration named and the recommended layout's breakdown, the
recommendation, the costs and the headline — the option every other surface leads with.
Sessions without one (saved before the report, or a model that called the finer tools only) are
quoted from the latest successful recommend and cost calls and the last turn's memory calls.
Failed calls are skipped: a proposal quotes only calculations that succeeded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from assistant.conversation import WORKLOAD_KEY, Conversation
from assistant.results import LegacyResult, StoredCall, stored_calls
from tools.cost import CostComparison
from tools.memory import MemoryEstimate
from tools.recommend import Option, Recommendation
from tools.sizing import SizingReport

MEMORY_TOOL = "estimate_memory"
RECOMMEND_TOOL = "recommend"
COST_TOOL = "compare_costs"

R = TypeVar("R", bound=BaseModel)


@dataclass(frozen=True)
class ToolRecord(Generic[R]):
    """One successful tool call: its name, arguments as sent, typed result, and where."""

    name: str
    arguments: dict[str, Any]
    result: R
    message_index: int
    turn: int
    """Number of user messages before the result (0 = before any user message)."""


@dataclass(frozen=True)
class ProposalInputs:
    """The results a proposal quotes, and the user's requests that led to them."""

    memory: tuple[ToolRecord[MemoryEstimate], ...]
    recommend: ToolRecord[Recommendation] | None
    cost: ToolRecord[CostComparison] | None
    requests: tuple[str, ...]
    readings: tuple[str, ...] = ()
    """How the user's words were read (the offline parser's notes), when it chose the calls."""
    notices: tuple[str, ...] = ()
    """Stored results that could not be read (saved by another version): what was left out."""
    arguments: tuple[tuple[str, dict[str, Any]], ...] = ()
    """(tool, arguments as sent) of the calls quoted, for the workload section."""
    report: SizingReport | None = None
    """The sizing report quoted, when the session has one."""

    @property
    def headline(self) -> Option | None:
        """The report's headline option (the one every surface leads with), if any."""
        if self.report is None or self.report.headline is None:
            return None
        return self.report.headline.option

    @property
    def empty(self) -> bool:
        """True when the session holds no memory, recommend or cost result."""
        return not self.memory and self.recommend is None and self.cost is None


def _records(calls: list[StoredCall], kind: type[R]) -> list[ToolRecord[R]]:
    return [
        ToolRecord(c.name, c.arguments, c.value, c.message_index, c.turn)
        for c in calls
        if isinstance(c.value, kind)
    ]


def _from_report(call: StoredCall, report: SizingReport) -> dict[str, Any]:
    """The proposal's inputs from one sizing report: the estimates shown (a named one that does
    not fit is left out when the recommended layout on that GPU does), the recommendation and
    the costs."""
    layout = report.layout_breakdown
    shown = [
        m
        for m in report.memory
        if not (layout is not None and layout.fits and m.gpu == layout.gpu and m.fits is False)
    ]
    sized = [*shown, *([layout] if layout is not None else []), *report.zero3_resize]
    memory = tuple(
        ToolRecord("estimate_memory", {}, m.estimate, call.message_index, call.turn)
        for m in sized
        if m.estimate is not None
    )
    rec, cost = report.recommendation, report.costs
    at = (call.message_index, call.turn)
    return {
        "memory": memory,
        "recommend": None if rec is None else ToolRecord("recommend", {}, rec, *at),
        "cost": None if cost is None else ToolRecord("compare_costs", {}, cost, *at),
        "arguments": ((call.name, call.arguments),),
        "report": report,
    }


def collect(conversation: Conversation) -> ProposalInputs:
    """The latest sizing report, else the latest recommend and cost results and the last
    turn's memory results."""
    calls = stored_calls(conversation.messages)
    memory = _records(calls, MemoryEstimate)
    recommends = _records(calls, Recommendation)
    costs = _records(calls, CostComparison)
    last_turn = memory[-1].turn if memory else None
    reports = [c for c in calls if isinstance(c.value, SizingReport)]
    requests = tuple(
        str(m.get("content") or "") for m in conversation.messages if m.get("role") == "user"
    )
    readings: dict[str, None] = {}
    for message in conversation.messages:
        workload = message.get(WORKLOAD_KEY)
        if isinstance(workload, dict):
            readings.update(dict.fromkeys(str(n) for n in workload.get("notes", [])))
    notices = tuple(
        dict.fromkeys(c.value.notice for c in calls if isinstance(c.value, LegacyResult))
    )
    if reports and isinstance(reports[-1].value, SizingReport):
        parts = _from_report(reports[-1], reports[-1].value)
        return ProposalInputs(requests=requests, readings=tuple(readings), notices=notices, **parts)
    shown = tuple(r for r in memory if r.turn == last_turn)
    recommend = recommends[-1] if recommends else None
    quoted: list[tuple[str, dict[str, Any]]] = [(r.name, r.arguments) for r in shown]
    if recommend is not None:
        quoted.append((recommend.name, recommend.arguments))
    return ProposalInputs(
        shown,
        recommend,
        costs[-1] if costs else None,
        requests,
        tuple(readings),
        notices,
        tuple(quoted),
    )
