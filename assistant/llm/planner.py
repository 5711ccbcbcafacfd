"""Adapter to the offline parser: the calls a request clearly needs, with what arguments.

The pre-computation is one `size` call (`tools.sizing`: memory for each configuration named,
the recommender, costs and the follow-ups — exactly what the offline engine runs), plus the
llama.cpp / Ollama plans for local-serving questions. Used before the first model call (so a
typical question needs one round trip) and as the fallback when an endpoint has no tools or the
model ignores them. A parser exception is not caught here: it is a bug, and the engine logs it
as an internal error with the request and tells the user (`assistant.internal_errors`) before
letting the model call the tools itself.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from assistant.conversation import WORKLOAD_KEY, Conversation
from assistant.offline.parser import parse_workload
from assistant.offline.planner import default_reading, plan_tool_calls
from assistant.reading.parsed import previous_workload

PlannedCalls = Sequence[tuple[str, dict[str, Any]]]
Planner = Callable[[str, Conversation], PlannedCalls]


def no_planner(user_text: str, conversation: Conversation) -> PlannedCalls:
    """Plan nothing (the model decides every tool call)."""
    return []


def offline_planner(user_text: str, conversation: Conversation) -> PlannedCalls:
    """Parse `user_text` with the offline parser and return its planned tool calls.

    Follow-ups ("what about 8-bit?") refine the previous turn's workload, as in the offline
    engine: the parsed workload is recorded on this turn's user message under the offline
    engine's key (never sent: requests carry only the API's message keys) — also when nothing
    is planned because a fact is missing, so the reply to the model's clarifying question
    refines it (`followup.is_follow_up`: a previous workload with questions takes the reply).
    Text the parser cannot read plans nothing (the model is still offered the tools); an
    exception is a bug and propagates (the engine logs it and says so).
    """
    parsed = parse_workload(user_text, previous_workload(conversation))
    planned = plan_tool_calls(parsed)
    last = conversation.messages[-1] if conversation.messages else {}
    if last.get("role") == "user" and (planned or parsed.questions):
        last[WORKLOAD_KEY] = parsed.model_dump(mode="json", exclude_defaults=True)
    return [(call.name, call.arguments) for call in planned]


def default_reading_calls(parsed: Any) -> tuple[list[tuple[str, dict[str, Any]]], list[str]]:
    """On a clarifying turn (the parser asks a question first): the calls of its default
    reading — the workload without what is in doubt (`offline.planner.default_reading`) — and
    how it was read, so LLM mode shows that reading's figures before the question, as the
    offline answer does. Nothing when the parser has no default reading."""
    reading = default_reading(parsed)
    if reading is None:
        return [], []
    calls = plan_tool_calls(reading.workload)
    return [(c.name, c.arguments) for c in calls], list(reading.readings)
