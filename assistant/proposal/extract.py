"""Collect what a proposal is built from: the latest memory, recommend and cost results, typed.

Results are loaded by `assistant.results` (the one reader of stored tool output). Failed calls
are skipped: a proposal quotes only calculations that succeeded. "Latest" means the last
successful call of that tool; for the memory tool, every successful call of the last turn that
made one (one per configuration the user named).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from assistant.conversation import WORKLOAD_KEY, Conversation
from assistant.results import LegacyResult, StoredCall, stored_calls
from tools.cost import CostComparison
from tools.memory import MemoryEstimate
from tools.recommend import Recommendation

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


def collect(conversation: Conversation) -> ProposalInputs:
    """The latest recommend and cost results and the last turn's memory results."""
    calls = stored_calls(conversation.messages)
    memory = _records(calls, MemoryEstimate)
    recommends = _records(calls, Recommendation)
    costs = _records(calls, CostComparison)
    last_turn = memory[-1].turn if memory else None
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
    return ProposalInputs(
        tuple(r for r in memory if r.turn == last_turn),
        recommends[-1] if recommends else None,
        costs[-1] if costs else None,
        requests,
        tuple(readings),
        notices,
    )
