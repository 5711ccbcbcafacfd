"""Collect what a proposal is built from: the latest memory, recommend and cost results.

A conversation stores each tool call in an assistant message's `tool_calls` (name, JSON
arguments, id) and its result in the following `{"role": "tool"}` message (compact JSON, matched
by `tool_call_id`). Error results (an `"error"` key) are skipped: a proposal quotes only
calculations that succeeded. "Latest" means the last successful call of that tool; for the memory
tool, every successful call of the last turn that made one (one per configuration the user named).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from assistant.conversation import WORKLOAD_KEY, Conversation

MEMORY_TOOL = "estimate_memory"
RECOMMEND_TOOL = "recommend"
COST_TOOL = "compare_costs"


@dataclass(frozen=True)
class ToolRecord:
    """One successful tool call: its name, arguments as sent, result as stored, and where."""

    name: str
    arguments: dict[str, Any]
    result: dict[str, Any]
    message_index: int
    turn: int
    """Number of user messages before the result (0 = before any user message)."""


@dataclass(frozen=True)
class ProposalInputs:
    """The results a proposal quotes, and the user's requests that led to them."""

    memory: tuple[ToolRecord, ...]
    recommend: ToolRecord | None
    cost: ToolRecord | None
    requests: tuple[str, ...]
    readings: tuple[str, ...] = ()
    """How the user's words were read (the offline parser's notes), when it chose the calls."""

    @property
    def empty(self) -> bool:
        """True when the session holds no memory, recommend or cost result."""
        return not self.memory and self.recommend is None and self.cost is None


def _parse_object(text: Any) -> dict[str, Any] | None:
    if isinstance(text, dict):
        return text
    if not isinstance(text, str):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def tool_records(conversation: Conversation) -> list[ToolRecord]:
    """Every successful tool call in `conversation`, in order, with its parsed arguments."""
    calls: dict[str, tuple[str, dict[str, Any]]] = {}
    records: list[ToolRecord] = []
    turn = 0
    for index, message in enumerate(conversation.messages):
        role = message.get("role")
        if role == "user":
            turn += 1
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            arguments = _parse_object(function.get("arguments") or "{}") or {}
            calls[str(call.get("id"))] = (str(function.get("name", "")), arguments)
        if role != "tool":
            continue
        result = _parse_object(message.get("content"))
        if result is None or "error" in result:
            continue
        name, arguments = calls.get(str(message.get("tool_call_id")), ("", {}))
        name = name or str(message.get("name", ""))
        records.append(ToolRecord(name, arguments, result, index, turn))
    return records


def collect(conversation: Conversation) -> ProposalInputs:
    """The latest recommend and cost results and the last turn's memory results."""
    records = tool_records(conversation)

    def latest(name: str) -> ToolRecord | None:
        found = [r for r in records if r.name == name]
        return found[-1] if found else None

    last_memory = latest(MEMORY_TOOL)
    memory = (
        tuple(r for r in records if r.name == MEMORY_TOOL and r.turn == last_memory.turn)
        if last_memory
        else ()
    )
    requests = tuple(
        str(m.get("content") or "") for m in conversation.messages if m.get("role") == "user"
    )
    readings: dict[str, None] = {}
    for message in conversation.messages:
        workload = message.get(WORKLOAD_KEY)
        if isinstance(workload, dict):
            readings.update(dict.fromkeys(str(n) for n in workload.get("notes", [])))
    return ProposalInputs(
        memory, latest(RECOMMEND_TOOL), latest(COST_TOOL), requests, tuple(readings)
    )
