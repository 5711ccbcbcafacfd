"""Adapter to the offline parser: the calls a request clearly needs, with what arguments.

The pre-computation is one `size` call (`tools.sizing`: memory for each configuration named,
the recommender, costs and the follow-ups — exactly what the offline engine runs), plus the
llama.cpp / Ollama plans for local-serving questions. Used before the first model call (so a
typical question needs one round trip) and as the fallback when an endpoint has no tools or the
model ignores them. `assistant.offline` is imported lazily; when it is missing the planner plans
nothing and the model calls the tools itself.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import Any

from assistant.conversation import Conversation

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
    Any failure of the parser (missing module, unparseable text) means "nothing planned": the
    model is still offered the tools, so a parser gap never blocks an answer.
    """
    try:
        parser = importlib.import_module("assistant.offline.parser")
        planner = importlib.import_module("assistant.offline.planner")
        stored = importlib.import_module("assistant.reading.parsed")
        parsed = parser.parse_workload(user_text, stored.previous_workload(conversation))
        planned = planner.plan_tool_calls(parsed)
    except Exception:
        return []
    last = conversation.messages[-1] if conversation.messages else {}
    if last.get("role") == "user" and (planned or parsed.questions):
        last[stored.WORKLOAD_KEY] = parsed.model_dump(mode="json", exclude_defaults=True)
    out: list[tuple[str, dict[str, Any]]] = []
    for call in planned or []:
        name = getattr(call, "name", None)
        arguments = getattr(call, "arguments", None)
        if isinstance(name, str) and isinstance(arguments, dict):
            out.append((name, arguments))
    return out


def default_reading_calls(parsed: Any) -> tuple[list[tuple[str, dict[str, Any]]], list[str]]:
    """On a clarifying turn (the parser asks a question first): the calls of its default
    reading — the workload without what is in doubt (`offline.planner.default_reading`) — and
    how it was read, so LLM mode shows that reading's figures before the question, as the
    offline answer does. Nothing when the parser has no default reading."""
    try:
        planner = importlib.import_module("assistant.offline.planner")
        reading = planner.default_reading(parsed)
        if reading is None:
            return [], []
        calls = planner.plan_tool_calls(reading.workload)
    except Exception:
        return [], []
    out = [
        (c.name, c.arguments)
        for c in calls
        if isinstance(getattr(c, "name", None), str) and isinstance(c.arguments, dict)
    ]
    return out, list(reading.readings)
